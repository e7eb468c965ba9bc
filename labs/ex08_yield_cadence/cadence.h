/* ex08 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * cadence: ex07's task (hash an item, start its save, move on), with a
 * dial for how often it yields.
 *
 * The task runs in slices.  A slice is one call of the task's event
 * callback: it notes when it began, then hashes items from t->next on,
 * starting each item's save without waiting (save_client_save).  After
 * an item, when items remain, it asks the cadence whether the slice is
 * over; if so it yields (t->yield) and returns, and the next slice
 * carries on with the next item.
 *
 * The cadence:
 *   every = k > 0   the slice is over after k items: a yield after items
 *                   k, 2k, 3k, ... (counted from 1), never after the last;
 *   every = 0       never: one slice hashes everything;
 *   budget_ns > 0   the slice is over once clock_now_ns() - the slice's
 *                   start >= budget_ns (every is then ignored).
 *
 * Saves only travel while the loop turns, so the cadence decides how
 * much of the I/O hides under the hashing: never yielding leaves every
 * save for after the last hash, where they drain in ceil(n / cap) waves.
 *
 * As in ex07, the task is over when the hashing is over (the event is
 * freed, t->ev == NULL) AND every save has its answer: only then is done
 * called, once.
 *
 * Promise: every = k > 0 yields (t->yield) exactly after items k, 2k, ...
 *   counted from 1 (an item whose hash or save fails counts too), never
 *   after the last item, and the slice returns after its yield.
 *   [tests: every_k_yields_exactly_after_every_kth_item,
 *   a_failed_hash_counts_as_failed_and_the_task_goes_on]
 * Promise: every = 0 never yields: one slice hashes everything, so every
 *   save reaches the server after the last hash and drains in
 *   ceil(n / cap) waves.
 *   [tests: never_does_not_yield_at_all,
 *   never_drains_every_save_after_the_last_hash_in_waves]
 * Promise: budget_ns > 0 ends a slice after the first item at which
 *   clock_now_ns() - the slice's start >= budget_ns, the start being
 *   taken anew at the start of every slice — exactly at the boundary too,
 *   and for the smallest budget, 1 ns (a yield after every item).
 *   [tests: budget_cadence_yields_when_the_budget_is_spent,
 *   budget_is_spent_exactly_at_the_boundary]
 * Promise: with budget_ns > 0, every is ignored.
 *   [tests: every_is_ignored_when_a_budget_is_set]
 * Promise: item i is saved once, under id i, with its own digest, and
 *   done is called exactly once, after the hashing is over and every
 *   save has its answer; the task's event is freed (t->ev == NULL) once
 *   the hashing is over.  cad_start refuses a job of 0 items, a
 *   negative budget, no client or no hasher.
 *   [tests: every_save_is_acknowledged_before_done]
 * Promise: a save that fails (answered with an error, or refused by
 *   save_client_save) and an item whose hash fails count in t->failed,
 *   never in t->acked, nothing is sent again, the task goes on — and done
 *   still comes exactly once: when the last save fails, when every save
 *   is refused, when a hash fails, when the server goes away.
 *   [tests: done_comes_once_when_the_last_save_fails,
 *   done_comes_once_when_every_save_is_refused_at_once,
 *   a_failed_hash_counts_as_failed_and_the_task_goes_on,
 *   the_task_ends_when_the_server_goes_away]
 * Promise: a task keeps its state in *t: two tasks on one loop at once
 *   each yield on their own count and get one done with their own counts,
 *   and a task started again in a finished task's struct starts afresh
 *   (cad_start fills in all of *t).
 *   [tests: two_tasks_on_one_loop_keep_their_own_counts]
 */
#ifndef EX08_CADENCE_H
#define EX08_CADENCE_H

#include "hashwork.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cad_task;
struct event;
struct event_base;
struct save_client;
struct trace;

/* Room for one digest as text: 64 hex digits and a NUL. */
#define CAD_HEX_SIZE (HASHWORK_HEX_LEN + 1)

struct cadence {
	unsigned every;       /* yield after every `every` items; 0: never */
	int64_t budget_ns;    /* > 0: yield once a slice has run this long
				 (clock_now_ns); every is then ignored */
};

/* Called once, on the loop thread, when every save has its answer. */
typedef void (*cad_done_fn)(struct cad_task *t, void *arg);

/* Gives the loop a turn; the task's callback runs again after it. */
typedef void (*cad_yield_fn)(struct cad_task *t);

struct cad_job {
	struct save_client *client;   /* the saves go here (not owned) */
	struct hashwork *hasher;      /* (not owned) */
	size_t n;                     /* items 0 .. n-1 (n >= 1); item i is
					 saved as id i */
	uint64_t links;               /* SHA-256 links per item
					 (hashwork_item_links), from
					 hashwork_calibrate() in the program */
	struct cadence cadence;
	struct trace *trace;          /* may be NULL: cad_hash records "h<i>"
					 when item i's hash is complete */
	cad_done_fn done;             /* may be NULL */
	void *arg;                    /* passed to done */
};

struct cad_task {
	struct event_base *base;
	struct event *ev;             /* the task's event; NULL once the
					 hashing is over */
	struct cad_job job;
	size_t next;                  /* the next item to hash */
	size_t in_slice;              /* items hashed in the current slice */
	int64_t slice_start_ns;       /* clock_now_ns() when it began */
	size_t acked, failed;         /* saves answered: stored / failed (or
					 never queued) */
	cad_yield_fn yield;           /* cad_yield, unless a grader or the
					 program swaps in its own (which calls
					 cad_yield too) */
	/* kept by cad_hash */
	size_t hashed;
	int64_t hash_ns;              /* time spent hashing */
};

/*
 * Fills in *t (owned by the caller; it must outlive the task), creates
 * its event on base and makes it active: the first slice runs in the
 * loop's next pass.  @return 0, or -1 (n == 0, no client or hasher,
 * budget_ns < 0, or out of memory).  (In cadence.c, provided.)
 */
int cad_start(struct cad_task *t, struct event_base *base,
	      const struct cad_job *job);

/* ---- provided (cad_work.c) ----------------------------------------------- */

/*
 * Hashes item i into hex (64 hex digits and a NUL), then records "h<i>"
 * in the job's trace.  Counts t->hashed and t->hash_ns.
 * @return 0, or -1 when libcrypto fails.
 */
int cad_hash(struct cad_task *t, size_t i, char hex[CAD_HEX_SIZE]);

/*
 * ex01's yield: event_base_loopcontinue() ends the loop's pass when the
 * callback returns, and event_active() queues the task's next slice
 * behind whatever the poll finds ready.  It only schedules: the loop gets
 * its turn when your callback returns.
 */
void cad_yield(struct cad_task *t);

#endif
