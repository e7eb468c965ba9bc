/*
 * ex03 correct alternative — a slice records when it began and compares
 * the time elapsed since then with the budget (rather than the clock with
 * the deadline); it asks "items left?" through a helper, and the callback
 * switches on the slice's outcome.
 */
#include "budget_map.h"

#include "clock.h"

#include <event2/event.h>

enum slice_end { SLICE_MORE, SLICE_ALL_DONE };

static void map_cb(evutil_socket_t fd, short what, void *arg);

int bmap_start(struct bmap *map, struct event_base *base,
	       const struct bmap_job *job)
{
	if (job->budget_ns <= 0 || !job->fn ||
	    (job->n > 0 && (!job->items || !job->results)))
		return -1;
	*map = (struct bmap){ .base = base, .job = *job, .yield = bmap_yield };
	map->ev = event_new(base, -1, 0, map_cb, map);
	if (!map->ev)
		return -1;
	event_active(map->ev, EV_TIMEOUT, 0);
	return 0;
}

static size_t items_left(const struct bmap *map)
{
	return map->job.n - map->next;
}

static enum slice_end one_slice(struct bmap *map)
{
	int64_t began = clock_now_ns();

	map->deadline_ns = began + map->job.budget_ns;
	while (items_left(map) > 0) {
		size_t at = map->next++;

		map->job.results[at] = map->job.fn(map->job.items[at],
						   map->job.arg);
		if (items_left(map) == 0)
			break;
		if (clock_now_ns() - began >= map->job.budget_ns)
			return SLICE_MORE;
	}
	return SLICE_ALL_DONE;
}

static void end_map(struct bmap *map)
{
	struct event *ev = map->ev;

	map->ev = NULL;
	event_free(ev);
	if (map->job.done != NULL)
		map->job.done(map, map->job.arg);
}

static void map_cb(evutil_socket_t fd, short what, void *arg)
{
	struct bmap *map = arg;

	(void)fd;
	(void)what;
	switch (one_slice(map)) {
	case SLICE_MORE:
		if (map->yield(map) == 0)
			break;
		end_map(map);   /* the yield failed: cut short */
		break;
	case SLICE_ALL_DONE:
		end_map(map);
		break;
	}
}
