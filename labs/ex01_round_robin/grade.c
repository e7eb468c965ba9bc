/* ex01 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * Grader for ex01_round_robin.  Each test catches one mistake; the comment
 * above it names the mistake and, for tests that read the clock, why the
 * bound is safe on a shared 2-core VM.
 */
#include "round_robin.h"

#include "clock.h"
#include "evbase.h"
#include "grade.h"
#include "lag.h"
#include "trace.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- fixtures ------------------------------------------------------------ */

struct world {
	struct event_base *base;
	struct trace *trace;
	int done_calls;
};

static void world_init(struct world *w)
{
	w->base = evbase_new(EVBASE_PRECISE);
	w->trace = trace_new();
	w->done_calls = 0;
	GRADE_EXPECT(w->base && w->trace, "an event base and a trace",
		     "setup failed (out of memory?)");
}

static void world_free(struct world *w)
{
	trace_free(w->trace);
	event_base_free(w->base);
}

static void count_done(struct rr_task *task, void *arg)
{
	(void)task;
	(void)arg;
}

struct counted_chatty {
	struct chatty chatty;
	int *done_calls;
};

static void chatty_done(struct rr_task *task, void *arg)
{
	struct counted_chatty *cc = arg;

	(void)task;
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

/* Runs the loop until the task has finished or the watchdog fired. */
static void run_until_done(struct world *w, struct rr_task *task, int64_t ms)
{
	arm_watchdog(w->base, ms);
	while (task->ev && !event_base_got_break(w->base) &&
	       event_base_loop(w->base, EVLOOP_ONCE) == 0)
		;
}

/* A grader-side step: records "s<i>", spins work_us, and on the step
 * numbered poke_step writes one byte to poke_fd. */
struct spinner {
	struct trace *trace;
	int steps, next;
	int64_t work_ns;
	int poke_step, poke_fd;
};

static bool spin_step(struct rr_task *task, void *arg)
{
	struct spinner *s = arg;

	(void)task;
	trace_add(s->trace, "s%d", s->next);
	if (s->next == s->poke_step && write(s->poke_fd, "x", 1) != 1)
		fail_msg("grader: could not write to the socket");
	clock_spin_ns(s->work_ns);
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
	event_base_dispatch(w.base);
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
	event_base_dispatch(w.base);
	expect_trace(&w, "a0 b0 c0 d0 a1 b1 c1 d1 a2 b2 c2 d2 a3 b3 c3 d3");
	world_free(&w);
}

/* Catches: event_active() or event_base_once() alone as the yield — the
 * loop never polls, so the timer fires only after the task has ended.
 * Time: 40 steps of 2 ms give ~80 ms of task, ~16 heartbeat periods of 5 ms;
 * asking for 3 beats in that span leaves a 5x margin for VM hiccups. */
static void heartbeat_fires_between_steps_of_a_long_task(void **state)
{
	struct spinner s = { .steps = 40, .work_ns = 2 * CLOCK_NS_PER_MS,
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
	GRADE_EXPECT(rr_task_start(&task, w.base, spin_step, count_done, &s,
				   RR_YIELD) == 0,
		     "rr_task_start() returns 0", "it returned -1");
	/* The heartbeat keeps the loop alive: stop once the task is done. */
	run_until_done(&w, &task, 1000);
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

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
	char byte;

	(void)what;
	if (read(fd, &byte, 1) == 1)
		trace_add(arg, "read");
}

/* Catches: a yield that never lets the loop poll.  The task itself sends a
 * byte at step 2; a real yield lets the loop see it at the next poll, one
 * step later.  Requiring it before step 10 of 20 is no timing bound at all:
 * it is about order, so load cannot make it flaky. */
static void socket_data_is_read_between_steps(void **state)
{
	struct spinner s = { .steps = 20, .work_ns = CLOCK_NS_PER_MS,
			     .poke_step = 2 };
	struct rr_task task;
	struct event *reader;
	struct world w;
	int sv[2];
	long read_at, s10_at;

	(void)state;
	world_init(&w);
	GRADE_EXPECT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0,
		     "a socket pair", "socketpair() failed");
	s.trace = w.trace;
	s.poke_fd = sv[1];
	reader = event_new(w.base, sv[0], EV_READ, read_cb, w.trace);
	event_add(reader, NULL);
	GRADE_EXPECT(rr_task_start(&task, w.base, spin_step, count_done, &s,
				   RR_YIELD) == 0,
		     "rr_task_start() returns 0", "it returned -1");
	run_until_done(&w, &task, 1000);
	event_base_loop(w.base, EVLOOP_NONBLOCK);
	read_at = trace_find(w.trace, "read", 0);
	s10_at = trace_find(w.trace, "s10", 0);
	GRADE_EXPECT(read_at >= 0 && s10_at >= 0 && read_at < s10_at,
		     "the byte sent at step s2 is read before step s10",
		     "read at trace position %ld, s10 at %ld (the socket "
		     "waited for the task)", read_at, s10_at);
	event_free(reader);
	close(sv[0]);
	close(sv[1]);
	world_free(&w);
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
	event_base_dispatch(w.base);
	expect_trace(&w, "a0 a1 a2 b0 b1 b2");
	world_free(&w);
}

static bool count_step(struct rr_task *task, void *arg)
{
	(void)task;
	return ++*(int *)arg < 10000;
}

/* Catches: a timer as the yield (event_add with 1 ms: ~10 s for 10,000
 * yields).  Time: a real yield costs ~2 us here, so 10,000 take ~20 ms;
 * the 1 s bound (scaled under sanitizers) is a 50x margin. */
static void ten_thousand_yields_finish_well_inside_a_second(void **state)
{
	int64_t bound = grade_bound_ns(1000), start, elapsed;
	struct rr_task task;
	struct world w;
	int steps = 0;

	(void)state;
	world_init(&w);
	start = clock_monotonic_ns();
	GRADE_EXPECT(rr_task_start(&task, w.base, count_step, count_done,
				   &steps, RR_YIELD) == 0,
		     "rr_task_start() returns 0", "it returned -1");
	run_until_done(&w, &task, 1000);
	elapsed = clock_monotonic_ns() - start;
	GRADE_EXPECT(steps == 10000 && elapsed < bound,
		     "10,000 steps with a yield between each, well inside 1 s",
		     "%d steps in %.1f ms (a timer as the yield? or a yield that "
		     "does not run the task again?)", steps,
		     clock_ns_to_ms(elapsed));
	world_free(&w);
}

/* Catches: a task that keeps its event alive or re-arms after the last
 * step (the loop never ends: timeout), done called twice or never, and an
 * event that is not freed. */
static void loop_ends_by_itself_when_tasks_finish(void **state)
{
	struct rr_task tasks[2];
	struct counted_chatty cc[2];
	struct world w;

	(void)state;
	world_init(&w);
	start_chatty(&w, tasks, cc, 2, 5, RR_YIELD);
	GRADE_EXPECT(event_base_dispatch(w.base) == 1,
		     "event_base_dispatch() to return 1 (nothing left to wait "
		     "for)", "it returned something else");
	GRADE_EXPECT_INT(w.done_calls, 2, "calls of done, one per task");
	GRADE_EXPECT(tasks[0].ev == NULL && tasks[1].ev == NULL,
		     "task->ev == NULL after the last step (event freed)",
		     "ev = %p and %p", (void *)tasks[0].ev, (void *)tasks[1].ev);
	GRADE_EXPECT_INT(tasks[0].steps + tasks[1].steps, 10,
			 "steps counted in task->steps");
	GRADE_EXPECT_INT(event_base_get_num_events(w.base, EVENT_BASE_COUNT_ADDED |
				EVENT_BASE_COUNT_ACTIVE), 0,
			 "events still added or active on the base");
	world_free(&w);
}

static const struct grade_test tests[] = {
	GRADE_TEST(two_tasks_alternate_strictly, 15, 5000,
		   "run ONE step per callback (TODO 1), then give the loop a "
		   "turn with task->yield (TODO 2)"),
	GRADE_TEST(four_tasks_keep_fifo_order_every_round, 15, 5000,
		   "every task must get its steps, in the same order every "
		   "round; a zero-timeout timer is not FIFO"),
	GRADE_TEST(heartbeat_fires_between_steps_of_a_long_task, 15, 5000,
		   "event_active alone runs you again before the loop polls; "
		   "the pass must end so timers get their turn"),
	GRADE_TEST(socket_data_is_read_between_steps, 15, 5000,
		   "a yield must let the loop poll for I/O before your next "
		   "step"),
	GRADE_TEST(no_yield_mode_runs_one_task_to_completion_first, 10, 5000,
		   "in RR_NO_YIELD mode, loop over every step inside one "
		   "callback"),
	GRADE_TEST(ten_thousand_yields_finish_well_inside_a_second, 15, 5000,
		   "a timer is a slow yield (clock resolution, heap work); "
		   "re-activate the event instead"),
	GRADE_TEST(loop_ends_by_itself_when_tasks_finish, 15, 5000,
		   "after the last step: event_free(task->ev), task->ev = NULL, "
		   "then call done once"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "ex01_round_robin", "round-robin yields",
			  tests, sizeof(tests) / sizeof(tests[0]));
}
