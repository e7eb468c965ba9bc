/*
 * ex05 — a correct alternative (instructors: drop-in for
 * labs/ex05_cancel/cancel.c), in another style than the reference:
 *  - the step asks one question, "may I go on?", answered with the
 *    status to end with;
 *  - a batch counts rows in a local and publishes the count after the
 *    batch (rows_done lags inside a batch, never leads);
 *  - the end copies the report, cleans up, then reports from the copy;
 *  - the worker's flag is read and written under a mutex (relaxed
 *    atomics inside it), and the worker counts in job->rows_done itself.
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

/* @return true (and *why) if the task must stop here. */
static bool must_stop(const struct xf_task *task, enum xf_status *why)
{
	if (task->cancel_requested) {
		*why = XF_CANCELLED;
		return true;
	}
	if (task->deadline_ns && task->deadline_ns <= clock_now_ns()) {
		*why = XF_TIMED_OUT;
		return true;
	}
	return false;
}

static void report(struct xf_task *task, enum xf_status why)
{
	xf_done_fn done = task->done;
	void *arg = task->arg;
	size_t rows = task->rows_done;

	event_free(task->ev);
	task->ev = NULL;
	table_release(task->table);
	task->finished = true;
	task->status = why;
	done(why, rows, arg);
}

static void task_cb(evutil_socket_t fd, short what, void *arg)
{
	struct xf_task *task = arg;
	size_t n = task->table->n_rows, row = task->rows_done, stop = n;
	enum xf_status why;

	(void)fd;
	(void)what;
	if (must_stop(task, &why)) {
		report(task, why);
		return;
	}
	if (task->yield_every && row + task->yield_every < n)
		stop = row + task->yield_every;
	while (row < stop)
		table_transform_row(task->table, row++);
	task->rows_done = row;
	if (row == n) {
		report(task, XF_DONE);
		return;
	}
	if (xf_yield(task) != 0)
		report(task, XF_CANCELLED);
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

/* One lock for every job's flag: held for a load or a store only. */
static pthread_mutex_t flag_lock = PTHREAD_MUTEX_INITIALIZER;

static bool job_cancelled(struct xf_job *job)
{
	bool cancelled;

	pthread_mutex_lock(&flag_lock);
	cancelled = atomic_load_explicit(&job->cancel, memory_order_relaxed);
	pthread_mutex_unlock(&flag_lock);
	return cancelled;
}

void xf_job_run(struct xf_job *job)
{
	job->rows_done = 0;
	while (job->rows_done < job->table->n_rows && !job_cancelled(job)) {
		table_transform_row(job->table, job->rows_done);
		job->rows_done++;
	}
	job->status = job->rows_done == job->table->n_rows ? XF_DONE
							   : XF_CANCELLED;
}

void xf_job_cancel(struct xf_job *job)
{
	pthread_mutex_lock(&flag_lock);
	atomic_store_explicit(&job->cancel, true, memory_order_relaxed);
	pthread_mutex_unlock(&flag_lock);
}
