/*
 * ex03 correct alternative — the budget is checked at the top of the loop,
 * before an item, rather than after it; a flag makes sure every slice maps
 * at least one item.  One callback, no helper returning a bool.
 */
#include "budget_map.h"

#include "clock.h"

#include <event2/event.h>
#include <stdbool.h>

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

static void map_cb(evutil_socket_t fd, short what, void *arg)
{
	struct bmap *map = arg;
	bool mapped_one = false;
	bmap_done_fn done = map->job.done;
	void *done_arg = map->job.arg;

	(void)fd;
	(void)what;
	map->deadline_ns = clock_now_ns() + map->job.budget_ns;
	for (; map->next < map->job.n; map->next++) {
		/* Before item k (k > first of the slice) is the same point as
		 * after item k - 1 with items remaining. */
		if (mapped_one && clock_now_ns() >= map->deadline_ns) {
			if (map->yield(map) == 0)
				return;
			break;
		}
		map->job.results[map->next] =
			map->job.fn(map->job.items[map->next], map->job.arg);
		mapped_one = true;
	}
	event_free(map->ev);
	map->ev = NULL;
	if (done)
		done(map, done_arg);
}
