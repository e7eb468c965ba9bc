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
	int batch;
	bool serial, batched, csv;
};

struct result {
	const char *mode;
	int batch;                 /* items per wait: 1 serial, 0 no saves */
	double total_s, hash_s, io_floor_s;
};

static void usage(FILE *f)
{
	fputs("usage: ex06 [--n N] [--item-ms MS] [--difficulty D]\n"
	      "            [--links N] [--delay-ms MS] [--cap N]\n"
	      "            [--batch N] [--mode all|serial|batched] [--csv]\n", f);
	workload_usage(f);
	fprintf(f,
		"  --batch N       items per batch in the batched version (1-%d,\n"
		"                  default 10)\n"
		"  --mode M        which versions to run after the CPU floor\n"
		"                  (default all)\n"
		"  --csv           print CSV (one header row) instead of the table\n",
		SS_MAX_BATCH);
}

static void parse_mode(struct cli *cli, const char *arg, struct options *o)
{
	static const char *const modes[] = { "all", "serial", "batched" };
	int m = cli_choice(cli, arg, "--mode", modes, 3);

	o->serial = m != 2;
	o->batched = m != 1;
}

static void take_option(struct cli *cli, int val, char *arg, void *ctx)
{
	struct options *o = ctx;

	if (workload_option(cli, &o->w, val, arg))
		return;
	switch (val) {
	case 'b': o->batch = cli_int(cli, arg, "--batch", 1, SS_MAX_BATCH); break;
	case 'm': parse_mode(cli, arg, o); break;
	case 'C': o->csv = true; break;
	}
}

static struct options parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		WORKLOAD_LONGOPTS,
		{ "batch", required_argument, NULL, 'b' },
		{ "mode", required_argument, NULL, 'm' },
		{ "csv", no_argument, NULL, 'C' },
		CLI_HELP_AND_END,
	};
	struct options o = { .w = WORKLOAD_DEFAULTS("ex06"), .batch = 10,
			     .serial = true, .batched = true };
	struct cli cli = { .prog = "ex06", .usage = usage };

	if (cli_parse(&cli, argc, argv, longopts, take_option, &o) == CLI_HELP)
		exit(0);
	if (cli_failed(&cli))
		exit(2);
	return o;
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

	so.delay_ms = o->w.delay_ms;
	so.max_in_flight = o->w.cap;
	if (saveproc_start(&server, &so) != 0)
		errx(1, "cannot start the save server: %s", server.why);
	client = base ? save_client_new(base, &(struct save_client_options){
				.port = server.port, .pool_size = o->w.cap }) : NULL;
	if (!client || !h)
		errx(1, "out of memory");
	workload_progress(&o->w, batched ? "batched version" : "serial version");
	ss_init(&r, client, h, (size_t)o->w.n, o->w.links, NULL);
	start = clock_monotonic_ns();
	rc = batched ? ss_batched(&r, (size_t)batch) : ss_serial(&r);
	res.total_s = (double)(clock_monotonic_ns() - start) / 1e9;
	if (rc != 0 || r.acked != (size_t)o->w.n)
		errx(1, "the %s version failed: returned %d, %zu of %d saves "
		     "stored (not implemented yet?)", res.mode, rc, r.acked, o->w.n);
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
	int waits = (o->w.n + batch - 1) / batch;
	int rounds = (batch + o->w.cap - 1) / o->w.cap;

	return (double)waits * rounds * o->w.delay_ms / 1000.0;
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
	       "%d ms (%d at once)\n\n", o->w.n, workload_describe(&o->w, what, sizeof(what)),
	       o->w.delay_ms, o->w.cap);
	printf("%-13s %9s %10s %9s %10s %14s\n", "version", "total", "CPU floor",
	       "hashing", "overhead", "waits at least");
}

static void print_row(const struct options *o, const struct result *r,
		      double floor_s)
{
	char name[32];

	if (o->csv) {
		printf("%s,%d,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%llu,"
		       "%.2f\n", r->mode, r->batch, o->w.n, o->w.difficulty,
		       o->w.delay_ms, o->w.cap, r->total_s, floor_s, r->hash_s,
		       r->total_s - r->hash_s, r->total_s - floor_s,
		       r->io_floor_s, (unsigned long long)o->w.links,
		       floor_s * 1000.0 / o->w.n);
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
	       floor_s * 1000.0 / o->w.n);
	printf("overhead = total - hashing: the time the run spent not "
	       "hashing (waiting).\n"
	       "waits at least: one server delay per wait, more when a wait "
	       "holds more than %d saves.\n", o->w.cap);
}

int main(int argc, char **argv)
{
	struct options o = parse_args(argc, argv);
	double floor_s;
	struct result floor_row;

	if (workload_plan(&o.w) != 0)
		errx(1, "cannot calibrate the hash work (libcrypto failed)");
	floor_s = workload_cpu_floor_s(&o.w);
	if (floor_s < 0)
		errx(1, "libcrypto failed");
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
