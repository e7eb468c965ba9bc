#include "savelab.h"

#include "clock.h"
#include "evalloc.h"
#include "evbase.h"
#include "grade.h"
#include "save.h"
#include "trace.h"

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FAULT_IDS 16

/* The faults of the running test (one test per process). */
static struct {
	struct savelab *world;        /* for the trace and the kill */
	uint64_t refuse[MAX_FAULT_IDS], fail_hash[MAX_FAULT_IDS];
	size_t n_refuse, n_fail_hash;
	bool refuse_all, kill_armed, wrapped;
	uint64_t kill_after;
	size_t refused, accepted;
} faults;

/* ---- the world ------------------------------------------------------------- */

void savelab_start_with(struct savelab *w, const struct saveproc_options *o)
{
	struct save_client_options co = { .pool_size = o->max_in_flight,
		.timeout_ms = (int)(grade_bound_ns(3000) / CLOCK_NS_PER_MS) };

	memset(w, 0, sizeof(*w));
	memset(&faults, 0, sizeof(faults));
	faults.world = w;
	if (saveproc_start_logged(&w->server, o) != 0)
		grade_fail(__FILE__, __LINE__, "the save server starts", "%s",
			   w->server.why);
	co.port = w->server.port;
	w->base = evbase_new(EVBASE_PRECISE);
	w->client = w->base ? save_client_new(w->base, &co) : NULL;
	w->hasher = hashwork_new();
	w->trace = trace_new();
	GRADE_EXPECT(w->client && w->hasher && w->trace,
		     "an event base, a save client, a hasher and a trace",
		     "setup failed (out of memory?)");
}

void savelab_start(struct savelab *w, int delay_ms, int cap)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;

	o.delay_ms = delay_ms;
	o.max_in_flight = cap;
	savelab_start_with(w, &o);
}

void savelab_free(struct savelab *w)
{
	save_client_free(w->client);
	event_base_free(w->base);
	hashwork_free(w->hasher);
	trace_free(w->trace);
	free(w->recs);
	saveproc_stop(&w->server);
	memset(&faults, 0, sizeof(faults));
}

void savelab_new_trace(struct savelab *w)
{
	trace_free(w->trace);
	w->trace = trace_new();
	GRADE_EXPECT(w->trace, "a trace", "out of memory");
}

void savelab_read_log(struct savelab *w)
{
	free(w->recs);
	w->recs = NULL;
	GRADE_EXPECT(saveinspect_read_own_log(&w->server, &w->recs, &w->n_recs) == 0,
		     "the server's log can be read", "it could not be read");
}

const struct saveproto_record *savelab_record(const struct savelab *w, uint64_t id)
{
	for (size_t k = 0; k < w->n_recs; k++)
		if (w->recs[k].id == id)
			return &w->recs[k];
	return NULL;
}

int64_t savelab_hashed_at(const struct savelab *w, size_t i)
{
	char name[24];
	long at;

	snprintf(name, sizeof(name), "h%zu", i);
	at = trace_find(w->trace, name, 0);
	return at < 0 ? -1 : trace_time_ns(w->trace, (size_t)at);
}

void savelab_stats(struct savelab *w, struct saveproto_stats *st)
{
	GRADE_EXPECT(saveinspect_stats(&w->server, st) == 0,
		     "the server answers GET /stats", "%s", w->server.why);
}

/* ---- shared checks ----------------------------------------------------------- */

void savelab_expect_every_id(const struct savelab *w, size_t n)
{
	char missing[256] = "";
	size_t used = 0, absent = 0;

	for (size_t id = 0; id < n; id++) {
		if (savelab_record(w, id))
			continue;
		absent++;
		if (used + 8 < sizeof(missing))
			used += (size_t)snprintf(missing + used,
						 sizeof(missing) - used, " %zu", id);
	}
	GRADE_EXPECT(absent == 0 && w->n_recs == n,
		     "the server stored ids 0 to n-1, each once",
		     "%zu stored (n = %zu); ids missing:%s", w->n_recs, n,
		     absent ? missing : " none (extra ids were stored)");
}

static void expect_digest_of(struct savelab *w, size_t id, uint64_t links)
{
	const struct saveproto_record *rec = savelab_record(w, id);
	const char *stored = rec ? rec->digest : "(nothing)";
	char want[HASHWORK_HEX_LEN + 1], got[HASHWORK_HEX_LEN + 1];
	uint8_t d[HASHWORK_DIGEST_LEN];

	GRADE_EXPECT(hashwork_item_links(w->hasher, id, links, d) == 0,
		     "the grader hashes item i", "libcrypto failed");
	hashwork_hex(d, want);
	GRADE_EXPECT(strcmp(stored, want) == 0,
		     "id i is stored with item i's own digest",
		     "id %zu holds %.16s..., item %zu hashes to %.16s...", id,
		     stored, id, want);
	GRADE_EXPECT(saveinspect_get(&w->server, id, got) == 200 &&
		     strcmp(got, want) == 0,
		     "GET /saves/i returns item i's digest",
		     "GET /saves/%zu did not", id);
}

void savelab_expect_digests(struct savelab *w, size_t n, uint64_t links)
{
	struct saveproto_stats st;

	savelab_stats(w, &st);
	savelab_read_log(w);
	savelab_expect_every_id(w, n);
	for (size_t id = 0; id < n; id++)
		expect_digest_of(w, id, links);
	GRADE_EXPECT(st.received == n && st.duplicates == 0 && st.conflicts == 0,
		     "exactly n saves sent, none repeated",
		     "%llu sent for n = %zu: %llu repeated, %llu with another "
		     "digest", (unsigned long long)st.received, n,
		     (unsigned long long)st.duplicates,
		     (unsigned long long)st.conflicts);
}

long savelab_blocks_left_per_save(void)
{
	long before = evalloc_live();
	struct savelab probe;

	savelab_start(&probe, 0, 1);
	savelab_conflict(&probe, 0);
	savelab_free(&probe);
	return evalloc_live() - before;
}

/* ---- the referee --------------------------------------------------------------- */

struct referee {
	struct savelab *w;
	bool (*busy)(void *arg);
	void *arg;
	int64_t give_up_ns;
	bool finished;
};

static void referee_cb(evutil_socket_t fd, short what, void *arg)
{
	struct referee *r = arg;

	(void)fd;
	(void)what;
	r->finished = !r->busy(r->arg);
	if (r->finished || clock_monotonic_ns() > r->give_up_ns)
		event_base_loopbreak(r->w->base);
}

bool savelab_run(struct savelab *w, bool (*busy)(void *arg), void *arg,
		 int64_t limit_ms)
{
	struct referee r = { w, busy, arg, 0, false };
	struct timeval tick = { 0, 1000 };
	struct event *ev = event_new(w->base, -1, EV_PERSIST, referee_cb, &r);

	GRADE_EXPECT(ev && event_add(ev, &tick) == 0,
		     "a timer for the grader", "out of memory");
	r.give_up_ns = clock_monotonic_ns() + grade_bound_ns(limit_ms);
	event_base_loop(w->base, 0);
	event_free(ev);
	return r.finished;
}

/* ---- faults ------------------------------------------------------------------ */

static bool listed(const uint64_t *ids, size_t n, uint64_t id)
{
	for (size_t k = 0; k < n; k++)
		if (ids[k] == id)
			return true;
	return false;
}

static void add_id(uint64_t *ids, size_t *n, uint64_t id)
{
	if (*n < MAX_FAULT_IDS)
		ids[(*n)++] = id;
}

bool savelab_faults_armed(void)
{
	/* A wrapped call sets the flag; make one that changes nothing. */
	uint8_t d[HASHWORK_DIGEST_LEN];

	(void)hashwork_item_links(NULL, 0, 0, d);
	return faults.wrapped;
}

void savelab_refuse_save(uint64_t id)
{
	add_id(faults.refuse, &faults.n_refuse, id);
}

void savelab_refuse_every_save(void)
{
	faults.refuse_all = true;
}

void savelab_fail_hash(uint64_t i)
{
	add_id(faults.fail_hash, &faults.n_fail_hash, i);
}

void savelab_kill_server_after_hash(struct savelab *w, uint64_t i)
{
	faults.world = w;
	faults.kill_armed = true;
	faults.kill_after = i;
}

size_t savelab_refused(void)
{
	return faults.refused;
}

size_t savelab_accepted(void)
{
	return faults.accepted;
}

static void conflict_cb(uint64_t id, int ok, const char *why, void *arg)
{
	(void)id;
	(void)why;
	*(int *)arg = ok;
}

void savelab_conflict(struct savelab *w, uint64_t id)
{
	static const char other[] =
		"0000000000000000000000000000000000000000000000000000000000000000";
	int ok = -1;
	bool was_all = faults.refuse_all;
	struct savelab *traced = faults.world;

	faults.refuse_all = false;
	faults.world = NULL;       /* not the lab's save: not in the trace */
	GRADE_EXPECT(save_client_save(w->client, id, other, conflict_cb, &ok) == 0 &&
		     save_client_drain(w->client) == 0 && ok == 0,
		     "the grader stores a conflicting digest first",
		     "the server did not take it");
	faults.refuse_all = was_all;
	faults.world = traced;
	faults.accepted--;
	w->conflicts_planted++;
}

/* ---- the wrapped calls (-Wl,--wrap=...) ---------------------------------------- */

int __real_save_client_save(struct save_client *c, uint64_t id,
			    const char *digest_hex, save_done_fn done, void *arg);
int __wrap_save_client_save(struct save_client *c, uint64_t id,
			    const char *digest_hex, save_done_fn done, void *arg);
int __real_hashwork_item_links(struct hashwork *h, uint64_t i, uint64_t links,
			       uint8_t out[HASHWORK_DIGEST_LEN]);
int __wrap_hashwork_item_links(struct hashwork *h, uint64_t i, uint64_t links,
			       uint8_t out[HASHWORK_DIGEST_LEN]);

int __wrap_save_client_save(struct save_client *c, uint64_t id,
			    const char *digest_hex, save_done_fn done, void *arg)
{
	int rc;

	if (faults.refuse_all || listed(faults.refuse, faults.n_refuse, id)) {
		faults.refused++;
		return -1;
	}
	rc = __real_save_client_save(c, id, digest_hex, done, arg);
	if (rc == 0) {
		faults.accepted++;
		if (faults.world && faults.world->trace)
			trace_add(faults.world->trace, "s%llu",
				  (unsigned long long)id);
	}
	return rc;
}

int __wrap_hashwork_item_links(struct hashwork *h, uint64_t i, uint64_t links,
			       uint8_t out[HASHWORK_DIGEST_LEN])
{
	int rc;

	faults.wrapped = true;
	if (!h)
		return -1;
	if (listed(faults.fail_hash, faults.n_fail_hash, i))
		return -1;
	rc = __real_hashwork_item_links(h, i, links, out);
	if (faults.kill_armed && i == faults.kill_after && faults.world) {
		faults.kill_armed = false;
		(void)saveproc_kill(&faults.world->server);
	}
	return rc;
}

/* ---- the task's end: done and the referee -------------------------------- */

void savelab_note_done(struct savelab_done *d, struct save_client *client,
		       size_t acked, size_t failed, bool hashing_over)
{
	d->calls++;
	d->outstanding = client ? save_client_outstanding(client) : 0;
	d->acked = acked;
	d->failed = failed;
	d->hashing_over = hashing_over;
}

void savelab_expect_done_with(const struct savelab_done *d, size_t n,
			      size_t acked, size_t failed,
			      const char *situation)
{
	GRADE_EXPECT(d->calls == 1, "done is called exactly once, even "
		     "when saves fail", "%s: done was called %d times",
		     situation, d->calls);
	GRADE_EXPECT(d->outstanding == 0 && d->hashing_over,
		     "done comes after the hashing is over and every save has "
		     "its answer", "%s: at done, %zu saves on their way, "
		     "hashing %s", situation, d->outstanding,
		     d->hashing_over ? "over" : "not over");
	GRADE_EXPECT(d->acked == acked && d->failed == failed,
		     "the task counts each failed save in t->failed, never in "
		     "t->acked", "%s: %zu acked and %zu failed of %zu (expected "
		     "%zu and %zu)", situation, d->acked, d->failed, n, acked,
		     failed);
}

void savelab_expect_refused_save_not_resent(struct savelab *w, size_t n)
{
	struct saveproto_stats st;

	savelab_stats(w, &st);
	GRADE_EXPECT(st.conflicts == 1 && st.received == n + 1,
		     "each save sent once; the refused one is not sent again",
		     "the server received %llu (the grader's 1 included), "
		     "%llu refused", (unsigned long long)st.received,
		     (unsigned long long)st.conflicts);
}

void savelab_expect_own_done(const struct savelab_done *d, size_t n,
			     const char *which)
{
	GRADE_EXPECT(d->calls == 1 && d->acked == n && d->failed == 0,
		     "each task gets its own done, once, with its own counts",
		     "%s (n = %zu): done called %d times, %zu acked, %zu failed",
		     which, n, d->calls, d->acked, d->failed);
}

bool savelab_task_busy(struct save_client *client, struct event *ev,
		       size_t next, size_t n)
{
	if (save_client_outstanding(client) > 0)
		return true;
	return ev && next < n && event_pending(ev, EV_TIMEOUT, NULL);
}

void savelab_expect_blocks_freed(long live_before, long left)
{
	GRADE_EXPECT(evalloc_live() - live_before <= left,
		     "every libevent block of the run freed once the world is "
		     "(the task's event freed with event_free, not just deleted)",
		     "%ld block(s) still allocated: an event deleted or dropped "
		     "but never freed?", evalloc_live() - live_before - left);
}

struct save_client *savelab_second_server(struct savelab *w, int delay_ms,
					  struct saveproc *second)
{
	struct saveproc_options so = SAVEPROC_DEFAULTS;

	so.delay_ms = delay_ms;
	GRADE_EXPECT(saveproc_start_logged(second, &so) == 0,
		     "a second save server starts", "%s", second->why);
	return save_client_new(w->base, &(struct save_client_options){
		.port = second->port });
}
