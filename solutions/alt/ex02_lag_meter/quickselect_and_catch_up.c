/*
 * ex02 correct alternative — quickselect on a copy, a schedule that
 * catches up one period at a time.
 *
 * Percentiles: copy the values once, then partition around pivots
 * (Hoare's selection) until the element of the wanted rank is in place:
 * O(n) on average instead of a full sort.  The schedule: next_due moves
 * forward one period at a time until it is past now, which skips the slots
 * a stall swallowed just as well as a division does.  The timer is armed
 * in one place, arm_next(), with the loop's cached time refreshed first.
 */
#include "lag_meter.h"

#include "clock.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

struct lagm {
	struct event_base *base;
	struct event *timer;
	int64_t period_ns;
	int64_t next_due_ns;
	int64_t *late_ns;
	size_t len, cap;
};

static void on_timer(evutil_socket_t fd, short what, void *arg);

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
	m->timer = evtimer_new(base, on_timer, m);
	if (!m->timer) {
		free(m);
		return NULL;
	}
	return m;
}

static int push_sample(struct lagm *m, int64_t late_ns)
{
	if (m->len == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 128;
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
	struct event_base *base;

	if (!cfg)
		return NULL;
	/* CLOCK_MONOTONIC and a timerfd instead of the 4 ms coarse clock. */
	event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	return base;
}

static int arm_next(struct lagm *m)
{
	int64_t wait_ns, wait_us;
	struct timeval tv;

	event_base_update_cache_time(m->base);
	wait_ns = m->next_due_ns - clock_now_ns();
	if (wait_ns < 0)
		wait_ns = 0;
	wait_us = wait_ns / CLOCK_NS_PER_US + (wait_ns % CLOCK_NS_PER_US != 0);
	tv.tv_sec = (time_t)(wait_us / 1000000);
	tv.tv_usec = (suseconds_t)(wait_us % 1000000);
	return evtimer_add(m->timer, &tv);
}

int lagm_start(struct lagm *m)
{
	m->next_due_ns = clock_now_ns() + m->period_ns;
	return arm_next(m);
}

void lagm_stop(struct lagm *m)
{
	evtimer_del(m->timer);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct lagm *m = arg;

	(void)fd;
	(void)what;
	lagm_on_beat(m, clock_now_ns());
	arm_next(m);
}

int lagm_on_beat(struct lagm *m, int64_t now_ns)
{
	int64_t late = now_ns >= m->next_due_ns ? now_ns - m->next_due_ns : 0;

	while (m->next_due_ns <= now_ns)
		m->next_due_ns += m->period_ns;
	return push_sample(m, late);
}

static void swap_i64(int64_t *a, int64_t *b)
{
	int64_t t = *a;

	*a = *b;
	*b = t;
}

/* Rearranges v[lo..hi] so that v[k] holds the value of rank k. */
static void select_rank(int64_t *v, size_t lo, size_t hi, size_t k)
{
	while (lo < hi) {
		int64_t pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				swap_i64(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

int64_t lagm_percentile_ns(const int64_t *values, size_t n, int pct)
{
	size_t rank = ((size_t)pct * n + 99) / 100;
	int64_t *copy, result;

	if (n == 0)
		return 0;
	copy = malloc(n * sizeof(*copy));
	if (!copy)
		return 0;
	memcpy(copy, values, n * sizeof(*copy));
	if (rank == 0)
		rank = 1;
	select_rank(copy, 0, n - 1, rank - 1);
	result = copy[rank - 1];
	free(copy);
	return result;
}

void lagm_get_stats(const struct lagm *m, struct lagm_stats *out)
{
	out->count = m->len;
	out->p50_ns = lagm_percentile_ns(m->late_ns, m->len, 50);
	out->p99_ns = lagm_percentile_ns(m->late_ns, m->len, 99);
	out->max_ns = lagm_percentile_ns(m->late_ns, m->len, 100);
}

void lagm_free(struct lagm *m)
{
	if (!m)
		return;
	event_free(m->timer);
	free(m->late_ns);
	free(m);
}
