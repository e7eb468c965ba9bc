/*
 * bench-doorbell: how long a worker thread's wake-up takes to reach the
 * loop — ex04's doorbell, event_active() from the worker on an event of a
 * threads-enabled base, against a plain one-byte pipe write watched by the
 * loop.  One wake-up at a time: the worker stamps the time, rings, and
 * waits until the loop's callback has taken the stamp before the next.
 */
#include "bench.h"

#include "cli.h"

#include "clock.h"
#include "evbase.h"
#include "lag.h"

#include <err.h>
#include <event2/event.h>
#include <getopt.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "bench-doorbell"

enum bell_kind { BELL_EVENT_ACTIVE, BELL_PIPE };

struct options {
	long wakeups, gap_us;
	bool csv;
};

struct bell {
	enum bell_kind kind;
	struct event_base *base;
	struct event *ev;
	int pipe_fd[2];
	sem_t taken;               /* the loop has recorded this wake-up */
	_Atomic int64_t rang_ns;   /* when the worker rang */
	int64_t *latency_ns;
	long count, wakeups, gap_us;
	bool failed;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--wakeups N] [--gap-us N] [--csv]\n"
		"  --wakeups N  wake-ups per doorbell (10-1000000, default 10000)\n"
		"  --gap-us N   the worker's pause before each ring, so the loop is\n"
		"               asleep in epoll_wait when it rings (0-100000, default 50)\n"
		"  --csv        print CSV (wakeup,count,median_us,p99_us,max_us)\n");
}

/* On the loop thread: the time from the ring to here. */
static void bell_cb(evutil_socket_t fd, short what, void *arg)
{
	struct bell *b = arg;
	int64_t now = clock_monotonic_ns();
	char byte;

	(void)what;
	if (b->kind == BELL_PIPE && read(fd, &byte, 1) != 1)
		return;
	b->latency_ns[b->count++] = now - atomic_load(&b->rang_ns);
	sem_post(&b->taken);
}

static int ring(struct bell *b)
{
	atomic_store(&b->rang_ns, clock_monotonic_ns());
	if (b->kind == BELL_PIPE)
		return write(b->pipe_fd[1], "x", 1) == 1 ? 0 : -1;
	event_active(b->ev, EV_READ, 0);
	return 0;
}

static void *worker_main(void *arg)
{
	struct bell *b = arg;

	for (long i = 0; i < b->wakeups && !b->failed; i++) {
		if (b->gap_us)
			clock_sleep_ns(b->gap_us * CLOCK_NS_PER_US);
		if (ring(b) != 0) {
			b->failed = true;
			break;
		}
		while (sem_wait(&b->taken) != 0)
			;
	}
	event_base_loopexit(b->base, NULL);
	return NULL;
}

static void bell_free(struct bell *b)
{
	if (b->ev)
		event_free(b->ev);
	if (b->base)
		event_base_free(b->base);
	if (b->pipe_fd[0] >= 0) {
		close(b->pipe_fd[0]);
		close(b->pipe_fd[1]);
	}
	sem_destroy(&b->taken);
}

/* A fresh threads-enabled precise base and its doorbell event. */
static int bell_setup(struct bell *b, enum bell_kind kind, long wakeups,
		      long gap_us, int64_t *latency_ns)
{
	*b = (struct bell){ .kind = kind, .wakeups = wakeups, .gap_us = gap_us,
			    .latency_ns = latency_ns, .pipe_fd = { -1, -1 } };
	if (sem_init(&b->taken, 0, 0) != 0)
		return -1;
	b->base = evbase_new(EVBASE_PRECISE | EVBASE_THREADS);
	if (!b->base)
		return -1;
	if (kind == BELL_EVENT_ACTIVE) {
		b->ev = event_new(b->base, -1, 0, bell_cb, b);
		return b->ev ? 0 : -1;
	}
	if (pipe(b->pipe_fd) != 0)
		return -1;
	b->ev = event_new(b->base, b->pipe_fd[0], EV_READ | EV_PERSIST, bell_cb, b);
	return b->ev ? event_add(b->ev, NULL) : -1;
}

/* wakeups one at a time; latencies go to latency_ns.  @return the count
 * recorded, or -1 on failure. */
static long run_round(enum bell_kind kind, long wakeups, long gap_us,
		      int64_t *latency_ns)
{
	struct bell b;
	pthread_t worker;
	long count = -1;

	if (bell_setup(&b, kind, wakeups, gap_us, latency_ns) == 0 &&
	    pthread_create(&worker, NULL, worker_main, &b) == 0) {
		/* The doorbell event is not pending: keep looping anyway,
		 * until the worker's event_base_loopexit. */
		int rc = event_base_loop(b.base, EVLOOP_NO_EXIT_ON_EMPTY);

		pthread_join(worker, NULL);
		if (rc >= 0 && !b.failed)
			count = b.count;
	}
	bell_free(&b);
	return count;
}

static const char *const kind_names[] = { "event_active", "pipe_write" };

static void print_row(const struct options *o, enum bell_kind kind,
		      const int64_t *lat, size_t n)
{
	double median = (double)lag_percentile_ns(lat, n, 50) / 1000.0;
	double p99 = (double)lag_percentile_ns(lat, n, 99) / 1000.0;
	double max = (double)lag_percentile_ns(lat, n, 100) / 1000.0;

	if (o->csv)
		printf("%s,%zu,%.2f,%.2f,%.2f\n", kind_names[kind], n, median,
		       p99, max);
	else
		printf("%-13s %8zu %10.2f %10.2f %10.2f\n", kind_names[kind], n,
		       median, p99, max);
}

static void take_option(struct cli *cli, int val, char *arg, void *ctx)
{
	struct options *o = ctx;

	switch (val) {
	case 'n': o->wakeups = cli_long(cli, arg, "--wakeups", 10, 1000000); break;
	case 'g': o->gap_us = cli_long(cli, arg, "--gap-us", 0, 100000); break;
	case 'c': o->csv = true; break;
	}
}

static struct options parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "wakeups", required_argument, NULL, 'n' },
		{ "gap-us", required_argument, NULL, 'g' },
		{ "csv", no_argument, NULL, 'c' },
		CLI_HELP_AND_END,
	};
	static const struct bench_args args = { PROG, usage, longopts,
						take_option, NULL };
	struct options o = { 10000, 50, false };

	bench_parse_args(&args, argc, argv, &o);
	return o;
}

int main(int argc, char **argv)
{
	enum { ROUNDS = 4 };
	struct options o = parse_args(argc, argv);
	int64_t *lat[2];
	size_t n[2] = { 0, 0 };
	long per_round = (o.wakeups + ROUNDS - 1) / ROUNDS;

	lat[0] = calloc((size_t)per_round * ROUNDS, sizeof(int64_t));
	lat[1] = calloc((size_t)per_round * ROUNDS, sizeof(int64_t));
	if (!lat[0] || !lat[1])
		errx(1, "out of memory");
	/* Rounds alternate the two doorbells: load on this shared machine
	 * then falls on both alike. */
	for (int r = 0; r < ROUNDS * 2; r++) {
		enum bell_kind kind = r % 2 ? BELL_PIPE : BELL_EVENT_ACTIVE;
		long got;

		fprintf(stderr, PROG ": %s, round %d of %d\n", kind_names[kind],
			r / 2 + 1, ROUNDS);
		got = run_round(kind, per_round, o.gap_us, lat[kind] + n[kind]);
		if (got < 0)
			errx(1, "%s round failed (libevent, pipe or thread error)",
			     kind_names[kind]);
		n[kind] += (size_t)got;
	}
	if (o.csv)
		printf("wakeup,count,median_us,p99_us,max_us\n");
	else
		printf("worker -> loop callback, one wake-up at a time, %ld us "
		       "apart\n%-13s %8s %10s %10s %10s\n", o.gap_us, "doorbell",
		       "count", "median us", "p99 us", "max us");
	print_row(&o, BELL_EVENT_ACTIVE, lat[0], n[0]);
	print_row(&o, BELL_PIPE, lat[1], n[1]);
	free(lat[0]);
	free(lat[1]);
	return 0;
}
