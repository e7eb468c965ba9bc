/*
 * bench-lag: how late a 5 ms heartbeat gets while one task works through
 * 40,000 items of ~3 us on the same loop, yielding every N items (never, 1,
 * 10, 100, 1000).  The yield is the reference one (event_active +
 * event_base_loopcontinue), the base has the precise timer, and lateness
 * comes from the common lag meter.  asyncio_bench.py runs the same
 * experiment on asyncio.
 */
#include "bench.h"

#include "cli.h"

#include "clock.h"
#include "evbase.h"
#include "lag.h"

#include <err.h>
#include <event2/event.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PROG "bench-lag"
#define MAX_REPS 99

struct options {
	long items, work_ns, beat_ms, reps, every;   /* every -1: all five */
	/* work_ns is the item's target cost, then the spin that gives it. */
	bool csv;
};

/* The working task: `every` items per callback, then a yield. */
struct job {
	struct event_base *base;
	struct event *ev;
	long items, next, every;   /* every 0: never yield */
	int64_t work_ns, end_ns;
	bool done;
};

/* One interval's result: medians over the runs. */
struct result {
	size_t beats;
	int64_t worst_ns, median_ns, total_ns;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--every N] [--items N] [--work-ns N] [--beat-ms N]\n"
		"                 [--reps N] [--csv]\n"
		"  --every N     yield every N items, 0 = never (default: 0, 1, 10, 100\n"
		"                and 1000 in turn)\n"
		"  --items N     items of work (1-10000000, default 40000)\n"
		"  --work-ns N   CPU work per item in ns, a calibrated spin (100-10000000,\n"
		"                default 3000)\n"
		"  --beat-ms N   heartbeat period in ms (1-1000, default 5)\n"
		"  --reps N      runs per interval; medians are kept (1-99, default 5)\n"
		"  --csv         print CSV (runtime,yield_every,items,item_ns,beats,\n"
		"                worst_lag_ms,median_lag_ms,loop_total_ms)\n");
}

static void job_cb(evutil_socket_t fd, short what, void *arg)
{
	struct job *j = arg;
	long stop = j->items;

	(void)fd;
	(void)what;
	if (j->every > 0 && j->next + j->every < stop)
		stop = j->next + j->every;
	while (j->next < stop) {
		clock_spin_ns(j->work_ns);
		j->next++;
	}
	if (j->next >= j->items) {
		j->end_ns = clock_monotonic_ns();
		j->done = true;
		return;
	}
	event_base_loopcontinue(j->base);
	event_active(j->ev, EV_TIMEOUT, 0);
}

/* Turns the loop until the job is done, then until one more beat: a beat
 * the job starved is still overdue, and its lateness must count. */
static int turn_loop(struct event_base *base, struct job *job, struct lag *lag)
{
	size_t beats;

	while (!job->done)
		if (event_base_loop(base, EVLOOP_ONCE) < 0)
			return -1;
	beats = lag_count(lag);
	while (lag_count(lag) == beats)
		if (event_base_loop(base, EVLOOP_ONCE) < 0)
			return -1;
	return 0;
}

/* One run at one interval.  @return 0, or -1 on a libevent failure. */
static int run_once(const struct options *o, long every, struct lag_stats *st,
		    int64_t *total_ns)
{
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct job job = { .base = base, .items = o->items, .every = every,
			   .work_ns = o->work_ns };
	struct lag *lag = base ? lag_new(base, o->beat_ms * CLOCK_NS_PER_MS) : NULL;
	int64_t start;
	int rc = -1;

	job.ev = base ? event_new(base, -1, 0, job_cb, &job) : NULL;
	if (job.ev && lag && lag_start(lag) == 0) {
		start = clock_monotonic_ns();
		event_active(job.ev, EV_TIMEOUT, 0);
		rc = turn_loop(base, &job, lag);
		*total_ns = job.end_ns - start;
		lag_stop(lag);
		lag_get_stats(lag, st);
	}
	if (job.ev)
		event_free(job.ev);
	lag_free(lag);
	if (base)
		event_base_free(base);
	return rc;
}

/* The runs of one interval, and their medians. */
struct samples {
	long every;
	int64_t worst[MAX_REPS], median[MAX_REPS], total[MAX_REPS];
	size_t beats;
};

static void run_into(const struct options *o, struct samples *s, long rep)
{
	struct lag_stats st;

	if (run_once(o, s->every, &st, &s->total[rep]) != 0)
		errx(1, "the run yielding every %ld items failed "
		     "(libevent returned an error)", s->every);
	s->worst[rep] = st.max_ns;
	s->median[rep] = st.p50_ns;
	s->beats = st.count;
}

static struct result medians(const struct options *o, const struct samples *s)
{
	return (struct result){
		.beats = s->beats,
		.worst_ns = bench_median_ns(s->worst, (size_t)o->reps),
		.median_ns = bench_median_ns(s->median, (size_t)o->reps),
		.total_ns = bench_median_ns(s->total, (size_t)o->reps),
	};
}

/* ns that one item of spin_ns really takes (a spin overshoots by about one
 * clock read): the fastest of 7 batches of 300.  Load on a shared machine
 * only ever adds time, so the minimum is the steadiest estimate; the
 * Python side calibrates the same way. */
static double item_cost_ns(int64_t spin_ns)
{
	int64_t best = INT64_MAX;

	for (int b = 0; b < 7; b++) {
		int64_t start = clock_monotonic_ns(), t;

		for (int i = 0; i < 300; i++)
			clock_spin_ns(spin_ns);
		t = clock_monotonic_ns() - start;
		best = t < best ? t : best;
	}
	return bench_ns_per_op(best, 300);
}

/* Shortens the spin by its overshoot, so that an item costs work_ns as
 * the Python side's calibrated item does.  @return the item's real cost. */
static double calibrate_spin(struct options *o)
{
	double over = item_cost_ns(o->work_ns) - (double)o->work_ns;

	if (over > 0 && over < (double)o->work_ns)
		o->work_ns -= (long)over;
	return item_cost_ns(o->work_ns);
}

static void print_result(const struct options *o, long every, double item_ns,
			 const struct result *r)
{
	if (o->csv) {
		printf("c_libevent,%ld,%ld,%.0f,%zu,%.3f,%.3f,%.3f\n", every,
		       o->items, item_ns, r->beats, clock_ns_to_ms(r->worst_ns),
		       clock_ns_to_ms(r->median_ns), clock_ns_to_ms(r->total_ns));
		return;
	}
	if (every == 0)
		printf("%-12s", "never");
	else
		printf("%-12ld", every);
	printf(" %10.2f %10.2f %10.1f %6zu\n", clock_ns_to_ms(r->worst_ns),
	       clock_ns_to_ms(r->median_ns), clock_ns_to_ms(r->total_ns),
	       r->beats);
}

static void take_option(struct cli *cli, int val, char *arg, void *ctx)
{
	struct options *o = ctx;

	switch (val) {
	case 'e': o->every = cli_long(cli, arg, "--every", 0, 10000000); break;
	case 'n': o->items = cli_long(cli, arg, "--items", 1, 10000000); break;
	case 'w': o->work_ns = cli_long(cli, arg, "--work-ns", 100, 10000000); break;
	case 'b': o->beat_ms = cli_long(cli, arg, "--beat-ms", 1, 1000); break;
	case 'r': o->reps = cli_long(cli, arg, "--reps", 1, MAX_REPS); break;
	case 'c': o->csv = true; break;
	}
}

static struct options parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "every", required_argument, NULL, 'e' },
		{ "items", required_argument, NULL, 'n' },
		{ "work-ns", required_argument, NULL, 'w' },
		{ "beat-ms", required_argument, NULL, 'b' },
		{ "reps", required_argument, NULL, 'r' },
		{ "csv", no_argument, NULL, 'c' },
		CLI_HELP_AND_END,
	};
	static const struct bench_args args = { PROG, usage, longopts,
						take_option, NULL };
	struct options o = { 40000, 3000, 5, 5, -1, false };

	bench_parse_args(&args, argc, argv, &o);
	return o;
}

int main(int argc, char **argv)
{
	static const long intervals[] = { 0, 1, 10, 100, 1000 };
	static struct samples runs[5];
	struct options o = parse_args(argc, argv);
	size_t n = o.every >= 0 ? 1 : 5;
	double item_ns = calibrate_spin(&o);

	for (size_t i = 0; i < n; i++)
		runs[i].every = o.every >= 0 ? o.every : intervals[i];
	/* Reps outside, intervals inside: a burst of load on this shared
	 * machine then falls on every interval alike. */
	for (long rep = 0; rep < o.reps; rep++) {
		fprintf(stderr, PROG ": round %ld of %ld\n", rep + 1, o.reps);
		for (size_t i = 0; i < n; i++)
			run_into(&o, &runs[i], rep);
	}
	if (o.csv) {
		printf("runtime,yield_every,items,item_ns,beats,worst_lag_ms,"
		       "median_lag_ms,loop_total_ms\n");
	} else {
		printf("%ld items of %.0f ns each beside a %ld ms heartbeat; "
		       "medians of %ld runs\n", o.items, item_ns, o.beat_ms, o.reps);
		printf("%-12s %10s %10s %10s %6s\n", "yield every", "worst ms",
		       "median ms", "total ms", "beats");
	}
	for (size_t i = 0; i < n; i++) {
		struct result r = medians(&o, &runs[i]);

		print_result(&o, runs[i].every, item_ns, &r);
	}
	return 0;
}
