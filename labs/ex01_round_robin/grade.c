/* ex01 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * Grader for ex01_round_robin.  Each test catches one mistake; the comment
 * above it names the mistake and, for tests that read the clock, why the
 * bound is safe on a shared 2-core VM.
 */
#include "round_robin.h"

#include "clock.h"
#include "evalloc.h"
#include "evbase.h"
#include "grade.h"
#include "lag.h"
#include "trace.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- fixtures ------------------------------------------------------------ */

struct world {
	struct event_base *base;
	struct trace *trace;
	int done_calls;
	long live_before;   /* evalloc_live() before the base was made */
};

static void world_init(struct world *w)
{
	w->live_before = evalloc_live();
	w->base = evbase_new(EVBASE_PRECISE);
	w->trace = trace_new();
	w->done_calls = 0;
	GRADE_EXPECT(w->base && w->trace, "an event base and a trace",
		     "setup failed (out of memory?)");
	/* The count must see the base, or a leak test could not fail. */
	GRADE_EXPECT(evalloc_live() > w->live_before,
		     "libevent's allocations counted (grader setup)",
		     "the counter did not move when a base was made");
}

static void world_free(struct world *w)
{
	trace_free(w->trace);
	event_base_free(w->base);
}

/* Frees the world; @return libevent blocks still allocated that were not
 * before it was made: events (or anything) the tasks never freed. */
static long world_free_leaks(struct world *w)
{
	world_free(w);
	return evalloc_live() - w->live_before;
}

static void count_done(struct rr_task *task, void *arg)
{
	(void)task;
	(void)arg;
}

struct counted_chatty {
	struct chatty chatty;
	int *done_calls;
	bool yield_failed_in_done;   /* task->yield_failed as done saw it */
};

static void chatty_done(struct rr_task *task, void *arg)
{
	struct counted_chatty *cc = arg;

	cc->yield_failed_in_done = task->yield_failed;
	(*cc->done_calls)++;
}

/* Starts n chatty tasks named a, b, c, ... of count steps each. */
static void start_chatty(struct world *w, struct rr_task *tasks,
			 struct counted_chatty *cc, int n, int count,
			 enum rr_mode mode)
{
	static const char *const names[] = { "a", "b", "c", "d", "e", "f" };

	for (int i = 0; i < n; i++) {
		cc[i] = (struct counted_chatty){
			.chatty = { .name = names[i], .count = count,
				    .trace = w->trace },
			.done_calls = &w->done_calls,
		};
		GRADE_EXPECT(rr_task_start(&tasks[i], w->base, chatty_step,
					   chatty_done, &cc[i], mode) == 0,
			     "rr_task_start() returns 0", "it returned -1");
	}
}

/* Steps traced past any test's own (the longest traces ~100): a task that
 * never ends is stopped there, and its test fails at once and says so,
 * not at its 5 s timeout (a chatty step that never returns false spun
 * there: 5 s of CPU for a student, and for make check's mutant sample). */
#define RUNAWAY_STEPS 10000
#define RUNAWAY_CHECK_MS 2

/* A timer that looks at the trace every RUNAWAY_CHECK_MS.  A yield keeps an
 * event active, so the loop never returns between passes: only a callback
 * of its own can see a runaway task.  It re-arms only while other events
 * remain, so a loop whose tasks are done still ends by itself, at most
 * RUNAWAY_CHECK_MS later. */
struct runaway_watch {
	struct world *w;
	struct event *ev;
};

static void runaway_cb(evutil_socket_t fd, short what, void *arg)
{
	struct runaway_watch *r = arg;
	const struct timeval period = { 0, RUNAWAY_CHECK_MS * 1000 };

	(void)fd;
	(void)what;
	if (trace_len(r->w->trace) >= RUNAWAY_STEPS)
		event_base_loopbreak(r->w->base);
	else if (event_base_get_num_events(r->w->base, EVENT_BASE_COUNT_ADDED |
					   EVENT_BASE_COUNT_ACTIVE) > 0)
		event_add(r->ev, &period);
}

/* event_base_dispatch(w->base) with the runaway watch on.  @return as
 * event_base_dispatch: 1 nothing left, 0 loopbreak or loopexit, -1 error. */
static int run_loop(struct world *w)
{
	const struct timeval period = { 0, RUNAWAY_CHECK_MS * 1000 };
	struct runaway_watch r = { .w = w };
	int rc;

	r.ev = event_new(w->base, -1, 0, runaway_cb, &r);
	GRADE_EXPECT(r.ev && event_add(r.ev, &period) == 0,
		     "a runaway watch (grader setup)", "event_new or event_add failed");
	rc = event_base_dispatch(w->base);
	event_free(r.ev);
	GRADE_EXPECT(trace_len(w->trace) < RUNAWAY_STEPS,
		     "every task ends after its last step",
		     "still stepping after %d steps: the grader stopped the loop",
		     RUNAWAY_STEPS);
	return rc;
}

static void expect_trace(struct world *w, const char *want)
{
	char *got = trace_join(w->trace, " ");

	GRADE_EXPECT_STR(got, want);
	free(got);
}

static void watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(arg);
}

/* Breaks the loop after ms (scaled): a broken solution ends in a clear
 * failure instead of a timeout. */
static void arm_watchdog(struct event_base *base, int64_t ms)
{
	int64_t bound = grade_bound_ns(ms);
	struct timeval tv = {
		.tv_sec = bound / CLOCK_NS_PER_S,
		.tv_usec = (bound % CLOCK_NS_PER_S) / CLOCK_NS_PER_US,
	};

	event_base_once(base, -1, EV_TIMEOUT, watchdog_cb, base, &tv);
}

/* Steps run by the grader's long-task step functions (work_step,
 * probe_step): the stall watch below reads it. */
static int steps_taken;

/* Windows of STALL_MS (scaled) in a row with the loop running and no step:
 * the task is lost.  A live task steps in every pass the loop makes, and
 * each window ends in a pass of its own, so a correct task can only look
 * stalled for a window if the whole process was descheduled across its
 * end; three such windows in a row do not happen.  A lost task (the stub,
 * a yield that drops the task) then fails in 0.6 s, not at the deadline
 * (3 s, 9 s under a sanitizer). */
#define STALL_MS 200
#define STALL_WINDOWS 3

struct stall_watch {
	struct event_base *base;
	int steps_seen, idle_windows;
};

static void stall_cb(evutil_socket_t fd, short what, void *arg)
{
	struct stall_watch *s = arg;

	(void)fd;
	(void)what;
	s->idle_windows = steps_taken == s->steps_seen ? s->idle_windows + 1 : 0;
	s->steps_seen = steps_taken;
	if (s->idle_windows >= STALL_WINDOWS)
		event_base_loopbreak(s->base);
}

/* Runs the loop until the task has finished, the watchdog fired after ms
 * (scaled), or the task stopped stepping (the stall watch). */
static void run_until_done(struct world *w, struct rr_task *task, int64_t ms)
{
	struct stall_watch watch = { .base = w->base, .steps_seen = steps_taken };
	int64_t window = grade_bound_ns(STALL_MS);
	struct timeval tv = { .tv_sec = window / CLOCK_NS_PER_S,
			      .tv_usec = (window % CLOCK_NS_PER_S) / CLOCK_NS_PER_US };
	struct event *stall = event_new(w->base, -1, EV_PERSIST, stall_cb, &watch);

	GRADE_EXPECT(stall && event_add(stall, &tv) == 0,
		     "a stall watch (grader setup)", "event_new or event_add failed");
	arm_watchdog(w->base, ms);
	while (task->ev && !event_base_got_break(w->base) &&
	       event_base_loop(w->base, EVLOOP_ONCE) == 0)
		;
	event_free(stall);
}

/* A grader-side step: records "s<i>", holds the loop for work_ns, and on
 * the step numbered poke_step writes one byte to poke_fd.  It holds the
 * loop asleep: the loop cannot tell a callback that sleeps from one that
 * computes (neither returns), and a spin cost every grade of ex01 80 ms of
 * CPU, some 60 grades per make check. */
struct long_task {
	struct trace *trace;
	int steps, next;
	int64_t work_ns;
	int poke_step, poke_fd;
};

static bool work_step(struct rr_task *task, void *arg)
{
	struct long_task *s = arg;

	(void)task;
	steps_taken++;
	trace_add(s->trace, "s%d", s->next);
	if (s->next == s->poke_step && write(s->poke_fd, "x", 1) != 1)
		fail_msg("grader: could not write to the socket");
	clock_sleep_ns(s->work_ns);
	return ++s->next < s->steps;
}

/* ---- tests --------------------------------------------------------------- */

/* Catches: a task that does not yield between steps, or a runner that
 * stops after the first step. */
static void two_tasks_alternate_strictly(void **state)
{
	struct rr_task tasks[2];
	struct counted_chatty cc[2];
	struct world w;

	(void)state;
	world_init(&w);
	start_chatty(&w, tasks, cc, 2, 3, RR_YIELD);
	run_loop(&w);
	expect_trace(&w, "a0 b0 a1 b1 a2 b2");
	world_free(&w);
}

/* Catches: event_add(ev, {0, 0}) as the yield.  Every zero-timeout timer
 * of a round gets the same deadline and the timer heap keeps no order among
 * ties, so with four tasks a round comes out as a0 d0 c0 b0. */
static void four_tasks_keep_fifo_order_every_round(void **state)
{
	struct rr_task tasks[4];
	struct counted_chatty cc[4];
	struct world w;

	(void)state;
	world_init(&w);
	start_chatty(&w, tasks, cc, 4, 4, RR_YIELD);
	run_loop(&w);
	expect_trace(&w, "a0 b0 c0 d0 a1 b1 c1 d1 a2 b2 c2 d2 a3 b3 c3 d3");
	world_free(&w);
}

/* Catches: event_active() or event_base_once() alone as the yield — the
 * loop never polls, so the timer fires only after the task has ended.
 * Time: 40 steps of 2 ms give ~80 ms of task, ~16 heartbeat periods of 5 ms;
 * asking for 3 beats in that span leaves a 5x margin for VM hiccups. */
static void heartbeat_fires_between_steps_of_a_long_task(void **state)
{
	struct long_task s = { .steps = 40, .work_ns = 2 * CLOCK_NS_PER_MS,
			       .poke_step = -1 };
	struct rr_task task;
	struct lag *lag;
	struct world w;
	long first, last;
	size_t beats = 0;

	(void)state;
	world_init(&w);
	s.trace = w.trace;
	lag = lag_new(w.base, 5 * CLOCK_NS_PER_MS);
	lag_set_trace(lag, w.trace);
	lag_start(lag);
	GRADE_EXPECT(rr_task_start(&task, w.base, work_step, count_done, &s,
				   RR_YIELD) == 0,
		     "rr_task_start() returns 0", "it returned -1");
	/* The heartbeat keeps the loop alive: stop once the task is done. */
	run_until_done(&w, &task, 3000);
	lag_stop(lag);
	first = trace_find(w.trace, "s0", 0);
	last = trace_find(w.trace, "s39", 0);
	GRADE_EXPECT(first >= 0 && last > first, "steps s0 to s39 all ran",
		     "s0 at %ld, s39 at %ld in the trace", first, last);
	for (long i = first; i < last; i++)
		beats += strcmp(trace_name(w.trace, (size_t)i), "beat") == 0;
	GRADE_EXPECT(beats >= 3,
		     "at least 3 heartbeats between the task's first and last "
		     "step (about 16 are due)",
		     "%zu; the timer was starved until the task ended", beats);
	lag_free(lag);
	world_free(&w);
}

/* A grader-side task that shows when the loop polls: at its step i it
 * records "s<i>", writes one byte to a socket and schedules a zero-delay
 * timer.  The timer can only fire, and the byte can only be seen, after
 * the loop has polled and processed its timers; the reader drains every
 * byte it finds.  read_by[i] / fired[i]: the step count when the byte /
 * timer of step i was served (-1: not yet). */
#define PROBE_STEPS 30

struct probe {
	struct trace *trace;
	struct event_base *base;
	int next, fd;
	int bytes_read;
	int read_by[PROBE_STEPS], fired[PROBE_STEPS];
};

struct probe_timer {
	struct probe *p;
	int step;
	struct event *ev;
};

static void probe_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct probe_timer *t = arg;

	(void)fd;
	(void)what;
	t->p->fired[t->step] = t->p->next;
	event_free(t->ev);
	free(t);
}

static bool probe_step(struct rr_task *task, void *arg)
{
	struct probe *p = arg;
	struct probe_timer *t = malloc(sizeof(*t));
	struct timeval zero = { 0, 0 };

	(void)task;
	steps_taken++;
	trace_add(p->trace, "s%d", p->next);
	if (!t || write(p->fd, "x", 1) != 1)
		fail_msg("grader: out of memory or the socket failed");
	/* A timer in the heap (event_add), not event_base_once: with a zero
	 * delay that one is made active at once, without a poll. */
	*t = (struct probe_timer){ .p = p, .step = p->next };
	t->ev = evtimer_new(p->base, probe_timer_cb, t);
	if (!t->ev || event_add(t->ev, &zero) != 0)
		fail_msg("grader: could not add a timer");
	return ++p->next < PROBE_STEPS;
}

static void probe_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct probe *p = arg;
	char buf[64];
	ssize_t n;

	(void)what;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t k = 0; k < n && p->bytes_read < PROBE_STEPS; k++)
			p->read_by[p->bytes_read++] = p->next;
}

static bool served_late(int served, int step)
{
	return served < 0 || served > step + 2;
}

/* The first step whose byte or timer was served later than before step
 * i + 2 (the step after the next: one step may already be queued ahead),
 * or -1 when every one was on time; *late_steps counts them all. */
static int first_late_step(const struct probe *p, const char **what,
			   int *served, int *late_steps)
{
	int first = -1;

	*late_steps = 0;
	for (int i = 0; i + 2 < PROBE_STEPS; i++) {
		bool timer_late = served_late(p->fired[i], i);

		if (!timer_late && !served_late(p->read_by[i], i))
			continue;
		++*late_steps;
		if (first >= 0)
			continue;
		first = i;
		*what = timer_late ? "its zero-delay timer fired" :
				     "its byte was read";
		*served = timer_late ? p->fired[i] : p->read_by[i];
	}
	return first;
}

static void expect_a_poll_after_every_step(struct world *w)
{
	struct probe p = { .trace = w->trace, .base = w->base };
	struct rr_task task;
	struct event *reader;
	const char *what = "";
	int sv[2], late, served = 0, late_steps;

	GRADE_EXPECT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
				sv) == 0, "a socket pair", "socketpair() failed");
	p.fd = sv[1];
	memset(p.read_by, -1, sizeof(p.read_by));
	memset(p.fired, -1, sizeof(p.fired));
	reader = event_new(w->base, sv[0], EV_READ | EV_PERSIST, probe_read_cb,
			   &p);
	event_add(reader, NULL);
	GRADE_EXPECT(rr_task_start(&task, w->base, probe_step, count_done, &p,
				   RR_YIELD) == 0,
		     "rr_task_start() returns 0", "it returned -1");
	run_until_done(w, &task, 3000);
	event_base_loop(w->base, EVLOOP_NONBLOCK);
	late = first_late_step(&p, &what, &served, &late_steps);
	GRADE_EXPECT(late < 0,
		     "after every step i the loop polls: a byte sent and a "
		     "zero-delay timer set during step i are served before "
		     "step i+2",
		     "step s%d: %s only before step s%d (-1: never)%s", late,
		     what, served, late_steps == PROBE_STEPS - 2 ? " -- the "
		     "loop never polled: your yield re-runs the task in the "
		     "same pass (event_active or event_base_once alone)" :
		     " -- the loop polled after some steps but not after this "
		     "one: EVERY yield must end the pass");
	event_free(reader);
	close(sv[0]);
	close(sv[1]);
}

/* Catches: a yield that never lets the loop poll (event_active or
 * event_base_once alone), and one that ends the pass only on some yields
 * (the first, every other one, every tenth).  Order, not time: each step
 * leaves a byte and a zero-delay timer that only a poll can serve. */
static void every_step_is_followed_by_a_poll(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	expect_a_poll_after_every_step(&w);
	world_free(&w);
}

/* Catches: a yield that remembers the first base it saw (a static
 * variable) and ends the pass of that base ever after.  A first base runs
 * a task to its end and stays alive; the probe then runs on a second. */
static void yields_poll_on_a_second_base_too(void **state)
{
	struct rr_task tasks[1];
	struct counted_chatty cc[1];
	struct world first, second;

	(void)state;
	world_init(&first);
	start_chatty(&first, tasks, cc, 1, 3, RR_YIELD);
	run_loop(&first);
	expect_trace(&first, "a0 a1 a2");
	world_init(&second);
	expect_a_poll_after_every_step(&second);
	world_free(&second);
	world_free(&first);
}

/* Catches: RR_NO_YIELD ignored — the mode shows what a task that never
 * yields does to its neighbours. */
static void no_yield_mode_runs_one_task_to_completion_first(void **state)
{
	struct rr_task tasks[2];
	struct counted_chatty cc[2];
	struct world w;

	(void)state;
	world_init(&w);
	start_chatty(&w, tasks, cc, 2, 3, RR_NO_YIELD);
	run_loop(&w);
	expect_trace(&w, "a0 a1 a2 b0 b1 b2");
	world_free(&w);
}

static bool count_step(struct rr_task *task, void *arg)
{
	(void)task;
	return ++*(int *)arg < 200;
}

/* Catches: a timer with a delay as the yield (event_add with 1 ms: the
 * task then sleeps between steps).  No clock: a non-blocking loop keeps
 * going while something is ready after its poll, so it runs a task that
 * really yields to its end, and returns after the first step when the next
 * step waits for a timer that is not due. */
static void a_nonblocking_loop_runs_a_yielding_task_to_its_end(void **state)
{
	struct rr_task task;
	struct world w;
	int steps = 0;

	(void)state;
	world_init(&w);
	GRADE_EXPECT(rr_task_start(&task, w.base, count_step, count_done,
				   &steps, RR_YIELD) == 0,
		     "rr_task_start() returns 0", "it returned -1");
	event_base_loop(w.base, EVLOOP_NONBLOCK);
	GRADE_EXPECT(steps == 200 && task.ev == NULL,
		     "one event_base_loop(base, EVLOOP_NONBLOCK) runs all 200 "
		     "steps of a yielding task",
		     "%d step(s), then the loop found nothing ready and returned%s",
		     steps, steps < 200 ? ": the next step waits for a timer "
		     "that is not due yet -- a timer with a delay is a sleep, "
		     "not a yield" : "");
	if (task.ev)
		event_free(task.ev);
	world_free(&w);
}

/* Catches: rr_task_start() that runs the first step itself (calls the
 * callback directly) instead of leaving it to the loop. */
static void the_first_step_waits_for_the_loop(void **state)
{
	struct rr_task tasks[1];
	struct counted_chatty cc[1];
	struct world w;

	(void)state;
	world_init(&w);
	start_chatty(&w, tasks, cc, 1, 2, RR_YIELD);
	GRADE_EXPECT(trace_len(w.trace) == 0 && tasks[0].steps == 0,
		     "no step run inside rr_task_start()",
		     "%zu step(s) already recorded when it returned (call "
		     "event_active, do not call the callback yourself)",
		     trace_len(w.trace));
	run_loop(&w);
	expect_trace(&w, "a0 a1");
	world_free(&w);
}

/* Catches: task->steps counting callbacks (1 for a whole RR_NO_YIELD
 * task), yields, or nothing. */
static void steps_are_counted_in_both_modes(void **state)
{
	struct rr_task tasks[2];
	struct counted_chatty cc[2];
	struct world w;

	(void)state;
	world_init(&w);
	start_chatty(&w, tasks, cc, 1, 5, RR_YIELD);
	start_chatty(&w, tasks + 1, cc + 1, 1, 7, RR_NO_YIELD);
	run_loop(&w);
	GRADE_EXPECT(tasks[0].steps == 5 && tasks[1].steps == 7,
		     "task->steps == 5 for a 5-step RR_YIELD task and 7 for a "
		     "7-step RR_NO_YIELD task",
		     "%u and %u%s", tasks[0].steps, tasks[1].steps,
		     tasks[1].steps == 1 ? " (you count callbacks: count each "
		     "step inside the loop over steps)" : "");
	world_free(&w);
}

/* A yield the grader injects: counts its calls, then yields for real
 * (rr_yield) or, from call fail_at on, fails without doing anything. */
struct counting_yield {
	int calls, fail_at;
};

static struct counting_yield injected;

static int injected_yield(struct rr_task *task)
{
	if (++injected.calls >= injected.fail_at)
		return -1;
	return rr_yield(task);
}

/* A 200-step RR_NO_YIELD task: all its steps in one callback, no yield
 * (a "safety cap" that yields every n steps shows here). */
static void expect_no_yield_in_a_long_no_yield_task(struct world *w)
{
	struct rr_task task;
	int steps = 0;

	injected = (struct counting_yield){ .fail_at = 1000 };
	GRADE_EXPECT(rr_task_start(&task, w->base, count_step, NULL, &steps,
				   RR_NO_YIELD) == 0,
		     "rr_task_start() returns 0", "it returned -1");
	task.yield = injected_yield;
	event_base_loop(w->base, EVLOOP_ONCE);
	GRADE_EXPECT(steps == 200 && injected.calls == 0,
		     "a 200-step RR_NO_YIELD task: all 200 steps in one loop "
		     "pass, task->yield never called",
		     "%d step(s) after one pass, %d yield(s) -- in "
		     "RR_NO_YIELD mode run every step in one callback, with no "
		     "cap", steps, injected.calls);
	run_loop(w);
	injected.calls = 0;
}

/* Catches: a yield after the last step too, a yield in RR_NO_YIELD mode
 * (also one every n steps of a long task),
 * and rr_yield() called by name instead of task->yield (the program swaps
 * in other mechanisms through task->yield). */
static void the_task_yields_once_between_steps(void **state)
{
	struct rr_task tasks[1];
	struct counted_chatty cc[1];
	struct world w;
	int with_yield, without_yield;

	(void)state;
	world_init(&w);
	injected = (struct counting_yield){ .fail_at = 1000 };
	start_chatty(&w, tasks, cc, 1, 4, RR_YIELD);
	tasks[0].yield = injected_yield;
	run_loop(&w);
	with_yield = injected.calls;
	injected.calls = 0;
	start_chatty(&w, tasks, cc, 1, 4, RR_NO_YIELD);
	tasks[0].yield = injected_yield;
	run_loop(&w);
	without_yield = injected.calls;
	expect_no_yield_in_a_long_no_yield_task(&w);
	GRADE_EXPECT(with_yield == 3 && without_yield == 0,
		     "task->yield called 3 times for 4 steps in RR_YIELD mode, "
		     "0 times in RR_NO_YIELD mode",
		     "%d and %d%s", with_yield, without_yield,
		     with_yield == 0 ? " (call task->yield(task), not rr_yield "
		     "by name)" : with_yield == 4 ? " (no yield after the last "
		     "step: check whether steps remain first)" : "");
	world_free(&w);
}

/* Catches: a failed yield ignored (the task is lost: its event never runs
 * again, is never freed, done never comes), steps that go on after it,
 * and an end that does not say why. */
static void a_failed_yield_ends_the_task_cleanly(void **state)
{
	struct rr_task tasks[2];
	struct counted_chatty cc[2];
	struct world w;
	long leaked;

	(void)state;
	world_init(&w);
	injected = (struct counting_yield){ .fail_at = 3 };
	start_chatty(&w, tasks, cc, 2, 10, RR_YIELD);
	cc[1].chatty.count = 3;
	tasks[0].yield = injected_yield;
	run_loop(&w);
	GRADE_EXPECT(trace_find(w.trace, "a3", 0) < 0,
		     "no step after the 3rd yield failed",
		     "steps went on: %s", trace_join(w.trace, " "));
	GRADE_EXPECT(w.done_calls == 2 && tasks[0].ev == NULL,
		     "the task whose yield failed ends: task->ev == NULL and "
		     "done called (once per task: 2 in all)",
		     "ev = %p, %d done call(s)%s", (void *)tasks[0].ev,
		     w.done_calls, tasks[0].ev ? " -- the failed yield was "
		     "ignored and the task is lost: when task->yield returns "
		     "-1, finish the task" : "");
	GRADE_EXPECT(tasks[0].yield_failed && !tasks[1].yield_failed,
		     "task->yield_failed true for the task whose yield failed, "
		     "false for the one that ended normally",
		     "%s and %s", tasks[0].yield_failed ? "true" : "false",
		     tasks[1].yield_failed ? "true" : "false");
	GRADE_EXPECT(cc[0].yield_failed_in_done,
		     "task->yield_failed already true when done runs (done is "
		     "the last thing the task does with *task)",
		     "done saw it false -- set task->yield_failed before you "
		     "finish the task");
	leaked = world_free_leaks(&w);
	GRADE_EXPECT(leaked == 0, "no libevent memory left after the base "
		     "is freed", "%ld block(s) never freed", leaked);
}

static bool never_step(struct rr_task *task, void *arg)
{
	(void)task;
	(*(int *)arg)++;
	return true;
}

static void never_done(struct rr_task *task, void *arg)
{
	(void)task;
	((int *)arg)[1]++;
}

/* Catches: a NULL event from event_new used anyway, or reported as 0.
 * libevent's allocator is made to fail (evalloc_fail_after: the real
 * allocation path, out of memory). */
static void start_reports_an_event_it_cannot_make(void **state)
{
	struct world w;
	struct rr_task task;
	int calls[2] = { 0, 0 };   /* steps, done calls */
	int rc;

	struct rr_task ok_task;
	struct counted_chatty ok;

	(void)state;
	world_init(&w);
	/* A start that can succeed must: a stub's -1 is not "out of memory". */
	start_chatty(&w, &ok_task, &ok, 1, 2, RR_YIELD);
	run_loop(&w);
	GRADE_EXPECT(w.done_calls == 1, "a task started with memory to spare "
		     "runs and calls done", "done was called %d time(s)",
		     w.done_calls);
	evalloc_fail_after(0);
	rc = rr_task_start(&task, w.base, never_step, never_done, calls, RR_YIELD);
	evalloc_fail_after(-1);
	GRADE_EXPECT_INT(rc, -1, "rr_task_start() when event_new() fails");
	event_base_loop(w.base, EVLOOP_NONBLOCK);
	GRADE_EXPECT(calls[0] == 0 && calls[1] == 0,
		     "no step and no done for a task that never started",
		     "%d step(s), %d done call(s)", calls[0], calls[1]);
	GRADE_EXPECT(world_free_leaks(&w) == 0, "no libevent memory left",
		     "blocks never freed");
}

/* Catches: an event deleted (event_del) or forgotten, but not freed.
 * Counts libevent's live blocks before the base and after it is freed. */
static void finished_tasks_free_every_event(void **state)
{
	struct rr_task tasks[3];
	struct counted_chatty cc[3];
	struct world w;
	long leaked;

	(void)state;
	world_init(&w);
	start_chatty(&w, tasks, cc, 3, 4, RR_YIELD);
	run_loop(&w);
	GRADE_EXPECT(trace_len(w.trace) == 12 && w.done_calls == 3,
		     "3 tasks of 4 steps: 12 steps, 3 calls of done",
		     "%zu steps, %d calls of done", trace_len(w.trace),
		     w.done_calls);
	leaked = world_free_leaks(&w);
	GRADE_EXPECT(leaked == 0,
		     "every task's event freed: libevent holds no block after "
		     "event_base_free()",
		     "%ld block(s) never freed (event_del only deletes; "
		     "event_free deletes and frees)", leaked);
}

/* Catches: done called without checking for NULL. */
static void done_may_be_null(void **state)
{
	struct chatty c = { .name = "a", .count = 3 };
	struct rr_task task;
	struct world w;

	(void)state;
	world_init(&w);
	c.trace = w.trace;
	GRADE_EXPECT(rr_task_start(&task, w.base, chatty_step, NULL, &c,
				   RR_YIELD) == 0,
		     "rr_task_start() returns 0", "it returned -1");
	run_loop(&w);
	expect_trace(&w, "a0 a1 a2");
	GRADE_EXPECT(task.ev == NULL, "task->ev == NULL at the end",
		     "%p", (void *)task.ev);
	world_free(&w);
}

/* A done that starts its task again, twice. */
struct restarter {
	struct chatty chatty;
	struct event_base *base;
	int dones;
	bool ev_was_set;   /* some done saw task->ev != NULL */
};

static void restart_done(struct rr_task *task, void *arg)
{
	struct restarter *r = arg;

	r->ev_was_set |= task->ev != NULL;
	if (++r->dones < 3) {
		r->chatty.next = 0;
		if (rr_task_start(task, r->base, chatty_step, restart_done, r,
				  RR_YIELD) != 0)
			fail_msg("rr_task_start() from done returned -1");
	}
}

/* Catches: done called before the event is freed (or before task->ev is
 * cleared): the restarted task's new event is then freed or lost. */
static void done_can_restart_its_task(void **state)
{
	struct restarter r = { .chatty = { .name = "a", .count = 2 } };
	struct rr_task task;
	struct world w;
	long leaked;

	(void)state;
	world_init(&w);
	r.chatty.trace = w.trace;
	r.base = w.base;
	GRADE_EXPECT(rr_task_start(&task, w.base, chatty_step, restart_done,
				   &r, RR_YIELD) == 0,
		     "rr_task_start() returns 0", "it returned -1");
	run_loop(&w);
	GRADE_EXPECT(!r.ev_was_set, "task->ev == NULL when done runs",
		     "done saw task->ev set: free the event and clear task->ev "
		     "BEFORE calling done");
	expect_trace(&w, "a0 a1 a0 a1 a0 a1");
	GRADE_EXPECT(r.dones == 3 && task.ev == NULL,
		     "3 runs of the task, 3 calls of done, task->ev NULL at "
		     "the end", "%d done call(s), ev = %p", r.dones,
		     (void *)task.ev);
	leaked = world_free_leaks(&w);
	GRADE_EXPECT(leaked == 0, "no libevent memory left after the base "
		     "is freed", "%ld block(s) never freed", leaked);
}

/* A done that "frees" the task: it overwrites every byte of *task, as
 * free() and the next malloc() would.  Nothing may touch *task after. */
struct scribbler {
	int steps;   /* first: count_step counts it */
	int dones;
};

static void scribble_done(struct rr_task *task, void *arg)
{
	((struct scribbler *)arg)->dones++;
	memset(task, 0xA5, sizeof(*task));
}

static bool scribbled(const struct rr_task *task)
{
	const unsigned char *b = (const unsigned char *)task;

	for (size_t i = 0; i < sizeof(*task); i++)
		if (b[i] != 0xA5)
			return false;
	return true;
}

/* A done that frees the page holding *task for real: any access to *task
 * after it, a read too, faults (SIGSEGV). */
static void unmap_done(struct rr_task *task, void *arg)
{
	((struct scribbler *)arg)->dones++;
	GRADE_EXPECT(mprotect(task, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE)
		     == 0, "mprotect() works (grader setup)", "it failed");
}

/* A task in each mode whose done takes its memory away: a task that
 * reads *task after done (task->mode in the loop's condition, say) gets
 * SIGSEGV, and the test fails with a crash, whatever value it would read. */
static void expect_no_read_of_the_task_after_done(void)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const enum rr_mode modes[] = { RR_YIELD, RR_NO_YIELD };

	for (size_t i = 0; i < 2; i++) {
		struct rr_task *task = mmap(NULL, page, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct scribbler sc = { 0 };
		struct world w;

		GRADE_EXPECT(task != MAP_FAILED, "a page (grader setup)",
			     "mmap() failed");
		world_init(&w);
		GRADE_EXPECT(rr_task_start(task, w.base, count_step, unmap_done,
					   &sc, modes[i]) == 0,
			     "rr_task_start() returns 0", "it returned -1");
		run_loop(&w);
		GRADE_EXPECT(sc.dones == 1 && sc.steps == 200,
			     "a 200-step task whose done frees *task: 200 steps, "
			     "done once", "%d step(s), %d done call(s)",
			     sc.steps, sc.dones);
		munmap(task, page);
		world_free(&w);
	}
}

/* Catches: a task that reads or writes *task after done (task->ev =
 * NULL after it, task->steps++ after it, a yield_failed flag set after
 * it, task->mode read in the loop's condition after it).  A read of the
 * scribbled pointer crashes; a write shows; then *task's memory is taken
 * away for real, so any access crashes. */
static void done_may_free_the_task_memory(void **state)
{
	struct rr_task *task = malloc(sizeof(*task));
	struct scribbler sc = { 0 };
	struct world w;

	(void)state;
	world_init(&w);
	GRADE_EXPECT(task && rr_task_start(task, w.base, count_step,
					   scribble_done, &sc, RR_YIELD) == 0,
		     "rr_task_start() returns 0", "it returned -1");
	run_loop(&w);
	GRADE_EXPECT(sc.dones == 1 && scribbled(task),
		     "done called once, and *task untouched after done (done "
		     "may free it)",
		     "%d done call(s); *task was %s after done", sc.dones,
		     scribbled(task) ? "left alone" : "written to: done must "
		     "be the very last thing the task does");
	free(task);
	world_free(&w);
	expect_no_read_of_the_task_after_done();
}

/* next = 5, count = 4: the promise holds on any input: "x5" recorded,
 * next = 6, and false (6 is not below 4).  A test of next != count
 * instead of next < count says true and never ends. */
static void expect_a_chatty_step_past_its_count(void)
{
	struct trace *trace = trace_new();
	struct chatty c = { .name = "x", .count = 4, .next = 5,
			    .trace = trace };
	struct rr_task task = { 0 };
	bool more;
	char *got;

	GRADE_EXPECT(trace, "a trace (grader setup)", "trace_new() failed");
	more = chatty_step(&task, &c);
	got = trace_join(trace, " ");
	GRADE_EXPECT(got && strcmp(got, "x5") == 0 && !more && c.next == 6,
		     "one call with next = 5, count = 4: \"x5\", false, "
		     "next = 6 (record c->next, move it on, return next < "
		     "count)", "\"%s\", %s, next = %d", got ? got : "(null)",
		     more ? "true" : "false", c.next);
	free(got);
	trace_free(trace);
}

/* Catches: chatty_step numbering its steps from 0 or from task->steps
 * instead of c->next, and one that returns next != count (a next past
 * count never ends) or skips a next past count.  Called directly,
 * without a loop. */
static void chatty_step_counts_from_c_next(void **state)
{
	struct trace *trace = trace_new();
	struct chatty c = { .name = "x", .count = 4, .next = 2,
			    .trace = trace };
	struct rr_task task = { 0 };
	bool first, second;
	char *got;

	(void)state;
	first = chatty_step(&task, &c);
	second = chatty_step(&task, &c);
	got = trace_join(trace, " ");
	GRADE_EXPECT(got && strcmp(got, "x2 x3") == 0 && first && !second &&
		     c.next == 4,
		     "two calls with next = 2, count = 4: \"x2 x3\", true then "
		     "false, next = 4",
		     "\"%s\", %s then %s, next = %d", got ? got : "(null)",
		     first ? "true" : "false", second ? "true" : "false",
		     c.next);
	free(got);
	trace_free(trace);
	expect_a_chatty_step_past_its_count();
}

/* Catches: a task that keeps its event alive or re-arms after the last
 * step (the loop never ends: timeout), done called twice or never, and
 * task->ev left set. */
static void loop_ends_by_itself_when_tasks_finish(void **state)
{
	struct rr_task tasks[2];
	struct counted_chatty cc[2];
	struct world w;

	(void)state;
	world_init(&w);
	start_chatty(&w, tasks, cc, 2, 5, RR_YIELD);
	GRADE_EXPECT(run_loop(&w) == 1,
		     "the loop to end by itself (event_base_dispatch's 1: "
		     "nothing left to wait for)", "it returned something else");
	GRADE_EXPECT_INT(w.done_calls, 2, "calls of done, one per task");
	GRADE_EXPECT(tasks[0].ev == NULL && tasks[1].ev == NULL,
		     "task->ev == NULL after the last step (event freed)",
		     "ev = %p and %p", (void *)tasks[0].ev, (void *)tasks[1].ev);
	GRADE_EXPECT_INT(event_base_get_num_events(w.base, EVENT_BASE_COUNT_ADDED |
				EVENT_BASE_COUNT_ACTIVE), 0,
			 "events still added or active on the base");
	world_free(&w);
}

static const struct grade_test tests[] = {
	GRADE_TEST(two_tasks_alternate_strictly, 12, 5000,
		   "run ONE step per callback (TODO 1), then give the loop a "
		   "turn with task->yield (TODO 2)"),
	GRADE_TEST(four_tasks_keep_fifo_order_every_round, 6, 5000,
		   "every task must get its steps, in the same order every "
		   "round; a zero-timeout timer is not FIFO"),
	GRADE_TEST(heartbeat_fires_between_steps_of_a_long_task, 6, 5000,
		   "event_active alone runs you again before the loop polls; "
		   "the pass must end so timers get their turn"),
	GRADE_TEST(every_step_is_followed_by_a_poll, 7, 5000,
		   "every yield, not just the first, must end the loop's pass "
		   "(event_base_loopcontinue) and re-activate the event"),
	GRADE_TEST(yields_poll_on_a_second_base_too, 6, 5000,
		   "end the pass of task->base, the task's own base; do not "
		   "keep a base in a static variable"),
	GRADE_TEST(no_yield_mode_runs_one_task_to_completion_first, 5, 5000,
		   "in RR_NO_YIELD mode, loop over every step inside one "
		   "callback"),
	GRADE_TEST(a_nonblocking_loop_runs_a_yielding_task_to_its_end, 6, 5000,
		   "a timer with a delay makes the loop sleep; re-activate "
		   "the event instead"),
	GRADE_TEST(the_first_step_waits_for_the_loop, 5, 5000,
		   "rr_task_start() makes the event active; the loop runs the "
		   "first step"),
	GRADE_TEST(steps_are_counted_in_both_modes, 5, 5000,
		   "task->steps++ after every step, inside the loop over "
		   "steps"),
	GRADE_TEST(the_task_yields_once_between_steps, 5, 5000,
		   "yield through task->yield, only when more steps remain, "
		   "and never in RR_NO_YIELD mode"),
	GRADE_TEST(loop_ends_by_itself_when_tasks_finish, 4, 5000,
		   "after the last step: event_free(task->ev), task->ev = NULL, "
		   "then call done once"),
	GRADE_TEST(finished_tasks_free_every_event, 6, 5000,
		   "event_free(task->ev), not event_del: a deleted event still "
		   "holds its memory"),
	GRADE_TEST(done_may_be_null, 3, 5000,
		   "call task->done only when it is not NULL"),
	GRADE_TEST(done_can_restart_its_task, 6, 5000,
		   "free the event and set task->ev = NULL BEFORE calling "
		   "done; done may start the task again"),
	GRADE_TEST(done_may_free_the_task_memory, 6, 5000,
		   "call done LAST: after it, do not read or write *task"),
	GRADE_TEST(a_failed_yield_ends_the_task_cleanly, 6, 5000,
		   "when task->yield returns -1: set task->yield_failed, then "
		   "finish the task as after its last step"),
	GRADE_TEST(start_reports_an_event_it_cannot_make, 3, 5000,
		   "check what event_new returns: NULL means out of memory; "
		   "return -1 before touching the event"),
	GRADE_TEST(chatty_step_counts_from_c_next, 3, 5000,
		   "record c->name followed by c->next, then c->next++; "
		   "return c->next < c->count"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "ex01_round_robin", "round-robin yields",
			  tests, sizeof(tests) / sizeof(tests[0]));
}
