/*
 * ex05 wrong solution — stops at the deadline but reports it as a
 * cancel: the caller cannot tell "I asked" from "it ran out of time".
 * Caught by: deadline_stops_the_task_at_a_yield_with_its_own_status
 */
#include "cancel.h"

#include "clock.h"

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

/* ---- the task ------------------------------------------------------------ */

/* Cleanup first, then the report: done may start a new transform on the
 * same table, and must find it free. */
static void finish(struct xf_task *task, enum xf_status status)
{
	event_free(task->ev);
	task->ev = NULL;
	table_release(task->table);
	task->finished = true;
	task->status = status;
	task->done(status, task->rows_done, task->arg);
}

/* A cancellation point.  @return why to stop, or XF_RUNNING to go on. */
static enum xf_status stop_reason(const struct xf_task *task)
{
	if (task->cancel_requested)
		return XF_CANCELLED;
	if (task->deadline_ns != 0 && clock_now_ns() >= task->deadline_ns)
		return XF_CANCELLED;
	return XF_RUNNING;
}

/* Transforms up to yield_every rows (all of them if 0); rows_done counts
 * only rows already transformed. */
static void run_batch(struct xf_task *task)
{
	size_t n = task->table->n_rows, end = n;

	if (task->yield_every != 0 && n - task->rows_done > task->yield_every)
		end = task->rows_done + task->yield_every;
	while (task->rows_done < end) {
		table_transform_row(task->table, task->rows_done);
		task->rows_done++;
	}
}

static void task_cb(evutil_socket_t fd, short what, void *arg)
{
	struct xf_task *task = arg;
	enum xf_status stop = stop_reason(task);

	(void)fd;
	(void)what;
	if (stop != XF_RUNNING) {
		finish(task, stop);
		return;
	}
	run_batch(task);
	if (task->rows_done == task->table->n_rows)
		finish(task, XF_DONE);
	else if (xf_yield(task) != 0)
		finish(task, XF_CANCELLED);   /* the loop refused: give up */
}

void xf_set_deadline(struct xf_task *task, int64_t deadline_ns)
{
	task->deadline_ns = deadline_ns;
}

int xf_cancel(struct xf_task *task)
{
	if (task->finished)
		return -1;
	task->cancel_requested = true;
	return 0;
}

/* ---- the job on a worker ------------------------------------------------- */

void xf_job_run(struct xf_job *job)
{
	size_t i = 0, n = job->table->n_rows;

	/* Nothing yields on a worker: the flag check is the cancellation
	 * point, and it costs a load per row. */
	while (i < n && !atomic_load(&job->cancel)) {
		table_transform_row(job->table, i);
		i++;
	}
	job->rows_done = i;
	job->status = i == n ? XF_DONE : XF_CANCELLED;
}

void xf_job_cancel(struct xf_job *job)
{
	atomic_store(&job->cancel, true);
}
