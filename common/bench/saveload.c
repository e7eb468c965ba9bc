/*
 * bench-saveload: the same load for any save server — ours or its Python
 * twin — so `make bench` can set them side by side.  Sends N saves of
 * distinct ids through the project's client (common/lib/save.c) over a pool of
 * keep-alive connections, all queued at once, and reports the throughput and
 * the latency of each save from the moment it was queued to its answer.
 * The server's own CPU time and memory are read from outside by the driver.
 */
#include "bench.h"

#include "cli.h"

#include "clock.h"
#include "evbase.h"
#include "save.h"

#include <event2/event.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define PROG "bench-saveload"

struct opts {
	long port, saves, conns, timeout_ms;
	bool csv;
};

struct load {
	int64_t *queued_ns, *latency_ns;
	long answered, failed;
	char first_why[64];
};

struct save_ctx {
	struct load *load;
	long id;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --port N [--saves N] [--conns N] [--timeout-ms N] [--csv]\n"
		"  --port N        the server's port on 127.0.0.1\n"
		"  --saves N       saves of ids 0..N-1, all queued at once (default 2000)\n"
		"  --conns N       keep-alive connections (default 50)\n"
		"  --timeout-ms N  per request once sent (default 10000)\n"
		"  --csv           one header row and one row\n");
}

static void take_option(struct cli *cli, int val, char *arg, void *ctx)
{
	struct opts *o = ctx;

	switch (val) {
	case 'p': o->port = cli_long(cli, arg, "--port", 1, 65535); break;
	case 'n': o->saves = cli_long(cli, arg, "--saves", 1, 1000000); break;
	case 'c': o->conns = cli_long(cli, arg, "--conns", 1, 1000); break;
	case 't': o->timeout_ms = cli_long(cli, arg, "--timeout-ms", 1, 600000); break;
	case 'v': o->csv = true; break;
	}
}

static void check_port(struct cli *cli, void *opts)
{
	if (((const struct opts *)opts)->port == 0)
		cli_bad(cli, "--port is required");
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "saves", required_argument, NULL, 'n' },
		{ "conns", required_argument, NULL, 'c' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "csv", no_argument, NULL, 'v' },
		CLI_HELP_AND_END,
	};
	static const struct bench_args args = { PROG, usage, longs,
						take_option, check_port };

	*o = (struct opts){ .saves = 2000, .conns = 50, .timeout_ms = 10000 };
	bench_parse_args(&args, argc, argv, o);
}

static void saved_cb(uint64_t id, int ok, const char *why, void *arg)
{
	struct load *l = arg;

	l->latency_ns[id] = clock_now_ns() - l->queued_ns[id];
	l->answered++;
	if (ok != 0 && l->failed++ == 0)
		snprintf(l->first_why, sizeof(l->first_why), "%s", why ? why : "?");
}

/* A digest per id: any 64 hex digits will do, distinct ids never clash. */
static void digest_of(long id, char hex[65])
{
	snprintf(hex, 65, "%064lx", (unsigned long)id * 2654435761ul);
}

static int queue_all(struct save_client *c, struct load *l, long n)
{
	char hex[65];

	for (long id = 0; id < n; id++) {
		digest_of(id, hex);
		l->queued_ns[id] = clock_now_ns();
		if (save_client_save(c, (uint64_t)id, hex, saved_cb, l) != 0)
			return -1;
	}
	return 0;
}

static void report(const struct opts *o, struct load *l, int64_t wall_ns)
{
	double per_s = (double)o->saves / ((double)wall_ns / 1e9);
	int64_t p50 = bench_percentile_ns(l->latency_ns, (size_t)o->saves, 50);
	int64_t p99 = bench_percentile_ns(l->latency_ns, (size_t)o->saves, 99);
	if (o->csv) {
		printf("saves,conns,wall_s,saves_per_s,p50_ms,p99_ms,failed\n");
		printf("%ld,%ld,%.3f,%.0f,%.2f,%.2f,%ld\n", o->saves, o->conns,
		       (double)wall_ns / 1e9, per_s, (double)p50 / 1e6,
		       (double)p99 / 1e6, l->failed);
	} else {
		printf("%ld saves over %ld connections: %.3f s, %.0f saves/s, "
		       "p50 %.2f ms, p99 %.2f ms, %ld failed\n", o->saves,
		       o->conns, (double)wall_ns / 1e9, per_s, (double)p50 / 1e6,
		       (double)p99 / 1e6, l->failed);
	}
}

int main(int argc, char **argv)
{
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct save_client *client;
	struct load l = { 0 };
	struct opts o;
	int64_t start;

	parse_args(argc, argv, &o);
	l.queued_ns = calloc((size_t)o.saves, sizeof(int64_t));
	l.latency_ns = calloc((size_t)o.saves, sizeof(int64_t));
	client = base ? save_client_new(base, &(struct save_client_options){
		.port = (int)o.port, .pool_size = (int)o.conns,
		.timeout_ms = (int)o.timeout_ms }) : NULL;
	if (!client || !l.queued_ns || !l.latency_ns) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	start = clock_now_ns();
	if (queue_all(client, &l, o.saves) != 0) {
		fprintf(stderr, PROG ": the client refused a save\n");
		return 1;
	}
	while (l.answered < o.saves && event_base_loop(base, EVLOOP_ONCE) == 0)
		;
	report(&o, &l, clock_now_ns() - start);
	if (l.failed)
		fprintf(stderr, PROG ": %ld saves failed (first: %s)\n", l.failed,
			l.first_why);
	save_client_free(client);
	event_base_free(base);
	free(l.queued_ns);
	free(l.latency_ns);
	return l.failed ? 1 : 0;
}
