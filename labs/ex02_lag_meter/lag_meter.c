/*
 * ex02 — THE FILE YOU EDIT.  Read README.md in this folder first.
 *
 * Five parts, each marked TODO.  `make grade LAB=ex02` tells you which
 * behaviours work; lag_meter.h says what each function must do.
 */
#include "lag_meter.h"

#include "clock.h"
#include "stub.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

/* The meter.  Yours: add fields if you need them. */
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

/* ---- TODO 1: the base ---------------------------------------------------- */

/*
 * Create the base the meter runs on.  event_base_new() gives libevent's
 * default, whose clock is coarse on this machine: see README.md, "Why".
 */
struct event_base *lagm_base_new(void)
{
	STUB_NOT_IMPLEMENTED();
	return NULL;
}

/* ---- TODO 2: the timer --------------------------------------------------- */

/*
 * lagm_start: anchor the schedule at clock_now_ns() and arm m->timer for
 * beat 1.  beat_cb: read the time, call lagm_on_beat(), arm the timer for
 * the next beat.  lagm_stop: disarm it.  Mind which clock event_add()
 * counts from (README.md, "Why").
 */
int lagm_start(struct lagm *m)
{
	(void)m;
	STUB_NOT_IMPLEMENTED();
	return -1;
}

static void beat_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	STUB_NOT_IMPLEMENTED();
}

void lagm_stop(struct lagm *m)
{
	(void)m;
	STUB_NOT_IMPLEMENTED();
}

/* ---- TODO 3: one beat ---------------------------------------------------- */

/* Record how late this beat is against the schedule (record_sample()), then
 * move m->next_due_ns past now_ns, skipping swallowed slots. */
int lagm_on_beat(struct lagm *m, int64_t now_ns)
{
	(void)m;
	(void)now_ns;
	(void)record_sample;
	STUB_NOT_IMPLEMENTED();
	return -1;
}

/* ---- TODO 4: statistics -------------------------------------------------- */

/* Nearest rank, without changing values (sort a copy). */
int64_t lagm_percentile_ns(const int64_t *values, size_t n, int pct)
{
	(void)values;
	(void)n;
	(void)pct;
	STUB_NOT_IMPLEMENTED();
	return 0;
}

void lagm_get_stats(const struct lagm *m, struct lagm_stats *out)
{
	(void)m;
	memset(out, 0, sizeof(*out));
	STUB_NOT_IMPLEMENTED();
}

/* ---- TODO 5: cleanup ----------------------------------------------------- */

/* Free everything the meter owns.  NULL is a no-op. */
void lagm_free(struct lagm *m)
{
	(void)m;
	STUB_NOT_IMPLEMENTED();
}
