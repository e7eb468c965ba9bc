/*
 * ex07 wrong solution — reports done after the last hash, while the last
 * saves are still on their way: if one of them fails, the program has
 * already said everything was saved.
 * Caught by: done_comes_only_after_every_save_is_acknowledged
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

static void saved_cb(uint64_t id, int ok, const char *why, void *arg)
{
	struct ovl_task *t = arg;

	(void)id;
	(void)why;
	if (ok == 0)
		t->acked++;
	else
		t->failed++;
}

static void hash_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ovl_task *t = arg;
	char hex[OVL_HEX_SIZE];
	size_t i = t->next++;

	(void)fd;
	(void)what;
	if (ovl_hash(t, i, hex) != 0 ||
	    save_client_save(t->job.client, i, hex, saved_cb, t) != 0)
		t->failed++;
	if (t->next < t->job.n) {
		t->yield(t);
		return;
	}
	event_free(t->ev);
	t->ev = NULL;
	report_done(t);
}
