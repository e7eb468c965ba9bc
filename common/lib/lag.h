/*
 * lag: a heartbeat lag meter for graders, programs and benches.
 *
 * A persistent libevent timer beats every period_ns; at each beat the meter
 * reads CLOCK_MONOTONIC (never the loop's cached time) and records how much
 * longer than one period the gap since the previous beat was.  libevent
 * keeps the timer's cadence itself (a late beat does not push the next one
 * back, and beats a stall swallowed are not replayed), so a stall of S gives
 * one sample of about S - period, and the worst sample is the longest time
 * the loop was not turning, to within a period.
 *
 * This is deliberately not lab ex02's meter: that one keeps its own schedule
 * (start + k * period) and uses nearest-rank percentiles; this one measures
 * gaps and interpolates.  For a stall, both give the same figure; a student
 * who copies this file into ex02 does not pass ex02's tests.
 */
#ifndef YIELDLAB_LAG_H
#define YIELDLAB_LAG_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct trace;

struct lag_stats {
	size_t count;
	int64_t p50_ns, p99_ns, max_ns;   /* p50/p99 interpolated, see below */
};

struct lag;

/* @return a stopped meter on base (not owned), or NULL.  period_ns > 0. */
struct lag *lag_new(struct event_base *base, int64_t period_ns);

/* Stops the meter and frees it; NULL is a no-op. */
void lag_free(struct lag *lag);

/* Starts beating, the first beat one period from now.  @return 0, or -1. */
int lag_start(struct lag *lag);

/* Disarms the timer; samples are kept.  The loop no longer waits for it. */
void lag_stop(struct lag *lag);

/* Also record a "beat" entry in trace (not owned) at every beat. */
void lag_set_trace(struct lag *lag, struct trace *trace);

size_t lag_count(const struct lag *lag);

/* Sample i in ns (how much the gap before beat i exceeded a period; 0 when
 * it did not), and when beat i ran (CLOCK_MONOTONIC ns).  0 for i out of
 * range. */
int64_t lag_sample_ns(const struct lag *lag, size_t i);
int64_t lag_sample_at_ns(const struct lag *lag, size_t i);

/* Count, p50 and p99 (lag_percentile_ns), and the largest sample. */
void lag_get_stats(const struct lag *lag, struct lag_stats *out);

/*
 * Percentile pct (0..100) of n values, interpolated linearly between the
 * two nearest order statistics (the estimate spreadsheets and numpy use by
 * default): with the values sorted as v[0..n-1], position (n-1)*pct/100.
 * values is not modified.  @return the percentile, or 0 when n == 0 or
 * memory runs out.
 */
int64_t lag_percentile_ns(const int64_t *values, size_t n, int pct);

#endif
