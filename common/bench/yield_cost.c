/*
 * bench-yield: what one "yield" costs with each libevent 2.1 mechanism that
 * ex01 discusses, on a default and on a precise-timer base, beside the floor
 * of a yield that lets I/O in: one bare epoll_wait(fd, ..., 0).
 *
 * One task re-schedules itself N times; ns per yield is the run's time over
 * N, the median of several runs.  Whether a mechanism really yields is
 * measured, not assumed: the task writes a byte to a socket at its first
 * step, and the mechanism "lets I/O in" when the loop reads that byte
 * before the task has finished.
 */
#include "bench.h"

#include "cli.h"

#include "clock.h"

#include <err.h>
#include <event2/event.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define PROG "bench-yield"

/* What a mechanism needs from its base. */
enum { NEEDS_PRIORITIES = 1, NEEDS_MAX_DISPATCH = 2 };

struct run;
typedef int (*yield_fn)(struct run *r);

struct mechanism {
	const char *name, *what;
	yield_fn yield;
	unsigned needs;
};

struct run {
	struct event_base *base;
	struct event *task, *reader;
	const struct mechanism *m;
	uint64_t left, done;   /* yields still to make, yields made */
	int64_t io_seen_at;    /* yields made when the byte was read; -1 never */
	bool finished, failed;
	int sv[2];
};

struct options {
	const char *base, *mechanism;
	long budget_ms, reps;
	bool csv;
};

static void step_cb(evutil_socket_t fd, short what, void *arg);

static int yield_active(struct run *r)
{
	event_active(r->task, EV_TIMEOUT, 0);
	return 0;
}

static int yield_once(struct run *r)
{
	return event_base_once(r->base, -1, EV_TIMEOUT, step_cb, r, NULL);
}

static int yield_timer0(struct run *r)
{
	return event_add(r->task, &(struct timeval){ 0, 0 });
}

static int yield_timer1us(struct run *r)
{
	return event_add(r->task, &(struct timeval){ 0, 1 });
}

static int yield_reference(struct run *r)
{
	if (event_base_loopcontinue(r->base) != 0)
		return -1;
	event_active(r->task, EV_TIMEOUT, 0);
	return 0;
}

static const struct mechanism mechanisms[] = {
	{ "active", "event_active(self) alone", yield_active, 0 },
	{ "once", "event_base_once(..., NULL), no delay", yield_once, 0 },
	{ "active_lowprio", "event_active(self), task on the lower of 2 priorities",
	  yield_active, NEEDS_PRIORITIES },
	{ "timer0", "event_add(self, {0, 0})", yield_timer0, 0 },
	{ "rr_yield", "event_active + event_base_loopcontinue (the reference)",
	  yield_reference, 0 },
	{ "max_dispatch1", "max_dispatch_interval(NULL, 1, 0) + event_active",
	  yield_active, NEEDS_MAX_DISPATCH },
	{ "timer1us", "event_add(self, {0, 1}): a 1 us timer", yield_timer1us, 0 },
};
#define N_MECHANISMS (sizeof(mechanisms) / sizeof(mechanisms[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--base default|precise|both] [--mechanism NAME|all]\n"
		"                   [--budget-ms N] [--reps N] [--csv]\n"
		"  --base B        default base, precise-timer base, or both (default)\n"
		"  --mechanism M   one of active, once, active_lowprio, timer0, rr_yield,\n"
		"                  max_dispatch1, timer1us; or all (default)\n"
		"  --budget-ms N   length of one timed run (1-10000, default 70)\n"
		"  --reps N        timed runs per row; the median is kept (1-99, default 7)\n"
		"  --csv           print CSV (mechanism,base,real_yield,yields_per_run,\n"
		"                  ns_per_yield) instead of the table\n");
}

static void step_cb(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;

	(void)fd;
	(void)what;
	if (r->left == 0) {
		r->finished = true;
		return;
	}
	/* The poke: a mechanism that polls reads it before we finish. */
	if (r->done == 0 && write(r->sv[1], "x", 1) != 1) {
		r->failed = true;
		event_base_loopbreak(r->base);
		return;
	}
	r->left--;
	r->done++;
	if (r->m->yield(r) != 0)
		r->failed = true;
}

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	char byte;

	(void)what;
	if (read(fd, &byte, 1) == 1)
		r->io_seen_at = r->finished ? -1 : (int64_t)r->done;
}

static struct event_base *new_base(bool precise, unsigned needs)
{
	struct event_config *cfg = event_config_new();
	struct event_base *base;

	if (!cfg)
		return NULL;
	/* EVENT_PRECISE_TIMER=1 in the environment must not turn "default"
	 * into "precise". */
	event_config_set_flag(cfg, EVENT_BASE_FLAG_IGNORE_ENV);
	if (precise)
		event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	if (needs & NEEDS_MAX_DISPATCH)
		event_config_set_max_dispatch_interval(cfg, NULL, 1, 0);
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	if (base && (needs & NEEDS_PRIORITIES) &&
	    event_base_priority_init(base, 2) != 0) {
		event_base_free(base);
		return NULL;
	}
	return base;
}

static int run_setup(struct run *r, const struct mechanism *m, bool precise,
		     uint64_t yields)
{
	*r = (struct run){ .m = m, .left = yields, .io_seen_at = -1 };
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, r->sv) != 0)
		return -1;
	r->base = new_base(precise, m->needs);
	if (!r->base)
		return -1;
	r->task = event_new(r->base, -1, 0, step_cb, r);
	r->reader = event_new(r->base, r->sv[0], EV_READ, read_cb, r);
	if (!r->task || !r->reader)
		return -1;
	if (m->needs & NEEDS_PRIORITIES) {
		/* I/O on the urgent queue, the task below it. */
		event_priority_set(r->reader, 0);
		event_priority_set(r->task, 1);
	}
	return event_add(r->reader, NULL);
}

static void run_free(struct run *r)
{
	if (r->task)
		event_free(r->task);
	if (r->reader)
		event_free(r->reader);
	if (r->base)
		event_base_free(r->base);
	close(r->sv[0]);
	close(r->sv[1]);
}

/* One timed run of `yields` yields.  @return ns, or -1 on failure. */
static int64_t time_mechanism(const struct mechanism *m, bool precise,
			      uint64_t yields, bool *lets_io_in)
{
	struct run r;
	int64_t start, elapsed = -1;

	if (run_setup(&r, m, precise, yields) == 0) {
		event_active(r.task, EV_TIMEOUT, 0);
		start = clock_monotonic_ns();
		/* Returns 1 ("nothing left") once the task has finished and
		 * the byte has been read; -1 on an error. */
		if (event_base_dispatch(r.base) >= 0 && !r.failed)
			elapsed = clock_monotonic_ns() - start;
		*lets_io_in = r.io_seen_at >= 0;
	}
	run_free(&r);
	return elapsed;
}

/*
 * The floor: what a loop iteration that polls must cost at least.  With
 * timerfd, also the timerfd_settime() a precise-timer base makes on every
 * iteration (libevent 2.1 epoll.c re-arms or disarms its timerfd each time).
 * @return ns for `iterations` polls, or -1 on failure.
 */
static int64_t time_floor(uint64_t iterations, bool timerfd)
{
	struct epoll_event ev = { .events = EPOLLIN }, ready[32];
	struct itimerspec disarm = { { 0, 0 }, { 0, 0 } };
	int ep = epoll_create1(0), sv[2] = { -1, -1 }, tfd = -1;
	int64_t start, elapsed = -1;

	if (ep < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		goto out;
	/* One idle descriptor, as the bases above watch one socket. */
	ev.data.fd = sv[0];
	if (epoll_ctl(ep, EPOLL_CTL_ADD, sv[0], &ev) != 0)
		goto out;
	if (timerfd && (tfd = timerfd_create(CLOCK_MONOTONIC, 0)) < 0)
		goto out;
	start = clock_monotonic_ns();
	for (uint64_t i = 0; i < iterations; i++) {
		if (tfd >= 0)
			timerfd_settime(tfd, 0, &disarm, NULL);
		epoll_wait(ep, ready, 32, 0);
	}
	elapsed = clock_monotonic_ns() - start;
out:
	if (tfd >= 0)
		close(tfd);
	if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
	if (ep >= 0)
		close(ep);
	return elapsed;
}

#define MAX_REPS 99
#define MAX_ROWS (2 + 2 * N_MECHANISMS)

/* A row of the table: either a mechanism on a base, or a floor; and what
 * its timed runs gave. */
struct row {
	const char *name, *base, *what;
	const struct mechanism *m;   /* NULL for a floor */
	bool precise, timerfd;
	uint64_t n;                  /* yields per timed run */
	bool all_io;                 /* every run let the byte in */
	int64_t per_run[MAX_REPS];   /* ns per yield x 1000, one per run */
};

static int64_t time_row(const struct row *row, uint64_t n, bool *io)
{
	*io = true;
	if (!row->m)
		return time_floor(n, row->timerfd);
	return time_mechanism(row->m, row->precise, n, io);
}

/*
 * Picks N so that one run lasts about budget_ns: doubles a probe until it
 * takes an eighth of the budget (a short probe is mostly start-up), then
 * scales.  A 1 us timer on a default base takes ~4 ms per yield, an
 * event_active ~30 ns.
 */
static uint64_t calibrate(const struct row *row, int64_t budget_ns)
{
	const uint64_t max_n = 20000000;
	uint64_t n = 16;
	int64_t t;
	bool io;

	for (;;) {
		t = time_row(row, n, &io);
		if (t <= 0 || t >= budget_ns / 8 || n >= max_n)
			break;
		n *= 2;
	}
	if (t > 0)
		n = (uint64_t)((double)budget_ns * (double)n / (double)t);
	if (n < 16)
		n = 16;
	return n > max_n ? max_n : n;
}

static void print_row(const struct options *o, const struct row *row)
{
	const char *real = !row->m ? "floor" : row->all_io ? "yes" : "no";
	double ns = (double)bench_median_ns(row->per_run, (size_t)o->reps) / 1000.0;

	if (o->csv)
		printf("%s,%s,%s,%llu,%.1f\n", row->name, row->base, real,
		       (unsigned long long)row->n, ns);
	else
		printf("%-15s %-8s %-11s %12.1f  %s\n", row->name, row->base,
		       real, ns, row->what);
}

static void time_into(const struct options *o, struct row *row, long rep)
{
	bool io = true;
	int64_t t = time_row(row, row->n, &io);

	(void)o;
	if (t < 0)
		errx(1, "%s on the %s base failed (libevent or a socket call "
		     "returned an error)", row->name, row->base);
	/* Scaled to ns per yield x 1000, to keep the median integral. */
	row->per_run[rep] = (int64_t)(bench_ns_per_op(t, row->n) * 1000.0);
	row->all_io = row->all_io && io;
}

static bool wanted(const struct options *o, const char *base,
		   const char *mechanism)
{
	return (strcmp(o->base, "both") == 0 || strcmp(o->base, base) == 0) &&
	       (strcmp(o->mechanism, "all") == 0 ||
		strcmp(o->mechanism, mechanism) == 0);
}

/* The floors, then each wanted mechanism on each wanted base. */
static size_t pick_rows(const struct options *o, struct row *rows)
{
	static const char *const bases[] = { "default", "precise" };
	size_t n = 0;

	rows[n++] = (struct row){ .name = "epoll_wait0", .base = "none",
		.what = "bare epoll_wait(fd, ..., 0): the floor" };
	rows[n++] = (struct row){ .name = "epoll_wait0_tfd", .base = "none",
		.what = "epoll_wait(0) + timerfd_settime: a precise base's floor",
		.timerfd = true };
	for (size_t b = 0; b < 2; b++)
		for (size_t i = 0; i < N_MECHANISMS; i++)
			if (wanted(o, bases[b], mechanisms[i].name))
				rows[n++] = (struct row){
					.name = mechanisms[i].name,
					.base = bases[b],
					.what = mechanisms[i].what,
					.m = &mechanisms[i], .precise = b == 1 };
	return n;
}

static void measure_all(const struct options *o)
{
	static struct row rows[MAX_ROWS];
	size_t n = pick_rows(o, rows);

	fprintf(stderr, PROG ": sizing the runs of %zu rows\n", n);
	for (size_t i = 0; i < n; i++) {
		rows[i].n = calibrate(&rows[i], o->budget_ms * CLOCK_NS_PER_MS);
		rows[i].all_io = true;
	}
	/* Runs outside, rows inside: a burst of load on this shared machine
	 * then falls on the floor and the mechanisms alike. */
	for (long rep = 0; rep < o->reps; rep++) {
		fprintf(stderr, PROG ": round %ld of %ld\n", rep + 1, o->reps);
		for (size_t i = 0; i < n; i++)
			time_into(o, &rows[i], rep);
	}
	for (size_t i = 0; i < n; i++)
		print_row(o, &rows[i]);
}

static bool known_mechanism(const char *name)
{
	if (strcmp(name, "all") == 0)
		return true;
	for (size_t i = 0; i < N_MECHANISMS; i++)
		if (strcmp(mechanisms[i].name, name) == 0)
			return true;
	return false;
}

static void take_option(struct cli *cli, int val, char *arg, void *ctx)
{
	struct options *o = ctx;

	switch (val) {
	case 'b': o->base = arg; break;
	case 'm': o->mechanism = arg; break;
	case 't': o->budget_ms = cli_long(cli, arg, "--budget-ms", 1, 10000); break;
	case 'r': o->reps = cli_long(cli, arg, "--reps", 1, MAX_REPS); break;
	case 'c': o->csv = true; break;
	}
}

/* What needs every option: names that are not numbers. */
static void check_options(struct cli *cli, void *opts)
{
	const struct options *o = opts;

	if (strcmp(o->base, "default") && strcmp(o->base, "precise") &&
	    strcmp(o->base, "both"))
		cli_bad(cli, "--base must be default, precise or both");
	if (!known_mechanism(o->mechanism))
		cli_bad(cli, "unknown --mechanism");
}

static struct options parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "mechanism", required_argument, NULL, 'm' },
		{ "budget-ms", required_argument, NULL, 't' },
		{ "reps", required_argument, NULL, 'r' },
		{ "csv", no_argument, NULL, 'c' },
		CLI_HELP_AND_END,
	};
	static const struct bench_args args = { PROG, usage, longopts,
						take_option, check_options };
	struct options o = { "both", "all", 70, 7, false };

	bench_parse_args(&args, argc, argv, &o);
	return o;
}

int main(int argc, char **argv)
{
	struct options o = parse_args(argc, argv);

	if (o.csv) {
		printf("mechanism,base,real_yield,yields_per_run,ns_per_yield\n");
	} else {
		printf("ns per yield: one task re-scheduling itself, median of %ld "
		       "runs of ~%ld ms\n", o.reps, o.budget_ms);
		printf("%-15s %-8s %-11s %12s  %s\n", "mechanism", "base",
		       "lets I/O in", "ns/yield", "what");
	}
	measure_all(&o);
	return 0;
}
