/*
 * ex08 — THE FILE YOU EDIT.  Read README.md in this folder first.
 *
 * Four parts, each marked TODO; the budget (TODO 4) comes last.
 * `make grade LAB=ex08` tells you which behaviours work; cadence.h says
 * exactly when a slice is over.
 */
#include "cadence.h"

#include "clock.h"
#include "save.h"
#include "stub.h"

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

/* ---- TODO 1: a save's answer (as in ex07) -------------------------------- */

/*
 * The done callback of every save (pass it to save_client_save with the
 * task as its arg).  Count the answer in t->acked (ok == 0) or t->failed.
 * When the hashing is over (t->ev == NULL) and every one of the n saves
 * has its answer, report_done(t).
 */
static void saved_cb(uint64_t id, int ok, const char *why, void *arg)
{
	(void)id;
	(void)ok;
	(void)why;
	(void)arg;
	STUB_NOT_IMPLEMENTED();
}

/* ---- TODO 2: one slice ---------------------------------------------------- */

/*
 * Begin the slice (t->in_slice = 0, t->slice_start_ns = clock_now_ns()).
 * Then, while items remain: hash item t->next (cad_hash), start its save
 * under id t->next without waiting (failures count in t->failed), move
 * t->next and t->in_slice on; if items remain and slice_over(t), yield
 * with t->yield(t) and return.  After the last item: free the event, set
 * t->ev to NULL, and report_done(t) if every save already has its answer.
 */
static void slice_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	(void)saved_cb;
	(void)report_done;
	(void)slice_over;
	STUB_NOT_IMPLEMENTED();
}

/* ---- TODO 3: every k items, or never ------------------------------------- */

/*
 * With t->job.cadence.every = k > 0: the slice is over once it has
 * hashed k items.  With every = 0 (never): it is never over.
 */
static bool count_reached(const struct cad_task *t)
{
	(void)t;
	STUB_NOT_IMPLEMENTED();
	return false;
}

/* ---- TODO 4 (last): a time budget ---------------------------------------- */

/*
 * With t->job.cadence.budget_ns > 0: the slice is over once
 * clock_now_ns() - t->slice_start_ns >= budget_ns.  (ex03's idea: a
 * neighbour waits about one budget, whatever one item costs.)
 */
static bool budget_spent(const struct cad_task *t)
{
	(void)t;
	STUB_NOT_IMPLEMENTED();
	return false;
}
