/* ex02 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * Grader for ex02_lag_meter.  Each test catches one mistake; the comment
 * above it names the mistake and, for tests that read the clock, why the
 * bound is safe on a shared 2-core VM.  Every test grades YOUR meter
 * (lagm_*); none of them uses common/lag.
 */
#include "lag_meter.h"

#include "clock.h"
#include "evbase.h"
#include "grade.h"

#include <event2/event.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS CLOCK_NS_PER_MS

/* ---- fixtures ------------------------------------------------------------ */

static void break_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(arg);
}

/* Spins (holds the loop) for *(int64_t *)arg ns. */
static void stall_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	clock_spin_ns(*(const int64_t *)arg);
}

/* Runs cb(arg) once, ms from now (unscaled: it is part of the experiment). */
static void at_ms(struct event_base *base, int64_t ms, event_callback_fn cb,
		  void *arg)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	GRADE_EXPECT(event_base_once(base, -1, EV_TIMEOUT, cb, arg, &tv) == 0,
		     "event_base_once() works", "it failed (out of memory?)");
}

static struct event_base *precise_base(void)
{
	struct event_base *base = evbase_new(EVBASE_PRECISE);

	GRADE_EXPECT(base, "an event base", "setup failed (out of memory?)");
	return base;
}

static struct lagm *started_meter(struct event_base *base, int64_t period_ns)
{
	struct lagm *m = lagm_new(base, period_ns);

	GRADE_EXPECT(m, "lagm_new() returns a meter", "it returned NULL");
	GRADE_EXPECT(lagm_start(m) == 0, "lagm_start() returns 0",
		     "it returned -1");
	return m;
}

/* The samples in ms, "1 2 3.5", into buf. */
static const char *samples_ms(const struct lagm *m, char *buf, size_t size)
{
	size_t used = 0, n = lagm_count(m);

	buf[0] = '\0';
	for (size_t i = 0; i < n && used + 1 < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%g",
					 i ? " " : "",
					 clock_ns_to_ms(lagm_sample_ns(m, i)));
	return n ? buf : "(no samples)";
}

static void feed_beat(struct lagm *m, int64_t at_ns)
{
	GRADE_EXPECT(lagm_on_beat(m, at_ns) == 0, "lagm_on_beat() returns 0",
		     "it returned -1");
}

/* ---- tests: statistics --------------------------------------------------- */

static void percentiles_as_text(const int64_t *v, size_t n, char *buf,
				size_t size)
{
	static const int pcts[] = { 1, 11, 20, 21, 50, 90, 99, 100 };
	size_t used = 0;

	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		used += (size_t)snprintf(buf + used, size - used, "%sp%d=%lld",
					 i ? " " : "", pcts[i],
					 (long long)lagm_percentile_ns(v, n, pcts[i]));
}

/* Catches: interpolated percentiles, a rank rounded down or off by one, a
 * median of the unsorted array, and sorting the caller's array in place.
 * Nearest rank of n values: the value at 1-based rank ceil(pct * n / 100). */
static void percentiles_use_the_nearest_rank(void **state)
{
	const int64_t ten[] = { 50, 10, 40, 20, 30, 60, 70, 80, 90, 100 };
	const int64_t five[] = { 5, 1, 3, 2, 4 };
	char got[256];

	(void)state;
	percentiles_as_text(ten, 10, got, sizeof(got));
	GRADE_EXPECT_STR(got, "p1=10 p11=20 p20=20 p21=30 p50=50 p90=90 "
			 "p99=100 p100=100");
	percentiles_as_text(five, 5, got, sizeof(got));
	GRADE_EXPECT_STR(got, "p1=1 p11=1 p20=1 p21=2 p50=3 p90=5 p99=5 "
			 "p100=5");
	GRADE_EXPECT(ten[0] == 50 && ten[9] == 100 && five[0] == 5,
		     "the values passed in are left in their order",
		     "the caller's array was sorted in place");
}

/* Catches: statistics that read a sample when there is none (a maximum
 * scanned from late_ns[0], a percentile of nothing), and p50/p99/max that
 * do not summarise the recorded beats.  Beats are fed with a fake clock:
 * 100 beats, one second apart, late by a permutation of 0..99 ms. */
static void stats_of_no_beats_of_one_beat_and_of_a_hundred(void **state)
{
	const int64_t seven = 7;
	struct event_base *base = precise_base();
	struct lagm *m;
	struct lagm_stats st;

	(void)state;
	GRADE_EXPECT(lagm_percentile_ns(&seven, 0, 50) == 0 &&
		     lagm_percentile_ns(&seven, 1, 1) == 7 &&
		     lagm_percentile_ns(&seven, 1, 100) == 7,
		     "percentile of 0 values = 0; of the single value 7 = 7",
		     "%lld and %lld", (long long)lagm_percentile_ns(&seven, 0, 50),
		     (long long)lagm_percentile_ns(&seven, 1, 100));
	clock_use_fake(CLOCK_NS_PER_S);
	m = started_meter(base, CLOCK_NS_PER_S);
	lagm_get_stats(m, &st);
	GRADE_EXPECT(st.count == 0 && st.p50_ns == 0 && st.max_ns == 0,
		     "stats of a meter with no beats: count 0, all zero",
		     "count %zu, p50 %lld, max %lld ns", st.count,
		     (long long)st.p50_ns, (long long)st.max_ns);
	for (int64_t k = 1; k <= 100; k++)
		feed_beat(m, CLOCK_NS_PER_S + k * CLOCK_NS_PER_S +
			  ((k * 37) % 100) * MS);
	lagm_get_stats(m, &st);
	GRADE_EXPECT(st.count == 100 && st.p50_ns == 49 * MS &&
		     st.p99_ns == 98 * MS && st.max_ns == 99 * MS,
		     "100 beats late by 0..99 ms: count 100, p50 49 ms, "
		     "p99 98 ms, max 99 ms",
		     "count %zu, p50 %g ms, p99 %g ms, max %g ms", st.count,
		     clock_ns_to_ms(st.p50_ns), clock_ns_to_ms(st.p99_ns),
		     clock_ns_to_ms(st.max_ns));
	lagm_free(m);
	event_base_free(base);
}

/* ---- tests: the meter on a real loop ------------------------------------- */

/* Catches: lateness that never shows a stall (the schedule moved past the
 * beat before its lateness was taken, or the wrong unit).  Time: a 50 ms
 * callback starts at ~20 ms; the first beat due after it began is due at
 * most 5 ms later and cannot fire before the callback ends, so it is at
 * least 45 ms late whatever the load.  Upper bound: the stall plus a
 * period, plus a 100 ms (scaled) margin for a loaded VM. */
static void a_50ms_stall_shows_as_a_beat_at_least_45ms_late(void **state)
{
	static const int64_t stall_ns = 50 * MS;
	struct event_base *base = precise_base();
	struct lagm *m = started_meter(base, 5 * MS);
	int64_t upper = stall_ns + 5 * MS + grade_bound_ns(100);
	struct lagm_stats st;
	char buf[2048];

	(void)state;
	at_ms(base, 20, stall_cb, (void *)&stall_ns);
	at_ms(base, 150, break_cb, base);
	event_base_dispatch(base);
	lagm_stop(m);
	lagm_get_stats(m, &st);
	GRADE_EXPECT(st.max_ns >= 45 * MS && st.max_ns <= upper,
		     "a 5 ms heartbeat beside a 50 ms stall: worst lateness "
		     "between 45 ms and the stall plus a period (+ margin)",
		     "worst %.2f ms; samples (ms): %s", clock_ns_to_ms(st.max_ns),
		     samples_ms(m, buf, sizeof(buf)));
	lagm_free(m);
	event_base_free(base);
}

/*
 * Catches: the beat's time read from the loop's cached time
 * (event_base_gettimeofday_cached): it is when the loop last woke, not
 * now.  Set-up, deterministic: a 50 ms callback due at 8 ms, beat 1 due at
 * 10 ms, a loopbreak due at 11 ms; the test spins past all three deadlines
 * before the loop first polls, so they become active in the same pass, in
 * deadline order.  The beat runs 50 ms after the loop woke: at least 45 ms
 * late, while the cached time says ~2 ms.  The loop ends in that pass, so
 * no later beat can carry the stall instead.
 */
static void a_stall_in_the_same_pass_as_the_beat_is_measured_in_full(void **state)
{
	static const int64_t stall_ns = 50 * MS;
	struct event_base *base = precise_base();
	struct lagm *m;
	struct lagm_stats st;
	char buf[2048];

	(void)state;
	at_ms(base, 8, stall_cb, (void *)&stall_ns);
	m = started_meter(base, 10 * MS);
	at_ms(base, 11, break_cb, base);
	clock_spin_ns(13 * MS);
	event_base_dispatch(base);
	lagm_stop(m);
	lagm_get_stats(m, &st);
	GRADE_EXPECT(st.count == 1 && st.max_ns >= 45 * MS,
		     "one beat, run after a 50 ms callback of the same loop "
		     "pass: at least 45 ms late",
		     "%zu beat(s), worst %.2f ms; samples (ms): %s", st.count,
		     clock_ns_to_ms(st.max_ns), samples_ms(m, buf, sizeof(buf)));
	lagm_free(m);
	event_base_free(base);
}

/*
 * Catches: libevent's default base (event_base_new), whose clock ticks
 * every 4 ms here and whose poll timeouts are rounded up to whole ms.
 * Time: on lagm_base_new()'s base an idle 5 ms heartbeat runs 300 ms.
 * Measured here: median 0.02-0.05 ms on the precise timer, even with six
 * CPU hogs on the two cores (a 20x margin to 1 ms); 2.5-3 ms on the
 * default base.  Only the median is asserted: single beats hiccup by ms.
 */
static void idle_beats_are_under_a_millisecond_late_at_the_median(void **state)
{
	struct event_base *base = lagm_base_new();
	struct lagm *m;
	struct lagm_stats st;
	char buf[4096];

	(void)state;
	GRADE_EXPECT(base, "lagm_base_new() returns a base", "it returned NULL");
	m = started_meter(base, 5 * MS);
	at_ms(base, 300, break_cb, base);
	event_base_dispatch(base);
	lagm_stop(m);
	lagm_get_stats(m, &st);
	GRADE_EXPECT(st.count >= 20, "at least 20 beats in 300 ms (60 are due)",
		     "%zu beats", st.count);
	GRADE_EXPECT(st.p50_ns < 1 * MS,
		     "an idle 5 ms heartbeat late by under 1 ms at the median",
		     "median %.3f ms; samples (ms): %s", clock_ns_to_ms(st.p50_ns),
		     samples_ms(m, buf, sizeof(buf)));
	lagm_free(m);
	event_base_free(base);
}

/* ---- tests: the bookkeeping, with a fake clock --------------------------- */

/*
 * Catches: lateness measured from the previous beat (interval - period)
 * instead of against start + k * period, and missed slots not skipped.
 * Fake clock, period 10 ms, started at S.  Beats at S + 11, 22, 33, 44 ms
 * (each 1 ms later than the last: a drift), then a stall until S + 97, then
 * S + 100 and S + 112.  Against the schedule: 1 2 3 4 47 0 2 ms.
 */
static void lateness_is_measured_against_the_schedule(void **state)
{
	static const int64_t at_ms_list[] = { 11, 22, 33, 44, 97, 100, 112 };
	const int64_t start = 5 * CLOCK_NS_PER_S;
	struct event_base *base = precise_base();
	struct lagm *m;
	char buf[512];

	(void)state;
	clock_use_fake(start);
	m = started_meter(base, 10 * MS);
	for (size_t i = 0; i < sizeof(at_ms_list) / sizeof(at_ms_list[0]); i++)
		feed_beat(m, start + at_ms_list[i] * MS);
	GRADE_EXPECT_STR(samples_ms(m, buf, sizeof(buf)), "1 2 3 4 47 0 2");
	lagm_free(m);
	event_base_free(base);
}

/* ---- tests: stopping and freeing ----------------------------------------- */

/* Catches: a stop that leaves the timer pending (or only sets a flag the
 * next beat reads): the loop keeps waiting for the meter, and one more
 * sample arrives after the stop.  Counts, not times. */
static void stop_disarms_the_timer_so_the_loop_can_end(void **state)
{
	struct event_base *base = precise_base();
	struct lagm *m = started_meter(base, 5 * MS);
	size_t before;
	int pending;

	(void)state;
	at_ms(base, 30, break_cb, base);
	event_base_dispatch(base);
	lagm_stop(m);
	before = lagm_count(m);
	pending = event_base_get_num_events(base, EVENT_BASE_COUNT_ADDED |
					    EVENT_BASE_COUNT_ACTIVE);
	GRADE_EXPECT(pending == 0,
		     "no event left added or active on the base after "
		     "lagm_stop()", "%d (the timer is still armed)", pending);
	GRADE_EXPECT(event_base_dispatch(base) == 1,
		     "event_base_dispatch() returns 1 at once (nothing to wait "
		     "for)", "it returned something else");
	GRADE_EXPECT(lagm_count(m) == before,
		     "no sample after lagm_stop()", "%zu before, %zu after",
		     before, lagm_count(m));
	lagm_free(m);
	event_base_free(base);
}

/* Starts, beats 300 times (the samples array grows), frees while armed. */
static int one_meter_lifetime(struct event_base *base)
{
	struct lagm *m = lagm_new(base, MS);
	int64_t t;

	if (!m || lagm_start(m) != 0) {
		lagm_free(m);
		return -1;
	}
	t = clock_now_ns();
	for (int i = 0; i < 300; i++)
		if (lagm_on_beat(m, t += MS) != 0)
			break;
	lagm_free(m);
	return 0;
}

/*
 * Catches: lagm_free() that forgets the samples, the timer event or the
 * meter itself.  Counts bytes, not time: glibc's in-use heap (mallinfo2)
 * before and after 1,000 lifetimes, after a warm-up so that libevent's own
 * tables and malloc's per-thread caches are at their steady size.  A leak
 * of even the smallest block (32 bytes) per lifetime adds 32,000 bytes;
 * the bound is 16 KiB.
 */
static void freeing_a_meter_returns_all_its_memory(void **state)
{
	struct event_base *base = precise_base();
	size_t before, after;

	(void)state;
	clock_use_fake(CLOCK_NS_PER_S);
	for (int i = 0; i < 20; i++)
		GRADE_EXPECT(one_meter_lifetime(base) == 0,
			     "lagm_new() and lagm_start() work", "they failed");
	before = mallinfo2().uordblks;
	for (int i = 0; i < 1000; i++)
		one_meter_lifetime(base);
	after = mallinfo2().uordblks;
	GRADE_EXPECT(after <= before + 16 * 1024,
		     "1,000 meters created, used and freed: the heap back where "
		     "it was (within 16 KiB)",
		     "%zu bytes more in use (%.0f per meter)", after - before,
		     (double)(after - before) / 1000.0);
	event_base_free(base);
}

static const struct grade_test tests[] = {
	GRADE_TEST(percentiles_use_the_nearest_rank, 15, 5000,
		   "sort a copy; take the value at 1-based rank "
		   "ceil(pct * n / 100); never interpolate"),
	GRADE_TEST(stats_of_no_beats_of_one_beat_and_of_a_hundred, 10, 5000,
		   "no samples: count 0 and every statistic 0, without reading "
		   "the (empty) array"),
	GRADE_TEST(a_50ms_stall_shows_as_a_beat_at_least_45ms_late, 15, 5000,
		   "take the lateness (now - due) BEFORE moving the schedule on"),
	GRADE_TEST(a_stall_in_the_same_pass_as_the_beat_is_measured_in_full, 15,
		   5000,
		   "read the time with clock_now_ns(), not the loop's cached "
		   "time"),
	GRADE_TEST(idle_beats_are_under_a_millisecond_late_at_the_median, 15,
		   5000,
		   "the default base's clock is coarse: ask for "
		   "EVENT_BASE_FLAG_PRECISE_TIMER (event_config)"),
	GRADE_TEST(lateness_is_measured_against_the_schedule, 15, 5000,
		   "beat k is due at start + k * period; after a stall, skip "
		   "to the first slot later than now"),
	GRADE_TEST(stop_disarms_the_timer_so_the_loop_can_end, 8, 5000,
		   "lagm_stop() must event_del() the timer, not wait for it"),
	GRADE_TEST(freeing_a_meter_returns_all_its_memory, 7, 10000,
		   "lagm_free(): event_free() the timer, free the samples, "
		   "free the meter"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "ex02_lag_meter", "a heartbeat lag meter",
			  tests, sizeof(tests) / sizeof(tests[0]));
}
