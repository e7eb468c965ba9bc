/*
 * ex02 correct alternative — the schedule as a slot number, percentiles
 * straight from their definition.
 *
 * The meter remembers the start time and the number of the slot it waits
 * for; a due time is always computed as start + slot * period, never moved
 * by adding.  A percentile is the smallest value with at least pct% of the
 * values at or below it, found by counting for each candidate: O(n^2), no
 * sorting and no copy, fine for the few thousand beats of a run.
 */
#include "lag_meter.h"

#include "clock.h"

#include <event2/event.h>
#include <stdbool.h>
#include <stdlib.h>

struct lagm {
	struct event_base *base;
	struct event *timer;
	int64_t period_ns;
	int64_t start_ns;          /* clock_now_ns() at lagm_start */
	int64_t slot;              /* the beat we wait for: due at start + slot * period */
	int64_t *late_ns;
	size_t len, cap;
};

static void beat_cb(evutil_socket_t fd, short what, void *arg);

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

static int record_sample(struct lagm *m, int64_t late_ns)
{
	if (m->len == m->cap) {
		size_t cap = m->cap + 64;
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

struct event_base *lagm_base_new(void)
{
	struct event_config *cfg = event_config_new();
	struct event_base *base = NULL;

	if (cfg && event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER) == 0)
		base = event_base_new_with_config(cfg);
	if (cfg)
		event_config_free(cfg);
	return base;
}

static int64_t due_ns(const struct lagm *m)
{
	return m->start_ns + m->slot * m->period_ns;
}

/* Arms the timer for the current slot; the wait is rounded up to a whole
 * microsecond so the beat never comes early. */
static int arm_for_slot(struct lagm *m)
{
	int64_t left = due_ns(m) - clock_now_ns();
	struct timeval tv = { 0, 0 };

	if (left > 0) {
		int64_t us = (left + CLOCK_NS_PER_US - 1) / CLOCK_NS_PER_US;

		tv.tv_sec = (time_t)(us / 1000000);
		tv.tv_usec = (suseconds_t)(us % 1000000);
	}
	event_base_update_cache_time(m->base);
	return event_add(m->timer, &tv);
}

int lagm_start(struct lagm *m)
{
	m->start_ns = clock_now_ns();
	m->slot = 1;
	return arm_for_slot(m);
}

void lagm_stop(struct lagm *m)
{
	event_del(m->timer);
}

static void beat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct lagm *m = arg;

	(void)fd;
	(void)what;
	lagm_on_beat(m, clock_now_ns());
	arm_for_slot(m);
}

int lagm_on_beat(struct lagm *m, int64_t now_ns)
{
	int64_t late = now_ns - due_ns(m);

	if (late < 0)
		return record_sample(m, 0);   /* early: same slot again */
	/* The first slot strictly after now: every slot up to now is spent. */
	m->slot = (now_ns - m->start_ns) / m->period_ns + 1;
	return record_sample(m, late);
}

int64_t lagm_percentile_ns(const int64_t *values, size_t n, int pct)
{
	int64_t best = 0;
	bool found = false;

	for (size_t i = 0; i < n; i++) {
		size_t at_or_below = 0;

		if (found && values[i] >= best)
			continue;
		for (size_t j = 0; j < n; j++)
			at_or_below += values[j] <= values[i];
		/* at least pct% of n at or below, in integers */
		if (at_or_below * 100 >= (size_t)pct * n) {
			best = values[i];
			found = true;
		}
	}
	return best;
}

void lagm_get_stats(const struct lagm *m, struct lagm_stats *out)
{
	*out = (struct lagm_stats){
		.count = m->len,
		.p50_ns = lagm_percentile_ns(m->late_ns, m->len, 50),
		.p99_ns = lagm_percentile_ns(m->late_ns, m->len, 99),
		.max_ns = lagm_percentile_ns(m->late_ns, m->len, 100),
	};
}

void lagm_free(struct lagm *m)
{
	if (m == NULL)
		return;
	free(m->late_ns);
	event_free(m->timer);
	free(m);
}
