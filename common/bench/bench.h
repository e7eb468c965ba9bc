/*
 * bench: what the `make bench` programs share (not part of libcommon.a).
 *
 * Every bench program takes --csv (one header row with units in the column
 * names, then rows) and --help; bad arguments print what was wrong and the
 * usage, and exit 2 (common/lib/cli.h reads the arguments).
 */
#ifndef YIELDLAB_BENCH_H
#define YIELDLAB_BENCH_H

#include "cli.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What a bench's command line is, for bench_parse_args. */
struct bench_args {
	const char *prog;                 /* "bench-lag": prefixes messages */
	void (*usage)(FILE *f);
	const struct option *longopts;    /* ending in CLI_HELP_AND_END */
	cli_option_fn *take;              /* reads one option into opts */
	/* NULL, or the checks that need every option (cli_bad) */
	void (*check)(struct cli *c, void *opts);
};

/* Reads argv into opts as a describes, then a->check.  Exits 0 after
 * --help and 2 after a bad argument (what was wrong and the usage are on
 * stderr), as every bench does; returns when opts is good. */
void bench_parse_args(const struct bench_args *a, int argc, char **argv,
		      void *opts);

/* The p-th percentile (1 <= p <= 100, interpolated: lag.h) of n >= 1 values;
 * does not modify them. */
int64_t bench_percentile_ns(const int64_t *values, size_t n, unsigned p);

/* Median of n >= 1 values (as above); does not modify them. */
int64_t bench_median_ns(const int64_t *values, size_t n);

/* ns per operation of one timed run, as a double (elapsed / ops). */
static inline double bench_ns_per_op(int64_t elapsed_ns, uint64_t ops)
{
	return ops ? (double)elapsed_ns / (double)ops : 0.0;
}

#endif
