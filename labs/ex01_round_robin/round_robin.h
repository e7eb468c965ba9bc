/* ex01 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * round_robin: tasks that do one step, then give the event loop a turn.
 *
 * A task owns one event.  Its callback runs one step of work; if more steps
 * remain, the task yields — it asks to run again *after* the loop has polled
 * for I/O and run the timers that came due — and returns.  That is what
 * Python's `await asyncio.sleep(0)` does; libevent has no single call for it.
 */
#ifndef EX01_ROUND_ROBIN_H
#define EX01_ROUND_ROBIN_H

#include <stdbool.h>

struct event;
struct event_base;
struct rr_task;
struct trace;

/* One step of a task's work.  @return true while more steps remain. */
typedef bool (*rr_step_fn)(struct rr_task *task, void *arg);

/* Called exactly once, on the loop thread, after the last step. */
typedef void (*rr_done_fn)(struct rr_task *task, void *arg);

/* A way to give the loop a turn.  @return 0 on success, -1 on failure. */
typedef int (*rr_yield_fn)(struct rr_task *task);

enum rr_mode {
	RR_YIELD,     /* one step per callback, then yield */
	RR_NO_YIELD,  /* every step in one callback: the task hogs the loop */
};

struct rr_task {
	struct event_base *base;
	struct event *ev;     /* the task's own event; NULL once finished */
	rr_step_fn step;
	rr_done_fn done;      /* may be NULL */
	void *arg;            /* passed to step and done */
	enum rr_mode mode;
	rr_yield_fn yield;    /* how the task yields: rr_yield, unless the
				 program swaps in a (wrong) mechanism */
	unsigned steps;       /* steps run so far */
	bool yield_failed;    /* set when the task ended because a yield
				 returned -1 (false otherwise) */
};

/*
 * Fills in *task (owned by the caller, must outlive the task), creates its
 * event on base and makes it active so its first step runs in the next loop
 * pass.  When the last step has run, the task frees its event, sets
 * task->ev to NULL and calls done.  @return 0, or -1 on failure.
 *
 * Promise: no step runs inside rr_task_start(): the first step runs when
 *   the loop next runs, and task->steps is 0 until then.
 *   [tests: the_first_step_waits_for_the_loop]
 * Promise: in RR_YIELD mode one step runs per callback and tasks take
 *   turns in first-in, first-out order, the same order every round, however
 *   many tasks there are.
 *   [tests: two_tasks_alternate_strictly, four_tasks_keep_fifo_order_every_round]
 * Promise: in RR_NO_YIELD mode every step of a task runs inside one
 *   callback, so one task runs to its end before the next starts.
 *   [tests: no_yield_mode_runs_one_task_to_completion_first]
 * Promise: task->steps counts the steps run so far, in both modes.
 *   [tests: steps_are_counted_in_both_modes]
 * Promise: task->yield (not rr_yield by name) is called once after every
 *   step but the last in RR_YIELD mode, and never in RR_NO_YIELD mode.
 *   [tests: the_task_yields_once_between_steps, a_failed_yield_ends_the_task_cleanly]
 * Promise: after the last step the task frees its event (freed, not only
 *   deleted), sets task->ev to NULL, leaves nothing added or active on the
 *   base, and then calls done exactly once; the loop ends by itself.
 *   [tests: loop_ends_by_itself_when_tasks_finish, finished_tasks_free_every_event]
 * Promise: done may be NULL.
 *   [tests: done_may_be_null]
 * Promise: done is the last thing the task does with *task: it runs after
 *   the event is freed and task->ev is NULL, so a done that starts the task
 *   again, or frees (or reuses) the memory holding *task, works.
 *   [tests: done_can_restart_its_task, done_may_free_the_task_memory]
 * Promise: a yield that returns -1 ends the task at once, cleanly: no
 *   further step runs, the event is freed, task->ev is NULL,
 *   task->yield_failed is true (already when done runs), and done is
 *   called once, as after a last step.  A task that ends normally has
 *   yield_failed false.
 *   [tests: a_failed_yield_ends_the_task_cleanly]
 * Promise: when its event cannot be made (event_new returns NULL: out of
 *   memory), rr_task_start returns -1, and no step and no done ever run.
 *   [tests: start_reports_an_event_it_cannot_make]
 */
int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg,
		  enum rr_mode mode);

/*
 * Gives the loop a turn: the task's next step runs after the loop has polled
 * for I/O and run every timer and callback that became ready meanwhile, and
 * tasks that yield take their turns in first-in, first-out order.
 * @return 0, or -1 on failure.
 *
 * Promise: every yield, not only the first, lets the loop poll before the
 *   task's next step: no more than one step runs between two polls, so a
 *   timer or a socket that became ready during step i is served before
 *   step i + 2 at the latest (one step may already be queued ahead of it).
 *   [tests: heartbeat_fires_between_steps_of_a_long_task, every_step_is_followed_by_a_poll]
 * Promise: it works on every base, not only on the first one a process
 *   made: a yield acts on task->base.
 *   [tests: yields_poll_on_a_second_base_too]
 * Promise: a yield never makes the loop wait: the next step is ready at
 *   once, so a non-blocking loop pass (EVLOOP_NONBLOCK) runs a yielding task
 *   to its end without sleeping.
 *   [tests: a_nonblocking_loop_runs_a_yielding_task_to_its_end]
 */
int rr_yield(struct rr_task *task);

/*
 * A chatty task records "<name><i>" in trace at its step i, i < count.
 *
 * Promise: chatty_step records "<name><next>" with the current c->next
 *   (which need not start at 0), moves c->next on by one and returns
 *   whether c->next is still below c->count.
 *   [tests: chatty_step_counts_from_c_next]
 */
struct chatty {
	const char *name;
	int count;
	int next;             /* the next i to record; starts at 0 */
	struct trace *trace;
};

/* The step function of a chatty task; arg is a struct chatty. */
bool chatty_step(struct rr_task *task, void *arg);

#endif
