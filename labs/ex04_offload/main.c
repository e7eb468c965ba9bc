/* ex04 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * ex04: the same SHA-256 jobs three ways beside a heartbeat — no work
 * (idle), run inline on the loop thread, and offloaded to your pool — and
 * what each does to the heartbeat.  For the offloaded run it also prints
 * the wake-up latency: from a worker finishing to its done on the loop.
 */
#include "offload.h"

#include "cli.h"
#include "clock.h"
#include "evbase.h"
#include "lag.h"

#include <err.h>
#include <event2/event.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDLE_MS 200
#define GIVE_UP_MS 10000

struct options {
	int jobs, mib, workers, beat_ms;
	bool csv, series;
};

enum mode { MODE_IDLE, MODE_INLINE, MODE_OFFLOAD };
static const char *const mode_names[] = { "idle", "inline", "offload" };

struct run {
	enum mode mode;
	const struct options *o;
	struct event_base *base;
	struct offload *pool;
	struct hash_job *jobs;
	int64_t *wake_ns;       /* per job: work end -> done on the loop */
	int dones;
	int64_t start_ns, end_ns;
	struct lag_stats lag;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ex04 [--jobs N] [--mib N] [--workers N] [--beat-ms N] [--csv]\n"
		"            [--series]\n"
		"  --jobs N      SHA-256 jobs (1-64, default 8)\n"
		"  --mib N       MiB each job hashes in one call (1-256, default 32)\n"
		"  --workers N   worker threads of the pool (1-16, default 1)\n"
		"  --beat-ms N   heartbeat period in ms (1-1000, default 5)\n"
		"  --csv         print CSV (one row per mode) instead of a table\n"
		"  --series      print every heartbeat as CSV (mode,t_ms,lag_ms)\n"
		"Runs idle, inline (on the loop thread) and offload (your pool).\n");
}

static void take_option(struct cli *cli, int val, char *arg, void *ctx)
{
	struct options *o = ctx;

	switch (val) {
	case 'j': o->jobs = cli_int(cli, arg, "--jobs", 1, 64); break;
	case 'm': o->mib = cli_int(cli, arg, "--mib", 1, 256); break;
	case 'w': o->workers = cli_int(cli, arg, "--workers", 1, 16); break;
	case 'b': o->beat_ms = cli_int(cli, arg, "--beat-ms", 1, 1000); break;
	case 'c': o->csv = true; break;
	case 's': o->series = true; break;
	}
}

static struct options parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "mib", required_argument, NULL, 'm' },
		{ "workers", required_argument, NULL, 'w' },
		{ "beat-ms", required_argument, NULL, 'b' },
		{ "csv", no_argument, NULL, 'c' },
		{ "series", no_argument, NULL, 's' },
		CLI_HELP_AND_END,
	};
	struct options o = { 8, 32, 1, 5, false, false };
	struct cli cli = { .prog = "ex04", .usage = usage };

	if (cli_parse(&cli, argc, argv, longopts, take_option, &o) == CLI_HELP)
		exit(0);
	if (cli_failed(&cli))
		exit(2);
	return o;
}

/* The run being measured: done callbacks get only their job. */
static struct run *current_run;

static void job_done(void *arg)
{
	struct hash_job *job = arg;
	struct run *r = current_run;

	r->wake_ns[job - r->jobs] = clock_monotonic_ns() - job->work_end_ns;
	if (job->status != 0)
		errx(1, "libcrypto failed to hash job %td", job - r->jobs);
	if (++r->dones == r->o->jobs)
		r->end_ns = clock_monotonic_ns();
}

static void start_cb(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;

	(void)fd;
	(void)what;
	r->start_ns = clock_monotonic_ns();
	for (int i = 0; r->mode != MODE_IDLE && i < r->o->jobs; i++) {
		if (r->mode == MODE_INLINE) {
			hash_job_work(&r->jobs[i]);
			job_done(&r->jobs[i]);
		} else if (offload_submit(r->pool, hash_job_work, job_done,
					  &r->jobs[i]) != 0) {
			errx(1, "offload_submit failed (not implemented yet?)");
		}
	}
	if (r->mode == MODE_IDLE)
		r->end_ns = r->start_ns + IDLE_MS * CLOCK_NS_PER_MS;
}

/* Loops until the run has ended, then 30 ms more: the beat a stall
 * delayed fires after the stall, and must be counted. */
static void loop_until_ended(struct run *r)
{
	int64_t give_up = clock_monotonic_ns() + GIVE_UP_MS * CLOCK_NS_PER_MS;
	struct timeval thirty_ms = { 0, 30000 };

	while ((r->end_ns == 0 || clock_monotonic_ns() < r->end_ns) &&
	       clock_monotonic_ns() < give_up)
		event_base_loop(r->base, EVLOOP_ONCE);
	if (r->end_ns == 0)
		errx(1, "gave up after %d s: %d of %d done callbacks arrived",
		     GIVE_UP_MS / 1000, r->dones, r->o->jobs);
	event_base_loopexit(r->base, &thirty_ms);
	event_base_dispatch(r->base);
}

/* Every beat of the run: when it fired (ms since the work started) and how
 * late it was, for the chart of lag over time. */
static void print_series(const struct run *r, const struct lag *lag)
{
	for (size_t i = 0; i < lag_count(lag); i++)
		printf("%s,%.3f,%.3f\n", mode_names[r->mode],
		       clock_ns_to_ms(lag_sample_at_ns(lag, i) - r->start_ns),
		       clock_ns_to_ms(lag_sample_ns(lag, i)));
}

static void measure(struct run *r, const uint8_t *buf)
{
	struct timeval twenty_ms = { 0, 20000 };
	struct lag *lag = lag_new(r->base, r->o->beat_ms * CLOCK_NS_PER_MS);
	struct event *start = evtimer_new(r->base, start_cb, r);

	if (!lag || !start || lag_start(lag) != 0)
		errx(1, "out of memory");
	for (int i = 0; i < r->o->jobs; i++)
		r->jobs[i] = (struct hash_job){ .buf = buf,
						.len = (size_t)r->o->mib << 20 };
	current_run = r;
	evtimer_add(start, &twenty_ms);
	loop_until_ended(r);
	lag_stop(lag);
	lag_get_stats(lag, &r->lag);
	if (r->o->series)
		print_series(r, lag);
	event_free(start);
	lag_free(lag);
}

static void print_row(const struct run *r)
{
	const struct options *o = r->o;
	bool waked = r->mode == MODE_OFFLOAD;
	double wake_p50 = waked ? lag_percentile_ns(r->wake_ns, (size_t)o->jobs, 50) / 1e3 : 0;
	double wake_max = waked ? lag_percentile_ns(r->wake_ns, (size_t)o->jobs, 100) / 1e3 : 0;

	if (o->series)
		return;
	if (o->csv) {
		printf("%s,%d,%d,%d,%.1f,%.2f,%.2f,%.3f,%zu,%.1f,%.1f\n",
		       mode_names[r->mode], o->jobs, o->mib, o->workers,
		       clock_ns_to_ms(r->end_ns - r->start_ns),
		       clock_ns_to_ms(r->lag.max_ns), clock_ns_to_ms(r->lag.p99_ns),
		       clock_ns_to_ms(r->lag.p50_ns), r->lag.count, wake_p50,
		       wake_max);
		return;
	}
	printf("%-8s %9.1f %11.2f %9.2f %12.3f %6zu", mode_names[r->mode],
	       clock_ns_to_ms(r->end_ns - r->start_ns),
	       clock_ns_to_ms(r->lag.max_ns), clock_ns_to_ms(r->lag.p99_ns),
	       clock_ns_to_ms(r->lag.p50_ns), r->lag.count);
	if (waked)
		printf("   median %.1f us, worst %.1f us", wake_p50, wake_max);
	printf("\n");
}

static void print_header(const struct options *o)
{
	if (o->series) {
		printf("mode,t_ms,lag_ms\n");
		return;
	}
	if (o->csv) {
		printf("mode,jobs,mib_per_job,workers,total_ms,worst_lag_ms,"
		       "p99_lag_ms,median_lag_ms,beats,wake_median_us,"
		       "wake_worst_us\n");
		return;
	}
	printf("%d jobs, each ONE SHA-256 call over %d MiB; heartbeat every "
	       "%d ms; %d worker(s)\n\n", o->jobs, o->mib, o->beat_ms,
	       o->workers);
	printf("mode      total ms  worst lag ms  p99 lag ms  median lag ms  "
	       "beats   wake-up worker -> loop\n");
}

int main(int argc, char **argv)
{
	struct options o = parse_args(argc, argv);
	size_t len = (size_t)o.mib << 20;
	uint8_t *buf = malloc(len);
	struct hash_job *jobs = calloc((size_t)o.jobs, sizeof(*jobs));
	int64_t *wake_ns = calloc((size_t)o.jobs, sizeof(*wake_ns));

	if (!buf || !jobs || !wake_ns)
		errx(1, "out of memory");
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 131 + (i >> 12));
	print_header(&o);
	for (enum mode m = MODE_IDLE; m <= MODE_OFFLOAD; m++) {
		struct run r = { .mode = m, .o = &o, .jobs = jobs,
				 .wake_ns = wake_ns };

		r.base = evbase_new(EVBASE_PRECISE | EVBASE_THREADS);
		if (!r.base)
			errx(1, "could not create an event base");
		if (m == MODE_OFFLOAD && !(r.pool = offload_new(r.base, o.workers)))
			errx(1, "offload_new failed");
		measure(&r, buf);
		if (r.pool)
			offload_free(r.pool);
		event_base_free(r.base);
		print_row(&r);
		fflush(stdout);
	}
	free(wake_ns);
	free(jobs);
	free(buf);
	return 0;
}
