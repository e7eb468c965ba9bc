/* ex06 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * ex06: hash n items and save each result to a slow save server, serially
 * and in batches; print how long each version took beside the CPU floor
 * (the same hashes with no saves at all, measured first in the same run).
 *
 * The CPU floor moves from run to run on a shared machine (the same 120
 * hashes took 0.9-1.6 s here), so each version also times its own hashes
 * (hash_s): overhead_s = total_s - hash_s is the time it spent NOT
 * hashing, which the floor's noise does not touch.
 */
#include "serial_saves.h"

#include "clock.h"
#include "evbase.h"
#include "save.h"
#include "saveproc.h"

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
	int n, difficulty, delay_ms, cap, batch;
	bool serial, batched, csv;
	double item_ms;            /* --item-ms */
	uint64_t links;            /* per item: --links, or calibrated */
	double ns_per_link;        /* measured by the calibration, or 0 */
};

struct result {
	const char *mode;
	int batch;                 /* items per wait: 1 serial, 0 no saves */
	double total_s, hash_s, io_floor_s;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ex06 [--n N] [--item-ms MS] [--difficulty D]\n"
		"            [--links N] [--delay-ms MS] [--cap N]\n"
		"            [--batch N] [--mode all|serial|batched] [--csv]\n"
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
		"  --batch N       items per batch in the batched version (1-%d,\n"
		"                  default 10)\n"
		"  --mode M        which versions to run after the CPU floor\n"
		"                  (default all)\n"
		"  --csv           print CSV (one header row) instead of the table\n",
		SS_MAX_BATCH);
}

static void bad_usage(const char *problem, const char *arg)
{
	fprintf(stderr, "ex06: %s: '%s'\n", problem, arg);
	usage(stderr);
	exit(2);
}

static int parse_int(const char *arg, const char *name, int lo, int hi)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*arg == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "ex06: %s must be a whole number from %d to %d, "
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
		fprintf(stderr, "ex06: %s must be a number from %g to %g, not '%s'\n",
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
		fprintf(stderr, "ex06: --links must be a whole number from 1 to "
			"%llu, not '%s'\n", (unsigned long long)HASHWORK_MAX_LINKS,
			arg);
		usage(stderr);
		exit(2);
	}
	return (uint64_t)v;
}

static void parse_mode(const char *arg, struct options *o)
{
	o->serial = strcmp(arg, "all") == 0 || strcmp(arg, "serial") == 0;
	o->batched = strcmp(arg, "all") == 0 || strcmp(arg, "batched") == 0;
	if (!o->serial && !o->batched)
		bad_usage("--mode must be all, serial or batched", arg);
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
		{ "batch", required_argument, NULL, 'b' },
		{ "mode", required_argument, NULL, 'm' },
		{ "csv", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { 120, 8, 50, 10, 10, true, true, false, 16, 0, 0 };
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
		case 'b': o.batch = parse_int(optarg, "--batch", 1, SS_MAX_BATCH); break;
		case 'm': parse_mode(optarg, &o); break;
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
static void progress(const char *fmt, const char *what)
{
	if (isatty(STDERR_FILENO))
		fprintf(stderr, fmt, what);
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
	progress("ex06: %s ...\n", "CPU floor (hashes only)");
	for (int i = 0; i < o->n; i++)
		if (hashwork_item_links(h, (uint64_t)i, o->links, digest) != 0)
			errx(1, "libcrypto failed");
	hashwork_free(h);
	return (double)(clock_monotonic_ns() - start) / 1e9;
}

/* One version against a fresh server (so each starts with an empty store
 * and cold connections): ss_serial, or ss_batched in batches of batch. */
static struct result run_version(const struct options *o, bool batched,
				 int batch)
{
	struct saveproc_options so = SAVEPROC_DEFAULTS;
	struct result res = { batched ? "batched" : "serial", batch, 0, 0, 0 };
	struct saveproc server;
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct save_client *client;
	struct hashwork *h = hashwork_new();
	struct ss_run r;
	int64_t start;
	int rc;

	so.delay_ms = o->delay_ms;
	so.max_in_flight = o->cap;
	if (saveproc_start(&server, &so) != 0)
		errx(1, "cannot start the save server: %s", server.why);
	client = base ? save_client_new(base, &(struct save_client_options){
				.port = server.port, .pool_size = o->cap }) : NULL;
	if (!client || !h)
		errx(1, "out of memory");
	progress("ex06: %s version ...\n", res.mode);
	ss_init(&r, client, h, (size_t)o->n, o->links, NULL);
	start = clock_monotonic_ns();
	rc = batched ? ss_batched(&r, (size_t)batch) : ss_serial(&r);
	res.total_s = (double)(clock_monotonic_ns() - start) / 1e9;
	if (rc != 0 || r.acked != (size_t)o->n)
		errx(1, "the %s version failed: returned %d, %zu of %d saves "
		     "stored (not implemented yet?)", res.mode, rc, r.acked, o->n);
	res.hash_s = (double)r.hash_ns / 1e9;
	save_client_free(client);
	event_base_free(base);
	hashwork_free(h);
	saveproc_stop(&server);
	return res;
}

/* The least the waits can add: one delay per wait, and a wait of more
 * than cap saves takes several rounds of the server. */
static double io_floor_s(const struct options *o, int batch)
{
	int waits = (o->n + batch - 1) / batch;
	int rounds = (batch + o->cap - 1) / o->cap;

	return (double)waits * rounds * o->delay_ms / 1000.0;
}

static void print_header(const struct options *o)
{
	char what[128];

	if (o->csv) {
		printf("mode,batch,n,difficulty,delay_ms,cap,total_s,cpu_floor_s,"
		       "hash_s,overhead_s,over_floor_s,io_floor_s,links,item_ms\n");
		return;
	}
	printf("ex06: %d items %s,\neach saved to a server that answers after "
	       "%d ms (%d at once)\n\n", o->n, describe_items(o, what, sizeof(what)),
	       o->delay_ms, o->cap);
	printf("%-13s %9s %10s %9s %10s %14s\n", "version", "total", "CPU floor",
	       "hashing", "overhead", "waits at least");
}

static void print_row(const struct options *o, const struct result *r,
		      double floor_s)
{
	char name[32];

	if (o->csv) {
		printf("%s,%d,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%llu,"
		       "%.2f\n", r->mode, r->batch, o->n, o->difficulty,
		       o->delay_ms, o->cap, r->total_s, floor_s, r->hash_s,
		       r->total_s - r->hash_s, r->total_s - floor_s,
		       r->io_floor_s, (unsigned long long)o->links,
		       floor_s * 1000.0 / o->n);
		return;
	}
	if (strcmp(r->mode, "batched") == 0)
		snprintf(name, sizeof(name), "%s (%d)", r->mode, r->batch);
	else
		snprintf(name, sizeof(name), "%s", r->mode);
	printf("%-13s %7.3f s %8.3f s %7.3f s %8.3f s %12.3f s\n", name,
	       r->total_s, floor_s, r->hash_s, r->total_s - r->hash_s,
	       r->io_floor_s);
}

static void print_notes(const struct options *o, double floor_s)
{
	if (o->csv)
		return;
	printf("\none item took %.1f ms here (the CPU floor / n).\n",
	       floor_s * 1000.0 / o->n);
	printf("overhead = total - hashing: the time the run spent not "
	       "hashing (waiting).\n"
	       "waits at least: one server delay per wait, more when a wait "
	       "holds more than %d saves.\n", o->cap);
}

int main(int argc, char **argv)
{
	struct options o = parse_args(argc, argv);
	double floor_s;
	struct result floor_row;

	plan_items(&o);
	floor_s = cpu_floor_s(&o);
	floor_row = (struct result){ "cpu_floor", 0, floor_s, floor_s, 0 };

	print_header(&o);
	print_row(&o, &floor_row, floor_s);
	fflush(stdout);
	for (int k = 0; k < 2; k++) {
		struct result r;

		if ((k == 0 && !o.serial) || (k == 1 && !o.batched))
			continue;
		r = run_version(&o, k == 1, k == 0 ? 1 : o.batch);
		r.io_floor_s = io_floor_s(&o, r.batch);
		print_row(&o, &r, floor_s);
		fflush(stdout);
	}
	print_notes(&o, floor_s);
	return 0;
}
