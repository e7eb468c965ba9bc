/* ex06 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * Grader for ex06_serial_saves.  Each test catches one mistake; the comment
 * above it names the mistake.
 *
 * Every test starts its own save server (a child process, killed with the
 * test) with a log: one line per stored save with the CLOCK_MONOTONIC
 * times it arrived and was answered.  The tests compare those times with
 * each other and with the times the hashes completed (the trace): orders
 * and overlaps, never a stopwatch, so a loaded machine cannot fail them.
 * Scaled down: items of 4096 links (under 1 ms a hash on any machine the
 * labs run on), a 20-30 ms server.
 */
#include "serial_saves.h"

#include "clock.h"
#include "evbase.h"
#include "grade.h"
#include "save.h"
#include "saveproc.h"
#include "trace.h"

#include <event2/event.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINKS 4096
#define MAX_ITEMS 32

/* ---- fixtures: a server with a log, a client, a run ---------------------- */

struct world {
	struct event_base *base;
	struct saveproc server;
	struct save_client *client;
	struct hashwork *hasher;
	struct trace *trace;
	struct ss_run run;
	struct save_record *recs;    /* the log, once read */
	size_t n_recs;
};

/* The server keeps its log in a private file that saveproc unlinks at
 * once: a failing test leaves no file behind. */
static void start_server(struct world *w, int delay_ms, int cap)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;

	o.delay_ms = delay_ms;
	o.max_in_flight = cap;
	if (saveproc_start_logged(&w->server, &o) != 0)
		grade_fail(__FILE__, __LINE__, "the save server starts",
			   "%s", w->server.why);
}

/* A server answering after delay_ms, at most cap at once; a client with
 * `cap` connections; a run of n items. */
static void world_start(struct world *w, int delay_ms, int cap, size_t n)
{
	struct save_client_options co = { .pool_size = cap,
		.timeout_ms = (int)(grade_bound_ns(3000) / CLOCK_NS_PER_MS) };

	memset(w, 0, sizeof(*w));
	start_server(w, delay_ms, cap);
	co.port = w->server.port;
	w->base = evbase_new(EVBASE_PRECISE);
	w->client = w->base ? save_client_new(w->base, &co) : NULL;
	w->hasher = hashwork_new();
	w->trace = trace_new();
	GRADE_EXPECT(w->client && w->hasher && w->trace,
		     "an event base, a save client, a hasher and a trace",
		     "setup failed (out of memory?)");
	ss_init(&w->run, w->client, w->hasher, n, LINKS, w->trace);
}

static void world_free(struct world *w)
{
	save_client_free(w->client);
	event_base_free(w->base);
	hashwork_free(w->hasher);
	trace_free(w->trace);
	free(w->recs);
	saveproc_stop(&w->server);
}

static void read_log(struct world *w)
{
	GRADE_EXPECT(saveproc_read_own_log(&w->server, &w->recs, &w->n_recs) == 0,
		     "the server's log can be read", "it could not be read");
}

static void get_stats(struct world *w, struct save_stats *st)
{
	GRADE_EXPECT(saveproc_stats(&w->server, st) == 0,
		     "the server answers GET /stats", "%s", w->server.why);
}

/* The log's record of id, or NULL. */
static const struct save_record *record_of(const struct world *w, size_t id)
{
	for (size_t k = 0; k < w->n_recs; k++)
		if (w->recs[k].id == id)
			return &w->recs[k];
	return NULL;
}

/* When the trace says item i's hash completed (ns), or -1. */
static int64_t hashed_at(const struct world *w, size_t i)
{
	char name[24];
	long at;

	snprintf(name, sizeof(name), "h%zu", i);
	at = trace_find(w->trace, name, 0);
	return at < 0 ? -1 : trace_time_ns(w->trace, (size_t)at);
}

/* Fails unless the log holds exactly ids 0 .. n-1; says which are missing. */
static void expect_every_id(const struct world *w, size_t n)
{
	char missing[256] = "";
	size_t used = 0, absent = 0;

	for (size_t id = 0; id < n; id++) {
		if (record_of(w, id))
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

static void run_ok(int rc, const char *which)
{
	GRADE_EXPECT(rc == 0, "the run returns 0 (every item hashed and stored)",
		     "%s returned %d", which, rc);
}

/* ---- the serial version -------------------------------------------------- */

/* Catches: a serial version that does not wait for each answer (saves
 * queued and waited for at the end, or all at once).  8 items, a 20 ms
 * server: the server's log must show one save at a time, in id order,
 * each arriving after the previous one was answered, and each hash after
 * the previous save's answer.  Orders only: no bound on any duration. */
static void serial_run_waits_for_each_reply_before_the_next_hash(void **state)
{
	struct save_stats st;
	struct world w;
	const size_t n = 8;

	(void)state;
	world_start(&w, 20, 10, n);
	run_ok(ss_serial(&w.run), "ss_serial()");
	get_stats(&w, &st);
	read_log(&w);
	expect_every_id(&w, n);
	GRADE_EXPECT(st.max_in_flight == 1,
		     "the server never holds two saves of the serial run at once",
		     "it held up to %llu at once: saves were sent before the "
		     "previous one was answered", (unsigned long long)st.max_in_flight);
	for (size_t i = 0; i + 1 < n; i++) {
		const struct save_record *a = record_of(&w, i), *b = record_of(&w, i + 1);

		GRADE_EXPECT(b->received_ns > a->answered_ns,
			     "save i+1 reaches the server after save i was answered",
			     "save %zu arrived %.1f ms before save %zu was answered",
			     i + 1, clock_ns_to_ms(a->answered_ns - b->received_ns), i);
		GRADE_EXPECT(hashed_at(&w, i + 1) > a->answered_ns,
			     "item i+1 is hashed after save i was answered (hash, "
			     "send, wait, next)",
			     "item %zu was hashed before save %zu was answered",
			     i + 1, i);
	}
	world_free(&w);
}

/* Fails unless every stored digest is the grader's own hashwork_item, read
 * back through the log and GET /saves/N, with no repeat and no conflict. */
static void expect_digests(struct world *w, size_t n)
{
	char want[SS_HEX_SIZE], got[SS_HEX_SIZE];
	uint8_t d[HASHWORK_DIGEST_LEN];
	struct save_stats st;

	get_stats(w, &st);
	read_log(w);
	expect_every_id(w, n);
	for (size_t id = 0; id < n; id++) {
		const struct save_record *rec = record_of(w, id);
		const char *stored = rec ? rec->digest : "(nothing)";

		GRADE_EXPECT(hashwork_item_links(w->hasher, id, LINKS, d) == 0,
			     "the grader hashes item i", "libcrypto failed");
		hashwork_hex(d, want);
		GRADE_EXPECT(strcmp(stored, want) == 0,
			     "id i is stored with item i's own digest",
			     "id %zu holds %.16s..., item %zu hashes to %.16s...",
			     id, stored, id, want);
		GRADE_EXPECT(saveproc_get(&w->server, id, got) == 200 &&
			     strcmp(got, want) == 0,
			     "GET /saves/i returns item i's digest",
			     "GET /saves/%zu did not", id);
	}
	GRADE_EXPECT(st.received == n && st.duplicates == 0 && st.conflicts == 0,
		     "exactly n saves sent, none repeated",
		     "%llu sent for n = %zu: %llu repeated, %llu with another "
		     "digest", (unsigned long long)st.received, n,
		     (unsigned long long)st.duplicates,
		     (unsigned long long)st.conflicts);
}

/* Catches: a save under the wrong id, a wrong digest, an item saved twice
 * or not at all, in the serial version.  6 items. */
static void serial_run_saves_each_item_once_with_its_digest(void **state)
{
	struct world w;

	(void)state;
	world_start(&w, 20, 10, 6);
	run_ok(ss_serial(&w.run), "ss_serial()");
	expect_digests(&w, 6);
	world_free(&w);
}

/* ---- the batched version ------------------------------------------------- */

static int64_t batch_min(const struct world *w, size_t from, size_t to,
			 bool answered)
{
	int64_t t = INT64_MAX;

	for (size_t id = from; id < to; id++) {
		const struct save_record *r = record_of(w, id);
		int64_t v = answered ? r->answered_ns : r->received_ns;

		t = v < t ? v : t;
	}
	return t;
}

static int64_t batch_max(const struct world *w, size_t from, size_t to,
			 bool answered)
{
	int64_t t = INT64_MIN;

	for (size_t id = from; id < to; id++) {
		const struct save_record *r = record_of(w, id);
		int64_t v = answered ? r->answered_ns : r->received_ns;

		t = v > t ? v : t;
	}
	return t;
}

/* Catches: a batch whose saves are waited for one by one (still serial),
 * and batches that are not waited for (everything queued, one wait at the
 * end).  10 items in batches of 5, a 30 ms server capped at 10: all 5
 * saves of a batch are at the server together (the last arrives before the
 * first is answered), and the second batch is hashed and sent only after
 * the first batch's answers.  Orders only. */
static void batched_run_sends_a_whole_batch_at_once(void **state)
{
	struct save_stats st;
	struct world w;

	(void)state;
	world_start(&w, 30, 10, 10);
	run_ok(ss_batched(&w.run, 5), "ss_batched(r, 5)");
	get_stats(&w, &st);
	read_log(&w);
	expect_every_id(&w, 10);
	for (size_t b = 0; b < 10; b += 5)
		GRADE_EXPECT(batch_max(&w, b, b + 5, false) < batch_min(&w, b, b + 5, true),
			     "the 5 saves of a batch are at the server together "
			     "(sent before the wait)",
			     "save %zu was answered before the batch's last save "
			     "arrived: the batch was sent one save at a time", b);
	GRADE_EXPECT(batch_min(&w, 5, 10, false) > batch_max(&w, 0, 5, true) &&
		     hashed_at(&w, 5) > batch_max(&w, 0, 5, true),
		     "items 5-9 are hashed and sent after the answers of saves 0-4",
		     "the second batch did not wait for the first one's answers");
	GRADE_EXPECT(st.max_in_flight == 5,
		     "the server holds at most one batch (5 saves) at once",
		     "it held %llu at once", (unsigned long long)st.max_in_flight);
	world_free(&w);
}

/* Catches: the items left over at the end never sent (13 items in batches
 * of 5: items 10, 11 and 12 form a last, partial batch). */
static void batched_run_sends_the_last_partial_batch(void **state)
{
	struct world w;

	(void)state;
	world_start(&w, 20, 10, 13);
	run_ok(ss_batched(&w.run, 5), "ss_batched(r, 5) with 13 items");
	read_log(&w);
	expect_every_id(&w, 13);
	world_free(&w);
}

/* Catches: a wrong digest in a batch (one buffer for the whole batch, a
 * digest sent under its neighbour's id), and a batch sent twice (10 items
 * in batches of 5: the last batch is full, not partial). */
static void batched_run_saves_each_item_once_with_its_digest(void **state)
{
	struct world w;

	(void)state;
	world_start(&w, 20, 10, 10);
	run_ok(ss_batched(&w.run, 5), "ss_batched(r, 5)");
	expect_digests(&w, 10);
	world_free(&w);
}

/* ---- both: the end ------------------------------------------------------- */

static void expect_all_answered(const struct world *w, const char *which)
{
	GRADE_EXPECT(w->run.acked == w->run.n &&
		     save_client_outstanding(w->client) == 0,
		     "when it returns, every save has its answer (stored)",
		     "%s returned with %zu of %zu saves answered and %zu still "
		     "pending", which, w->run.acked, w->run.n,
		     save_client_outstanding(w->client));
}

/* Catches: returning before the last saves are answered (the last batch,
 * or the last serial save, sent but not waited for): those saves never
 * leave, since the loop turns only while the run waits. */
static void runs_end_only_after_every_save_is_acknowledged(void **state)
{
	struct world w;

	(void)state;
	world_start(&w, 20, 10, 5);
	run_ok(ss_serial(&w.run), "ss_serial()");
	expect_all_answered(&w, "ss_serial()");
	world_free(&w);
	world_start(&w, 20, 10, 13);
	run_ok(ss_batched(&w.run, 5), "ss_batched(r, 5) with 13 items");
	expect_all_answered(&w, "ss_batched(r, 5) with 13 items");
	world_free(&w);
}

static const struct grade_test tests[] = {
	GRADE_TEST(serial_run_waits_for_each_reply_before_the_next_hash, 20,
		   10000,
		   "after each ss_send, ss_wait before you hash the next item"),
	GRADE_TEST(serial_run_saves_each_item_once_with_its_digest, 15, 10000,
		   "save item i under id i with the digest ss_hash gave for i"),
	GRADE_TEST(batched_run_sends_a_whole_batch_at_once, 20, 10000,
		   "send every save of the batch first, then ss_wait once"),
	GRADE_TEST(batched_run_sends_the_last_partial_batch, 15, 10000,
		   "when n is not a multiple of batch, the last items form a "
		   "smaller batch: send it too"),
	GRADE_TEST(batched_run_saves_each_item_once_with_its_digest, 15, 10000,
		   "keep each digest in its own r->digests[k]; send each batch "
		   "once"),
	GRADE_TEST(runs_end_only_after_every_save_is_acknowledged, 15, 10000,
		   "the last ss_send needs an ss_wait after it too"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "ex06_serial_saves",
			  "serial saves, then batches", tests,
			  sizeof(tests) / sizeof(tests[0]));
}
