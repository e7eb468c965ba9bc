/* ex07 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * ex07: hash n items on the event loop while their saves travel (your
 * task), and print how long that took beside the CPU floor (the same
 * hashes with no saves at all, measured first in the same run), and what
 * the server saw: how many saves arrived while the CPU was still hashing.
 *
 * The CPU floor moves from run to run on a shared machine (the same 120
 * hashes took 0.9-1.6 s here), so the run also times its own hashes
 * (hash_s): overhead_s = total_s - hash_s is the time it spent NOT
 * hashing, which the floor's noise does not touch.
 */
#include "overlap.h"

#include "clock.h"
#include "evbase.h"
#include "save.h"
#include "saveinspect.h"
#include "saveproc.h"
#include "trace.h"
#include "workload.h"

#include <err.h>
#include <event2/event.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct options {
	struct workload w;         /* --n, --item-ms, ... (common/lib/workload.h) */
	bool csv;
};

/* What one overlapped run measured. */
struct result {
	double total_s, hash_s;
	size_t early;             /* saves the server had before the last hash */
	uint64_t max_in_flight;   /* the most saves the server held at once */
	double tail_s;            /* last answer - last hash */
};

static void usage(FILE *f)
{
	fputs("usage: ex07 [--n N] [--item-ms MS] [--difficulty D]\n"
	      "            [--links N] [--delay-ms MS] [--cap N] [--csv]\n", f);
	workload_usage(f);
	fputs("  --csv           print CSV (one header row) instead of the table\n", f);
}

static void take_option(struct cli *cli, int val, char *arg, void *ctx)
{
	struct options *o = ctx;

	if (workload_option(cli, &o->w, val, arg))
		return;
	switch (val) {
	case 'C': o->csv = true; break;
	}
}

static struct options parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		WORKLOAD_LONGOPTS,
		{ "csv", no_argument, NULL, 'C' },
		CLI_HELP_AND_END,
	};
	struct options o = { .w = WORKLOAD_DEFAULTS("ex07") };
	struct cli cli = { .prog = "ex07", .usage = usage };

	if (cli_parse(&cli, argc, argv, longopts, take_option, &o) == CLI_HELP)
		exit(0);
	if (cli_failed(&cli))
		exit(2);
	return o;
}

/* ---- the overlapped run ---------------------------------------------------- */

struct run {
	struct event_base *base;
	struct save_client *client;
	struct ovl_task task;
	bool finished;
	int64_t finished_ns;
};

static void done_cb(struct ovl_task *t, void *arg)
{
	struct run *r = arg;

	(void)t;
	r->finished = true;
	r->finished_ns = clock_monotonic_ns();
}

/* Runs the loop until the task reports done; stops with a message if it
 * can no longer get there (nothing scheduled, no save on its way). */
static void run_until_done(struct run *r)
{
	while (!r->finished) {
		bool scheduled = r->task.ev &&
				 event_pending(r->task.ev, EV_TIMEOUT, NULL);

		if (!scheduled && save_client_outstanding(r->client) == 0)
			errx(1, "the task stopped after %zu of %zu items without "
			     "reporting done (not implemented yet?)",
			     r->task.hashed, r->task.job.n);
		event_base_loop(r->base, EVLOOP_ONCE);
	}
}

/* From the server's log: saves that arrived before the last hash, and
 * how long after it the last answer went out. */
static void read_server_side(struct saveproc *server,
			     const struct trace *trace, struct result *res)
{
	struct saveproto_record *recs;
	size_t n;
	int64_t last_hash = trace_time_ns(trace, trace_len(trace) - 1);
	int64_t last_answer = last_hash;

	if (saveinspect_read_own_log(server, &recs, &n) != 0)
		errx(1, "cannot read the server's log");
	for (size_t k = 0; k < n; k++) {
		res->early += recs[k].received_ns < last_hash;
		if (recs[k].answered_ns > last_answer)
			last_answer = recs[k].answered_ns;
	}
	res->tail_s = (double)(last_answer - last_hash) / 1e9;
	free(recs);
}

static void start_task(const struct options *o, struct run *r,
		       struct hashwork *h, struct trace *trace)
{
	struct ovl_job job = {
		.client = r->client, .hasher = h, .n = (size_t)o->w.n,
		.links = o->w.links, .trace = trace,
		.done = done_cb, .arg = r,
	};

	if (ovl_start(&r->task, r->base, &job) != 0)
		errx(1, "ovl_start() failed");
}

/* A fresh server answering after the workload's delay, cap at once; its
 * log is private (saveproc_start_logged): nothing is left behind. */
static void start_server(const struct options *o, struct saveproc *server)
{
	struct saveproc_options so = SAVEPROC_DEFAULTS;

	so.delay_ms = o->w.delay_ms;
	so.max_in_flight = o->w.cap;
	if (saveproc_start_logged(server, &so) != 0)
		errx(1, "cannot start the save server: %s", server->why);
}

static struct result run_overlapped(const struct options *o)
{
	struct result res = { 0 };
	struct saveproc server;
	struct saveproto_stats st;
	struct run r = { .base = evbase_new(EVBASE_PRECISE) };
	struct hashwork *h = hashwork_new();
	struct trace *trace = trace_new();
	int64_t start;

	start_server(o, &server);

	r.client = r.base ? save_client_new(r.base, &(struct save_client_options){
				.port = server.port, .pool_size = o->w.cap }) : NULL;
	if (!r.client || !h || !trace)
		errx(1, "out of memory");
	workload_progress(&o->w, "overlapped run (your task)");
	start = clock_monotonic_ns();
	start_task(o, &r, h, trace);
	run_until_done(&r);
	res.total_s = (double)(r.finished_ns - start) / 1e9;
	res.hash_s = (double)r.task.hash_ns / 1e9;
	if (r.task.acked != (size_t)o->w.n)
		errx(1, "only %zu of %d saves were stored", r.task.acked, o->w.n);
	if (saveinspect_stats(&server, &st) != 0)
		errx(1, "GET /stats: %s", server.why);
	res.max_in_flight = st.max_in_flight;
	read_server_side(&server, trace, &res);
	save_client_free(r.client);
	event_base_free(r.base);
	hashwork_free(h);
	trace_free(trace);
	saveproc_stop(&server);
	return res;
}

/* ---- output ---------------------------------------------------------------- */

static void print_csv(const struct options *o, double floor_s,
		      const struct result *r)
{
	unsigned long long links = (unsigned long long)o->w.links;
	double item_ms = floor_s * 1000.0 / o->w.n;

	printf("mode,batch,n,difficulty,delay_ms,cap,total_s,cpu_floor_s,"
	       "hash_s,overhead_s,over_floor_s,io_floor_s,links,item_ms\n");
	printf("cpu_floor,0,%d,%d,%d,%d,%.3f,%.3f,%.3f,0.000,0.000,0.000,%llu,"
	       "%.2f\n", o->w.n, o->w.difficulty, o->w.delay_ms, o->w.cap, floor_s,
	       floor_s, floor_s, links, item_ms);
	printf("overlapped,0,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%llu,"
	       "%.2f\n", o->w.n, o->w.difficulty, o->w.delay_ms, o->w.cap, r->total_s,
	       floor_s, r->hash_s, r->total_s - r->hash_s, r->total_s - floor_s,
	       o->w.delay_ms / 1000.0, links, item_ms);
}

static void print_table(const struct options *o, double floor_s,
			const struct result *r)
{
	char what[128];

	printf("ex07: %d items %s,\neach saved without waiting to a server "
	       "that answers after %d ms (%d at once)\n\n", o->w.n,
	       workload_describe(&o->w, what, sizeof(what)), o->w.delay_ms, o->w.cap);
	printf("%-13s %9s %10s %9s %10s %14s\n", "version", "total",
	       "CPU floor", "hashing", "overhead", "waits at least");
	printf("%-13s %7.3f s %8.3f s %7.3f s %8.3f s %12.3f s\n", "cpu_floor",
	       floor_s, floor_s, floor_s, 0.0, 0.0);
	printf("%-13s %7.3f s %8.3f s %7.3f s %8.3f s %12.3f s\n", "overlapped",
	       r->total_s, floor_s, r->hash_s, r->total_s - r->hash_s,
	       o->w.delay_ms / 1000.0);
	printf("\none item took %.1f ms here (the CPU floor / n).\n",
	       floor_s * 1000.0 / o->w.n);
	printf("overhead = total - hashing: the time the run spent not "
	       "hashing.\n");
	printf("the server received %zu of %d saves while the CPU was still "
	       "hashing;\nit held up to %llu at once; its last answer went out "
	       "%.0f ms after the last hash.\n", r->early, o->w.n,
	       (unsigned long long)r->max_in_flight, r->tail_s * 1000.0);
}

int main(int argc, char **argv)
{
	struct options o = parse_args(argc, argv);
	double floor_s;
	struct result r;

	if (workload_plan(&o.w) != 0)
		errx(1, "cannot calibrate the hash work (libcrypto failed)");
	floor_s = workload_cpu_floor_s(&o.w);
	if (floor_s < 0)
		errx(1, "libcrypto failed");
	r = run_overlapped(&o);

	if (o.csv)
		print_csv(&o, floor_s, &r);
	else
		print_table(&o, floor_s, &r);
	return 0;
}
