/*
 * ex05 — a correct alternative (instructors: drop-in for
 * labs/ex05_cancel/cancel.c), in another style than the reference:
 *  - the whole step is one function whose ends meet at one label;
 *  - the batch end is computed up front and the loop runs to it;
 *  - the worker's loop is for (;;) with its two exits spelled out, the
 *    count tested before the flag, and relaxed atomics (the flag carries
 *    no data: the rows reach the loop thread through pthread_join).
 */
#include "cancel.h"

#include "clock.h"

#include <event2/event.h>

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
		task->finished = true;
		return -1;
	}
	event_active(task->ev, EV_TIMEOUT, 0);
	return 0;
}

static void task_cb(evutil_socket_t fd, short what, void *arg)
{
	struct xf_task *task = arg;
	size_t n = task->table->n_rows, stop_at;
	enum xf_status why = XF_DONE;

	(void)fd;
	(void)what;
	if (task->cancel_requested) {
		why = XF_CANCELLED;
		goto end;
	}
	if (task->deadline_ns != 0 && !(clock_now_ns() < task->deadline_ns)) {
		why = XF_TIMED_OUT;
		goto end;
	}
	stop_at = n;
	if (task->yield_every != 0 && n - task->rows_done > task->yield_every)
		stop_at = task->rows_done + task->yield_every;
	while (task->rows_done != stop_at) {
		table_transform_row(task->table, task->rows_done);
		++task->rows_done;
	}
	if (task->rows_done == n)
		goto end;
	if (xf_yield(task) == 0)
		return;
	why = XF_CANCELLED;
end:
	event_free(task->ev);
	task->ev = NULL;
	table_release(task->table);
	task->status = why;
	task->finished = true;
	task->done(why, task->rows_done, task->arg);
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

void xf_job_run(struct xf_job *job)
{
	size_t i = 0;

	for (;;) {
		if (i == job->table->n_rows) {
			job->status = XF_DONE;
			break;
		}
		if (atomic_load_explicit(&job->cancel, memory_order_relaxed)) {
			job->status = XF_CANCELLED;
			break;
		}
		table_transform_row(job->table, i);
		i++;
	}
	job->rows_done = i;
}

void xf_job_cancel(struct xf_job *job)
{
	(void)atomic_exchange_explicit(&job->cancel, true,
				       memory_order_relaxed);
}
