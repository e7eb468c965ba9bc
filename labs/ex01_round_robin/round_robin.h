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
};

/*
 * Fills in *task (owned by the caller, must outlive the task), creates its
 * event on base and makes it active so its first step runs in the next loop
 * pass.  When the last step has run, the task frees its event, sets
 * task->ev to NULL and calls done.  @return 0, or -1 on failure.
 */
int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg,
		  enum rr_mode mode);

/*
 * Gives the loop a turn: the task's next step runs after the loop has polled
 * for I/O and run every timer and callback that became ready meanwhile, and
 * tasks that yield take their turns in first-in, first-out order.
 * @return 0, or -1 on failure.
 */
int rr_yield(struct rr_task *task);

/* A chatty task records "<name><i>" in trace at its step i, i < count. */
struct chatty {
	const char *name;
	int count;
	int next;             /* the next i to record; starts at 0 */
	struct trace *trace;
};

/* The step function of a chatty task; arg is a struct chatty. */
bool chatty_step(struct rr_task *task, void *arg);

#endif
