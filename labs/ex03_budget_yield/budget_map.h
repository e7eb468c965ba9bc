/* ex03 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * budget_map: apply a function to every item of an array on the event loop,
 * giving the loop a turn whenever a time budget of work has passed.
 *
 * The map runs in slices.  A slice is one call of the map's event callback:
 * it notes the time, maps items one after the other, and after each item
 * looks at the clock.  Once budget_ns has passed since the slice began (and
 * items remain), the map yields (ex01's yield, bmap_yield()) and returns;
 * the next slice resumes with the next item and a fresh budget.  So a
 * neighbour on the loop waits about one budget, whatever one item costs:
 * 3 us items give hundreds per slice, 300 us items a handful.
 *
 * All times come from clock_now_ns() (common/lib/clock.h), which a grader may
 * replace by a fake clock.
 */
#ifndef EX03_BUDGET_MAP_H
#define EX03_BUDGET_MAP_H

#include <stddef.h>
#include <stdint.h>

struct bmap;
struct event;
struct event_base;

/* Maps one item to its result (any amount of CPU work). */
typedef int64_t (*bmap_fn)(int64_t item, void *arg);

/* Called once, on the loop thread, after the last item was mapped. */
typedef void (*bmap_done_fn)(struct bmap *map, void *arg);

/* Gives the loop a turn.  @return 0, or -1 on failure. */
typedef int (*bmap_yield_fn)(struct bmap *map);

/* What to map; the caller owns both arrays, which must outlive the map. */
struct bmap_job {
	const int64_t *items;   /* n items (may be NULL when n == 0) */
	int64_t *results;       /* n slots: results[i] = fn(items[i], arg) */
	size_t n;
	bmap_fn fn;
	bmap_done_fn done;      /* may be NULL */
	void *arg;              /* passed to fn and done */
	int64_t budget_ns;      /* > 0: work per slice before a yield */
};

struct bmap {
	struct event_base *base;
	struct event *ev;       /* the map's own event; NULL once finished */
	struct bmap_job job;
	size_t next;            /* index of the next item to map */
	int64_t deadline_ns;    /* clock_now_ns() time the current slice ends */
	bmap_yield_fn yield;    /* bmap_yield, unless a grader or the program
				   swaps in its own (it calls bmap_yield too) */
};

/*
 * Fills in *map (owned by the caller; it must outlive the map), creates its
 * event on base and makes it active: the first slice runs in the loop's
 * next pass.  Each slice starts with deadline_ns = clock_now_ns() +
 * budget_ns, maps items in order and, after an item, when items remain and
 * clock_now_ns() >= deadline_ns, calls map->yield(map) and returns.  After
 * the last item the map frees its event, sets map->ev to NULL and calls
 * done.  If a yield fails the map finishes early (map->next < n).
 * @return 0, or -1 (bad job: budget_ns <= 0, fn NULL, or no arrays for
 * n > 0; or out of memory: its event cannot be made).
 *
 * Promise: bmap_start maps nothing itself (the first slice runs in the
 * loop's next pass) and returns -1, leaving no event, for a bad job and
 * when its event cannot be made; the edges of a good job (a budget of
 * 1 ns; n = 0 with NULL arrays) are accepted and finish with done.
 *   [tests: start_maps_nothing_and_refuses_bad_jobs]
 * Promise: every item is mapped exactly once, in order, results[i] =
 * fn(items[i], arg), whether the map yields between items or not.
 *   [tests: every_item_is_mapped_once_in_order_across_yields]
 * Promise: a slice yields after an item exactly when items remain and
 * clock_now_ns() >= deadline_ns: not before the budget is spent, never
 * by counting items, and `>=`: an item ending exactly at the deadline
 * ends the slice.
 *   [tests: cheap_items_share_a_slice_until_the_budget_is_spent,
 *    yields_follow_elapsed_time_not_an_item_count,
 *    an_item_ending_exactly_at_the_deadline_yields]
 * Promise: every slice gets a fresh budget: the time the loop spends
 * elsewhere while the map is yielded is not charged to the map.
 *   [tests: every_slice_gets_a_fresh_budget]
 * Promise: map->deadline_ns holds the current slice's deadline (the clock
 * when the slice began + budget_ns) while its items run.
 *   [tests: map_deadline_ns_is_the_current_slice_end]
 * Promise: an item costing more than the whole budget is still mapped: a
 * slice maps at least one item, so such items go one per slice.
 *   [tests: items_dearer_than_the_budget_go_one_per_slice]
 * Promise: no yield after the last item: the map finishes in the slice
 * that mapped it.
 *   [tests: no_yield_after_the_last_item]
 * Promise: a neighbour on the loop waits about one budget (plus an item),
 * whatever one item costs: the map returns to the loop after each yield.
 *   [tests: heartbeat_stays_near_the_budget_with_3us_items,
 *    heartbeat_stays_near_the_budget_with_300us_items]
 * Promise: at the end the event is freed (not only deleted), map->ev is
 * NULL, nothing stays active on the base, and done is called once.
 *   [tests: map_frees_its_event_and_the_loop_ends_by_itself]
 * Promise: done may be NULL.
 *   [tests: a_map_without_done_finishes_quietly]
 * Promise: done runs after the event is freed and map->ev set to NULL, and
 * the map touches *map no more after done returns: done may start the
 * same struct bmap again (bmap_start) or free it.
 *   [tests: done_may_restart_the_map_it_was_called_for]
 * Promise: a yield that fails (map->yield returns -1; it scheduled
 * nothing) finishes the map at once as after its last item: no further
 * item is mapped, the event is freed, map->ev is NULL and done is called
 * once, with map->next < n telling done the map was cut short.
 *   [tests: a_failed_yield_finishes_the_map_early]
 */
int bmap_start(struct bmap *map, struct event_base *base,
	       const struct bmap_job *job);

/*
 * ex01's yield: the map's next slice runs after the loop has polled for
 * I/O and run the timers that came due.  (Provided, in bmap_yield.c.)
 * @return 0, or -1 on failure.
 */
int bmap_yield(struct bmap *map);

#endif
