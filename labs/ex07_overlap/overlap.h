/* ex07 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * overlap: hash items on the event loop and let each save travel while
 * the next item is hashed.
 *
 * The task is one event whose callback hashes ONE item, starts that
 * item's save (save_client_save: queued, never waited for) and yields.
 * The yield ends the loop's pass: the loop polls, so the save client can
 * write the request that was just queued and read the answers that came
 * in, and then the task's next callback hashes the next item.  The CPU
 * never waits for the server, and the server never waits for the CPU:
 * the run costs the hashing plus about one save.
 *
 * Two ends: the hashing ends after the last item (the task frees its
 * event), and the task ends when the last save has its answer — only then
 * is done called.  A task that reports done earlier reports saves that
 * may still be lost.
 *
 * Promise: each callback hashes one item, queues its save at once (never
 *   waiting for it) and yields with t->yield if items remain — no yield
 *   after the last item: the trace is h0 s0 | h1 s1 | ... | h<n-1> s<n-1>.
 *   An item whose hash or save fails has its callback and yield too.
 *   [tests: each_item_is_hashed_saved_and_yielded_in_its_own_callback,
 *   a_failed_hash_counts_as_failed_and_the_task_goes_on,
 *   done_comes_once_when_every_save_is_refused_at_once]
 * Promise: the overlap holds for the whole run: saves reach the server
 *   while the hashing goes on, a few items after their hash, and the
 *   hashing never waits for a save's answer.
 *   [tests: saves_reach_the_server_while_the_hashing_goes_on,
 *   hashing_does_not_wait_for_each_save]
 * Promise: item i is saved once, under id i, with ovl_hash's digest of i.
 *   [tests: every_item_is_saved_once_with_its_digest]
 * Promise: after the last item the task frees its event (t->ev == NULL)
 *   and leaves nothing active on the base; ovl_start refuses a job of 0
 *   items, or with no client or no hasher (-1, nothing scheduled).
 *   [tests: hashing_ends_by_freeing_the_task_event]
 * Promise: done is called exactly once, when the hashing is over and
 *   every save has its answer — also when the last save fails, when
 *   every save is refused by save_client_save, when a hash fails, and
 *   when the server goes away.
 *   [tests: done_comes_only_after_every_save_is_acknowledged,
 *   done_comes_once_when_the_last_save_fails,
 *   done_comes_once_when_every_save_is_refused_at_once,
 *   a_failed_hash_counts_as_failed_and_the_task_goes_on,
 *   the_task_ends_when_the_server_goes_away]
 * Promise: a save that fails (answered with an error, or refused by
 *   save_client_save) and an item whose hash fails count in t->failed,
 *   never in t->acked; nothing is sent again; the task goes on with the
 *   next item.
 *   [tests: done_comes_once_when_the_last_save_fails,
 *   done_comes_once_when_every_save_is_refused_at_once,
 *   a_failed_hash_counts_as_failed_and_the_task_goes_on,
 *   the_task_ends_when_the_server_goes_away]
 * Promise: a task keeps its state in *t: two tasks on one loop, at once or
 *   one after the other, each hash their own items and get one done with
 *   their own counts.
 *   [tests: two_tasks_on_one_loop_keep_their_own_counts]
 */
#ifndef EX07_OVERLAP_H
#define EX07_OVERLAP_H

#include "hashwork.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event;
struct event_base;
struct ovl_task;
struct save_client;
struct trace;

/* Room for one digest as text: 64 hex digits and a NUL. */
#define OVL_HEX_SIZE (HASHWORK_HEX_LEN + 1)

/* Called once, on the loop thread, when every save has its answer. */
typedef void (*ovl_done_fn)(struct ovl_task *t, void *arg);

/* Gives the loop a turn; the task's callback runs again after it. */
typedef void (*ovl_yield_fn)(struct ovl_task *t);

struct ovl_job {
	struct save_client *client;   /* the saves go here (not owned) */
	struct hashwork *hasher;      /* (not owned) */
	size_t n;                     /* items 0 .. n-1 (n >= 1); item i is
					 saved as id i */
	uint64_t links;               /* SHA-256 links per item
					 (hashwork_item_links), from
					 hashwork_calibrate() in the program */
	struct trace *trace;          /* may be NULL: ovl_hash records "h<i>"
					 when item i's hash is complete */
	ovl_done_fn done;             /* may be NULL */
	void *arg;                    /* passed to done */
};

struct ovl_task {
	struct event_base *base;
	struct event *ev;             /* the task's event; NULL once the
					 hashing is over */
	struct ovl_job job;
	size_t next;                  /* the next item to hash */
	size_t acked, failed;         /* saves answered: stored / failed (or
					 never queued) */
	ovl_yield_fn yield;           /* ovl_yield, unless a grader or the
					 program swaps in its own (which calls
					 ovl_yield too) */
	/* kept by ovl_hash */
	size_t hashed;
	int64_t hash_ns;              /* time spent hashing */
};

/*
 * Fills in *t (owned by the caller; it must outlive the task), creates
 * its event on base and makes it active: the first item is hashed in the
 * loop's next pass.  @return 0, or -1 (n == 0, no client or hasher, or
 * out of memory).  (In overlap.c, provided.)
 */
int ovl_start(struct ovl_task *t, struct event_base *base,
	      const struct ovl_job *job);

/* ---- provided (ovl_work.c) ----------------------------------------------- */

/*
 * Hashes item i into hex (64 hex digits and a NUL), then records "h<i>"
 * in the job's trace.  Counts t->hashed and t->hash_ns.
 * @return 0, or -1 when libcrypto fails.
 */
int ovl_hash(struct ovl_task *t, size_t i, char hex[OVL_HEX_SIZE]);

/*
 * ex01's yield: event_base_loopcontinue() ends the loop's pass when the
 * callback returns, and event_active() queues the task's next callback
 * behind whatever the poll finds ready.  It only schedules: the loop gets
 * its turn when your callback returns.
 */
void ovl_yield(struct ovl_task *t);

#endif
