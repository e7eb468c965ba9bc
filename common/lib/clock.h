/*
 * clock: monotonic time in nanoseconds, with one replaceable source so that
 * graders can drive time-dependent logic with a fake clock.
 *
 * Everything in yieldlab measures intervals with clock_now_ns(); nothing uses
 * the event loop's cached time, which lags behind after a slow callback.
 */
#ifndef YIELDLAB_CLOCK_H
#define YIELDLAB_CLOCK_H

#include <stdint.h>

#define CLOCK_NS_PER_US INT64_C(1000)
#define CLOCK_NS_PER_MS INT64_C(1000000)
#define CLOCK_NS_PER_S INT64_C(1000000000)

/* A source of monotonic time in ns; the epoch is arbitrary. */
typedef int64_t (*clock_source_fn)(void);

/* Current time in ns from the active source (CLOCK_MONOTONIC by default). */
int64_t clock_now_ns(void);

/* CLOCK_MONOTONIC in ns, whatever source is active. */
int64_t clock_monotonic_ns(void);

/* Replaces the source; NULL restores CLOCK_MONOTONIC.  Not thread-safe:
 * set it before starting threads. */
void clock_set_source(clock_source_fn source);

/* Switches to a fake clock that stands still at start_ns until advanced. */
void clock_use_fake(int64_t start_ns);

/* Moves the fake clock forward by delta_ns (no effect on the real clock). */
void clock_advance_ns(int64_t delta_ns);

/* Spins (never sleeps) until delta_ns of real CLOCK_MONOTONIC time has
 * passed: stands for CPU work that holds the thread.  Ignores a fake clock. */
void clock_spin_ns(int64_t delta_ns);

/* Sleeps at least delta_ns of real time (nanosleep, retried on EINTR). */
void clock_sleep_ns(int64_t delta_ns);

static inline double clock_ns_to_ms(int64_t ns)
{
	return (double)ns / (double)CLOCK_NS_PER_MS;
}

#endif
