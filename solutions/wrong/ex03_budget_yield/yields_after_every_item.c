/*
 * ex03 wrong solution — yields after every item, budget or not: fair, but
 * each 3 us item now pays for a whole loop turn.
 * Caught by: cheap_items_share_a_slice_until_the_budget_is_spent
 */
#include "budget_map.h"

#include "clock.h"

#include <event2/event.h>
#include <stdbool.h>

static void map_cb(evutil_socket_t fd, short what, void *arg);

/* ---- provided ------------------------------------------------------------ */

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
	/* Not a yield: the first slice simply joins the loop's next pass. */
	event_active(map->ev, EV_TIMEOUT, 0);
	return 0;
}

/* ---- one slice ----------------------------------------------------------- */

/*
 * Maps items until the slice's budget is spent.  The clock is read after
 * each item: an item is the smallest unit that cannot be split, so a slice
 * is the budget plus at most one item.  @return true when items remain.
 */
static bool run_slice(struct bmap *map)
{
	const struct bmap_job *job = &map->job;

	/* A fresh budget from now: the time the loop spent elsewhere while
	 * we were yielded is not ours to count. */
	map->deadline_ns = clock_now_ns() + job->budget_ns;
	while (map->next < job->n) {
		size_t i = map->next;

		job->results[i] = job->fn(job->items[i], job->arg);
		map->next = i + 1;
		if (map->next < job->n)
			return true;
	}
	return false;
}

static void finish(struct bmap *map)
{
	event_free(map->ev);
	map->ev = NULL;
	if (map->job.done)
		map->job.done(map, map->job.arg);
}

static void map_cb(evutil_socket_t fd, short what, void *arg)
{
	struct bmap *map = arg;

	(void)fd;
	(void)what;
	/* The yield only schedules the next slice; returning is what gives
	 * the loop its turn. */
	if (run_slice(map) && map->yield(map) == 0)
		return;
	finish(map);
}
