/* ex02 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * Grader for ex02_lag_meter.  Each test catches one mistake; the comment
 * above it names the mistake and, for tests that read the clock, why the
 * bound is safe on a shared 2-core VM.  Every test grades YOUR meter
 * (lagm_*); none of them uses common/lag.
 */
#include "lag_meter.h"

#include "clock.h"
#include "evalloc.h"
#include "libcfault.h"
#include "evbase.h"
#include "grade.h"

#include <event2/event.h>
#include <malloc.h>
#include <stdbool.h>
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

/* Runs base for ms, then breaks (unscaled: part of the experiment). */
static void run_for_ms(struct event_base *base, int64_t ms)
{
	at_ms(base, ms, break_cb, base);
	event_base_dispatch(base);
}

/* The meter's samples, copied: the caller frees the copy. */
static int64_t *late_copy(const struct lagm *m)
{
	size_t n = lagm_count(m);
	int64_t *v = calloc(n ? n : 1, sizeof(*v));

	GRADE_EXPECT(v, "memory for a copy", "calloc failed");
	for (size_t i = 0; i < n; i++)
		v[i] = lagm_sample_ns(m, i);
	return v;
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

/* Out of memory (libcfault: the C library's allocations fail on request,
 * in the plain build): 1,000 beats are fed while no allocation can
 * succeed.  Each whose sample could not be stored must say so (-1) and
 * leave the count alone, so refused + kept is 1,000 whatever the meter
 * allocated beforehand; with memory back, the meter records again, against
 * the schedule (a lost sample must not keep its slot due). */
static void expect_a_lost_sample_to_say_so(struct event_base *base)
{
	const int64_t start = 5 * CLOCK_NS_PER_S;
	struct lagm *m;
	size_t kept;
	int refused = 0;

	if (!libcfault_available())
		return;   /* a sanitizer build: the plain build checks it */
	clock_use_fake(start);
	m = started_meter(base, MS);
	libcfault_allocs_fail_after(0);
	for (int i = 1; i <= 1000; i++)
		refused += lagm_on_beat(m, start + i * MS) == -1;
	kept = lagm_count(m);
	libcfault_allocs_fail_after(-1);
	GRADE_EXPECT((size_t)refused + kept == 1000,
		     "with no memory to grow the samples, each beat whose "
		     "sample was lost returns -1 (1,000 beats: refused + kept "
		     "== 1,000)", "%d returned -1, %zu kept", refused, kept);
	feed_beat(m, start + 1001 * MS);
	GRADE_EXPECT_INT(lagm_count(m), kept + 1,
			 "samples once memory is back (one more beat)");
	/* Every beat was on its slot, the lost ones too: the schedule moved
	 * past each, so beat 1,001 is on time. */
	GRADE_EXPECT_INT(lagm_sample_ns(m, kept), 0,
			 "the sample of the beat on slot 1,001 after 1,000 "
			 "beats on their slots, some lost (out of memory): "
			 "a lost sample still moves the schedule on, in ns");
	lagm_free(m);
}

static void memory_back_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	libcfault_allocs_fail_after(-1);
}

/* The same on a running loop: a 1 ms meter starts with no memory to store
 * a sample (its first beat's is lost); a callback at 20 ms gives memory
 * back, a loopbreak at 60 ms ends the run.  Deterministic under any load:
 * beat 1 is due (1 ms) before memory is back, and a beat is due (by
 * 21 ms) before the loopbreak, and the loop runs due callbacks in deadline
 * order.  Catches a timer callback that stops re-arming when a sample is
 * lost: the meter is dead for good.  The grader's own allocations
 * (event_base_once) are made before memory runs out. */
static void expect_a_running_meter_to_survive_a_lost_sample(void)
{
	struct event_base *base;
	struct lagm *m;

	if (!libcfault_available())
		return;
	base = precise_base();
	m = lagm_new(base, MS);
	GRADE_EXPECT(m, "lagm_new() returns a meter", "it returned NULL");
	at_ms(base, 20, memory_back_cb, NULL);
	at_ms(base, 60, break_cb, base);
	GRADE_EXPECT(lagm_start(m) == 0, "lagm_start() returns 0",
		     "it returned -1");
	libcfault_allocs_fail_after(0);
	event_base_dispatch(base);
	libcfault_allocs_fail_after(-1);
	lagm_stop(m);
	GRADE_EXPECT(lagm_count(m) >= 1,
		     "a 1 ms meter on a loop, out of memory for its first "
		     "20 ms then not: samples after memory is back",
		     "%zu sample(s) -- the timer callback must re-arm even "
		     "when lagm_on_beat() returns -1", lagm_count(m));
	lagm_free(m);
	event_base_free(base);
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
	expect_a_lost_sample_to_say_so(base);
	event_base_free(base);
	expect_a_running_meter_to_survive_a_lost_sample();
}

/* ---- tests: the meter on a real loop ------------------------------------- */

/* Spins 50 ms, then lets the loop run 60 ms more (counted from now: the
 * loop's cached time is 50 ms old). */
static void stall_then_break_cb(evutil_socket_t fd, short what, void *arg)
{
	struct event_base *base = arg;

	(void)fd;
	(void)what;
	clock_spin_ns(50 * MS);
	event_base_update_cache_time(base);
	at_ms(base, 60, break_cb, base);
}

/* Catches: lateness that never shows a stall (the schedule moved past the
 * beat before its lateness was taken, or the wrong unit).  Time: a 50 ms
 * callback starts at ~20 ms; the first beat due after it began is due at
 * most 5 ms later and cannot fire before the callback ends, so it is at
 * least 45 ms late whatever the load.  Upper bound: the stall plus a
 * period, plus a 1 s (scaled) margin: it is there for unit mistakes (1000x
 * off), and a machine under `make check` has frozen this process for
 * 290 ms.  It holds for the stall's beat, not for every beat. */
static void a_50ms_stall_shows_as_a_beat_at_least_45ms_late(void **state)
{
	struct event_base *base = precise_base();
	struct lagm *m = started_meter(base, 5 * MS);
	int64_t upper = 55 * MS + grade_bound_ns(1000);
	bool stall_seen = false;
	char buf[2048];

	(void)state;
	at_ms(base, 20, stall_then_break_cb, base);
	event_base_dispatch(base);
	lagm_stop(m);
	for (size_t i = 0; i < lagm_count(m); i++)
		stall_seen |= lagm_sample_ns(m, i) >= 45 * MS &&
			      lagm_sample_ns(m, i) <= upper;
	GRADE_EXPECT(stall_seen,
		     "a 5 ms heartbeat beside a 50 ms stall: a beat late by "
		     "between 45 ms and the stall plus a period (+ margin)",
		     "samples (ms): %s", samples_ms(m, buf, sizeof(buf)));
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
 * no later beat can carry the stall instead.  The scene is played twice,
 * and both plays must show the stall: the mistake passed one play once,
 * under load, cause not caught; the cached time is the wall clock, and a
 * step of the VM's wall clock inside the 63 ms scene would do it.  Two
 * such steps in two plays in a row is not a thing a machine does.
 */
struct same_pass_play {
	size_t count;
	int64_t max_ns;
	char samples[512];
};

static void play_a_stall_in_the_beat_s_pass(struct same_pass_play *play)
{
	static const int64_t stall_ns = 50 * MS;
	struct event_base *base = precise_base();
	struct lagm *m;
	struct lagm_stats st;

	at_ms(base, 8, stall_cb, (void *)&stall_ns);
	m = started_meter(base, 10 * MS);
	at_ms(base, 11, break_cb, base);
	clock_spin_ns(13 * MS);
	event_base_dispatch(base);
	lagm_stop(m);
	lagm_get_stats(m, &st);
	play->count = st.count;
	play->max_ns = st.max_ns;
	samples_ms(m, play->samples, sizeof(play->samples));
	lagm_free(m);
	event_base_free(base);
}

static void a_stall_in_the_same_pass_as_the_beat_is_measured_in_full(void **state)
{
	struct same_pass_play play;

	(void)state;
	for (int i = 1; i <= 2; i++) {
		play_a_stall_in_the_beat_s_pass(&play);
		GRADE_EXPECT(play.count == 1 && play.max_ns >= 45 * MS,
			     "one beat, run after a 50 ms callback of the same "
			     "loop pass: at least 45 ms late (each of 2 plays)",
			     "play %d: %zu beat(s), worst %.2f ms; samples (ms): %s",
			     i, play.count, clock_ns_to_ms(play.max_ns),
			     play.samples);
	}
}

/* One idle run: a 5 ms heartbeat for 300 ms on lagm_base_new()'s base. */
struct idle_run {
	size_t beats;
	int64_t slots, p10_ns;
	char samples[4096];
};

static void idle_run(struct idle_run *r)
{
	struct event_base *base = lagm_base_new();
	struct lagm *m;
	int64_t t0, *copy;

	GRADE_EXPECT(base, "lagm_base_new() returns a base", "it returned NULL");
	t0 = clock_now_ns();
	m = started_meter(base, 5 * MS);
	run_for_ms(base, 300);
	r->slots = (clock_now_ns() - t0) / (5 * MS);
	lagm_stop(m);
	r->beats = lagm_count(m);
	copy = late_copy(m);
	r->p10_ns = lagm_percentile_ns(copy, r->beats, 10);
	free(copy);
	samples_ms(m, r->samples, sizeof(r->samples));
	lagm_free(m);
	event_base_free(base);
}

/*
 * Catches: libevent's default base (event_base_new), whose clock ticks
 * every 4 ms here and whose poll timeouts are rounded up to whole ms; and
 * a meter that beats more than once per slot (a coarse clock read when the
 * beat runs, a wait truncated to whole ms: the beat fires early, records 0
 * and fires again).
 * Time: a 5 ms heartbeat runs 300 ms on lagm_base_new()'s base.  Load only
 * delays beats, so the base's precision shows in the beats it left alone:
 * the 10th percentile.  Measured here, 2 cores: the reference's p10 was
 * 0.02-0.035 ms idle AND with three CPU hogs on the two cores (where its
 * median reached 2 ms and p90 9 ms, so no median or spread bound can
 * hold); the default base's p10 was 0.25-2.4 ms (31 runs).  The bound,
 * 0.1 ms, is 3x the reference's worst and 2.5x under the default base's
 * best.  Because load can only raise p10, a run under the bound proves the
 * base precise: a run over it is repeated (best of 3), for a machine that
 * was busier still.  The count: beats can be skipped under load, never
 * added, so more than one per slot fails at once.
 */
static void idle_beats_are_precise_and_one_per_slot(void **state)
{
	struct idle_run r;

	(void)state;
	for (int run = 0; run < 3; run++) {
		idle_run(&r);
		GRADE_EXPECT((int64_t)r.beats <= r.slots,
			     "an idle 5 ms heartbeat: at most one beat per slot",
			     "%zu beats in %lld slots -- beats fire before they "
			     "are due (a coarse clock read, or a wait rounded "
			     "down) and fire again", r.beats, (long long)r.slots);
		if (r.beats >= 20 && r.p10_ns < 100 * CLOCK_NS_PER_US)
			return;
	}
	GRADE_EXPECT(r.beats >= 20, "at least 20 beats in 300 ms (60 are due)",
		     "%zu beats", r.beats);
	GRADE_EXPECT(r.p10_ns < 100 * CLOCK_NS_PER_US,
		     "the least-delayed beats late by under 0.1 ms (10th "
		     "percentile), in one of 3 runs",
		     "p10 %.3f ms -- the base's clock is coarse (event_base_new?)"
		     "; samples (ms): %s", clock_ns_to_ms(r.p10_ns), r.samples);
}

/* ---- tests: the bookkeeping, with a fake clock --------------------------- */

static int last_event_cb(const struct event_base *base,
			 const struct event *ev, void *arg)
{
	(void)base;
	*(const struct event **)arg = ev;
	return 0;
}

/* The fake clock is on, so the meter's wait is exactly the period: its
 * deadline is the base's real time at the start + 2.7 s.  The window
 * around it (50 ms) is only for the base's own wall-clock offset. */
static void expect_a_long_period_armed_in_whole_seconds(void)
{
	const int64_t period = 2700 * MS;
	struct event_base *base = precise_base();
	const struct event *timer = NULL;
	struct timeval before, after, due;
	struct lagm *m;
	int64_t due_ns, lo_ns, hi_ns;

	evutil_gettimeofday(&before, NULL);
	m = started_meter(base, period);
	evutil_gettimeofday(&after, NULL);
	event_base_foreach_event(base, last_event_cb, &timer);
	GRADE_EXPECT(timer && event_pending(timer, EV_TIMEOUT, &due),
		     "after lagm_start() the meter's timer is pending",
		     "no pending timer on the base");
	due_ns = due.tv_sec * CLOCK_NS_PER_S + due.tv_usec * CLOCK_NS_PER_US;
	lo_ns = before.tv_sec * CLOCK_NS_PER_S +
		before.tv_usec * CLOCK_NS_PER_US + period - 50 * MS;
	hi_ns = after.tv_sec * CLOCK_NS_PER_S +
		after.tv_usec * CLOCK_NS_PER_US + period + 50 * MS;
	GRADE_EXPECT(due.tv_usec >= 0 && due.tv_usec < 1000000 &&
		     due_ns >= lo_ns && due_ns <= hi_ns,
		     "a 2.7 s period: the timer is due 2.7 s after the start, "
		     "as a valid timeval (tv_usec under 1,000,000)",
		     "due %.3f s after the start, tv_usec %ld -- put whole "
		     "seconds in tv_sec: libevent cannot wait for this timeval",
		     (double)(due_ns - (lo_ns - period + 50 * MS)) / 1e9,
		     (long)due.tv_usec);
	lagm_free(m);
	event_base_free(base);
}

/*
 * Catches: a schedule that moves with the beats (the next beat due one
 * period after this one fired) instead of staying at start + k * period,
 * and slots a stall swallowed not skipped.  A drifting heartbeat measures
 * each beat's own lateness fine, but its sampling rate falls with the load
 * it measures; the header asks for the fixed schedule, and the samples show
 * which schedule a meter keeps.
 * Fake clock, period 10 ms, started at S.  Beats at S + 11, 22, 33, 44 ms
 * (each 1 ms later than the last: the timer drifts), then a stall until
 * S + 97, then S + 100 and S + 112, then S + 140 (exactly two periods
 * after its slot, 120: the next slot later than now is 150, not 140) and
 * S + 151.  On the fixed schedule: 1 2 3 4 47 0 2 20 1 ms (a drifting
 * schedule reads 1 1 1 1 ...; skipping ceil(late / period) slots leaves
 * the slot due at 140 and reads 11 last).
 * Also catches: a wait of a second or more not normalised into tv_sec
 * (all of it in tv_usec): libevent keeps the timeval as given, the
 * timerfd refuses it (EINVAL) and the loop never wakes.  A meter with a
 * 2.7 s period is started and its timer read back with event_pending(),
 * without waiting for it.
 */
static void beats_stay_on_the_fixed_schedule(void **state)
{
	static const int64_t at_ms_list[] = { 11, 22, 33, 44, 97, 100, 112,
					      140, 151 };
	const int64_t start = 5 * CLOCK_NS_PER_S;
	struct event_base *base = precise_base();
	struct lagm *m;
	char buf[512];

	(void)state;
	clock_use_fake(start);
	m = started_meter(base, 10 * MS);
	for (size_t i = 0; i < sizeof(at_ms_list) / sizeof(at_ms_list[0]); i++)
		feed_beat(m, start + at_ms_list[i] * MS);
	GRADE_EXPECT_STR(samples_ms(m, buf, sizeof(buf)), "1 2 3 4 47 0 2 20 1");
	lagm_free(m);
	event_base_free(base);
	expect_a_long_period_armed_in_whole_seconds();
}

/* ---- tests: stopping and freeing ----------------------------------------- */

static void stop_meter_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	lagm_stop(arg);
}

/*
 * A stop from a callback of the same loop pass as a beat that is already
 * due (active): set-up as in the same-pass test, deterministic: a callback
 * due at 8 ms stops the meter, beat 1 is due at 10 ms, a loopbreak at
 * 11 ms; the test spins past all three before the loop first polls, so
 * they become active in one pass, in deadline order.  The beat must not
 * run: event_del() takes an active event off the active queue, while
 * event_remove_timer() (or a flag) lets it run, record and re-arm.
 */
static void expect_a_stop_to_cancel_a_beat_already_due(void)
{
	struct event_base *base = precise_base();
	struct lagm *m = lagm_new(base, 10 * MS);
	int left;

	GRADE_EXPECT(m, "lagm_new() returns a meter", "it returned NULL");
	at_ms(base, 8, stop_meter_cb, m);
	GRADE_EXPECT(lagm_start(m) == 0, "lagm_start() returns 0",
		     "it returned -1");
	at_ms(base, 11, break_cb, base);
	clock_spin_ns(13 * MS);
	event_base_dispatch(base);
	left = event_base_get_num_events(base, EVENT_BASE_COUNT_ADDED |
					 EVENT_BASE_COUNT_ACTIVE);
	GRADE_EXPECT(lagm_count(m) == 0 && left == 0,
		     "lagm_stop() from a callback of the same loop pass as a "
		     "beat already due (active): the beat never runs, no "
		     "sample, nothing left added or active",
		     "%zu sample(s), %d event(s) left -- the fired beat stayed "
		     "active (event_remove_timer() or a flag; event_del() "
		     "removes it)", lagm_count(m), left);
	lagm_free(m);
	event_base_free(base);
}

/* Catches: a stop that leaves the timer pending (or only sets a flag the
 * next beat reads): the loop keeps waiting for the meter, and one more
 * sample arrives after the stop; and a stop that removes the timeout but
 * leaves a beat that already fired in the active queue.  Counts, not
 * times. */
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
	expect_a_stop_to_cancel_a_beat_already_due();
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
	for (int i = 0; i < 1000; i++) {
		one_meter_lifetime(base);
		/* The path where the timer cannot be made keeps nothing either. */
		evalloc_fail_after(0);
		lagm_free(lagm_new(base, MS));
		evalloc_fail_after(-1);
	}
	after = mallinfo2().uordblks;
	GRADE_EXPECT(after <= before + 16 * 1024,
		     "1,000 meters created, used and freed, and 1,000 whose "
		     "timer could not be made: the heap back where it was "
		     "(within 16 KiB)",
		     "%zu bytes more in use (%.0f per meter)", after - before,
		     (double)(after - before) / 1000.0);
	event_base_free(base);
}

/* "p1=.. p7=.." of values at the given percentiles, into buf. */
static const char *pcts_text(const int64_t *v, size_t n, const int *pcts,
			     size_t n_pcts, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n_pcts && used + 1 < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%sp%d=%lld",
					 i ? " " : "", pcts[i],
					 (long long)lagm_percentile_ns(v, n, pcts[i]));
	return buf;
}

/* The sorted copy is freed: 2,000 percentiles of 100 values leave the
 * heap where it was.  A copy kept per call is 800 bytes, 1.6 MB in all;
 * the bound is 16 KiB (glibc's per-thread caches, after a warm-up). */
static void expect_no_heap_growth_from_percentiles(const int64_t *hundred)
{
	size_t before, after;

	for (int i = 0; i < 20; i++)
		lagm_percentile_ns(hundred, 100, 50);
	before = mallinfo2().uordblks;
	for (int i = 0; i < 2000; i++)
		lagm_percentile_ns(hundred, 100, 50);
	after = mallinfo2().uordblks;
	GRADE_EXPECT(after <= before + 16 * 1024,
		     "2,000 percentiles of 100 values: the heap back where it "
		     "was (free the sorted copy)",
		     "%zu bytes more in use", after - before);
}

/*
 * Catches: a rank computed in floating point (ceil(7 / 100.0 * 100) is 8:
 * 0.07 * 100 is 7.000000000000001), a comparator that subtracts and casts
 * to int (samples above 2^31 ns, 2.1 s, sort in the wrong order), values
 * stored in an int, and ranks that break on one value or on ties.
 */
static void percentiles_of_edge_inputs(void **state)
{
	static const int pcts[] = { 1, 7, 50, 99, 100 };
	const int64_t one[] = { 7 };
	const int64_t big[] = { 3000000000, 5000000000, 1,
				INT64_C(8589934592), 4000000000 };
	const int64_t same[] = { 42, 42, 42, 42, 42, 42, 42, 42, 42, 42 };
	int64_t hundred[100];
	char got[256];

	(void)state;
	for (int k = 0; k < 100; k++)
		hundred[k] = (k * 37) % 100 + 1;   /* 1..100, shuffled */
	GRADE_EXPECT_STR(pcts_text(one, 1, pcts, 5, got, sizeof(got)),
			 "p1=7 p7=7 p50=7 p99=7 p100=7");
	GRADE_EXPECT_STR(pcts_text(hundred, 100, pcts, 5, got, sizeof(got)),
			 "p1=1 p7=7 p50=50 p99=99 p100=100");
	GRADE_EXPECT_STR(pcts_text(big, 5, pcts, 5, got, sizeof(got)),
			 "p1=1 p7=1 p50=4000000000 p99=8589934592 "
			 "p100=8589934592");
	GRADE_EXPECT_STR(pcts_text(same, 10, pcts, 5, got, sizeof(got)),
			 "p1=42 p7=42 p50=42 p99=42 p100=42");
	expect_no_heap_growth_from_percentiles(hundred);
}

/* Catches: lagm_get_stats() that sorts the meter's own samples in place
 * (to read p50 and p99 from them) instead of a copy. */
static void get_stats_leaves_the_samples_in_order(void **state)
{
	const int64_t start = CLOCK_NS_PER_S;
	struct event_base *base = precise_base();
	struct lagm *m;
	struct lagm_stats st;
	char buf[256];

	(void)state;
	clock_use_fake(start);
	m = started_meter(base, CLOCK_NS_PER_S);
	feed_beat(m, start + CLOCK_NS_PER_S + 30 * MS);
	feed_beat(m, start + 2 * CLOCK_NS_PER_S + 10 * MS);
	feed_beat(m, start + 3 * CLOCK_NS_PER_S + 20 * MS);
	lagm_get_stats(m, &st);
	GRADE_EXPECT(st.p50_ns == 20 * MS && st.max_ns == 30 * MS,
		     "beats 30, 10, 20 ms late: p50 20 ms, max 30 ms",
		     "p50 %g ms, max %g ms", clock_ns_to_ms(st.p50_ns),
		     clock_ns_to_ms(st.max_ns));
	GRADE_EXPECT_STR(samples_ms(m, buf, sizeof(buf)), "30 10 20");
	lagm_free(m);
	event_base_free(base);
}

/* Catches: an early beat that records a negative lateness, or that moves
 * the schedule on by a period (the next beat is then measured against the
 * wrong slot), and a lateness held in an int (a beat over 2^31 ns late).
 * Fake clock, period 10 ms: beats at S + 5 (before slot 1), S + 12 and
 * S + 25.  Expected 0, 2 and 5 ms. */
static void an_early_beat_records_zero(void **state)
{
	const int64_t start = 7 * CLOCK_NS_PER_S;
	struct event_base *base = precise_base();
	struct lagm *m;
	char buf[256];

	(void)state;
	clock_use_fake(start);
	m = started_meter(base, 10 * MS);
	feed_beat(m, start + 5 * MS);
	feed_beat(m, start + 12 * MS);
	feed_beat(m, start + 25 * MS);
	GRADE_EXPECT_STR(samples_ms(m, buf, sizeof(buf)), "0 2 5");
	/* Slot 3 is due at start + 30 ms: a beat 1 ns after it is 1 ns late. */
	feed_beat(m, start + 30 * MS + 1);
	GRADE_EXPECT_INT(lagm_sample_ns(m, 3), 1,
			 "the sample of a beat 1 ns after its slot, in ns");
	/* Slot 4 is due at start + 40 ms: a beat 3 s + 7 ns after it (more
	 * than 2^31 ns: an int would wrap) is that late, to the ns. */
	feed_beat(m, start + 40 * MS + 3 * CLOCK_NS_PER_S + 7);
	GRADE_EXPECT_INT(lagm_sample_ns(m, 4), 3 * CLOCK_NS_PER_S + 7,
			 "the sample of a beat 3 s + 7 ns after its slot, in ns "
			 "(int64_t all the way)");
	lagm_free(m);
	event_base_free(base);
}

/*
 * A start late in a loop pass: a callback holds the loop 30 ms, then
 * starts a 20 ms meter and asks for a loopbreak 10 ms later (after
 * refreshing the loop's time).  Beat 1 is due 20 ms after the start, so
 * no beat may come before the loopbreak; a start that arms from the loop's
 * cached time (30 ms old) sets a deadline already past, and the beat fires
 * at once, early.  Deterministic under any load: if the process is frozen
 * past both deadlines, they become active in the same pass in deadline
 * order, the loopbreak first, and the loop ends before the beat runs.
 */
struct late_start {
	struct event_base *base;
	struct lagm *m;
	int rc;
};

static void start_after_a_stall_cb(evutil_socket_t fd, short what, void *arg)
{
	struct late_start *ls = arg;

	(void)fd;
	(void)what;
	clock_spin_ns(30 * MS);
	ls->rc = lagm_start(ls->m);
	event_base_update_cache_time(ls->base);
	at_ms(ls->base, 10, break_cb, ls->base);
}

static void expect_a_late_start_to_wait_its_period(void)
{
	struct late_start ls = { precise_base(), NULL, -1 };

	ls.m = lagm_new(ls.base, 20 * MS);
	GRADE_EXPECT(ls.m, "lagm_new() returns a meter", "it returned NULL");
	at_ms(ls.base, 1, start_after_a_stall_cb, &ls);
	event_base_dispatch(ls.base);
	GRADE_EXPECT(ls.rc == 0, "lagm_start() returns 0", "it returned -1");
	GRADE_EXPECT(lagm_count(ls.m) == 0,
		     "lagm_start() run after a 30 ms callback of the same pass "
		     "(period 20 ms): no beat in the 10 ms after the start",
		     "%zu beat(s) -- beat 1 fired before its slot: the timer "
		     "counted from the loop's stale cached time "
		     "(event_base_update_cache_time() before event_add())",
		     lagm_count(ls.m));
	lagm_free(ls.m);
	event_base_free(ls.base);
}

/* Catches: lagm_start() that clears the samples, and one that keeps the
 * old schedule instead of anchoring a new one at its own time, or that
 * arms beat 1 from the loop's stale cached time.  Fake
 * clock, period 10 ms: start at S, a beat at S + 12; stop; start again at
 * S + 100, a beat at S + 113.  Expected 2 and 3 ms. */
static void stop_and_start_keep_the_samples(void **state)
{
	const int64_t start = 3 * CLOCK_NS_PER_S;
	struct event_base *base = precise_base();
	struct lagm *m;
	char buf[256];

	(void)state;
	expect_a_late_start_to_wait_its_period();   /* on the real clock */
	clock_use_fake(start);
	m = started_meter(base, 10 * MS);
	feed_beat(m, start + 12 * MS);
	lagm_stop(m);
	clock_advance_ns(100 * MS);
	GRADE_EXPECT(lagm_start(m) == 0, "lagm_start() after lagm_stop() "
		     "returns 0", "it returned -1");
	feed_beat(m, start + 113 * MS);
	GRADE_EXPECT_STR(samples_ms(m, buf, sizeof(buf)), "2 3");
	lagm_stop(m);
	lagm_free(m);
	event_base_free(base);
}

/* One run of the recovery experiment; the grader's own timestamps say
 * whether the machine let it run as designed. */
#define RECOVERY_TICKS 1024

struct recovery {
	struct event_base *base;
	int64_t start_ns;   /* just before lagm_start: the slots' origin */
	int64_t stall_until_ns, stall_began_ns, stall_ended_ns, after_beat_ns;
	int64_t ticks_ns[RECOVERY_TICKS];   /* the neighbour's, after the stall */
	size_t n_ticks;
};

static void neighbour_cb(evutil_socket_t fd, short what, void *arg)
{
	struct recovery *r = arg;

	(void)fd;
	(void)what;
	if (r->stall_ended_ns && r->n_ticks < RECOVERY_TICKS)
		r->ticks_ns[r->n_ticks++] = clock_now_ns();
}

/* Holds the loop until a fixed time.  Asleep, not spinning: the loop is
 * held all the same, and a process that slept is not the one the kernel
 * preempts next. */
static void phase_stall_cb(evutil_socket_t fd, short what, void *arg)
{
	struct recovery *r = arg;

	(void)fd;
	(void)what;
	r->stall_began_ns = clock_now_ns();
	clock_sleep_ns(r->stall_until_ns - r->stall_began_ns);
	r->stall_ended_ns = clock_now_ns();
}

/* Runs in the same pass, right after beat 1. */
static void after_beat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct recovery *r = arg;

	(void)fd;
	(void)what;
	r->after_beat_ns = clock_now_ns();
}

/* Did the loop turn (the neighbour run) within [from, from + 3 ms]? */
static bool loop_turned_at(const struct recovery *r, int64_t from)
{
	for (size_t i = 0; i < r->n_ticks; i++)
		if (r->ticks_ns[i] >= from && r->ticks_ns[i] <= from + 3 * MS)
			return true;
	return false;
}

/* The run went as designed: the stall held the loop from before 60 ms to
 * 110 ms (+4), beat 1 ran right after it, and the loop turned right after
 * the stall and again at the first slot after it (120 ms). */
static bool recovery_went_as_designed(const struct recovery *r)
{
	return r->stall_ended_ns - r->stall_began_ns > 50 * MS &&
	       r->stall_ended_ns - r->stall_until_ns < 4 * MS &&
	       r->after_beat_ns - r->stall_ended_ns < 1 * MS &&
	       loop_turned_at(r, r->stall_ended_ns) &&
	       loop_turned_at(r, r->start_ns + 120 * MS);
}

/* Runs the experiment on a new meter; @return whether it went as
 * designed. */
static bool recovery_run(struct recovery *r, struct lagm **m)
{
	static const struct timeval one_ms = { 0, 1000 };
	struct event *neighbour;

	memset(r, 0, sizeof(*r));
	r->base = precise_base();
	r->stall_until_ns = clock_now_ns() + 110 * MS;
	at_ms(r->base, 8, phase_stall_cb, r);
	at_ms(r->base, 310, break_cb, r->base);   /* 200 ms after the stall */
	r->start_ns = clock_now_ns();
	*m = started_meter(r->base, 20 * MS);
	at_ms(r->base, 21, after_beat_cb, r);
	neighbour = event_new(r->base, -1, EV_PERSIST, neighbour_cb, r);
	GRADE_EXPECT(neighbour && event_add(neighbour, &one_ms) == 0,
		     "a neighbour timer (grader setup)", "event_new failed");
	clock_sleep_ns(23 * MS);
	event_base_dispatch(r->base);
	lagm_stop(*m);
	event_free(neighbour);
	return recovery_went_as_designed(r);
}

/*
 * Catches: a meter that does not come back on schedule after a stall: a
 * persistent timer (EV_PERSIST re-arms one period after the stall ends),
 * a re-arm of a whole period instead of the time to the next slot, and a
 * re-arm from the loop's stale cached time (event_add counts from it: the
 * beat fires before its slot, and records 0).
 * Set-up as in the same-pass test, period 20 ms: the beat due at 20 ms runs
 * in the same pass as a callback that holds the loop until 110 ms after
 * the start, half-way between two slots.  The next slot is 120 ms; a meter
 * that re-arms from the end of the stall beats at 130, 150, ...: 10 ms off
 * every slot, and a stale re-arm fires 10 ms before the slot.  A 1 ms
 * neighbour timer keeps the loop polling, as other work would: alone, the
 * loop would sleep for its own (equally stale) timeout and hide a stale
 * re-arm.
 * Checks: no beat after the stall records 0 (a beat on a real loop is
 * never exactly on time, only early: safe under any load), and the first
 * beat after it is under 5 ms late (half the offset).  That second check
 * needs the run to go as designed (the neighbour's timestamps show the
 * loop turning right after the stall and at 120 ms; a hiccup there could
 * line a wrong meter up by luck, or delay a right one), so runs that did
 * not are repeated, up to 5.  Under a load of 13 on the 2 cores about a
 * third of runs go as designed; if none of 5 does, only the first check
 * is made.
 */
static void the_meter_recovers_after_a_stall(void **state)
{
	struct recovery *r = malloc(sizeof(*r));
	bool as_designed = false;
	struct lagm *m = NULL;
	size_t n, zeros = 0;
	char buf[2048];

	(void)state;
	GRADE_EXPECT(r, "memory (grader setup)", "malloc failed");
	for (int run = 0; run < 5 && !as_designed; run++) {
		if (m) {
			lagm_free(m);
			event_base_free(r->base);
		}
		as_designed = recovery_run(r, &m);
	}
	n = lagm_count(m);
	for (size_t i = 1; i < n; i++)
		zeros += lagm_sample_ns(m, i) == 0;
	GRADE_EXPECT(n >= 2 && lagm_sample_ns(m, 0) >= 45 * MS,
		     "the stall as the first sample (>= 45 ms), then beats "
		     "after it (10 are due)",
		     "%zu sample(s) (ms): %s", n, samples_ms(m, buf, sizeof(buf)));
	GRADE_EXPECT(zeros == 0,
		     "no beat after the stall fires before its slot (records 0)",
		     "%zu beat(s) of 0 ms -- fired early: re-armed from the "
		     "loop's stale cached time (event_base_update_cache_time() "
		     "before event_add()), or an EV_PERSIST timer; samples (ms): "
		     "%s", zeros, samples_ms(m, buf, sizeof(buf)));
	GRADE_EXPECT(!as_designed || lagm_sample_ns(m, 1) < 5 * MS,
		     "the first beat after the stall on its slot: under 5 ms "
		     "late (the loop was free then)",
		     "%.2f ms -- off the schedule: arm for the time left to the "
		     "next slot (not a whole period, not EV_PERSIST); samples "
		     "(ms): %s", clock_ns_to_ms(lagm_sample_ns(m, 1)),
		     samples_ms(m, buf, sizeof(buf)));
	lagm_free(m);
	event_base_free(r->base);
	free(r);
}

/* lagm_new() refuses what the header rules out, and says so with NULL:
 * no base, a period of 0 or less, a timer it cannot make (evalloc's
 * injected out-of-memory).  A period of 1 ns is a period. */
static void expect_bad_meters_refused(struct event_base *base)
{
	struct lagm *tiny = lagm_new(base, 1), *no_timer;

	GRADE_EXPECT(!lagm_new(NULL, 5 * MS) && !lagm_new(base, 0) &&
		     !lagm_new(base, -5 * MS),
		     "lagm_new() returns NULL for a NULL base and for a period "
		     "of 0 or less", "it returned a meter");
	GRADE_EXPECT(tiny, "lagm_new(base, 1 ns) returns a meter",
		     "it returned NULL");
	lagm_free(tiny);
	evalloc_fail_after(0);
	no_timer = lagm_new(base, 5 * MS);
	evalloc_fail_after(-1);
	GRADE_EXPECT(!no_timer, "lagm_new() returns NULL when its timer "
		     "cannot be made (out of memory)", "it returned a meter");
}

/* lagm_base_new() out of memory at each of its libevent allocations in
 * turn (evalloc), until it succeeds: a NULL return leaves nothing either
 * (the event_config freed on that path too). */
static void expect_no_leak_when_the_base_cannot_be_made(void)
{
	long before = evalloc_live();
	struct event_base *base = NULL;
	int n;

	for (n = 0; n < 100 && !base; n++) {
		evalloc_fail_after(n);
		base = lagm_base_new();
		evalloc_fail_after(-1);
	}
	GRADE_EXPECT(base, "lagm_base_new() returns a base once it has "
		     "memory enough", "it returned NULL every time");
	event_base_free(base);
	GRADE_EXPECT_INT(evalloc_live() - before, 0,
			 "libevent blocks left after lagm_base_new() failed "
			 "(out of memory) at each allocation in turn "
			 "(event_config_free() the config on failure too)");
}

/*
 * Catches: lagm_free(NULL) that reads the meter (a crash), and a timer
 * event that is deleted but never freed (event_del in lagm_free), on any
 * path.  Counts libevent's live blocks before the base
 * is made and after it is freed: meters freed never started, armed,
 * stopped, and after beating on a real loop.
 */
static void no_libevent_object_outlives_its_meter(void **state)
{
	long before = evalloc_live(), leaked;
	struct event_base *base = precise_base();
	struct lagm *m;

	(void)state;
	lagm_free(NULL);
	GRADE_EXPECT(evalloc_live() > before,
		     "libevent's allocations counted (grader setup)",
		     "the counter did not move when a base was made");
	m = lagm_new(base, 5 * MS);
	GRADE_EXPECT(m, "lagm_new() returns a meter", "it returned NULL");
	lagm_free(m);
	expect_bad_meters_refused(base);
	lagm_free(started_meter(base, 5 * MS));
	m = started_meter(base, 5 * MS);
	lagm_stop(m);
	lagm_free(m);
	m = started_meter(base, 2 * MS);
	run_for_ms(base, 20);
	lagm_free(m);
	event_base_free(base);
	leaked = evalloc_live() - before;
	GRADE_EXPECT(leaked == 0,
		     "4 meters freed (never started, armed, stopped, after "
		     "beats): no libevent block left after event_base_free()",
		     "%ld block(s) never freed: event_free() the timer, "
		     "event_del() only deletes it", leaked);
	before = evalloc_live();
	base = lagm_base_new();
	GRADE_EXPECT(base, "lagm_base_new() returns a base", "it returned NULL");
	event_base_free(base);
	GRADE_EXPECT_INT(evalloc_live() - before, 0,
			 "libevent blocks left by lagm_base_new() once its base "
			 "is freed (event_config_free() the config)");
	expect_no_leak_when_the_base_cannot_be_made();
}

static const struct grade_test tests[] = {
	GRADE_TEST(percentiles_use_the_nearest_rank, 10, 5000,
		   "sort a copy; take the value at 1-based rank "
		   "ceil(pct * n / 100); never interpolate"),
	GRADE_TEST(percentiles_of_edge_inputs, 10, 5000,
		   "rank in integers: (pct * n + 99) / 100; compare int64_t "
		   "values with < and >, never by subtracting into an int"),
	GRADE_TEST(stats_of_no_beats_of_one_beat_and_of_a_hundred, 6, 5000,
		   "no samples: count 0 and every statistic 0, without reading "
		   "the (empty) array"),
	GRADE_TEST(get_stats_leaves_the_samples_in_order, 5, 5000,
		   "lagm_get_stats() must not sort m's own samples: use "
		   "lagm_percentile_ns(), which sorts a copy"),
	GRADE_TEST(a_50ms_stall_shows_as_a_beat_at_least_45ms_late, 9, 5000,
		   "take the lateness (now - due) BEFORE moving the schedule on"),
	GRADE_TEST(a_stall_in_the_same_pass_as_the_beat_is_measured_in_full, 9,
		   5000,
		   "read the time with clock_now_ns(), not the loop's cached "
		   "time"),
	GRADE_TEST(the_meter_recovers_after_a_stall, 9, 5000,
		   "re-arm for next_due - now after event_base_update_cache_time"
		   "(); no EV_PERSIST"),
	GRADE_TEST(idle_beats_are_precise_and_one_per_slot, 9, 5000,
		   "ask for EVENT_BASE_FLAG_PRECISE_TIMER (event_config); round "
		   "the wait UP, and read clock_now_ns()"),
	GRADE_TEST(beats_stay_on_the_fixed_schedule, 9, 5000,
		   "beat k is due at start + k * period, however late beat k-1 "
		   "was; after a stall, skip to the first slot later than now"),
	GRADE_TEST(an_early_beat_records_zero, 5, 5000,
		   "record max(0, now - due); move the schedule only past slots "
		   "that are due"),
	GRADE_TEST(stop_disarms_the_timer_so_the_loop_can_end, 5, 5000,
		   "lagm_stop() must event_del() the timer, not wait for it"),
	GRADE_TEST(stop_and_start_keep_the_samples, 5, 5000,
		   "lagm_start() anchors a new schedule at clock_now_ns() and "
		   "keeps the samples"),
	GRADE_TEST(no_libevent_object_outlives_its_meter, 6, 5000,
		   "lagm_free(): return at once on NULL; event_free() the timer "
		   "(event_del() only deletes it)"),
	GRADE_TEST(freeing_a_meter_returns_all_its_memory, 3, 10000,
		   "lagm_free(): event_free() the timer, free the samples, "
		   "free the meter"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "ex02_lag_meter", "a heartbeat lag meter",
			  tests, sizeof(tests) / sizeof(tests[0]));
}
