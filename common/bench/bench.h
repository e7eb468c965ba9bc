/*
 * bench: what the `make bench` programs share (not part of libcommon.a).
 *
 * Every bench program takes --csv (one header row with units in the column
 * names, then rows) and --help; bad arguments print what was wrong and the
 * usage, and exit 2 (common/lib/cli.h reads the arguments).
 */
#ifndef YIELDLAB_BENCH_H
#define YIELDLAB_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
