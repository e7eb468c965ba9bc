/*
 * lag: a heartbeat lag meter for graders and experiments.
 *
 * A timer asks to wake every period_ns and records how late each beat was
 * against its schedule (start + k * period), read from CLOCK_MONOTONIC, never
 * from the loop's cached time.  After a stall longer than a period the missed
 * slots are skipped, so one stall gives one large sample, not a backlog.
 * The worst lateness is the longest time the loop was not turning.
 */
#ifndef YIELDLAB_LAG_H
#define YIELDLAB_LAG_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct trace;

struct lag_stats {
	size_t count;
	int64_t p50_ns, p99_ns, max_ns;
};

struct lag;

/* @return a stopped meter on base (not owned), or NULL.  period_ns > 0. */
struct lag *lag_new(struct event_base *base, int64_t period_ns);

/* Stops the meter and frees it; NULL is a no-op. */
void lag_free(struct lag *lag);

/* Arms the first beat one period from now.  @return 0, or -1 on failure. */
int lag_start(struct lag *lag);

/* Disarms the timer; samples are kept.  The loop no longer waits for it. */
void lag_stop(struct lag *lag);

/* Also record a "beat" entry in trace (not owned) at every beat. */
void lag_set_trace(struct lag *lag, struct trace *trace);

size_t lag_count(const struct lag *lag);

/* Lateness of beat i in ns, and when it fired (CLOCK_MONOTONIC ns). */
int64_t lag_sample_ns(const struct lag *lag, size_t i);
int64_t lag_sample_at_ns(const struct lag *lag, size_t i);

/* Count, nearest-rank p50 and p99, and maximum of the samples so far. */
void lag_get_stats(const struct lag *lag, struct lag_stats *out);

/*
 * Nearest-rank percentile (pct in 1..100) of n values: the smallest value
 * with at least pct% of the values at or below it.  Does not modify values.
 * @return the percentile, or 0 when n == 0.
 */
int64_t lag_percentile_ns(const int64_t *values, size_t n, int pct);

#endif
