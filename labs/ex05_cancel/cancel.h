/* ex05 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * cancel: a long transform that can be cancelled, but only where it yields.
 *
 * A task on the loop transforms the rows of a table a batch at a time and
 * yields between batches.  Each yield is also a cancellation point: a
 * cancel request (xf_cancel) or a passed deadline takes effect there, never
 * in the middle of a batch.  A task that never yields has no such point
 * after its start and runs to the end, whatever is asked of it.
 *
 * The same transform can run on a worker thread (xf_job): nothing yields
 * there, so the worker checks an atomic flag before each row instead.
 *
 * Either way, when it stops the task cleans up (frees its event, releases
 * the table) and then reports once, on the loop thread, how it ended and
 * how many rows it transformed.
 */
#ifndef EX05_CANCEL_H
#define EX05_CANCEL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event;
struct event_base;
struct hashwork;

/* ---- provided (table.c): a table of rows to transform -------------------- */

#define TABLE_ROW_BYTES 32

struct table {
	uint8_t (*rows)[TABLE_ROW_BYTES];
	size_t n_rows;
	int rounds;               /* SHA-256 rounds per row */
	bool leased;              /* a transform holds the table */
	struct hashwork *hasher;  /* used by whoever holds the lease */
	/* Optional (graders): called after each row is transformed, on the
	 * thread that transformed it. */
	void (*on_row)(struct table *table, size_t row, void *arg);
	void *on_row_arg;
};

/* @return a table of n_rows rows, each filled with its original bytes,
 * owned by the caller (table_free); or NULL.  rounds >= 1. */
struct table *table_new(size_t n_rows, int rounds);
void table_free(struct table *table);

/* Transforms row i in place: rounds of SHA-256 (about 0.17 us each here).
 * A row is transformed whole or not at all. */
void table_transform_row(struct table *table, size_t i);

/* Takes the table for one transform.  @return 0, or -1 if it is taken. */
int table_lease(struct table *table);
void table_release(struct table *table);

/*
 * Checks that rows [0, n) are transformed and rows [n, n_rows) untouched:
 * every row is compared with its original, and the rows near n are also
 * recomputed, so a row that is neither is found.  @return -1 if the table
 * is as described, else the first row that is not.
 */
long table_check(const struct table *table, size_t n);

/* ---- the task on the loop (cancel.c: yours) ------------------------------ */

enum xf_status {
	XF_RUNNING,    /* not finished; never passed to done */
	XF_DONE,       /* every row transformed */
	XF_CANCELLED,  /* stopped at a cancellation point after a cancel */
	XF_TIMED_OUT,  /* stopped at a cancellation point after the deadline */
};

/* "running", "done", "cancelled", "timed out" (provided, table.c). */
const char *xf_status_name(enum xf_status status);

/* How a transform ended: called once, on the loop thread, after cleanup. */
typedef void (*xf_done_fn)(enum xf_status status, size_t rows_done,
			   void *arg);

struct xf_task {
	struct event_base *base;
	struct event *ev;       /* the task's event; NULL once finished */
	struct table *table;    /* leased from start until cleanup */
	size_t yield_every;     /* rows per step; 0: every row in one step */
	int64_t deadline_ns;    /* clock_now_ns() time; 0: none */
	bool cancel_requested;
	bool finished;          /* done has been called (or is being called) */
	size_t rows_done;       /* rows transformed so far */
	enum xf_status status;
	xf_done_fn done;
	void *arg;              /* passed to done */
};

/*
 * Fills in *task (owned by the caller; it must outlive the task, and stays
 * readable after it), leases the table and creates the task's event, active
 * so that the first step runs in the next loop pass.  Each step first
 * checks for a cancel request, then for the deadline (a cancellation
 * point), then transforms up to yield_every rows and yields; with
 * yield_every == 0 the one step transforms every row.  After the last row
 * the task ends with XF_DONE.  @return 0, or -1 (table taken, no memory:
 * done will not be called).
 *
 * Promise: tasks are independent: several run on one loop at once, each
 *   on its own table; a cancel or deadline of one never reaches another,
 *   and no task stops the caller's loop (no loopbreak, no loopexit).
 *   [tests: two_tasks_on_one_loop_stop_alone]
 * Promise: while a transform holds the table, xf_start on it returns -1
 *   and done is never called for that refused task; once the first task
 *   has reported, the table can be started again.  A refused start (table
 *   taken, or its event cannot be made) keeps no event, leaves task->ev
 *   NULL and task->finished true, and does not keep the table (nor frees
 *   the lease another task holds).  A struct xf_task may be reused once
 *   its task was refused or has reported: xf_start fills it in anew, so
 *   the new task starts with no count, no request and no deadline.
 *   [tests: a_leased_table_is_refused_until_done]
 * Promise: a task stops only between batches.  Whenever it is seen from
 *   outside its step (between two loop passes, or in done), rows_done is a
 *   multiple of yield_every or n_rows, a step adds at most yield_every
 *   rows, and rows_done is never ahead of the rows really transformed
 *   (rows [0, rows_done) transformed whole, the rest untouched); status
 *   is XF_RUNNING and finished false until the end.  A cancel asked in the
 *   middle of a batch stops the task at the end of that batch.
 *   [tests: seen_between_steps_the_count_is_a_whole_number_of_batches,
 *    partial_count_matches_the_rows_transformed]
 * Promise: a task that yields lets a cancel timer run while it works, and
 *   stops at most one batch after xf_cancel() returned.
 *   [tests: cancel_ten_ms_in_stops_within_one_yield_interval]
 * Promise: with yield_every == 0 there is no cancellation point after the
 *   start: the task runs every row in one step and ends with XF_DONE, and
 *   a cancel timer due meanwhile runs only after done (xf_cancel -> -1).
 *   [tests: no_yield_task_runs_to_the_end_whatever_you_ask]
 * Promise: the step that transforms the last row ends the task with
 *   XF_DONE, even if a cancel or the deadline came during that last batch:
 *   the status says what happened to the table.
 *   [tests: a_cancel_during_the_last_batch_is_too_late]
 * Promise: every end (done, cancelled, timed out, cancelled before the
 *   first row) first frees the task's event (event_free: freed, not just
 *   deleted; task->ev == NULL) and releases the table, then calls done
 *   exactly once, on the loop thread.
 *   [tests: cleanup_runs_before_done_on_every_path,
 *    the_task_event_is_freed_not_only_deleted]
 * Promise: when done runs, the task's state is final: task->finished is
 *   true, task->status and task->rows_done equal done's arguments, and
 *   done may call xf_cancel (which returns -1 and changes nothing).
 *   [tests: done_sees_the_final_state_and_may_call_xf_cancel]
 */
int xf_start(struct xf_task *task, struct event_base *base,
	     struct table *table, size_t yield_every, xf_done_fn done,
	     void *arg);

/*
 * Sets a deadline (clock_now_ns() time, 0 for none), checked at the
 * cancellation points: before the first row and at each yield.
 *
 * Promise: at a cancellation point the task ends with XF_TIMED_OUT (not
 *   XF_CANCELLED) if clock_now_ns() >= the deadline; a deadline already
 *   past stops it before the first row.  The deadline is read only there:
 *   it never cuts a batch short.
 *   [tests: deadline_stops_the_task_at_a_yield_with_its_own_status]
 * Promise: the comparison is >=: a deadline exactly equal to the clock at
 *   a cancellation point stops the task there.
 *   [tests: a_deadline_exactly_on_a_check_point_stops_the_task_there]
 * Promise: xf_set_deadline(task, 0) removes a deadline set before.
 *   [tests: deadline_zero_removes_the_deadline]
 */
void xf_set_deadline(struct xf_task *task, int64_t deadline_ns);

/*
 * Asks the task to stop: it stops at its next cancellation point with
 * XF_CANCELLED (a cancel wins over a deadline that passed too).  Only asks:
 * done is never called from inside xf_cancel.  @return 0 if the task had
 * not finished (the request stands; asking twice is harmless), or -1 if it
 * had finished (nothing changes).
 *
 * Promise: xf_cancel never calls done on its own stack, whenever it is
 *   called: before the first step, from inside a step (a row hook), or
 *   between steps; the task's next cancellation point ends it, and done
 *   comes once.
 *   [tests: cancel_before_start_reports_zero_rows,
 *    cancelling_twice_reports_once, partial_count_matches_the_rows_transformed]
 * Promise: a cancel before the first step ends the task with XF_CANCELLED
 *   and 0 rows, and done is still called.
 *   [tests: cancel_before_start_reports_zero_rows]
 * Promise: when a cancel request and a passed deadline meet at the same
 *   cancellation point, the cancel wins: XF_CANCELLED.
 *   [tests: a_cancel_wins_over_a_passed_deadline]
 * Promise: xf_cancel returns 0 while the task has not finished (twice is
 *   harmless) and -1 once it has, changing neither the status nor the
 *   count, and never calling done again.
 *   [tests: cancel_after_completion_changes_nothing,
 *    cancelling_twice_reports_once]
 */
int xf_cancel(struct xf_task *task);

/* ---- the same transform on a worker thread ------------------------------- */

struct xf_job {
	struct table *table;
	atomic_bool cancel;     /* set by xf_job_cancel, read by the worker */
	size_t rows_done;       /* written by the worker */
	enum xf_status status;  /* written by the worker: DONE or CANCELLED */
	/* plumbing (job.c) */
	struct event_base *base;
	struct event *doorbell;
	pthread_t thread;
	xf_done_fn done;
	void *arg;
	bool running;
};

/*
 * Provided (job.c): leases the table and starts a worker thread that runs
 * xf_job_run(job).  When it returns, the loop thread joins the worker,
 * releases the table and calls done(status, rows_done, arg).  The base
 * must have threads enabled (EVBASE_THREADS).  @return 0, or -1.
 */
int xf_job_start(struct xf_job *job, struct event_base *base,
		 struct table *table, xf_done_fn done, void *arg);

/*
 * Yours: the worker's loop.  Transforms rows in order until all are done
 * or job->cancel is set (checked before each row); sets rows_done and
 * status.
 *
 * Promise: job->cancel is checked before every row, the first included:
 *   a job whose flag is set before it starts transforms no row and reports
 *   XF_CANCELLED with 0 rows; a flag set (by xf_job_cancel, from another
 *   thread) while row k is being transformed stops the job with exactly
 *   k + 1 rows.
 *   [tests: worker_cancelled_before_it_starts_does_no_row,
 *    worker_checks_its_flag_before_every_row]
 * Promise: a job whose rows all ran reports XF_DONE with every row, even
 *   if the flag was set during or after the last row (by the worker, or
 *   by the loop thread racing with the job's end).
 *   [tests: worker_whose_rows_all_ran_reports_done]
 * Promise: cancelled while it runs, the job stops soon (one row, a few
 *   microseconds) and done follows on the loop thread, once, with
 *   XF_CANCELLED and the rows really transformed.  The flag is shared
 *   between threads without a data race (atomic), which the grader checks
 *   under ThreadSanitizer.
 *   [tests: worker_stops_soon_after_its_flag_is_set,
 *    worker_checks_its_flag_before_every_row]
 */
void xf_job_run(struct xf_job *job);

/*
 * Yours: asks the worker to stop; callable from any thread, any time.
 *
 * Promise: xf_job_cancel sets job->cancel and does nothing else: it reads
 *   nothing the worker writes (no data race, even as the job ends), and
 *   after the job reported it changes neither its status nor its count and
 *   done is not called again.
 *   [tests: worker_cancelled_before_it_starts_does_no_row,
 *    worker_whose_rows_all_ran_reports_done,
 *    worker_cancel_after_done_changes_nothing]
 */
void xf_job_cancel(struct xf_job *job);

#endif
