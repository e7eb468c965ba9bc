#include "lag.h"

#include "clock.h"
#include "trace.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

struct lag {
	struct event_base *base;
	struct event *timer;
	struct trace *trace;
	int64_t period_ns;
	int64_t next_due_ns;
	int64_t *late_ns, *at_ns;
	size_t len, cap;
};

static void beat_cb(evutil_socket_t fd, short what, void *arg);

struct lag *lag_new(struct event_base *base, int64_t period_ns)
{
	struct lag *lag = calloc(1, sizeof(*lag));

	if (!lag || period_ns <= 0)
		goto err;
	lag->base = base;
	lag->period_ns = period_ns;
	lag->timer = evtimer_new(base, beat_cb, lag);
	if (!lag->timer)
		goto err;
	return lag;
err:
	free(lag);
	return NULL;
}

void lag_free(struct lag *lag)
{
	if (!lag)
		return;
	event_free(lag->timer);
	free(lag->late_ns);
	free(lag->at_ns);
	free(lag);
}

static int arm(struct lag *lag, int64_t now_ns)
{
	int64_t wait_ns = lag->next_due_ns - now_ns;
	struct timeval tv = {
		.tv_sec = wait_ns / CLOCK_NS_PER_S,
		.tv_usec = (wait_ns % CLOCK_NS_PER_S) / CLOCK_NS_PER_US,
	};

	/* libevent adds tv to its cached time, stale after a slow callback. */
	event_base_update_cache_time(lag->base);
	return event_add(lag->timer, &tv);
}

int lag_start(struct lag *lag)
{
	int64_t now = clock_monotonic_ns();

	lag->next_due_ns = now + lag->period_ns;
	return arm(lag, now);
}

void lag_stop(struct lag *lag)
{
	event_del(lag->timer);
}

void lag_set_trace(struct lag *lag, struct trace *trace)
{
	lag->trace = trace;
}

static int record(struct lag *lag, int64_t late, int64_t at)
{
	if (lag->len == lag->cap) {
		size_t cap = lag->cap ? lag->cap * 2 : 256;
		int64_t *l = realloc(lag->late_ns, cap * sizeof(*l));
		int64_t *a = l ? realloc(lag->at_ns, cap * sizeof(*a)) : NULL;

		if (l)
			lag->late_ns = l;
		if (!a)
			return -1;
		lag->at_ns = a;
		lag->cap = cap;
	}
	lag->late_ns[lag->len] = late;
	lag->at_ns[lag->len++] = at;
	return 0;
}

static void beat_cb(evutil_socket_t fd, short what, void *arg)
{
	struct lag *lag = arg;
	int64_t now = clock_monotonic_ns();
	int64_t late = now - lag->next_due_ns;

	(void)fd;
	(void)what;
	record(lag, late > 0 ? late : 0, now);
	if (lag->trace)
		trace_add(lag->trace, "beat");
	/* Skip the slots a stall swallowed: one stall, one large sample. */
	while (lag->next_due_ns <= now)
		lag->next_due_ns += lag->period_ns;
	arm(lag, now);
}

size_t lag_count(const struct lag *lag)
{
	return lag->len;
}

int64_t lag_sample_ns(const struct lag *lag, size_t i)
{
	return i < lag->len ? lag->late_ns[i] : 0;
}

int64_t lag_sample_at_ns(const struct lag *lag, size_t i)
{
	return i < lag->len ? lag->at_ns[i] : 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t lag_percentile_ns(const int64_t *values, size_t n, int pct)
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
	/* Nearest rank: ceil(pct/100 * n), 1-based. */
	rank = ((size_t)pct * n + 99) / 100;
	if (rank < 1)
		rank = 1;
	result = sorted[rank - 1];
	free(sorted);
	return result;
}

void lag_get_stats(const struct lag *lag, struct lag_stats *out)
{
	out->count = lag->len;
	out->p50_ns = lag_percentile_ns(lag->late_ns, lag->len, 50);
	out->p99_ns = lag_percentile_ns(lag->late_ns, lag->len, 99);
	out->max_ns = lag_percentile_ns(lag->late_ns, lag->len, 100);
}
