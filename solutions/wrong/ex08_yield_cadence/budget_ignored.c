/*
 * ex08 wrong solution — the budget part never written: a budget cadence
 * falls back on the count, and with every = 0 it never yields.
 * Caught by: budget_cadence_yields_when_the_budget_is_spent
 */
#include "cadence.h"

#include "clock.h"
#include "save.h"

#include <event2/event.h>

static void slice_cb(evutil_socket_t fd, short what, void *arg);
static bool count_reached(const struct cad_task *t);
static bool budget_spent(const struct cad_task *t);

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

/* Tells the task's owner it is over.  Call it exactly once. */
static void report_done(struct cad_task *t)
{
	if (t->job.done)
		t->job.done(t, t->job.arg);
}

/* Is the current slice over?  Ask after an item, when items remain. */
static bool slice_over(const struct cad_task *t)
{
	if (t->job.cadence.budget_ns > 0)
		return budget_spent(t);
	return count_reached(t);
}

/* ---- a save's answer ----------------------------------------------------- */

static bool all_answered(const struct cad_task *t)
{
	return t->acked + t->failed == t->job.n;
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
	/* The last answer after the last hash ends the task, exactly once. */
	if (!t->ev && all_answered(t))
		report_done(t);
}

/* ---- one slice ----------------------------------------------------------- */

/* Hashes item t->next and starts its save; the save is not waited for. */
static void hash_and_save(struct cad_task *t)
{
	char hex[CAD_HEX_SIZE];
	size_t i = t->next++;

	t->in_slice++;
	if (cad_hash(t, i, hex) != 0 ||
	    save_client_save(t->job.client, i, hex, saved_cb, t) != 0)
		t->failed++;
}

static void slice_cb(evutil_socket_t fd, short what, void *arg)
{
	struct cad_task *t = arg;

	(void)fd;
	(void)what;
	/* A fresh slice: the time the loop spent elsewhere is not ours. */
	t->in_slice = 0;
	t->slice_start_ns = clock_now_ns();
	while (t->next < t->job.n) {
		hash_and_save(t);
		if (t->next < t->job.n && slice_over(t)) {
			t->yield(t);
			return;
		}
	}
	event_free(t->ev);
	t->ev = NULL;
	if (all_answered(t))
		report_done(t);
}

/* ---- the cadence --------------------------------------------------------- */

static bool count_reached(const struct cad_task *t)
{
	unsigned every = t->job.cadence.every;

	return every > 0 && t->in_slice >= every;
}

static bool budget_spent(const struct cad_task *t)
{
	return count_reached(t);
}
