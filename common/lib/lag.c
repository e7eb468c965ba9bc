#include "lag.h"

#include "clock.h"
#include "trace.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

struct lag_sample {
	int64_t excess_ns;   /* gap before this beat minus one period, >= 0 */
	int64_t ran_at_ns;
};

struct lag {
	struct event *beat;          /* EV_PERSIST: libevent keeps the cadence */
	struct trace *trace;         /* not owned; may be NULL */
	struct timeval every;
	int64_t period_ns;
	int64_t previous_beat_ns;    /* when the last beat (or lag_start) ran */
	struct lag_sample *samples;
	size_t used, room;
};

static void on_beat(evutil_socket_t fd, short what, void *arg);

struct lag *lag_new(struct event_base *base, int64_t period_ns)
{
	struct lag *lag;

	if (!base || period_ns <= 0)
		return NULL;
	lag = calloc(1, sizeof(*lag));
	if (!lag)
		return NULL;
	lag->period_ns = period_ns;
	lag->every.tv_sec = period_ns / CLOCK_NS_PER_S;
	lag->every.tv_usec = (period_ns % CLOCK_NS_PER_S) / CLOCK_NS_PER_US;
	lag->beat = event_new(base, -1, EV_PERSIST, on_beat, lag);
	if (!lag->beat) {
		free(lag);
		return NULL;
	}
	return lag;
}

void lag_free(struct lag *lag)
{
	if (lag == NULL)
		return;
	event_free(lag->beat);
	free(lag->samples);
	free(lag);
}

int lag_start(struct lag *lag)
{
	lag->previous_beat_ns = clock_monotonic_ns();
	return event_add(lag->beat, &lag->every);
}

void lag_stop(struct lag *lag)
{
	event_del(lag->beat);
}

void lag_set_trace(struct lag *lag, struct trace *trace)
{
	lag->trace = trace;
}

/* Keeps one more sample; a sample that finds no memory is dropped (the
 * meter is a measuring aid, it must not stop the loop it measures). */
static void keep_sample(struct lag *lag, int64_t excess_ns, int64_t ran_at_ns)
{
	if (lag->used == lag->room) {
		size_t room = lag->room < 128 ? 128 : lag->room + lag->room / 2;
		struct lag_sample *more = realloc(lag->samples, room * sizeof(*more));

		if (!more)
			return;
		lag->samples = more;
		lag->room = room;
	}
	lag->samples[lag->used].excess_ns = excess_ns;
	lag->samples[lag->used].ran_at_ns = ran_at_ns;
	lag->used++;
}

static void on_beat(evutil_socket_t fd, short what, void *arg)
{
	struct lag *lag = arg;
	int64_t now_ns = clock_monotonic_ns();
	int64_t gap_ns = now_ns - lag->previous_beat_ns;

	(void)fd;
	(void)what;
	lag->previous_beat_ns = now_ns;
	keep_sample(lag, gap_ns > lag->period_ns ? gap_ns - lag->period_ns : 0,
		    now_ns);
	if (lag->trace)
		trace_add(lag->trace, "beat");
}

size_t lag_count(const struct lag *lag)
{
	return lag->used;
}

int64_t lag_sample_ns(const struct lag *lag, size_t i)
{
	return i < lag->used ? lag->samples[i].excess_ns : 0;
}

int64_t lag_sample_at_ns(const struct lag *lag, size_t i)
{
	return i < lag->used ? lag->samples[i].ran_at_ns : 0;
}

static int ascending(const void *left, const void *right)
{
	int64_t a = *(const int64_t *)left;
	int64_t b = *(const int64_t *)right;

	if (a < b)
		return -1;
	return a > b;
}

int64_t lag_percentile_ns(const int64_t *values, size_t n, int pct)
{
	int64_t *v, below, above;
	double position, fraction;
	size_t at;

	if (n == 0 || (v = malloc(n * sizeof(*v))) == NULL)
		return 0;
	memcpy(v, values, n * sizeof(*v));
	qsort(v, n, sizeof(*v), ascending);
	pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
	position = (double)(n - 1) * pct / 100.0;
	at = (size_t)position;
	fraction = position - (double)at;
	below = v[at];
	above = at + 1 < n ? v[at + 1] : below;
	free(v);
	return below + (int64_t)((double)(above - below) * fraction + 0.5);
}

void lag_get_stats(const struct lag *lag, struct lag_stats *out)
{
	int64_t *excess = malloc((lag->used ? lag->used : 1) * sizeof(*excess));

	memset(out, 0, sizeof(*out));
	out->count = lag->used;
	if (!excess)
		return;
	for (size_t i = 0; i < lag->used; i++) {
		excess[i] = lag->samples[i].excess_ns;
		if (excess[i] > out->max_ns)
			out->max_ns = excess[i];
	}
	out->p50_ns = lag_percentile_ns(excess, lag->used, 50);
	out->p99_ns = lag_percentile_ns(excess, lag->used, 99);
	free(excess);
}
