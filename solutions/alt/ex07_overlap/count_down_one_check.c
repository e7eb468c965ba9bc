/*
 * ex07 correct alternative — one "maybe finished" check that both ends
 * call: the end of the hashing and each answer.  The answers are counted
 * down from n rather than up.
 */
#include "overlap.h"

#include "save.h"

#include <event2/event.h>

static void hash_cb(evutil_socket_t fd, short what, void *arg);

/* ---- provided ------------------------------------------------------------ */

int ovl_start(struct ovl_task *t, struct event_base *base,
	      const struct ovl_job *job)
{
	if (job->n == 0 || !job->client || !job->hasher)
		return -1;
	*t = (struct ovl_task){ .base = base, .job = *job, .yield = ovl_yield };
	t->ev = event_new(base, -1, 0, hash_cb, t);
	if (!t->ev)
		return -1;
	/* Not a yield: the first item simply joins the loop's next pass. */
	event_active(t->ev, EV_TIMEOUT, 0);
	return 0;
}

/* Tells the task's owner it is over.  Call it exactly once. */
static void report_done(struct ovl_task *t)
{
	if (t->job.done)
		t->job.done(t, t->job.arg);
}

/* ---- the end, from either side ------------------------------------------- */

static size_t unanswered(const struct ovl_task *t)
{
	return t->job.n - (t->acked + t->failed);
}

static void maybe_finished(struct ovl_task *t)
{
	bool hashing_over = t->ev == NULL;

	if (hashing_over && unanswered(t) == 0)
		report_done(t);
}

static void saved_cb(uint64_t id, int ok, const char *why, void *arg)
{
	struct ovl_task *t = arg;

	(void)id;
	(void)why;
	*(ok == 0 ? &t->acked : &t->failed) += 1;
	maybe_finished(t);
}

/* ---- one item per turn of the loop --------------------------------------- */

static void finish_hashing(struct ovl_task *t)
{
	event_free(t->ev);
	t->ev = NULL;
	maybe_finished(t);
}

static void hash_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ovl_task *t = arg;
	char digest[OVL_HEX_SIZE];
	size_t item = t->next;

	(void)fd;
	(void)what;
	t->next = item + 1;
	if (ovl_hash(t, item, digest) == 0) {
		if (save_client_save(t->job.client, item, digest, saved_cb, t) == -1)
			t->failed += 1;
	} else {
		t->failed += 1;
	}
	if (t->next == t->job.n)
		finish_hashing(t);
	else
		t->yield(t);
}
