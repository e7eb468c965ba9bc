/*
 * ex05 — a correct alternative (instructors: drop-in for
 * labs/ex05_cancel/cancel.c), in another style than the reference:
 *  - the yield is a zero-timeout timer (the loop polls before it fires),
 *    not event_active + event_base_loopcontinue;
 *  - each step first classifies the task into a phase, then a switch acts
 *    on it;
 *  - the batch is a counted for loop over a local limit;
 *  - the worker breaks out of a for loop, with acquire/release ordering.
 */
#include "cancel.h"

#include "clock.h"

#include <event2/event.h>

static const struct timeval right_away = { 0, 0 };

static void step_cb(evutil_socket_t fd, short what, void *arg);

int xf_start(struct xf_task *task, struct event_base *base,
	     struct table *table, size_t yield_every, xf_done_fn done,
	     void *arg)
{
	*task = (struct xf_task){
		.base = base, .table = table, .yield_every = yield_every,
		.done = done, .arg = arg, .status = XF_RUNNING,
	};
	if (table_lease(table) != 0)
		goto refused;
	task->ev = evtimer_new(base, step_cb, task);
	if (task->ev && evtimer_add(task->ev, &right_away) == 0)
		return 0;
	table_release(table);
	if (task->ev)
		event_free(task->ev);
	task->ev = NULL;
refused:
	task->finished = true;
	return -1;
}

enum phase {
	PHASE_STOP_CANCELLED,
	PHASE_STOP_TIMED_OUT,
	PHASE_WORK,
};

static enum phase phase_of(const struct xf_task *task)
{
	bool deadline_passed = task->deadline_ns != 0 &&
			       clock_now_ns() >= task->deadline_ns;

	if (task->cancel_requested)
		return PHASE_STOP_CANCELLED;
	return deadline_passed ? PHASE_STOP_TIMED_OUT : PHASE_WORK;
}

static void end_task(struct xf_task *task, enum xf_status how)
{
	struct event *ev = task->ev;

	task->ev = NULL;
	event_free(ev);
	table_release(task->table);
	task->status = how;
	task->finished = true;
	task->done(how, task->rows_done, task->arg);
}

static void work_one_batch(struct xf_task *task)
{
	size_t left = task->table->n_rows - task->rows_done;
	size_t limit = left;

	if (task->yield_every > 0 && task->yield_every < left)
		limit = task->yield_every;
	for (size_t k = 0; k < limit; k++) {
		table_transform_row(task->table, task->rows_done);
		task->rows_done += 1;
	}
}

static void step_cb(evutil_socket_t fd, short what, void *arg)
{
	struct xf_task *task = arg;

	(void)fd;
	(void)what;
	switch (phase_of(task)) {
	case PHASE_STOP_CANCELLED:
		end_task(task, XF_CANCELLED);
		return;
	case PHASE_STOP_TIMED_OUT:
		end_task(task, XF_TIMED_OUT);
		return;
	case PHASE_WORK:
		break;
	}
	work_one_batch(task);
	if (task->rows_done >= task->table->n_rows)
		end_task(task, XF_DONE);
	else if (evtimer_add(task->ev, &right_away) != 0)
		end_task(task, XF_CANCELLED);
}

void xf_set_deadline(struct xf_task *task, int64_t deadline_ns)
{
	task->deadline_ns = deadline_ns;
}

int xf_cancel(struct xf_task *task)
{
	if (!task->finished)
		task->cancel_requested = true;
	return task->finished ? -1 : 0;
}

void xf_job_run(struct xf_job *job)
{
	size_t n = job->table->n_rows, i;

	for (i = 0; i < n; i++) {
		if (atomic_load_explicit(&job->cancel, memory_order_acquire))
			break;
		table_transform_row(job->table, i);
	}
	job->rows_done = i;
	job->status = i < n ? XF_CANCELLED : XF_DONE;
}

void xf_job_cancel(struct xf_job *job)
{
	atomic_store_explicit(&job->cancel, true, memory_order_release);
}
