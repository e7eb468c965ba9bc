/*
 * ex08 correct alternative — the slice computes its own limits up front:
 * a deadline (start + budget) or a last item (next + every), and one
 * loop hashes until either is met; done is checked in one place.
 */
#include "cadence.h"

#include "clock.h"
#include "save.h"

#include <event2/event.h>
#include <stdint.h>

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

static void finish_if_over(struct cad_task *t)
{
	if (t->ev == NULL && t->acked + t->failed == t->job.n && t->job.done)
		t->job.done(t, t->job.arg);
}

static void saved_cb(uint64_t id, int ok, const char *why, void *arg)
{
	struct cad_task *t = arg;

	(void)id;
	(void)why;
	if (ok == 0)
		t->acked++;
	else
		t->failed++;
	finish_if_over(t);
}

static void item(struct cad_task *t)
{
	char hex[CAD_HEX_SIZE];
	size_t i = t->next;

	t->next++;
	t->in_slice++;
	if (cad_hash(t, i, hex) != 0) {
		t->failed++;
		return;
	}
	if (save_client_save(t->job.client, i, hex, saved_cb, t) != 0)
		t->failed++;
}

static void slice_cb(evutil_socket_t fd, short what, void *arg)
{
	struct cad_task *t = arg;
	const struct cadence *c = &t->job.cadence;
	int64_t deadline;
	size_t last_of_slice;

	(void)fd;
	(void)what;
	t->in_slice = 0;
	t->slice_start_ns = clock_now_ns();
	deadline = t->slice_start_ns + c->budget_ns;
	last_of_slice = c->budget_ns == 0 && c->every > 0 ?
			t->next + c->every : SIZE_MAX;
	for (;;) {
		item(t);
		if (t->next >= t->job.n)
			break;
		if (c->budget_ns > 0 ? clock_now_ns() >= deadline
				     : t->next >= last_of_slice) {
			t->yield(t);
			return;
		}
	}
	event_free(t->ev);
	t->ev = NULL;
	finish_if_over(t);
}
