/*
 * ex08 correct alternative — a small state machine: each call of the
 * callback asks one question per item ("go on, yield, or stop?"), and
 * the answers are counted with a switch.
 */
#include "cadence.h"

#include "clock.h"
#include "save.h"

#include <event2/event.h>

static void slice_cb(evutil_socket_t fd, short what, void *arg);

/* ---- provided ------------------------------------------------------------ */

int cad_start(struct cad_task *t, struct event_base *base,
	      const struct cad_job *job)
{
	if (job->n == 0 || !job->client || !job->hasher ||
	    job->cadence.budget_ns < 0)
		return -1;
	*t = (struct cad_task){ .base = base, .job = *job, .yield = cad_yield };
	t->ev = event_new(base, -1, 0, slice_cb, t);
	if (!t->ev)
		return -1;
	/* Not a yield: the first slice simply joins the loop's next pass. */
	event_active(t->ev, EV_TIMEOUT, 0);
	return 0;
}

enum step { GO_ON, YIELD, STOP };

static void report(struct cad_task *t)
{
	if (t->job.done)
		t->job.done(t, t->job.arg);
}

static bool answered(const struct cad_task *t)
{
	return t->acked + t->failed >= t->job.n;
}

static void saved_cb(uint64_t id, int ok, const char *why, void *arg)
{
	struct cad_task *t = arg;

	(void)id;
	(void)why;
	ok ? ++t->failed : ++t->acked;
	if (!t->ev && answered(t))
		report(t);
}

static enum step after_item(const struct cad_task *t)
{
	const struct cadence *c = &t->job.cadence;

	if (t->next == t->job.n)
		return STOP;
	if (c->budget_ns > 0)
		return clock_now_ns() - t->slice_start_ns < c->budget_ns ?
		       GO_ON : YIELD;
	if (c->every == 0)
		return GO_ON;
	return t->in_slice == c->every ? YIELD : GO_ON;
}

static void slice_cb(evutil_socket_t fd, short what, void *arg)
{
	struct cad_task *t = arg;
	char hex[CAD_HEX_SIZE];

	(void)fd;
	(void)what;
	t->slice_start_ns = clock_now_ns();
	t->in_slice = 0;
	for (;;) {
		size_t i = t->next++;

		++t->in_slice;
		if (cad_hash(t, i, hex) != 0 ||
		    save_client_save(t->job.client, i, hex, saved_cb, t) != 0)
			++t->failed;
		switch (after_item(t)) {
		case GO_ON:
			continue;
		case YIELD:
			t->yield(t);
			return;
		case STOP:
			break;
		}
		break;
	}
	event_free(t->ev);
	t->ev = NULL;
	if (answered(t))
		report(t);
}
