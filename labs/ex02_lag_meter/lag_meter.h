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
 * Every time the meter reads comes from clock_now_ns() (common/lib/clock.h):
 * CLOCK_MONOTONIC, or a fake clock when a grader installs one.
 *
 * Why a fixed schedule: a heartbeat re-armed one period after each beat
 * also measures how late each beat fired, but every late beat pushes the
 * later ones back, so its sampling rate drifts with the load it measures.
 * This meter keeps the fixed schedule: one sample per period of the run,
 * at a steady rate.
 *
 * Promise: a stall shows in full: the first beat after the loop was held
 *   for 50 ms is at least 45 ms late, whether the stall was in an earlier
 *   pass of the loop or in the same pass as the beat (the time is read when
 *   the beat runs, not taken from the loop's cache).
 *   [tests: a_50ms_stall_shows_as_a_beat_at_least_45ms_late, a_stall_in_the_same_pass_as_the_beat_is_measured_in_full]
 * Promise: the meter keeps working after a stall: the beats after it fire
 *   on their slots of the fixed schedule again (not early, not shifted).
 *   [tests: the_meter_recovers_after_a_stall]
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
 *
 * Promise: on this base an idle meter beats once per slot (never more
 *   often) and the beats the machine's load did not delay are late by a
 *   small fraction of a millisecond: no coarse clock anywhere.
 *   [tests: idle_beats_are_precise_and_one_per_slot]
 * Promise: once the base is freed, nothing of its making is left (the
 *   event_config too); when it returns NULL (out of memory), nothing is
 *   left either.
 *   [tests: no_libevent_object_outlives_its_meter]
 */
struct event_base *lagm_base_new(void);

/*
 * @return a stopped meter with no samples, using base (not owned), or NULL.
 * period_ns must be > 0.
 *
 * Promise: NULL for a NULL base, for a period of 0 or less (1 ns is a
 *   period), and when its timer cannot be made (out of memory), keeping
 *   no memory on that path.
 *   [tests: no_libevent_object_outlives_its_meter, freeing_a_meter_returns_all_its_memory]
 */
struct lagm *lagm_new(struct event_base *base, int64_t period_ns);

/*
 * Stops the meter and frees everything it owns; NULL is a no-op.
 *
 * Promise: lagm_free(NULL) does nothing.
 *   [tests: no_libevent_object_outlives_its_meter]
 * Promise: no libevent object (the timer event) and no heap memory outlives
 *   its meter, on every path: never started, armed, stopped, after beats.
 *   [tests: no_libevent_object_outlives_its_meter, freeing_a_meter_returns_all_its_memory]
 */
void lagm_free(struct lagm *m);

/*
 * Starts the schedule at clock_now_ns(): beat k (k = 1, 2, ...) is due at
 * start + k * period.  Arms the timer for beat 1.  @return 0, or -1.
 *
 * Promise: beat 1 never fires before start + period, wherever lagm_start()
 *   runs: called late in a loop pass (after a long callback), the wait
 *   counts from clock_now_ns(), not from the loop's cached time.
 *   [tests: stop_and_start_keep_the_samples]
 */
int lagm_start(struct lagm *m);

/*
 * Disarms the timer at once: the loop no longer waits for the meter and
 * no sample is added until the next lagm_start().  Samples are kept.
 *
 * Promise: after lagm_stop() nothing of the meter is added or active on
 *   the base, and no sample is added.
 *   [tests: stop_disarms_the_timer_so_the_loop_can_end]
 * Promise: a stop and a new lagm_start() keep every sample, and the new
 *   start anchors a new schedule at its own clock_now_ns().
 *   [tests: stop_and_start_keep_the_samples]
 */
void lagm_stop(struct lagm *m);

/*
 * The bookkeeping of one beat that fired at now_ns (the timer's callback
 * calls it with clock_now_ns(); a grader may call it directly with a fake
 * time).  Records max(0, now_ns - due) for the beat that was due, then moves
 * the schedule to the first slot start + k * period that is later than
 * now_ns: the slots a stall swallowed are skipped, so one stall gives one
 * large sample, not a backlog of beats.  Does not arm the timer.
 * @return 0, or -1 when out of memory (the sample is lost).
 *
 * Promise: a beat whose sample cannot be stored (out of memory) returns -1
 *   and leaves the count as it was; once memory is back, samples are
 *   recorded again.
 *   [tests: stats_of_no_beats_of_one_beat_and_of_a_hundred]
 *
 * Promise: beat k is due at start + k * period whatever the earlier beats
 *   did: a late beat does not push the later ones back (a steady sampling
 *   rate), and the slots a stall swallowed are skipped in one step.
 *   [tests: beats_stay_on_the_fixed_schedule]
 * Promise: a beat that comes before its slot records 0, never a negative
 *   lateness, and leaves the schedule where it was; a beat after its slot
 *   records its lateness to the nanosecond.
 *   [tests: an_early_beat_records_zero]
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
 *
 * Promise: the nearest rank exactly (1-based rank ceil(pct * n / 100) in
 *   integer arithmetic, never interpolated), and the caller's array left
 *   in its order.
 *   [tests: percentiles_use_the_nearest_rank]
 * Promise: right on every input: n = 1, n = 100, p1, p7, p99, equal
 *   values, and values above 2^31 ns (int64_t all the way); no memory
 *   is kept from one call to the next.
 *   [tests: percentiles_of_edge_inputs]
 */
int64_t lagm_percentile_ns(const int64_t *values, size_t n, int pct);

/*
 * Count, p50, p99 and maximum of the samples so far.
 *
 * Promise: with no samples every field is 0 (the empty sample array is
 *   never read); with samples, p50, p99 and max summarise exactly them.
 *   [tests: stats_of_no_beats_of_one_beat_and_of_a_hundred]
 * Promise: the samples are left untouched: lagm_sample_ns() gives the
 *   same values in the same order after lagm_get_stats().
 *   [tests: get_stats_leaves_the_samples_in_order]
 */
void lagm_get_stats(const struct lagm *m, struct lagm_stats *out);

#endif
