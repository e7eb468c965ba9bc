/* ex03 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * The yield of ex01, for the map (it is not this lab's lesson).
 *
 * event_active() alone would run the map again in the same pass, before
 * the loop polls.  event_base_loopcontinue() ends the pass after the map's
 * callback returns: the loop polls, runs what came due, and the map's next
 * slice follows.
 */
#include "budget_map.h"

#include <event2/event.h>

int bmap_yield(struct bmap *map)
{
	if (event_base_loopcontinue(map->base) != 0)
		return -1;
	event_active(map->ev, EV_TIMEOUT, 0);
	return 0;
}
