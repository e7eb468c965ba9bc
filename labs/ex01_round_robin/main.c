/* ex01 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * ex01: run chatty tasks beside a heartbeat and print who ran when.
 * --yield picks the mechanism: yours (the default) or one of the wrong ones,
 * to watch each of them fail.
 */
#include "round_robin.h"

#include "cli.h"
#include "clock.h"
#include "evbase.h"
#include "lag.h"
#include "trace.h"

#include <err.h>
#include <event2/event.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct options {
	int tasks, steps, work_us, beat_ms;
	const char *yield;
	bool csv, priorities;
};

struct worker {
	struct chatty chatty;
	int64_t work_ns;
};

static int yield_event_active(struct rr_task *t)
{
	event_active(t->ev, EV_TIMEOUT, 0);
	return 0;
}

static int yield_base_once(struct rr_task *t)
{
	return event_base_once(t->base, -1, EV_TIMEOUT,
			       event_get_callback(t->ev),
			       event_get_callback_arg(t->ev), NULL);
}

static int yield_timer_0(struct rr_task *t)
{
	struct timeval zero = { 0, 0 };

	return event_add(t->ev, &zero);
}

static int yield_timer_1ms(struct rr_task *t)
{
	struct timeval one_ms = { 0, 1000 };

	return event_add(t->ev, &one_ms);
}

/*
 * With event_config_set_max_dispatch_interval(cfg, NULL, 1, 0) the loop
 * stops draining after every callback and polls, so re-activating the
 * task's event becomes a real yield (the base is made in make_base).
 */
static int yield_active_max_dispatch(struct rr_task *t)
{
	event_active(t->ev, EV_TIMEOUT, 0);
	return 0;
}

static const struct mechanism {
	const char *name, *what;
	rr_yield_fn fn;
} mechanisms[] = {
	{ "rr_yield", "your rr_yield()", NULL },
	{ "none", "no yield at all (RR_NO_YIELD)", NULL },
	{ "active", "event_active() alone: not a yield", yield_event_active },
	{ "once", "event_base_once() with no delay: not a yield", yield_base_once },
	{ "timer0", "event_add() with a zero timeout: not FIFO", yield_timer_0 },
	{ "timer1ms", "event_add() with 1 ms: slow, and not FIFO either",
	  yield_timer_1ms },
	{ "max_dispatch", "event_active() on a base that polls after every "
	  "callback (max_dispatch_interval 1)", yield_active_max_dispatch },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ex01 [--tasks N] [--steps N] [--work-us N] [--beat-ms N]\n"
		"            [--yield rr_yield|none|active|once|timer0|timer1ms|max_dispatch]\n"
		"            [--priorities] [--csv]\n"
		"  --tasks N     chatty tasks a, b, c ... (1-6, default 2)\n"
		"  --steps N     steps per task (1-100000, default 6)\n"
		"  --work-us N   busy work per step in us (0-100000, default 2000)\n"
		"  --beat-ms N   heartbeat period in ms (1-1000, default 5)\n"
		"  --yield M     how tasks yield (default rr_yield, your code)\n"
		"  --priorities  heartbeat at priority 0, tasks at priority 1\n"
		"  --csv         print one CSV row (with a header) instead of the trace\n");
}

static const struct mechanism *find_mechanism(const char *name)
{
	for (size_t i = 0; i < sizeof(mechanisms) / sizeof(mechanisms[0]); i++)
		if (strcmp(mechanisms[i].name, name) == 0)
			return &mechanisms[i];
	return NULL;
}

static void take_option(struct cli *cli, int val, char *arg, void *ctx)
{
	struct options *o = ctx;

	switch (val) {
	case 't': o->tasks = cli_int(cli, arg, "--tasks", 1, 6); break;
	case 's': o->steps = cli_int(cli, arg, "--steps", 1, 100000); break;
	case 'w': o->work_us = cli_int(cli, arg, "--work-us", 0, 100000); break;
	case 'b': o->beat_ms = cli_int(cli, arg, "--beat-ms", 1, 1000); break;
	case 'y': o->yield = arg; break;
	case 'c': o->csv = true; break;
	case 'p': o->priorities = true; break;
	}
}

static struct options parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tasks", required_argument, NULL, 't' },
		{ "steps", required_argument, NULL, 's' },
		{ "work-us", required_argument, NULL, 'w' },
		{ "beat-ms", required_argument, NULL, 'b' },
		{ "yield", required_argument, NULL, 'y' },
		{ "csv", no_argument, NULL, 'c' },
		{ "priorities", no_argument, NULL, 'p' },
		CLI_HELP_AND_END,
	};
	struct options o = { 2, 6, 2000, 5, "rr_yield", false, false };
	struct cli cli = { .prog = "ex01", .usage = usage };

	if (cli_parse(&cli, argc, argv, longopts, take_option, &o) == CLI_HELP)
		exit(0);
	if (!find_mechanism(o.yield))
		cli_bad(&cli, "unknown --yield mechanism");
	if (cli_failed(&cli))
		exit(2);
	return o;
}

static bool work_step(struct rr_task *task, void *arg)
{
	struct worker *w = arg;
	bool more = chatty_step(task, &w->chatty);

	clock_spin_ns(w->work_ns);
	return more;
}

static void print_trace(struct trace *trace)
{
	size_t beats = 0;

	for (size_t i = 0; i < trace_len(trace); i++) {
		bool beat = strcmp(trace_name(trace, i), "beat") == 0;

		printf("%s%s", i ? " " : "", beat ? "|" : trace_name(trace, i));
		beats += beat;
	}
	printf("\n(| = heartbeat; %zu beats)\n", beats);
}

/*
 * Rounds whose steps did not run in the tasks' order (a0 b0 c0, a1 b1 c1):
 * the k-th step record of a round must belong to the k-th task.
 */
static int rounds_out_of_order(const struct options *o, struct trace *trace)
{
	int bad = 0, seen = 0, round_bad = 0;

	for (size_t i = 0; i < trace_len(trace); i++) {
		const char *name = trace_name(trace, i);

		if (strcmp(name, "beat") == 0)
			continue;
		round_bad |= name[0] != 'a' + seen % o->tasks;
		if (++seen % o->tasks == 0) {
			bad += round_bad;
			round_bad = 0;
		}
	}
	return bad;
}

static void report(const struct options *o, const struct mechanism *m,
		   struct trace *trace, struct lag *lag, int64_t elapsed)
{
	struct lag_stats st;

	lag_get_stats(lag, &st);
	if (o->csv) {
		printf("yield,tasks,steps,work_us,beat_ms,tasks_ms,beats,"
		       "worst_lag_ms,median_lag_ms,priorities,"
		       "rounds_out_of_order,ns_per_step\n");
		printf("%s,%d,%d,%d,%d,%.3f,%zu,%.3f,%.3f,%s,%d,%.0f\n",
		       m->name, o->tasks, o->steps, o->work_us, o->beat_ms,
		       clock_ns_to_ms(elapsed), st.count,
		       clock_ns_to_ms(st.max_ns), clock_ns_to_ms(st.p50_ns),
		       o->priorities ? "yes" : "no", rounds_out_of_order(o, trace),
		       (double)elapsed / ((double)o->tasks * o->steps));
		return;
	}
	printf("yield: %s; %d tasks x %d steps of %d us; heartbeat every %d ms\n",
	       m->what, o->tasks, o->steps, o->work_us, o->beat_ms);
	print_trace(trace);
	printf("tasks took %.1f ms; heartbeat lateness: worst %.2f ms, "
	       "median %.2f ms; rounds out of order: %d\n",
	       clock_ns_to_ms(elapsed), clock_ns_to_ms(st.max_ns),
	       clock_ns_to_ms(st.p50_ns), rounds_out_of_order(o, trace));
}

/*
 * The precise-timer base every lab uses; for max_dispatch, one that polls
 * after every callback.
 */
static struct event_base *make_base(const struct mechanism *m)
{
	struct event_config *cfg;
	struct event_base *base;

	if (strcmp(m->name, "max_dispatch") != 0)
		return evbase_new(EVBASE_PRECISE);
	cfg = event_config_new();
	if (!cfg)
		return NULL;
	event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	event_config_set_max_dispatch_interval(cfg, NULL, 1, 0);
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	return base;
}

static int live_tasks;

static void task_done(struct rr_task *task, void *arg)
{
	(void)task;
	(void)arg;
	live_tasks--;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "a", "b", "c", "d", "e", "f" };
	struct options o = parse_args(argc, argv);
	const struct mechanism *m = find_mechanism(o.yield);
	struct rr_task tasks[6];
	struct worker workers[6];
	struct event_base *base = make_base(m);
	struct trace *trace = trace_new();
	struct lag *lag = base ? lag_new(base, o.beat_ms * CLOCK_NS_PER_MS) : NULL;
	int64_t start, elapsed;

	if (!base || !trace || !lag)
		errx(1, "out of memory");
	/*
	 * A base starts with one priority, so the heartbeat's event (made
	 * above) has priority 0; with two, the tasks' events made after this
	 * get the default, 1, and the loop runs a due beat before any step.
	 */
	if (o.priorities && event_base_priority_init(base, 2) != 0)
		errx(1, "event_base_priority_init failed");
	lag_set_trace(lag, trace);
	lag_start(lag);
	start = clock_monotonic_ns();
	for (int i = 0; i < o.tasks; i++) {
		workers[i] = (struct worker){
			.chatty = { .name = names[i], .count = o.steps, .trace = trace },
			.work_ns = o.work_us * CLOCK_NS_PER_US,
		};
		if (rr_task_start(&tasks[i], base, work_step, task_done, &workers[i],
				  strcmp(m->name, "none") ? RR_YIELD : RR_NO_YIELD) != 0)
			errx(1, "rr_task_start failed (not implemented yet?)");
		if (m->fn)
			tasks[i].yield = m->fn;
		live_tasks++;
	}
	while (live_tasks > 0 && event_base_loop(base, EVLOOP_ONCE) == 0)
		;
	elapsed = clock_monotonic_ns() - start;
	/* A starved beat is still overdue: let it fire so its lateness counts. */
	event_base_loop(base, EVLOOP_ONCE);
	lag_stop(lag);
	report(&o, m, trace, lag, elapsed);
	lag_free(lag);
	trace_free(trace);
	event_base_free(base);
	return 0;
}
