/*
 * ex02 wrong solution — reads the time from the loop's cache
 * (event_base_gettimeofday_cached) to save a system call.  The cache holds
 * the time the loop woke up; a callback that ran before the beat in the
 * same pass is not counted.
 * Caught by: a_stall_in_the_same_pass_as_the_beat_is_measured_in_full
 */
#include "lag_meter.h"

#include "clock.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

struct lagm {
	struct event_base *base;   /* not owned */
	struct event *timer;       /* owned: the heartbeat */
	int64_t period_ns;
	int64_t next_due_ns;       /* clock_now_ns() time the next beat is due */
	int64_t *late_ns;          /* samples, malloc'd, len of cap used */
	size_t len, cap;
};

static void beat_cb(evutil_socket_t fd, short what, void *arg);

/* ---- provided ------------------------------------------------------------ */

struct lagm *lagm_new(struct event_base *base, int64_t period_ns)
{
	struct lagm *m;

	if (!base || period_ns <= 0)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->base = base;
	m->period_ns = period_ns;
	m->timer = evtimer_new(base, beat_cb, m);
	if (!m->timer) {
		free(m);
		return NULL;
	}
	return m;
}

/* Appends one sample, doubling the array when it is full. */
static int record_sample(struct lagm *m, int64_t late_ns)
{
	if (m->len == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		int64_t *grown = realloc(m->late_ns, cap * sizeof(*grown));

		if (!grown)
			return -1;
		m->late_ns = grown;
		m->cap = cap;
	}
	m->late_ns[m->len++] = late_ns;
	return 0;
}

size_t lagm_count(const struct lagm *m)
{
	return m->len;
}

int64_t lagm_sample_ns(const struct lagm *m, size_t i)
{
	return i < m->len ? m->late_ns[i] : 0;
}

/* ---- the base ------------------------------------------------------------ */

/*
 * The default base reads CLOCK_MONOTONIC_COARSE (4 ms ticks here) and rounds
 * poll timeouts up to whole ms: an idle 5 ms heartbeat would read 2-3 ms
 * late, lag that is not there.  The precise timer uses CLOCK_MONOTONIC and
 * a timerfd.
 */
struct event_base *lagm_base_new(void)
{
	struct event_config *cfg = event_config_new();
	struct event_base *base;

	if (!cfg)
		return NULL;
	event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	return base;
}

/* ---- the timer ----------------------------------------------------------- */

/* The loop's idea of now, in ns. */
static int64_t loop_now_ns(struct event_base *base)
{
	struct timeval tv;

	event_base_gettimeofday_cached(base, &tv);
	return (int64_t)tv.tv_sec * CLOCK_NS_PER_S + tv.tv_usec * CLOCK_NS_PER_US;
}

/* Arms the timer for m->next_due_ns, seen from now_ns. */
static int arm(struct lagm *m, int64_t now_ns)
{
	int64_t wait_ns = m->next_due_ns - now_ns;
	int64_t wait_us = wait_ns > 0 ? (wait_ns + 999) / CLOCK_NS_PER_US : 0;
	struct timeval tv = {
		.tv_sec = wait_us / 1000000,
		.tv_usec = wait_us % 1000000,
	};

	/* event_add counts from the loop's cached time, which is stale when
	 * an earlier callback of this pass ran long: refresh it first.  The
	 * wait is rounded up so the beat never fires before it is due. */
	event_base_update_cache_time(m->base);
	return event_add(m->timer, &tv);
}

int lagm_start(struct lagm *m)
{
	int64_t now = loop_now_ns(m->base);

	m->next_due_ns = now + m->period_ns;
	return arm(m, now);
}

static void beat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct lagm *m = arg;
	int64_t now = loop_now_ns(m->base);

	(void)fd;
	(void)what;
	lagm_on_beat(m, now);
	arm(m, now);
}

void lagm_stop(struct lagm *m)
{
	event_del(m->timer);
}

/* ---- one beat ------------------------------------------------------------ */

int lagm_on_beat(struct lagm *m, int64_t now_ns)
{
	int64_t late = now_ns - m->next_due_ns;
	int rc = record_sample(m, late > 0 ? late : 0);

	/* Against the schedule, not the previous beat: a timer that wakes a
	 * little late every time drifts, and only the schedule shows it. */
	if (late >= 0)
		m->next_due_ns += (late / m->period_ns + 1) * m->period_ns;
	return rc;
}

/* ---- statistics ---------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t lagm_percentile_ns(const int64_t *values, size_t n, int pct)
{
	int64_t *sorted, result;
	size_t rank;

	if (n == 0)
		return 0;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return 0;
	memcpy(sorted, values, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_i64);
	/* Nearest rank, 1-based: ceil(pct / 100 * n), never interpolated. */
	rank = ((size_t)pct * n + 99) / 100;
	if (rank < 1)
		rank = 1;
	result = sorted[rank - 1];
	free(sorted);
	return result;
}

void lagm_get_stats(const struct lagm *m, struct lagm_stats *out)
{
	out->count = m->len;
	out->p50_ns = lagm_percentile_ns(m->late_ns, m->len, 50);
	out->p99_ns = lagm_percentile_ns(m->late_ns, m->len, 99);
	out->max_ns = lagm_percentile_ns(m->late_ns, m->len, 100);
}

/* ---- cleanup ------------------------------------------------------------- */

void lagm_free(struct lagm *m)
{
	if (!m)
		return;
	event_free(m->timer);   /* deletes it from the base first */
	free(m->late_ns);
	free(m);
}
