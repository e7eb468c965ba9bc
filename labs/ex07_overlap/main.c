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
#include "saveproc.h"
#include "trace.h"

#include <err.h>
#include <event2/event.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct options {
	int n, difficulty, delay_ms, cap;
	bool csv;
	double item_ms;            /* --item-ms */
	uint64_t links;            /* per item: --links, or calibrated */
	double ns_per_link;        /* measured by the calibration, or 0 */
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
	fprintf(f,
		"usage: ex07 [--n N] [--item-ms MS] [--difficulty D]\n"
		"            [--links N] [--delay-ms MS] [--cap N] [--csv]\n"
		"  --n N           items to hash and save (1-10000, default 120)\n"
		"  --item-ms MS    CPU time of one item: its SHA-256 links are\n"
		"                  calibrated to it at start-up (0.1-1000, default 16)\n"
		"  --difficulty D  scales the item time by 2^(D-8): 9 doubles it,\n"
		"                  7 halves it (0-16, default 8)\n"
		"  --links N       exactly N links per item, no calibration\n"
		"  --delay-ms MS   the server answers each save after MS ms\n"
		"                  (0-10000, default 50)\n"
		"  --cap N         the server holds at most N saves at once; the\n"
		"                  client opens as many connections (1-64, default 10)\n"
		"  --csv           print CSV (one header row) instead of the table\n");
}

static void bad_usage(const char *problem, const char *arg)
{
	fprintf(stderr, "ex07: %s: '%s'\n", problem, arg);
	usage(stderr);
	exit(2);
}

static int parse_int(const char *arg, const char *name, int lo, int hi)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*arg == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "ex07: %s must be a whole number from %d to %d, "
			"not '%s'\n", name, lo, hi, arg);
		usage(stderr);
		exit(2);
	}
	return (int)v;
}

static double parse_ms(const char *arg, const char *name, double lo, double hi)
{
	char *end;
	double v = strtod(arg, &end);

	if (*arg == '\0' || *end != '\0' || !(v >= lo && v <= hi)) {
		fprintf(stderr, "ex07: %s must be a number from %g to %g, not '%s'\n",
			name, lo, hi, arg);
		usage(stderr);
		exit(2);
	}
	return v;
}

static uint64_t parse_links(const char *arg)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	if (*arg < '0' || *arg > '9' || *end != '\0' || v < 1 ||
	    v > HASHWORK_MAX_LINKS) {
		fprintf(stderr, "ex07: --links must be a whole number from 1 to "
			"%llu, not '%s'\n", (unsigned long long)HASHWORK_MAX_LINKS,
			arg);
		usage(stderr);
		exit(2);
	}
	return (uint64_t)v;
}

static struct options parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "n", required_argument, NULL, 'n' },
		{ "difficulty", required_argument, NULL, 'd' },
		{ "item-ms", required_argument, NULL, 'i' },
		{ "links", required_argument, NULL, 'L' },
		{ "delay-ms", required_argument, NULL, 'D' },
		{ "cap", required_argument, NULL, 'c' },
		{ "csv", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { 120, 8, 50, 10, false, 16, 0, 0 };
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': o.n = parse_int(optarg, "--n", 1, 10000); break;
		case 'd': o.difficulty = parse_int(optarg, "--difficulty", 0, 16); break;
		case 'i': o.item_ms = parse_ms(optarg, "--item-ms", 0.1, 1000); break;
		case 'L': o.links = parse_links(optarg); break;
		case 'D': o.delay_ms = parse_int(optarg, "--delay-ms", 0, 10000); break;
		case 'c': o.cap = parse_int(optarg, "--cap", 1, 64); break;
		case 'C': o.csv = true; break;
		case 'h': usage(stdout); exit(0);
		default: bad_usage("unknown option or missing value", argv[optind - 1]);
		}
	}
	if (optind != argc)
		bad_usage("unexpected argument", argv[optind]);
	return o;
}

/* Prints a progress line on stderr, only when a person is watching. */
static void progress(const char *what)
{
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "ex07: %s ...\n", what);
}

/* The links of one item: calibrated on this machine to item_ms x
 * 2^(difficulty - 8), unless --links fixed them.  An item's lesson is its
 * TIME against the server's delay: 2^16 links took 5 ms on one CPU and
 * 14 ms on another, so a fixed count would teach opposite lessons. */
static void plan_items(struct options *o)
{
	struct hashwork *h;
	double target_ms = ldexp(o->item_ms, o->difficulty - 8);

	if (o->links > 0)
		return;
	h = hashwork_new();
	if (!h)
		errx(1, "libcrypto: no SHA-256");
	o->links = hashwork_calibrate(h, (int64_t)(target_ms * 1e6),
				      &o->ns_per_link);
	hashwork_free(h);
	if (o->links == 0)
		errx(1, "cannot calibrate the hash work (libcrypto failed)");
}

/* "of 123456 links (calibrated to 16.0 ms at 130 ns per link)" */
static const char *describe_items(const struct options *o, char *buf,
				  size_t size)
{
	if (o->ns_per_link > 0)
		snprintf(buf, size, "of %llu SHA-256 links (calibrated to "
			 "%.1f ms at %.0f ns per link)",
			 (unsigned long long)o->links,
			 ldexp(o->item_ms, o->difficulty - 8), o->ns_per_link);
	else
		snprintf(buf, size, "of %llu SHA-256 links (--links)",
			 (unsigned long long)o->links);
	return buf;
}

/* The CPU floor: the same n hashes, no saves. */
static double cpu_floor_s(const struct options *o)
{
	struct hashwork *h = hashwork_new();
	uint8_t digest[HASHWORK_DIGEST_LEN];
	int64_t start = clock_monotonic_ns();

	if (!h)
		errx(1, "libcrypto: no SHA-256");
	progress("CPU floor (hashes only)");
	for (int i = 0; i < o->n; i++)
		if (hashwork_item_links(h, (uint64_t)i, o->links, digest) != 0)
			errx(1, "libcrypto failed");
	hashwork_free(h);
	return (double)(clock_monotonic_ns() - start) / 1e9;
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
static void read_server_side(const char *log, const struct trace *trace,
			     struct result *res)
{
	struct save_record *recs;
	size_t n;
	int64_t last_hash = trace_time_ns(trace, trace_len(trace) - 1);
	int64_t last_answer = last_hash;

	if (saveproc_read_log(log, &recs, &n) != 0)
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
		.client = r->client, .hasher = h, .n = (size_t)o->n,
		.links = o->links, .trace = trace,
		.done = done_cb, .arg = r,
	};

	if (ovl_start(&r->task, r->base, &job) != 0)
		errx(1, "ovl_start() failed");
}

/* The server logs to a file unlinked at once, read through our own
 * descriptor: nothing is left behind. */
static int start_server(const struct options *o, struct saveproc *server,
			char *log, size_t size)
{
	struct saveproc_options so = SAVEPROC_DEFAULTS;
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/yieldlab-ex07.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		err(1, "mkstemp %s", path);
	so.delay_ms = o->delay_ms;
	so.max_in_flight = o->cap;
	so.log_path = path;
	if (saveproc_start(server, &so) != 0) {
		unlink(path);
		errx(1, "cannot start the save server: %s", server->why);
	}
	unlink(path);
	snprintf(log, size, "/proc/self/fd/%d", fd);
	return fd;
}

static struct result run_overlapped(const struct options *o)
{
	struct result res = { 0 };
	struct saveproc server;
	struct save_stats st;
	struct run r = { .base = evbase_new(EVBASE_PRECISE) };
	struct hashwork *h = hashwork_new();
	struct trace *trace = trace_new();
	char log[64];
	int fd = start_server(o, &server, log, sizeof(log));
	int64_t start;

	r.client = r.base ? save_client_new(r.base, &(struct save_client_options){
				.port = server.port, .pool_size = o->cap }) : NULL;
	if (!r.client || !h || !trace)
		errx(1, "out of memory");
	progress("overlapped run (your task)");
	start = clock_monotonic_ns();
	start_task(o, &r, h, trace);
	run_until_done(&r);
	res.total_s = (double)(r.finished_ns - start) / 1e9;
	res.hash_s = (double)r.task.hash_ns / 1e9;
	if (r.task.acked != (size_t)o->n)
		errx(1, "only %zu of %d saves were stored", r.task.acked, o->n);
	if (saveproc_stats(&server, &st) != 0)
		errx(1, "GET /stats: %s", server.why);
	res.max_in_flight = st.max_in_flight;
	read_server_side(log, trace, &res);
	save_client_free(r.client);
	event_base_free(r.base);
	hashwork_free(h);
	trace_free(trace);
	saveproc_stop(&server);
	close(fd);
	return res;
}

/* ---- output ---------------------------------------------------------------- */

static void print_csv(const struct options *o, double floor_s,
		      const struct result *r)
{
	unsigned long long links = (unsigned long long)o->links;
	double item_ms = floor_s * 1000.0 / o->n;

	printf("mode,batch,n,difficulty,delay_ms,cap,total_s,cpu_floor_s,"
	       "hash_s,overhead_s,over_floor_s,io_floor_s,links,item_ms\n");
	printf("cpu_floor,0,%d,%d,%d,%d,%.3f,%.3f,%.3f,0.000,0.000,0.000,%llu,"
	       "%.2f\n", o->n, o->difficulty, o->delay_ms, o->cap, floor_s,
	       floor_s, floor_s, links, item_ms);
	printf("overlapped,0,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%llu,"
	       "%.2f\n", o->n, o->difficulty, o->delay_ms, o->cap, r->total_s,
	       floor_s, r->hash_s, r->total_s - r->hash_s, r->total_s - floor_s,
	       o->delay_ms / 1000.0, links, item_ms);
}

static void print_table(const struct options *o, double floor_s,
			const struct result *r)
{
	char what[128];

	printf("ex07: %d items %s,\neach saved without waiting to a server "
	       "that answers after %d ms (%d at once)\n\n", o->n,
	       describe_items(o, what, sizeof(what)), o->delay_ms, o->cap);
	printf("%-13s %9s %10s %9s %10s %14s\n", "version", "total",
	       "CPU floor", "hashing", "overhead", "waits at least");
	printf("%-13s %7.3f s %8.3f s %7.3f s %8.3f s %12.3f s\n", "cpu_floor",
	       floor_s, floor_s, floor_s, 0.0, 0.0);
	printf("%-13s %7.3f s %8.3f s %7.3f s %8.3f s %12.3f s\n", "overlapped",
	       r->total_s, floor_s, r->hash_s, r->total_s - r->hash_s,
	       o->delay_ms / 1000.0);
	printf("\none item took %.1f ms here (the CPU floor / n).\n",
	       floor_s * 1000.0 / o->n);
	printf("overhead = total - hashing: the time the run spent not "
	       "hashing.\n");
	printf("the server received %zu of %d saves while the CPU was still "
	       "hashing;\nit held up to %llu at once; its last answer went out "
	       "%.0f ms after the last hash.\n", r->early, o->n,
	       (unsigned long long)r->max_in_flight, r->tail_s * 1000.0);
}

int main(int argc, char **argv)
{
	struct options o = parse_args(argc, argv);
	double floor_s;
	struct result r;

	plan_items(&o);
	floor_s = cpu_floor_s(&o);
	r = run_overlapped(&o);

	if (o.csv)
		print_csv(&o, floor_s, &r);
	else
		print_table(&o, floor_s, &r);
	return 0;
}
