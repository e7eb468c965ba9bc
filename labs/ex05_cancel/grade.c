/* ex05 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * Grader for ex05_cancel.  Each test enforces promises of cancel.h (the
 * header names them) and catches the mistakes named above it; for tests
 * that read the real clock, the comment says why the bound is safe on a
 * shared 2-core VM.  Every run is checked row by row: the count a task
 * reports must be the rows it really transformed.  Boundaries and races are
 * made deterministic: a fake clock that a row hook advances, row hooks
 * that cancel at a chosen row, and a handshake with the worker thread.
 */
#include "cancel.h"

#include "clock.h"
#include "evalloc.h"
#include "evbase.h"
#include "grade.h"

#include <event2/event.h>
#include <errno.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

/* SHA-256 rounds per row in the real-time tests: ~3 us a row here, about
 * the cost of one row of the source guide's Python loop. */
#define ROUNDS 16

/* ---- fixtures ------------------------------------------------------------ */

struct run {
	struct event_base *base;
	struct table *table;
	struct xf_task task;
	struct xf_job job;
	pthread_t loop_thread;
	bool is_job;             /* cancel the job, not the task */
	bool done_seen;
	int done_calls;
	enum xf_status status;
	size_t rows_reported;
	int64_t done_ns;
	bool done_off_loop;      /* a call of done not on the loop thread */
	bool leased_at_done, event_at_done;
	/* the task as done found it */
	bool finished_at_done;
	enum xf_status status_at_done;
	size_t rows_field_at_done;
	bool cancel_in_done;     /* done calls xf_cancel ... */
	int cancel_rc_in_done;   /* ... which returned this */
	/* a cancel from a timer */
	int64_t cancel_due_ns, cancel_ran_ns;
	/* the loop thread's time runnable but without a CPU: when the cancel
	 * was armed, and when done came (for a cancel's latency) */
	int64_t cpu_wait_at_arm_ns, cpu_wait_at_done_ns;
	int cancel_rc;
	bool cancel_ran, cancel_after_done;
	size_t rows_at_cancel;   /* task->rows_done when the cancel ran */
	/* row hooks */
	size_t cancel_at_row;    /* cancel_at_row() cancels here ... */
	bool hook_cancelled;     /* ... did ... */
	int hook_cancel_rc;      /* ... got this from xf_cancel ... */
	int done_calls_in_hook;  /* ... and done had been called this often */
	bool ahead_seen;         /* rows_done was ahead of the rows done */
	size_t ahead_row, ahead_count;
};

static void run_init(struct run *r, size_t n_rows, int rounds)
{
	memset(r, 0, sizeof(*r));
	r->loop_thread = pthread_self();
	r->base = evbase_new(EVBASE_PRECISE | EVBASE_THREADS);
	r->table = table_new(n_rows, rounds);
	GRADE_EXPECT(r->base && r->table, "an event base and a table",
		     "setup failed (out of memory?)");
}

static void run_free(struct run *r)
{
	table_free(r->table);
	event_base_free(r->base);
}

static void record_task_state(struct run *r)
{
	r->finished_at_done = r->task.finished;
	r->status_at_done = r->task.status;
	r->rows_field_at_done = r->task.rows_done;
	r->event_at_done = r->task.ev != NULL;
	if (r->cancel_in_done)
		r->cancel_rc_in_done = xf_cancel(&r->task);
}

static void record_done(enum xf_status status, size_t rows, void *arg)
{
	struct run *r = arg;

	r->done_seen = true;
	r->done_calls++;
	r->status = status;
	r->rows_reported = rows;
	r->done_ns = clock_monotonic_ns();
	if (r->cancel_due_ns && !r->cpu_wait_at_done_ns)
		r->cpu_wait_at_done_ns = grade_thread_cpu_wait_ns();
	r->leased_at_done = r->table->leased;
	if (!pthread_equal(pthread_self(), r->loop_thread))
		r->done_off_loop = true;
	if (!r->is_job)
		record_task_state(r);
}

static void start_task(struct run *r, size_t yield_every)
{
	GRADE_EXPECT(xf_start(&r->task, r->base, r->table, yield_every,
			      record_done, r) == 0,
		     "xf_start() returns 0", "it returned -1");
}

static void start_job(struct run *r)
{
	r->is_job = true;
	GRADE_EXPECT(xf_job_start(&r->job, r->base, r->table, record_done,
				  r) == 0,
		     "xf_job_start() returns 0", "it returned -1");
}

struct waiting {
	struct run *r;
	int64_t end_ns;
};

/* Every 10 ms: past the deadline, stop the loop (a task that yields
 * forever keeps EVLOOP_ONCE from returning). */
static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct waiting *w = arg;

	(void)fd;
	(void)what;
	if (clock_monotonic_ns() > w->end_ns)
		event_base_loopbreak(w->r->base);
}

/* A task whose event is neither active nor pending, and that has not
 * called done, will never call it: no need to wait. */
static bool task_stalled(const struct run *r)
{
	return !r->is_job && !r->done_seen &&
	       (!r->task.ev || !event_pending(r->task.ev, EV_TIMEOUT, NULL));
}

/* Runs the loop until *flag is set, the task stalled, or ms (scaled)
 * passed. */
static void run_until(struct run *r, const bool *flag, int64_t ms)
{
	struct waiting w = { r, clock_monotonic_ns() + grade_bound_ns(ms) };
	struct timeval ten_ms = { 0, 10000 };
	struct event *tick = event_new(r->base, -1, EV_PERSIST, tick_cb, &w);

	event_add(tick, &ten_ms);
	while (!*flag && !task_stalled(r) && !event_base_got_break(r->base) &&
	       clock_monotonic_ns() < w.end_ns &&
	       event_base_loop(r->base, EVLOOP_ONCE) == 0)
		;
	event_free(tick);
}

/* Runs the loop until done was called (or ms passed), then one more pass
 * to catch a second call. */
static void run_until_done(struct run *r, int64_t ms)
{
	run_until(r, &r->done_seen, ms);
	event_base_loop(r->base, EVLOOP_NONBLOCK);
}

static void cancel_cb(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;

	(void)fd;
	(void)what;
	r->cancel_ran_ns = clock_monotonic_ns();
	r->cancel_after_done = r->done_calls > 0;
	r->cancel_ran = true;
	r->rows_at_cancel = r->task.rows_done;
	if (r->is_job)
		xf_job_cancel(&r->job);
	else
		r->cancel_rc = xf_cancel(&r->task);
}

/* Arms a timer that cancels the task (or the job) ms after now. */
static struct event *cancel_in_ms(struct run *r, int ms)
{
	struct timeval tv = { 0, ms * 1000 };
	struct event *ev = evtimer_new(r->base, cancel_cb, r);

	r->cancel_due_ns = clock_monotonic_ns() + ms * CLOCK_NS_PER_MS;
	r->cpu_wait_at_arm_ns = grade_thread_cpu_wait_ns();
	evtimer_add(ev, &tv);
	return ev;
}

static void expect_done_once(const struct run *r, enum xf_status want)
{
	GRADE_EXPECT_INT(r->done_calls, 1, "calls of done");
	GRADE_EXPECT(!r->done_off_loop, "done called on the loop thread",
		     "done was called on another thread (the worker?): only "
		     "the loop thread reports");
	GRADE_EXPECT(r->status == want, xf_status_name(want),
		     "status %s", xf_status_name(r->status));
}

/* The rows reported are the rows transformed, and no row is half-done. */
static void expect_table_matches(const struct run *r)
{
	long bad = table_check(r->table, r->rows_reported);

	GRADE_EXPECT(bad < 0,
		     "rows below the reported count transformed, the rest "
		     "untouched",
		     "%zu rows reported, but row %ld says otherwise",
		     r->rows_reported, bad);
}

/* Rows that take about ms to transform at `rounds` rounds, measured. */
static size_t rows_for_ms(int64_t ms, int64_t *row_ns)
{
	struct table *t = table_new(2000, ROUNDS);
	int64_t start = clock_monotonic_ns(), per_row;

	GRADE_EXPECT(t != NULL, "a table", "out of memory");
	for (size_t i = 0; i < t->n_rows; i++)
		table_transform_row(t, i);
	per_row = (clock_monotonic_ns() - start) / (int64_t)t->n_rows;
	table_free(t);
	per_row = per_row > 0 ? per_row : 1;
	*row_ns = per_row;
	return (size_t)(ms * CLOCK_NS_PER_MS / per_row) + 1000;
}

/* ---- row hooks (called on the thread that transformed the row) ----------- */

/* Never ahead: when row `row` has just been transformed, at most row + 1
 * rows are. */
static void note_if_ahead(struct run *r, size_t row)
{
	if (!r->is_job && !r->ahead_seen && r->task.rows_done > row + 1) {
		r->ahead_seen = true;
		r->ahead_row = row;
		r->ahead_count = r->task.rows_done;
	}
}

/* Cancels the task while row cancel_at_row is being transformed. */
static void cancel_at_row(struct table *t, size_t row, void *arg)
{
	struct run *r = arg;

	(void)t;
	note_if_ahead(r, row);
	if (row != r->cancel_at_row)
		return;
	r->hook_cancelled = true;
	r->rows_at_cancel = r->task.rows_done;
	r->hook_cancel_rc = xf_cancel(&r->task);
	r->done_calls_in_hook = r->done_calls;
}

/* As cancel_at_row, and every row moves the fake clock 1 ms on. */
static void cancel_at_row_ticking(struct table *t, size_t row, void *arg)
{
	clock_advance_ns(CLOCK_NS_PER_MS);
	cancel_at_row(t, row, arg);
}

static void expect_hook_cancel_only_asked(const struct run *r)
{
	GRADE_EXPECT(r->hook_cancelled, "the row hook ran and cancelled",
		     "row %zu was never transformed", r->cancel_at_row);
	GRADE_EXPECT(r->hook_cancel_rc == 0 && r->done_calls_in_hook == 0,
		     "xf_cancel() from inside a step returns 0 and does not "
		     "call done",
		     "it returned %d; done had been called %d time(s) when it "
		     "returned", r->hook_cancel_rc, r->done_calls_in_hook);
}

/* A fake clock for the deadline tests: it stands still at 1 s until a row
 * hook moves it, so a deadline lands exactly where the test puts it. */
static void use_fake_clock(void)
{
	clock_use_fake(CLOCK_NS_PER_S);
}

/* One task on the fake clock, where each row takes 1 ms: 1000 rows, a
 * yield every 10; hooked to cancel at cancel_row (or never). */
static void start_ticking_task(struct run *r, size_t cancel_row)
{
	run_init(r, 1000, 1);
	r->cancel_at_row = cancel_row;
	r->table->on_row = cancel_at_row_ticking;
	r->table->on_row_arg = r;
	start_task(r, 10);
}

#define NEVER ((size_t)-1)

/* ---- tests: the task on the loop ----------------------------------------- */

/*
 * Catches: a cancel that waits for the end (checked only after the last
 * batch, or never).  ~1 s of rows, a yield every 100 rows (~0.3 ms), a
 * cancel due 10 ms in.  Its timer becomes ready at a yield (queued behind
 * the task's own next step), so the request runs on the loop within about
 * one batch, and the step after it must stop: counted in rows, at most one
 * batch may follow the request — exact, whatever the load.  Time, the
 * secondary check: done within one batch + 400 ms (scaled) of the due
 * time, not counting the time the loop thread spent waiting for a CPU
 * (its schedstat run delay: the scheduler's, not the code's).  Typical
 * here: 0.3-0.7 ms; the worst seen with other builds saturating both
 * cores: ~200 ms, and 546 ms with two labs graded at once beside two busy
 * loops (stress.sh -k 40 -j 2: 1 run in 14), all of it waiting; a task
 * that ignores the request runs the ~990 ms that remain, and one that
 * delays done sleeps, which is not waiting for a CPU.
 */
static void cancel_ten_ms_in_stops_within_one_yield_interval(void **state)
{
	int64_t row_ns;
	size_t n = rows_for_ms(1000, &row_ns);
	int64_t batch_ns = 100 * row_ns, latency, starved;
	struct event *timer;
	struct run r;

	(void)state;
	run_init(&r, n, ROUNDS);
	start_task(&r, 100);
	timer = cancel_in_ms(&r, 10);
	run_until_done(&r, 5000);
	event_free(timer);
	starved = r.cpu_wait_at_done_ns - r.cpu_wait_at_arm_ns;
	latency = r.done_ns - r.cancel_due_ns - (starved > 0 ? starved : 0);
	expect_done_once(&r, XF_CANCELLED);
	GRADE_EXPECT(r.cancel_rc == 0 && !r.cancel_after_done,
		     "xf_cancel() returns 0 while the task runs",
		     "it returned %d", r.cancel_rc);
	GRADE_EXPECT(r.rows_reported <= r.rows_at_cancel + 100,
		     "at most one batch (100 rows) after the cancel request",
		     "%zu rows done when xf_cancel() ran, %zu at the end",
		     r.rows_at_cancel, r.rows_reported);
	GRADE_EXPECT(latency < batch_ns + grade_bound_ns(400),
		     "done within one yield interval (+400 ms) of the cancel, "
		     "not counting the time the loop waited for a CPU",
		     "%.2f ms after it was due, not counting %.2f ms without a "
		     "CPU (one batch: %.2f ms, whole run ~1 s)",
		     clock_ns_to_ms(latency), clock_ns_to_ms(starved),
		     clock_ns_to_ms(batch_ns));
	GRADE_EXPECT(r.rows_reported < n, "a partial count",
		     "%zu of %zu rows", r.rows_reported, n);
	expect_table_matches(&r);
	run_free(&r);
}

/* A cancel asked from a row of a step (the table's row hook) where no
 * cancellation point follows: xf_cancel only asks (done does not run on
 * its stack), and the task transforms every one of its n rows and ends
 * XF_DONE. */
static void expect_cancel_inside_a_step_lets_it_finish(size_t n,
							size_t yield_every,
							size_t cancel_row,
							const char *what)
{
	struct run r;

	run_init(&r, n, 1);
	r.cancel_at_row = cancel_row;
	r.table->on_row = cancel_at_row;
	r.table->on_row_arg = &r;
	start_task(&r, yield_every);
	run_until_done(&r, 2000);
	expect_hook_cancel_only_asked(&r);
	expect_done_once(&r, XF_DONE);
	GRADE_EXPECT_INT(r.rows_reported, n, what);
	expect_table_matches(&r);
	run_free(&r);
}

/* A deadline that passes inside a step (fake clock, 1 ms a row) where no
 * cancellation point follows: the task still transforms every one of its
 * n rows and ends XF_DONE. */
static void expect_deadline_inside_a_step_lets_it_finish(size_t n,
							  size_t yield_every,
							  int64_t deadline_ms,
							  const char *what)
{
	struct run r;

	use_fake_clock();
	run_init(&r, n, 1);
	r.cancel_at_row = NEVER;
	r.table->on_row = cancel_at_row_ticking;
	r.table->on_row_arg = &r;
	start_task(&r, yield_every);
	xf_set_deadline(&r.task, clock_now_ns() + deadline_ms * CLOCK_NS_PER_MS);
	run_until_done(&r, 2000);
	clock_set_source(NULL);
	expect_done_once(&r, XF_DONE);
	GRADE_EXPECT_INT(r.rows_reported, n, what);
	expect_table_matches(&r);
	run_free(&r);
}

/*
 * Catches: yield_every == 0 not honoured (the task yields anyway), and a
 * one-step task that still looks at the cancel request or the deadline
 * between its rows.  The counter-example, measured: a task with no yields
 * cannot be cancelled — the cancel timer, due 10 ms into a ~100 ms run,
 * can only fire after the task has ended.  Order, not a bound: done must
 * come before the timer.  Then, no clock: a row hook cancels during row
 * 249 of the one step, and on the fake clock a deadline passes at row 25;
 * both times every row runs and the task ends with XF_DONE.
 */
static void no_yield_task_runs_to_the_end_whatever_you_ask(void **state)
{
	int64_t row_ns;
	size_t n = rows_for_ms(100, &row_ns);
	struct event *timer;
	struct run r;

	(void)state;
	run_init(&r, n, ROUNDS);
	start_task(&r, 0);
	timer = cancel_in_ms(&r, 10);
	run_until_done(&r, 5000);
	run_until(&r, &r.cancel_ran, 2000);   /* the timer comes after done */
	event_free(timer);
	expect_done_once(&r, XF_DONE);
	GRADE_EXPECT(r.cancel_after_done && r.cancel_rc == -1,
		     "the cancel timer runs after done, and xf_cancel() "
		     "returns -1 (too late)",
		     "the timer ran %s done; xf_cancel returned %d",
		     r.cancel_after_done ? "after" : "before", r.cancel_rc);
	print_message("measured: the cancel due at 10 ms ran %.1f ms late, "
		      "after all %zu rows\n",
		      clock_ns_to_ms(r.cancel_ran_ns - r.cancel_due_ns), n);
	GRADE_EXPECT_INT(r.rows_reported, n, "rows reported");
	expect_table_matches(&r);
	run_free(&r);

	/* A cancel asked from inside the one step (row 249 of 1000) ... */
	expect_cancel_inside_a_step_lets_it_finish(1000, 0, 249, "rows reported "
		"(cancelled during row 249 of the one step: no cancellation "
		"point follows, every row runs)");

	/* ... or a deadline passing in it (fake clock, 1 ms a row: 25 ms). */
	expect_deadline_inside_a_step_lets_it_finish(1000, 0, 25, "rows reported "
		"(the deadline passed during the one step: every row runs)");
}

/*
 * Catches: a count that is not the rows transformed (counted ahead of the
 * work, or the whole batch counted when it stopped early), a task that
 * stops in the middle of a batch, a cancel reported as success, and an
 * xf_cancel that ends the task on the step's own stack.  A hook asks for
 * the cancel while row 249 is being transformed, in the batch 200-299: the
 * task must finish that batch and stop at 300, and its count must match
 * the table, checked row by row.  No clock.
 */
static void partial_count_matches_the_rows_transformed(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, 5000, 2);
	r.cancel_at_row = 249;
	r.table->on_row = cancel_at_row;
	r.table->on_row_arg = &r;
	start_task(&r, 100);
	run_until_done(&r, 5000);
	expect_hook_cancel_only_asked(&r);
	expect_done_once(&r, XF_CANCELLED);
	GRADE_EXPECT(!r.ahead_seen, "rows_done never ahead of the rows "
		     "transformed",
		     "rows_done was %zu while row %zu was transformed (count "
		     "each row after table_transform_row)", r.ahead_count,
		     r.ahead_row);
	expect_table_matches(&r);
	GRADE_EXPECT(r.rows_reported == 300,
		     "300 rows: the cancel came during row 249, and a task "
		     "stops only between batches (of 100)",
		     "%zu%s", r.rows_reported,
		     r.rows_reported < 300 ? " (the batch was cut short: check "
		     "the request only at the start of a step)" : "");
	run_free(&r);
}

/* Breaks the loop after every step that transformed a row. */
static void break_after_step(struct table *t, size_t row, void *arg)
{
	struct run *r = arg;

	(void)t;
	note_if_ahead(r, row);
	event_base_loopbreak(r->base);
}

/* What the task looks like between two steps: checked after each. */
static void expect_between_steps(const struct run *r, size_t before,
				 size_t batch)
{
	size_t now = r->task.rows_done, n = r->table->n_rows;
	long bad = table_check(r->table, now);

	GRADE_EXPECT(now >= before && now - before <= batch,
		     "a step adds at most yield_every (100) rows",
		     "rows_done went from %zu to %zu in one step", before, now);
	GRADE_EXPECT(now % batch == 0 || now == n,
		     "between steps, rows_done a multiple of 100 (or all "
		     "250)", "%zu", now);
	GRADE_EXPECT(bad < 0, "between steps: rows [0, rows_done) "
		     "transformed, the rest untouched",
		     "rows_done %zu, but row %ld says otherwise", now, bad);
	GRADE_EXPECT(r->task.status == XF_RUNNING && !r->task.finished,
		     "a running task: status running, finished false",
		     "status %s, finished %s, with done not called",
		     xf_status_name(r->task.status),
		     r->task.finished ? "true" : "false");
}

/*
 * Catches: a batch of the wrong size (one row too many, a batch cut in
 * two), a count set ahead of the work, and a state that says "finished"
 * early.  250 rows, a yield every 100: the hook breaks the loop after each
 * step, so the grader looks at the task between every two steps: 100,
 * 200, then 250 and done.  No clock.
 */
static void seen_between_steps_the_count_is_a_whole_number_of_batches(
	void **state)
{
	size_t before = 0;
	struct run r;

	(void)state;
	run_init(&r, 250, 1);
	r.table->on_row = break_after_step;
	r.table->on_row_arg = &r;
	start_task(&r, 100);
	for (int pass = 0; pass < 1000 && !r.done_seen; pass++) {
		if (event_base_loop(r.base, EVLOOP_ONCE) != 0 || r.done_seen)
			break;
		expect_between_steps(&r, before, 100);
		before = r.task.rows_done;
	}
	event_base_loop(r.base, EVLOOP_NONBLOCK);
	GRADE_EXPECT(!r.ahead_seen, "rows_done never ahead of the rows "
		     "transformed",
		     "rows_done was %zu while row %zu was transformed (count "
		     "each row after table_transform_row)", r.ahead_count,
		     r.ahead_row);
	expect_done_once(&r, XF_DONE);
	GRADE_EXPECT_INT(r.rows_reported, 250, "rows reported");
	expect_table_matches(&r);
	run_free(&r);
}

/* Catches: a task cancelled before its first step that never reports (or
 * reports success), and an xf_cancel that ends it at once ("nothing ran
 * yet, so nothing to wait for"): done on the canceller's stack.  The start
 * of the task is a cancellation point: the first step ends it. */
static void cancel_before_start_reports_zero_rows(void **state)
{
	int rc;
	struct run r;

	(void)state;
	run_init(&r, 1000, 2);
	start_task(&r, 100);
	rc = xf_cancel(&r.task);
	GRADE_EXPECT(rc == 0, "xf_cancel() returns 0 before the first step",
		     "it returned %d", rc);
	GRADE_EXPECT(r.done_calls == 0,
		     "xf_cancel() only asks: done not called inside it",
		     "done called %d time(s) before xf_cancel returned (let "
		     "the first step end the task)", r.done_calls);
	run_until_done(&r, 2000);
	expect_done_once(&r, XF_CANCELLED);
	GRADE_EXPECT_INT(r.rows_reported, 0, "rows reported");
	expect_table_matches(&r);
	run_free(&r);
}

/* Catches: a cancel after the end that reports again (done twice) or
 * changes the result. */
static void cancel_after_completion_changes_nothing(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, 1000, 2);
	start_task(&r, 100);
	run_until_done(&r, 2000);
	GRADE_EXPECT(xf_cancel(&r.task) == -1,
		     "xf_cancel() returns -1 after the task finished",
		     "it returned 0");
	event_base_loop(r.base, EVLOOP_NONBLOCK);
	expect_done_once(&r, XF_DONE);
	GRADE_EXPECT(r.task.status == XF_DONE && r.task.rows_done == 1000,
		     "task->status stays done, task->rows_done 1000",
		     "%s, %zu", xf_status_name(r.task.status),
		     r.task.rows_done);
	GRADE_EXPECT_INT(r.rows_reported, 1000, "rows reported");
	expect_table_matches(&r);
	run_free(&r);
}

static void break_at_row(struct table *t, size_t row, void *arg)
{
	struct run *r = arg;

	(void)t;
	if (row == 150)
		event_base_loopbreak(r->base);
}

/* Catches: a cancel that ends the task inside xf_cancel (done called from
 * the canceller's stack, and again by the next request or step).  The loop
 * is stopped while the task is suspended at a yield (after row 199); two
 * requests then change nothing until the next step, and done comes once. */
static void cancelling_twice_reports_once(void **state)
{
	int first, second;
	struct run r;

	(void)state;
	run_init(&r, 1000, 2);
	r.table->on_row = break_at_row;
	r.table->on_row_arg = &r;
	start_task(&r, 100);
	event_base_dispatch(r.base);   /* to the yield after row 150 */
	r.table->on_row = NULL;
	first = xf_cancel(&r.task);
	second = xf_cancel(&r.task);
	GRADE_EXPECT(first == 0 && second == 0,
		     "both requests return 0 (the task has not finished)",
		     "%d and %d", first, second);
	GRADE_EXPECT(r.done_calls == 0,
		     "xf_cancel() only asks: done not called yet",
		     "done called %d time(s) inside xf_cancel", r.done_calls);
	run_until_done(&r, 2000);
	expect_done_once(&r, XF_CANCELLED);
	GRADE_EXPECT_INT(r.rows_reported, 200, "rows reported (cancelled "
			 "while suspended after row 199: the next step checks "
			 "before any row)");
	expect_table_matches(&r);
	run_free(&r);
}

/*
 * Catches: a cancel (or deadline) looked at after the last batch, which
 * reports a table whose every row ran as cancelled (or timed out).  250
 * rows, a yield every 100, a cancel during row 220 (the last batch): done,
 * 250 rows.  Then on the fake clock (1 ms a row, a yield every 10, 25
 * rows), a deadline at 22 ms passes during the last batch: done too.
 */
static void a_cancel_during_the_last_batch_is_too_late(void **state)
{
	(void)state;
	expect_cancel_inside_a_step_lets_it_finish(250, 100, 220, "rows reported "
		"(the cancel came in the last batch: every row ran)");
	expect_deadline_inside_a_step_lets_it_finish(25, 10, 22, "rows reported "
		"(the deadline passed in the last batch: every row ran)");
}

/*
 * Catches: a deadline that never fires, fires as a cancel (wrong status),
 * or cuts a batch short (checked before each row).  The clock is the
 * grader's fake one and every row advances it by 1 ms: a deadline 25 ms
 * away must stop the task at the yield after row 29 (batches of 10), as
 * XF_TIMED_OUT, with exactly 30 rows.  A deadline already past stops it
 * before the first row.  No real time involved.
 */
static void deadline_stops_the_task_at_a_yield_with_its_own_status(
	void **state)
{
	struct run r;

	(void)state;
	use_fake_clock();
	start_ticking_task(&r, NEVER);
	xf_set_deadline(&r.task, clock_now_ns() + 25 * CLOCK_NS_PER_MS);
	run_until_done(&r, 2000);
	clock_set_source(NULL);
	expect_done_once(&r, XF_TIMED_OUT);
	GRADE_EXPECT(r.rows_reported == 30,
		     "30 rows (1 ms a row, deadline 25 ms, checked at the "
		     "yields every 10 rows)",
		     "%zu%s", r.rows_reported,
		     r.rows_reported < 30 ? " (checked inside a batch? only "
		     "at the start of a step)" : " (does the deadline use "
		     "clock_now_ns()?)");
	expect_table_matches(&r);
	run_free(&r);

	use_fake_clock();
	start_ticking_task(&r, NEVER);
	xf_set_deadline(&r.task, clock_now_ns() - 1);
	run_until_done(&r, 2000);
	clock_set_source(NULL);
	expect_done_once(&r, XF_TIMED_OUT);
	GRADE_EXPECT_INT(r.rows_reported, 0,
			 "rows with a deadline already past");
	run_free(&r);
}

/*
 * Catches: a deadline compared with > instead of >=.  On the fake clock
 * (1 ms a row, a yield every 10), a deadline 20 ms away is reached exactly
 * at the cancellation point after row 19: the task stops there with 20
 * rows (with >, it would run to 30).  A deadline equal to the clock at
 * the start stops it before the first row.
 */
static void a_deadline_exactly_on_a_check_point_stops_the_task_there(
	void **state)
{
	struct run r;

	(void)state;
	use_fake_clock();
	start_ticking_task(&r, NEVER);
	xf_set_deadline(&r.task, clock_now_ns() + 20 * CLOCK_NS_PER_MS);
	run_until_done(&r, 2000);
	clock_set_source(NULL);
	expect_done_once(&r, XF_TIMED_OUT);
	GRADE_EXPECT(r.rows_reported == 20,
		     "20 rows: the clock reads exactly the deadline at the "
		     "yield after row 19 (now >= deadline)",
		     "%zu", r.rows_reported);
	expect_table_matches(&r);
	run_free(&r);

	use_fake_clock();
	start_ticking_task(&r, NEVER);
	xf_set_deadline(&r.task, clock_now_ns());
	run_until_done(&r, 2000);
	clock_set_source(NULL);
	expect_done_once(&r, XF_TIMED_OUT);
	GRADE_EXPECT_INT(r.rows_reported, 0, "rows with a deadline equal to "
			 "the clock at the start");
	run_free(&r);
}

/* Catches: a deadline of 0 treated as "no change" (or as a time long
 * past): a deadline set, then removed with 0, must not stop the task. */
static void deadline_zero_removes_the_deadline(void **state)
{
	struct run r;

	(void)state;
	use_fake_clock();
	start_ticking_task(&r, NEVER);
	xf_set_deadline(&r.task, clock_now_ns() - 1);
	xf_set_deadline(&r.task, 0);
	run_until_done(&r, 2000);
	clock_set_source(NULL);
	expect_done_once(&r, XF_DONE);
	GRADE_EXPECT_INT(r.rows_reported, 1000, "rows reported");
	expect_table_matches(&r);
	run_free(&r);
}

/*
 * Catches: the deadline checked before the cancel request, so a task that
 * was asked to stop reports that it ran out of time.  Before the first
 * step: a deadline already past and a cancel.  During the run (fake clock,
 * 1 ms a row, yields every 10): a cancel during row 15 and a deadline at
 * 20 ms meet at the yield after row 19.  Both times: XF_CANCELLED.
 */
static void a_cancel_wins_over_a_passed_deadline(void **state)
{
	struct run r;

	(void)state;
	use_fake_clock();
	start_ticking_task(&r, NEVER);
	xf_set_deadline(&r.task, clock_now_ns() - 1);
	xf_cancel(&r.task);
	run_until_done(&r, 2000);
	clock_set_source(NULL);
	expect_done_once(&r, XF_CANCELLED);
	GRADE_EXPECT_INT(r.rows_reported, 0, "rows reported");
	run_free(&r);

	use_fake_clock();
	start_ticking_task(&r, 15);
	xf_set_deadline(&r.task, clock_now_ns() + 20 * CLOCK_NS_PER_MS);
	run_until_done(&r, 2000);
	clock_set_source(NULL);
	expect_hook_cancel_only_asked(&r);
	expect_done_once(&r, XF_CANCELLED);
	GRADE_EXPECT_INT(r.rows_reported, 20, "rows reported (cancel during "
			 "row 15, deadline 20 ms, yields every 10)");
	expect_table_matches(&r);
	run_free(&r);
}

/* The three ends every cleanup test goes through. */
enum ending { END_DONE, END_CANCELLED, END_TIMED_OUT };
static const char *const ending_names[] = { "done", "cancelled",
					     "timed out" };

/* 500 rows, a yield every 100, ended the given way; leaves r set up.
 * cancel_in_done: done calls xf_cancel. */
static void run_to_an_end(struct run *r, enum ending how,
			  bool cancel_in_done)
{
	run_init(r, 500, 1);
	r->cancel_in_done = cancel_in_done;
	r->cancel_at_row = how == END_CANCELLED ? 150 : NEVER;
	r->table->on_row = cancel_at_row;
	r->table->on_row_arg = r;
	start_task(r, 100);
	if (how == END_TIMED_OUT)
		xf_set_deadline(&r->task, clock_now_ns() - 1);
	run_until_done(r, 2000);
}

static void expect_clean_at_done(const struct run *r, const char *path)
{
	GRADE_EXPECT(r->done_calls == 1 && !r->leased_at_done &&
		     !r->event_at_done,
		     "cleanup before done: table released, task->ev == NULL",
		     "on the %s path: done called %d time(s), table %s, "
		     "task->ev %s", path, r->done_calls,
		     r->leased_at_done ? "still leased" : "released",
		     r->event_at_done ? "still set" : "NULL");
	GRADE_EXPECT_INT(event_base_get_num_events(r->base,
			 EVENT_BASE_COUNT_ADDED | EVENT_BASE_COUNT_ACTIVE), 0,
			 "events left on the base");
}

/* Catches: cleanup skipped on a path (the event leaked, the table left
 * leased: the next transform of the table fails).  Three ends: done,
 * cancelled during a batch, timed out before the first row. */
static void cleanup_runs_before_done_on_every_path(void **state)
{
	struct run r;

	(void)state;
	for (int how = END_DONE; how <= END_TIMED_OUT; how++) {
		run_to_an_end(&r, (enum ending)how, false);
		expect_clean_at_done(&r, ending_names[how]);
		run_free(&r);
	}
}

/* libevent blocks alive once libevent's own globals exist (the first base
 * with threads allocates locks that live until exit). */
static long libevent_blocks_at_rest(void)
{
	struct event_base *warm = evbase_new(EVBASE_PRECISE | EVBASE_THREADS);

	GRADE_EXPECT(warm != NULL, "an event base", "setup failed");
	event_base_free(warm);
	return evalloc_live();
}

/*
 * Catches: an event that is deleted (event_del) but never freed, on any
 * end.  libevent's allocations are counted (evalloc): after the base is
 * freed, the count must be back where it was before it was created.
 */
static void the_task_event_is_freed_not_only_deleted(void **state)
{
	long before = libevent_blocks_at_rest(), after;
	struct run r;

	(void)state;
	for (int how = END_DONE; how <= END_TIMED_OUT; how++) {
		run_to_an_end(&r, (enum ending)how, false);
		run_free(&r);
		after = evalloc_live();
		GRADE_EXPECT(after == before,
			     "every libevent block freed once the base is",
			     "%ld block(s) left on the %s path: event_free() "
			     "the task's event, event_del() is not enough",
			     after - before, ending_names[how]);
	}
}

/*
 * Catches: status or finished set after done returns (or never), so done
 * reads a running task, and a cancel from inside done that is taken for a
 * live request.  On each of the three ends done reads the task and calls
 * xf_cancel, which must return -1 and change nothing.
 */
static void done_sees_the_final_state_and_may_call_xf_cancel(void **state)
{
	static const enum xf_status want[] = { XF_DONE, XF_CANCELLED,
					       XF_TIMED_OUT };
	struct run r;

	(void)state;
	for (int how = END_DONE; how <= END_TIMED_OUT; how++) {
		run_to_an_end(&r, (enum ending)how, true);
		expect_done_once(&r, want[how]);
		GRADE_EXPECT(r.finished_at_done &&
			     r.status_at_done == want[how] &&
			     r.rows_field_at_done == r.rows_reported,
			     "in done: task->finished true, task->status and "
			     "task->rows_done as passed to done",
			     "on the %s path: finished %s, status %s, "
			     "rows_done %zu (done got %zu): set them before "
			     "calling done", ending_names[how],
			     r.finished_at_done ? "true" : "false",
			     xf_status_name(r.status_at_done),
			     r.rows_field_at_done, r.rows_reported);
		GRADE_EXPECT(r.cancel_rc_in_done == -1,
			     "xf_cancel() called from done returns -1",
			     "on the %s path it returned %d",
			     ending_names[how], r.cancel_rc_in_done);
		GRADE_EXPECT(r.task.status == want[how],
			     "the status unchanged after done",
			     "%s", xf_status_name(r.task.status));
		run_free(&r);
	}
}

struct side_by_side {
	struct run *a, *b;
	int64_t end_ns;
	bool out_of_time;
};

/* Every 10 ms: past the end, stop the loop (and say it was us). */
static void side_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct side_by_side *s = arg;

	(void)fd;
	(void)what;
	if (clock_monotonic_ns() > s->end_ns) {
		s->out_of_time = true;
		event_base_loopbreak(s->a->base);
	}
}

/* Runs the loop until both tasks reported, stalled or ran out of time.
 * @return true if the loop was stopped by someone else than the grader. */
static bool run_side_by_side(struct side_by_side *s)
{
	struct timeval ten_ms = { 0, 10000 };
	struct event_base *base = s->a->base;
	struct event *tick = event_new(base, -1, EV_PERSIST, side_tick_cb, s);
	bool stopped = false;

	s->end_ns = clock_monotonic_ns() + grade_bound_ns(3000);
	event_add(tick, &ten_ms);
	while (!(s->a->done_seen && s->b->done_seen) && !s->out_of_time &&
	       !(task_stalled(s->a) || task_stalled(s->b))) {
		event_base_loop(base, EVLOOP_ONCE);
		if ((event_base_got_break(base) && !s->out_of_time) ||
		    event_base_got_exit(base))
			stopped = true;
	}
	event_free(tick);
	return stopped;
}

/*
 * Catches: state kept outside the task (a static flag or counter shared by
 * every task), and a task that stops the caller's loop when it ends
 * (event_base_loopbreak/loopexit in finish: every other event on the loop
 * would stop too).  Two tasks on one loop, each on its own table, yields
 * every 100 rows, so their steps alternate; B is cancelled during its row
 * 250.  A must end XF_DONE with 1000 rows, B XF_CANCELLED with 300, and
 * nothing but the grader may stop the loop.
 */
static void two_tasks_on_one_loop_stop_alone(void **state)
{
	struct run a, b;
	struct side_by_side s = { &a, &b, 0, false };
	bool stopped;

	(void)state;
	run_init(&a, 1000, 2);
	run_init(&b, 1000, 2);
	event_base_free(b.base);
	b.base = a.base;
	b.cancel_at_row = 250;
	b.table->on_row = cancel_at_row;
	b.table->on_row_arg = &b;
	start_task(&a, 100);
	start_task(&b, 100);
	stopped = run_side_by_side(&s);
	GRADE_EXPECT(!stopped, "only the grader stops the loop",
		     "the loop was stopped (event_base_loopbreak or "
		     "loopexit) from a task: a task must never stop the "
		     "caller's loop, other events run on it");
	GRADE_EXPECT(b.done_calls == 1 && b.status == XF_CANCELLED &&
		     b.rows_reported == 300,
		     "task B (cancelled during its row 250): done once, "
		     "cancelled, 300 rows",
		     "done %d time(s), %s, %zu rows", b.done_calls,
		     xf_status_name(b.status), b.rows_reported);
	GRADE_EXPECT(a.done_calls == 1 && a.status == XF_DONE &&
		     a.rows_reported == 1000,
		     "task A (never cancelled): done once, done, 1000 rows",
		     "done %d time(s), %s, %zu rows (does B's cancel reach "
		     "A? keep every bit of state in struct xf_task)",
		     a.done_calls, xf_status_name(a.status), a.rows_reported);
	expect_table_matches(&a);
	expect_table_matches(&b);
	table_free(b.table);
	run_free(&a);
}

static int second_done_calls;
static enum xf_status second_status;
static size_t second_rows;

static void count_second_done(enum xf_status status, size_t rows, void *arg)
{
	(void)arg;
	second_done_calls++;
	second_status = status;
	second_rows = rows;
}

/* Runs the loop until the second task has reported (at most 100 passes). */
static void run_until_second_done(struct run *r, int calls)
{
	for (int pass = 0; pass < 100 && second_done_calls < calls; pass++)
		event_base_loop(r->base, EVLOOP_ONCE);
}

/* A started task is a new one, whatever the struct held before: the
 * refused starts left it finished, a past run left its count and flags. */
static void expect_fresh_task(const struct xf_task *t, const char *before)
{
	GRADE_EXPECT(!t->finished && t->rows_done == 0 &&
			     t->status == XF_RUNNING && !t->cancel_requested &&
			     t->deadline_ns == 0,
		     "a task just started: finished false, rows_done 0, "
		     "status running, no cancel request, no deadline",
		     "started again after %s: finished %s, rows_done %zu, "
		     "status %s, cancel_requested %s, deadline_ns %lld (xf_start "
		     "fills in the whole *task)", before,
		     t->finished ? "true" : "false", t->rows_done,
		     xf_status_name(t->status),
		     t->cancel_requested ? "true" : "false",
		     (long long)t->deadline_ns);
}

/* A refused start keeps no event (freed, not only deleted), says it is
 * over (finished, ev NULL) and cannot be cancelled. */
static void expect_refused_task_left_nothing(struct xf_task *t, long live)
{
	GRADE_EXPECT(t->ev == NULL && t->finished,
		     "the refused task: task->ev == NULL and task->finished",
		     "ev %s, finished %s", t->ev ? "set" : "NULL",
		     t->finished ? "true" : "false");
	GRADE_EXPECT_INT(evalloc_live() - live, 0,
			 "libevent blocks the refused start kept (event_free "
			 "its event)");
	GRADE_EXPECT_INT(xf_cancel(t), -1, "xf_cancel() of the refused task");
}

/*
 * Catches: a start that ignores the lease (two transforms on one table),
 * a refused start that still reports, a refused start that releases the
 * lease the first task holds (a third start would then succeed), and an
 * xf_start that fills *task field by field (a reused struct keeps its
 * finished flag, count, cancel request or deadline).  A second xf_start on
 * a table the first task holds returns -1, leaves the table leased and
 * never calls its done; once the first task has reported, the table starts
 * again, and the struct of the refused starts, then of a cancelled run,
 * starts as a new task each time.
 */
static void a_leased_table_is_refused_until_done(void **state)
{
	struct xf_task second;
	int rc;
	long live;
	struct run r;

	(void)state;
	second_done_calls = 0;
	run_init(&r, 500, 1);
	start_task(&r, 100);
	live = evalloc_live();
	rc = xf_start(&second, r.base, r.table, 100, count_second_done, NULL);
	GRADE_EXPECT(rc == -1, "xf_start() on a leased table returns -1",
		     "it returned %d", rc);
	expect_refused_task_left_nothing(&second, live);
	GRADE_EXPECT(r.table->leased,
		     "the first task still holds the table after the refused "
		     "start", "the table is free while the first task runs "
		     "(the refused start released a lease it never took)");
	rc = xf_start(&second, r.base, r.table, 100, count_second_done, NULL);
	GRADE_EXPECT(rc == -1, "a third xf_start() while the first task runs "
		     "returns -1", "it returned %d", rc);
	run_until_done(&r, 2000);
	expect_done_once(&r, XF_DONE);
	GRADE_EXPECT_INT(second_done_calls, 0, "calls of the refused task's "
			 "done");
	expect_table_matches(&r);
	/* Out of memory (evalloc's injected failure): -1, the table not kept. */
	live = evalloc_live();
	evalloc_fail_after(0);
	rc = xf_start(&second, r.base, r.table, 100, count_second_done, NULL);
	evalloc_fail_after(-1);
	GRADE_EXPECT(rc == -1 && !r.table->leased,
		     "xf_start() returns -1 when its event cannot be made, and "
		     "leaves the table free",
		     "it returned %d, table %s", rc,
		     r.table->leased ? "still leased" : "free");
	expect_refused_task_left_nothing(&second, live);
	rc = xf_start(&second, r.base, r.table, 100, count_second_done, NULL);
	GRADE_EXPECT(rc == 0, "xf_start() on the table after done returns 0",
		     "it returned %d", rc);
	expect_fresh_task(&second, "two refused starts");
	/* Cancelled (with a deadline long past) before its first step ... */
	xf_set_deadline(&second, 1);
	GRADE_EXPECT_INT(xf_cancel(&second), 0, "xf_cancel() of the started "
			 "task");
	run_until_second_done(&r, 1);
	GRADE_EXPECT(second_done_calls == 1 && second_status == XF_CANCELLED &&
			     second_rows == 0,
		     "the second task, cancelled before its first step: done "
		     "once, cancelled, 0 rows",
		     "done %d time(s), %s, %zu rows", second_done_calls,
		     xf_status_name(second_status), second_rows);
	/* ... then the same struct started again runs every row. */
	rc = xf_start(&second, r.base, r.table, 100, count_second_done, NULL);
	GRADE_EXPECT(rc == 0, "xf_start() of the reused struct returns 0",
		     "it returned %d", rc);
	expect_fresh_task(&second, "a cancelled run");
	run_until_second_done(&r, 2);
	GRADE_EXPECT(second_done_calls == 2 && second_status == XF_DONE &&
			     second_rows == 500,
		     "the reused struct's run: done, 500 rows",
		     "done %d time(s) in all, %s, %zu rows", second_done_calls,
		     xf_status_name(second_status), second_rows);
	run_free(&r);
}

/* ---- tests: the job on a worker thread ----------------------------------- */

/*
 * Catches: a worker that ignores its flag (it reports XF_DONE and every
 * row), or a flag shared without synchronisation (a plain bool: under
 * ThreadSanitizer, which the harness runs this test in too, the store on
 * the loop thread and the loads on the worker race).  ~1 s of rows on a
 * worker, cancelled from a loop timer 10 ms in.  The worker checks before
 * each row (~3 us), so it stops within microseconds of the store; done
 * follows one doorbell later.  Bound: 700 ms (scaled) from
 * xf_job_cancel() to done.  Typical here: 0.1 ms; the worst seen with
 * other builds saturating both cores (two thread wake-ups): ~200 ms, and
 * once past 400 ms with two labs graded at once beside two busy loops
 * (stress.sh -k 20 -j 2: 1 run of 160); a worker that runs on needs
 * ~990 ms more, and more still on a loaded machine.
 */
static void worker_stops_soon_after_its_flag_is_set(void **state)
{
	int64_t row_ns;
	size_t n = rows_for_ms(1000, &row_ns);
	struct event *timer;
	struct run r;

	(void)state;
	run_init(&r, n, ROUNDS);
	start_job(&r);
	timer = cancel_in_ms(&r, 10);
	run_until_done(&r, 5000);
	event_free(timer);
	expect_done_once(&r, XF_CANCELLED);
	GRADE_EXPECT(r.cancel_ran && r.done_ns - r.cancel_ran_ns <
				     grade_bound_ns(700),
		     "done within 700 ms of xf_job_cancel()",
		     "%.1f ms (whole run ~1 s)",
		     clock_ns_to_ms(r.done_ns - r.cancel_ran_ns));
	GRADE_EXPECT(r.rows_reported < n, "a partial count",
		     "%zu of %zu rows", r.rows_reported, n);
	GRADE_EXPECT(r.job.rows_done == r.rows_reported,
		     "job->rows_done is the count done got",
		     "%zu and %zu", r.job.rows_done, r.rows_reported);
	expect_table_matches(&r);
	run_free(&r);
}

/* A handshake with the worker: at row hold_row it tells the loop thread
 * and waits until the loop thread has cancelled the job. */
struct handshake {
	struct run *r;
	size_t hold_row;
	atomic_bool reached;
	sem_t resume;
};

static void hold_at_row(struct table *t, size_t row, void *arg)
{
	struct handshake *h = arg;
	struct timespec limit;

	(void)t;
	if (row != h->hold_row)
		return;
	clock_gettime(CLOCK_REALTIME, &limit);
	limit.tv_sec += 10;   /* never forever, whatever the test does */
	atomic_store(&h->reached, true);
	while (sem_timedwait(&h->resume, &limit) != 0 && errno == EINTR)
		;
}

/* Polls the loop until the worker holds at its row, or it reported. */
static bool wait_for_hold(struct handshake *h, int64_t ms)
{
	int64_t end = clock_monotonic_ns() + grade_bound_ns(ms);

	while (!atomic_load(&h->reached) && !h->r->done_seen &&
	       clock_monotonic_ns() < end) {
		event_base_loop(h->r->base, EVLOOP_NONBLOCK);
		clock_sleep_ns(100 * CLOCK_NS_PER_US);
	}
	return atomic_load(&h->reached);
}

/*
 * Catches: a flag looked at every N rows (every 64, say) or only at the
 * start, instead of before each row.  Deterministic, no clock: the worker
 * is held inside row 100 (a row hook) until the loop thread has called
 * xf_job_cancel(); the check before row 101 must see it, so the job
 * reports exactly 101 rows, as XF_CANCELLED, on the loop thread.
 */
static void worker_checks_its_flag_before_every_row(void **state)
{
	struct handshake h = { .hold_row = 100 };
	struct run r;

	(void)state;
	run_init(&r, 1000, 1);
	h.r = &r;
	atomic_init(&h.reached, false);
	GRADE_EXPECT(sem_init(&h.resume, 0, 0) == 0, "a semaphore",
		     "sem_init failed");
	r.table->on_row = hold_at_row;
	r.table->on_row_arg = &h;
	start_job(&r);
	if (wait_for_hold(&h, 3000))
		xf_job_cancel(&r.job);
	sem_post(&h.resume);
	run_until_done(&r, 5000);
	GRADE_EXPECT(atomic_load(&h.reached), "the worker transforms row 100",
		     "it reported %s with %zu rows before row 100",
		     xf_status_name(r.status), r.rows_reported);
	expect_done_once(&r, XF_CANCELLED);
	GRADE_EXPECT(r.rows_reported == 101,
		     "101 rows: cancelled while row 100 was transformed, the "
		     "check before row 101 stops the job",
		     "%zu rows (check job->cancel before every row)",
		     r.rows_reported);
	expect_table_matches(&r);
	sem_destroy(&h.resume);
	run_free(&r);
}

/*
 * Catches: a worker that transforms a row before its first check, one that
 * resets the flag when it starts, and a flag kept anywhere but
 * job->cancel.  Called directly, no thread: xf_job_cancel must set
 * job->cancel; a job whose flag is already set transforms nothing and
 * reports XF_CANCELLED, 0 rows.
 */
static void worker_cancelled_before_it_starts_does_no_row(void **state)
{
	struct xf_job asked, preset;
	struct run r;

	(void)state;
	run_init(&r, 100, 1);
	memset(&asked, 0, sizeof(asked));
	atomic_init(&asked.cancel, false);
	asked.table = r.table;
	xf_job_cancel(&asked);
	GRADE_EXPECT(atomic_load(&asked.cancel),
		     "xf_job_cancel() sets job->cancel", "it is still false");

	memset(&preset, 0, sizeof(preset));
	atomic_init(&preset.cancel, true);
	preset.table = r.table;
	preset.status = XF_RUNNING;
	xf_job_run(&preset);
	GRADE_EXPECT(preset.rows_done == 0 && preset.status == XF_CANCELLED,
		     "job->cancel set before xf_job_run: 0 rows, cancelled",
		     "%zu rows, %s", preset.rows_done,
		     xf_status_name(preset.status));
	r.rows_reported = preset.rows_done;
	expect_table_matches(&r);
	run_free(&r);
}

/* Cancels the job while its last row is transformed. */
static void cancel_job_at_last_row(struct table *t, size_t row, void *arg)
{
	struct run *r = arg;

	if (row + 1 == t->n_rows)
		xf_job_cancel(&r->job);
}

/* The worker is held inside its last row; the loop thread lets it go and
 * at once cancels it, racing with its end. */
static void cancel_as_the_job_ends(struct run *r)
{
	struct handshake h = { .r = r, .hold_row = r->table->n_rows - 1 };

	atomic_init(&h.reached, false);
	GRADE_EXPECT(sem_init(&h.resume, 0, 0) == 0, "a semaphore",
		     "sem_init failed");
	r->table->on_row = hold_at_row;
	r->table->on_row_arg = &h;
	start_job(r);
	wait_for_hold(&h, 3000);
	sem_post(&h.resume);
	xf_job_cancel(&r->job);
	run_until_done(r, 5000);
	sem_destroy(&h.resume);
}

/*
 * Catches: a status taken from the flag instead of the count (every row
 * ran, yet "cancelled"), a worker that calls done itself (from the worker
 * thread, and then job.c calls it again), and an xf_job_cancel that reads
 * what the worker writes (the status, the count) without an atomic: a
 * data race that ThreadSanitizer reports.  First the flag is set by the
 * worker's own hook while the last of 500 rows is transformed; then the
 * loop thread cancels just as the worker leaves its last row.  Both
 * times: XF_DONE, 500 rows, done once on the loop thread.
 */
static void worker_whose_rows_all_ran_reports_done(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, 500, 1);
	r.table->on_row = cancel_job_at_last_row;
	r.table->on_row_arg = &r;
	start_job(&r);
	run_until_done(&r, 5000);
	expect_done_once(&r, XF_DONE);
	GRADE_EXPECT_INT(r.rows_reported, 500, "rows reported (the flag was "
			 "set during the last row)");
	expect_table_matches(&r);
	run_free(&r);

	run_init(&r, 500, 1);
	cancel_as_the_job_ends(&r);
	expect_done_once(&r, XF_DONE);
	GRADE_EXPECT_INT(r.rows_reported, 500, "rows reported (cancelled as "
			 "the worker left its last row)");
	expect_table_matches(&r);
	run_free(&r);
}

/* Catches: an xf_job_cancel that does more than set the flag (writes the
 * status, reports): called after the job reported, it changes nothing. */
static void worker_cancel_after_done_changes_nothing(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, 500, 1);
	start_job(&r);
	run_until_done(&r, 5000);
	xf_job_cancel(&r.job);
	event_base_loop(r.base, EVLOOP_NONBLOCK);
	expect_done_once(&r, XF_DONE);
	GRADE_EXPECT(r.job.status == XF_DONE && r.job.rows_done == 500,
		     "after a late xf_job_cancel(): job->status done, "
		     "job->rows_done 500",
		     "%s, %zu", xf_status_name(r.job.status), r.job.rows_done);
	run_free(&r);
}

static const struct grade_test tests[] = {
	GRADE_TEST(cancel_ten_ms_in_stops_within_one_yield_interval, 7, 10000,
		   "check task->cancel_requested at the start of every step, "
		   "before any row"),
	GRADE_TEST(no_yield_task_runs_to_the_end_whatever_you_ask, 5, 10000,
		   "yield_every == 0 means every row in one step, no yield"),
	GRADE_TEST(partial_count_matches_the_rows_transformed, 7, 5000,
		   "count a row after it is transformed; stop only between "
		   "batches; report XF_CANCELLED"),
	GRADE_TEST(seen_between_steps_the_count_is_a_whole_number_of_batches,
		   6, 5000,
		   "a step: the check, then exactly yield_every rows (fewer "
		   "only for the last), counted as they are done, then yield"),
	GRADE_TEST(cancel_before_start_reports_zero_rows, 5, 5000,
		   "the first step is a cancellation point: end there, and "
		   "still call done"),
	GRADE_TEST(cancel_after_completion_changes_nothing, 3, 5000,
		   "once finished, xf_cancel returns -1 and does nothing"),
	GRADE_TEST(cancelling_twice_reports_once, 4, 5000,
		   "xf_cancel only sets a flag; the task's next step ends it"),
	GRADE_TEST(a_cancel_during_the_last_batch_is_too_late, 3, 5000,
		   "after the batch with the last row, end with XF_DONE "
		   "before looking at any request"),
	GRADE_TEST(deadline_stops_the_task_at_a_yield_with_its_own_status, 7,
		   5000,
		   "at each cancellation point compare clock_now_ns() with "
		   "task->deadline_ns; end with XF_TIMED_OUT"),
	GRADE_TEST(a_deadline_exactly_on_a_check_point_stops_the_task_there,
		   4, 5000, "the deadline has passed when now >= deadline_ns"),
	GRADE_TEST(deadline_zero_removes_the_deadline, 3, 5000,
		   "store whatever xf_set_deadline gets: 0 means none"),
	GRADE_TEST(a_cancel_wins_over_a_passed_deadline, 4, 5000,
		   "look at cancel_requested before the deadline"),
	GRADE_TEST(cleanup_runs_before_done_on_every_path, 5, 5000,
		   "one finish() for every end: free the event, release the "
		   "table, then call done"),
	GRADE_TEST(the_task_event_is_freed_not_only_deleted, 4, 5000,
		   "event_free(task->ev) in finish(), then task->ev = NULL"),
	GRADE_TEST(done_sees_the_final_state_and_may_call_xf_cancel, 5, 5000,
		   "in finish(): set finished and status before calling done"),
	GRADE_TEST(two_tasks_on_one_loop_stop_alone, 3, 5000,
		   "keep all of a task's state in its struct xf_task; never "
		   "stop the loop from the task"),
	GRADE_TEST(a_leased_table_is_refused_until_done, 3, 5000,
		   "xf_start returns -1 when table_lease fails, releases no "
		   "lease it did not take, fills in the whole *task (keep the "
		   "provided xf_start)"),
	GRADE_TEST_TSAN(worker_stops_soon_after_its_flag_is_set, 8, 10000,
			"atomic_load(&job->cancel) before every row in "
			"xf_job_run; atomic_store in xf_job_cancel"),
	GRADE_TEST_TSAN(worker_checks_its_flag_before_every_row, 6, 10000,
			"load job->cancel before every row, not every N rows"),
	GRADE_TEST_TSAN(worker_cancelled_before_it_starts_does_no_row, 3, 5000,
			"check job->cancel before the first row too; never "
			"reset it"),
	GRADE_TEST_TSAN(worker_whose_rows_all_ran_reports_done, 3, 5000,
			"status from the count: every row done is XF_DONE; "
			"job.c calls done, not xf_job_run"),
	GRADE_TEST_TSAN(worker_cancel_after_done_changes_nothing, 2, 5000,
			"xf_job_cancel only sets the flag"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "ex05_cancel",
			  "cancellation points: yields, deadlines, flags",
			  tests, sizeof(tests) / sizeof(tests[0]));
}
