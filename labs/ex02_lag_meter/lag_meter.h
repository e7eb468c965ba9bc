/* ex02 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * lag_meter: how long was the event loop not turning?
 *
 * A heartbeat timer asks to wake every period.  Beat k is due at
 * start + k * period, where start is the time lagm_start() ran; each time a
 * beat fires, the meter records how late it is against that schedule.
 * Stall the loop for 50 ms and the beat that was due inside the stall fires
 * ~50 ms late: the worst lateness is the longest time the loop was busy.
 *
 * Every time the meter reads comes from clock_now_ns() (common/clock.h):
 * CLOCK_MONOTONIC, or a fake clock when a grader installs one.
 */
#ifndef EX02_LAG_METER_H
#define EX02_LAG_METER_H

#include <stddef.h>
#include <stdint.h>

struct event_base;

/* A lag meter; you define the structure in lag_meter.c. */
struct lagm;

struct lagm_stats {
	size_t count;                    /* samples (beats) recorded */
	int64_t p50_ns, p99_ns, max_ns;  /* nearest-rank; 0 when count == 0 */
};

/*
 * Creates the event base a meter (and the work it watches) runs on.  Its
 * timers must fire within a fraction of a millisecond of their deadline on
 * an idle machine.  @return the base, owned by the caller
 * (event_base_free), or NULL.
 */
struct event_base *lagm_base_new(void);

/* @return a stopped meter with no samples, using base (not owned), or NULL.
 * period_ns must be > 0. */
struct lagm *lagm_new(struct event_base *base, int64_t period_ns);

/* Stops the meter and frees everything it owns; NULL is a no-op. */
void lagm_free(struct lagm *m);

/*
 * Starts the schedule at clock_now_ns(): beat k (k = 1, 2, ...) is due at
 * start + k * period.  Arms the timer for beat 1.  @return 0, or -1.
 */
int lagm_start(struct lagm *m);

/* Disarms the timer at once: the loop no longer waits for the meter and
 * no sample is added until the next lagm_start().  Samples are kept. */
void lagm_stop(struct lagm *m);

/*
 * The bookkeeping of one beat that fired at now_ns (the timer's callback
 * calls it with clock_now_ns(); a grader may call it directly with a fake
 * time).  Records max(0, now_ns - due) for the beat that was due, then moves
 * the schedule to the first slot start + k * period that is later than
 * now_ns: the slots a stall swallowed are skipped, so one stall gives one
 * large sample, not a backlog of beats.  Does not arm the timer.
 * @return 0, or -1 when out of memory (the sample is lost).
 */
int lagm_on_beat(struct lagm *m, int64_t now_ns);

/* Number of samples recorded so far. */
size_t lagm_count(const struct lagm *m);

/* Sample i (i < lagm_count()) in ns: how late that beat was. */
int64_t lagm_sample_ns(const struct lagm *m, size_t i);

/*
 * Nearest-rank percentile (pct in 1..100) of n values: the smallest value
 * with at least pct% of the n values at or below it.  values is not
 * modified.  @return the percentile, or 0 when n == 0.
 */
int64_t lagm_percentile_ns(const int64_t *values, size_t n, int pct);

/* Count, p50, p99 and maximum of the samples so far. */
void lagm_get_stats(const struct lagm *m, struct lagm_stats *out);

#endif
