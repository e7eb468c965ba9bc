/*
 * ex07 correct alternative — a flag for "hashing over" and a single exit
 * per callback (goto), with the save's failure handled right where
 * save_client_save says so.
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

struct progress {
	bool hashing_over;
};

static bool over(const struct ovl_task *t)
{
	return t->ev == NULL && t->acked + t->failed >= t->job.n;
}

static void saved_cb(uint64_t id, int ok, const char *why, void *arg)
{
	struct ovl_task *t = arg;

	(void)id;
	(void)why;
	if (ok != 0)
		t->failed++;
	else
		t->acked++;
	if (over(t))
		report_done(t);
}

static void hash_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ovl_task *t = arg;
	char hex[OVL_HEX_SIZE];
	struct progress p = { false };

	(void)fd;
	(void)what;
	if (ovl_hash(t, t->next, hex) != 0)
		goto failed;
	if (save_client_save(t->job.client, t->next, hex, saved_cb, t) != 0)
		goto failed;
	goto next;
failed:
	t->failed++;
next:
	t->next++;
	p.hashing_over = t->next >= t->job.n;
	if (!p.hashing_over) {
		t->yield(t);
		return;
	}
	event_free(t->ev);
	t->ev = NULL;
	if (over(t))
		report_done(t);
}
