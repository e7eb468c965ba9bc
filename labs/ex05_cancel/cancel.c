/*
 * ex05 — THE FILE YOU EDIT.  Read README.md in this folder first.
 *
 * Five parts, each marked TODO.  `make grade LAB=ex05` tells you which
 * behaviours work; `make hint LAB=ex05` gives a hint when you are stuck.
 */
#include "cancel.h"

#include "clock.h"
#include "stub.h"

#include <event2/event.h>

/* ---- provided ------------------------------------------------------------ */

/* The yield of ex01: the next step runs after the loop has polled and run
 * what became ready (a cancel timer, say).  @return 0, or -1. */
static inline int xf_yield(struct xf_task *task)
{
	if (event_base_loopcontinue(task->base) != 0)
		return -1;
	event_active(task->ev, EV_TIMEOUT, 0);
	return 0;
}

static void task_cb(evutil_socket_t fd, short what, void *arg);

int xf_start(struct xf_task *task, struct event_base *base,
	     struct table *table, size_t yield_every, xf_done_fn done,
	     void *arg)
{
	*task = (struct xf_task){
		.base = base, .table = table, .yield_every = yield_every,
		.done = done, .arg = arg, .status = XF_RUNNING,
	};
	task->ev = event_new(base, -1, 0, task_cb, task);
	if (!task->ev || table_lease(table) != 0) {
		if (task->ev)
			event_free(task->ev);
		task->ev = NULL;
		task->finished = true;   /* nothing to cancel: done never comes */
		return -1;
	}
	/* Not a yield: the first step simply joins the current pass. */
	event_active(task->ev, EV_TIMEOUT, 0);
	return 0;
}

/* ---- the task: yours ------------------------------------------------------ */

/*
 * TODO 1: the task's step (write a helper finish() for its end).
 *  - First a cancellation point: a cancel request ends the task with
 *    XF_CANCELLED; otherwise a deadline that has passed (deadline_ns != 0
 *    and clock_now_ns() >= deadline_ns) ends it with XF_TIMED_OUT.  The
 *    cancel is looked at first: it wins when both are true.
 *  - Then transform up to task->yield_every rows (every row if 0), counting
 *    in task->rows_done only rows that are transformed.  Look at nothing
 *    inside the batch: a task stops only between batches.
 *  - All rows done: end with XF_DONE (whatever came during that batch).
 *    Otherwise xf_yield(task).
 * Ending = cleanup FIRST (event_free the event, set task->ev = NULL,
 * release the table), then set finished and status, then call done
 * exactly once -- done may read the task and call xf_cancel.
 */
static void task_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	(void)xf_yield;   /* yours to use; this quiets clang until then */
	STUB_NOT_IMPLEMENTED();
}

/* TODO 2: remember the deadline (0: none, even after another); the step
 * checks it. */
void xf_set_deadline(struct xf_task *task, int64_t deadline_ns)
{
	(void)task;
	(void)deadline_ns;
	STUB_NOT_IMPLEMENTED();
}

/* TODO 3: only ask (see cancel.h): never call done or free from here. */
int xf_cancel(struct xf_task *task)
{
	(void)task;
	STUB_NOT_IMPLEMENTED();
	return -1;
}

/* ---- the job on a worker: yours ------------------------------------------ */

/* TODO 4: the worker's loop: check job->cancel (atomic_load) before each
 * row, the first one too; then set job->rows_done and job->status:
 * XF_DONE if every row ran, else XF_CANCELLED.  job.c calls done. */
void xf_job_run(struct xf_job *job)
{
	(void)job;
	STUB_NOT_IMPLEMENTED();
}

/* TODO 5: ask the worker to stop (atomic_store), nothing more. */
void xf_job_cancel(struct xf_job *job)
{
	(void)job;
	STUB_NOT_IMPLEMENTED();
}
