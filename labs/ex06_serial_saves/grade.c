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
#include "saveinspect.h"
#include "saveproc.h"
#include "savelab.h"
#include "trace.h"

#include <event2/event.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINKS 4096

/* ---- the world: common/savelab (server with a log, client, trace) -------- */

struct world {
	struct savelab lab;
	struct ss_run run;
};

/* A server answering after delay_ms, at most cap at once; a client with
 * `cap` connections; a run of n items. */
static void world_start(struct world *w, int delay_ms, int cap, size_t n)
{
	memset(w, 0, sizeof(*w));
	savelab_start(&w->lab, delay_ms, cap);
	ss_init(&w->run, w->lab.client, w->lab.hasher, n, LINKS, w->lab.trace);
}

/* The same with the server's fault options. */
static void world_start_with(struct world *w, const struct saveproc_options *o,
			     size_t n)
{
	memset(w, 0, sizeof(*w));
	savelab_start_with(&w->lab, o);
	ss_init(&w->run, w->lab.client, w->lab.hasher, n, LINKS, w->lab.trace);
}

static void world_free(struct world *w)
{
	savelab_free(&w->lab);
}

static void run_ok(int rc, const char *which)
{
	GRADE_EXPECT(rc == 0, "the run returns 0 (every item hashed and stored)",
		     "%s returned %d", which, rc);
}

/* ---- the serial version -------------------------------------------------- */

/* Catches: a serial version that does not wait for each answer (saves
 * queued and waited for at the end, or all at once, or two at a time with
 * the odd one out alone).  9 items (odd, so a remainder too), a 20 ms
 * server: the server's log must show one save at a time, in id order,
 * each arriving after the previous one was answered, and each hash after
 * the previous save's answer.  Orders only: no bound on any duration. */
static void serial_run_waits_for_each_reply_before_the_next_hash(void **state)
{
	struct saveproto_stats st;
	struct world w;
	const size_t n = 9;

	(void)state;
	world_start(&w, 20, 10, n);
	run_ok(ss_serial(&w.run), "ss_serial()");
	savelab_stats(&w.lab, &st);
	savelab_read_log(&w.lab);
	savelab_expect_every_id(&w.lab, n);
	GRADE_EXPECT(st.max_in_flight == 1,
		     "the server never holds two saves of the serial run at once",
		     "it held up to %llu at once: saves were sent before the "
		     "previous one was answered", (unsigned long long)st.max_in_flight);
	for (size_t i = 0; i + 1 < n; i++) {
		const struct saveproto_record *a = savelab_record(&w.lab, i);
		const struct saveproto_record *b = savelab_record(&w.lab, i + 1);

		GRADE_EXPECT(b->received_ns > a->answered_ns,
			     "save i+1 reaches the server after save i was answered",
			     "save %zu arrived %.1f ms before save %zu was answered",
			     i + 1, clock_ns_to_ms(a->answered_ns - b->received_ns), i);
		GRADE_EXPECT(savelab_hashed_at(&w.lab, i + 1) > a->answered_ns,
			     "item i+1 is hashed after save i was answered (hash, "
			     "send, wait, next)",
			     "item %zu was hashed before save %zu was answered",
			     i + 1, i);
	}
	world_free(&w);
}

static void expect_digests(struct world *w, size_t n)
{
	savelab_expect_digests(&w->lab, n, LINKS);
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
		const struct saveproto_record *r = savelab_record(&w->lab, id);
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
		const struct saveproto_record *r = savelab_record(&w->lab, id);
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
	struct saveproto_stats st;
	struct world w;

	(void)state;
	world_start(&w, 30, 10, 10);
	run_ok(ss_batched(&w.run, 5), "ss_batched(r, 5)");
	savelab_stats(&w.lab, &st);
	savelab_read_log(&w.lab);
	savelab_expect_every_id(&w.lab, 10);
	for (size_t b = 0; b < 10; b += 5)
		GRADE_EXPECT(batch_max(&w, b, b + 5, false) < batch_min(&w, b, b + 5, true),
			     "the 5 saves of a batch are at the server together "
			     "(sent before the wait)",
			     "save %zu was answered before the batch's last save "
			     "arrived: the batch was sent one save at a time", b);
	GRADE_EXPECT(batch_min(&w, 5, 10, false) > batch_max(&w, 0, 5, true) &&
		     savelab_hashed_at(&w.lab, 5) > batch_max(&w, 0, 5, true),
		     "items 5-9 are hashed and sent after the answers of saves 0-4",
		     "the second batch did not wait for the first one's answers");
	GRADE_EXPECT(st.max_in_flight == 5,
		     "the server holds at most one batch (5 saves) at once",
		     "it held %llu at once", (unsigned long long)st.max_in_flight);
	world_free(&w);
}

/* Catches: the items left over at the end never sent, or sent one by one
 * (waited for each), or sent with the batch before them.  13 items in
 * batches of 5: items 10, 11 and 12 form a last, partial batch, which goes
 * out like every batch: its 3 saves are at the server together (the last
 * arrives before the first is answered) and only after the answers of
 * batch 5-9, each under its own id with its own digest.  Orders from
 * the server's log only. */
static void batched_run_sends_the_last_partial_batch_together(void **state)
{
	struct world w;

	(void)state;
	world_start(&w, 20, 10, 13);
	run_ok(ss_batched(&w.run, 5), "ss_batched(r, 5) with 13 items");
	expect_digests(&w, 13);
	GRADE_EXPECT(batch_max(&w, 10, 13, false) < batch_min(&w, 10, 13, true),
		     "the last 3 saves (ids 10-12) are at the server together, "
		     "like every batch",
		     "save 10, 11 or 12 was answered before the last of them "
		     "arrived: the remainder went out one save at a time");
	GRADE_EXPECT(batch_min(&w, 10, 13, false) > batch_max(&w, 5, 10, true),
		     "ids 10-12 are sent after the answers of batch 5-9",
		     "one of them arrived before batch 5-9 was answered: the "
		     "remainder joined the batch before it");
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
		     save_client_outstanding(w->lab.client) == 0,
		     "when it returns, every save has its answer (stored)",
		     "%s returned with %zu of %zu saves answered and %zu still "
		     "pending", which, w->run.acked, w->run.n,
		     save_client_outstanding(w->lab.client));
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

/* ---- the batch size's range ------------------------------------------- */

/* Catches: a batch of 0 (an endless loop or a division by zero), or one
 * above SS_MAX_BATCH (digests written past r->digests[]), accepted; a
 * size checked after a cast to int (2^32 + 5 becomes 5); and a check made
 * only after some work was done.  Batches 0, SS_MAX_BATCH + 1, 2^32 + 5
 * (where size_t holds it) and SIZE_MAX return -1 with nothing hashed or
 * sent; the bounds themselves (1 and SS_MAX_BATCH) work. */
static void batch_sizes_outside_1_to_the_maximum_are_refused_untouched(void **state)
{
	static const size_t bad[] = {
		0, SS_MAX_BATCH + 1,
#if SIZE_MAX > UINT32_MAX
		((size_t)1 << 32) + 5,
#endif
		SIZE_MAX,
	};
	struct saveproto_stats st;
	struct world w;

	(void)state;
	world_start(&w, 5, 10, 3);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		int rc = ss_batched(&w.run, bad[k]);

		GRADE_EXPECT(rc == -1 && w.run.hashed == 0 && w.run.sent == 0,
			     "a batch outside 1 .. SS_MAX_BATCH (64): -1, nothing "
			     "hashed, nothing sent",
			     "batch %zu: returned %d after hashing %zu and sending "
			     "%zu", bad[k], rc, w.run.hashed, w.run.sent);
	}
	savelab_stats(&w.lab, &st);
	GRADE_EXPECT_INT(st.received, 0, "saves the server received for bad batches");
	run_ok(ss_batched(&w.run, SS_MAX_BATCH), "ss_batched(r, SS_MAX_BATCH)");
	ss_init(&w.run, w.lab.client, w.lab.hasher, 3, LINKS, w.lab.trace);
	run_ok(ss_batched(&w.run, 1), "ss_batched(r, 1), again on ids 0-2");
	world_free(&w);
}

/* ---- failures ---------------------------------------------------------- */

/* Fails unless the run returned -1, with every save it sent answered,
 * and stopped where it should: `hashed` items hashed at most. */
static void expect_failed_run(const struct world *w, int rc, const char *which,
			      size_t max_hashed)
{
	GRADE_EXPECT(rc == -1, "the run returns -1 when a step failed",
		     "%s returned %d (%zu stored, %zu failed)", which, rc,
		     w->run.acked, w->run.failed);
	GRADE_EXPECT(save_client_outstanding(w->lab.client) == 0,
		     "when it returns, every save it sent has its answer",
		     "%s returned with %zu saves still on their way", which,
		     save_client_outstanding(w->lab.client));
	GRADE_EXPECT(w->run.hashed <= max_hashed,
		     "the run stops at the failure (no more batches, no more "
		     "items)",
		     "%s hashed %zu items; it should stop after %zu", which,
		     w->run.hashed, max_hashed);
}

/* Batched, 12 items in batches of 4, the server answers 500 for id 6
 * (its --fail-ids): -1 after the second batch, nothing of 8-11 hashed. */
static void expect_500_stops_the_batches(void)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct saveproto_stats st;
	struct world w;

	o.delay_ms = 10;
	o.fail_ids = "6";
	world_start_with(&w, &o, 12);
	expect_failed_run(&w, ss_batched(&w.run, 4),
			  "ss_batched(r, 4) with save 6 answered 500", 8);
	savelab_stats(&w.lab, &st);
	GRADE_EXPECT(st.received == 8 && w.run.acked == 7,
		     "saves 0-7 sent once, 7 stored; nothing after",
		     "the server received %llu, %zu counted stored",
		     (unsigned long long)st.received, w.run.acked);
	world_free(&w);
}

/* Catches: a save the server refused (409) ignored — the run returns 0,
 * goes on, or sends it again and again.  Id 3 is stored first with
 * another digest, so the real server answers the lab's save of 3 with
 * 409.  Serial (9 items): -1 after item 3, its save sent once; batched (15
 * items, batches of 5): id 3 is in the first batch, so -1 once that
 * batch has its answers, nothing of items 5-14 hashed.  And the server's
 * own fault: a 500 for id 6, batches of 4. */
static void a_save_the_server_refuses_makes_the_run_return_minus_1(void **state)
{
	struct saveproto_stats st;
	struct world w;

	(void)state;
	world_start(&w, 10, 10, 9);
	savelab_conflict(&w.lab, 3);
	expect_failed_run(&w, ss_serial(&w.run), "ss_serial() with save 3 refused",
			  4);
	savelab_stats(&w.lab, &st);
	GRADE_EXPECT(st.conflicts == 1 && st.received == 5,
		     "save 3 sent once and refused; nothing sent after it",
		     "the server received %llu saves (the grader's own 1 "
		     "included), %llu of them for id 3 refused",
		     (unsigned long long)st.received,
		     (unsigned long long)st.conflicts);
	world_free(&w);
	world_start(&w, 10, 10, 15);
	savelab_conflict(&w.lab, 3);
	expect_failed_run(&w, ss_batched(&w.run, 5),
			  "ss_batched(r, 5) with save 3 refused", 5);
	GRADE_EXPECT(w.run.acked == 4 && w.run.failed == 1,
		     "4 stored, 1 failed (the refused save is not counted "
		     "stored)", "%zu stored, %zu failed", w.run.acked,
		     w.run.failed);
	world_free(&w);
	expect_500_stops_the_batches();
}

/* Catches: a save the client could not even queue (ss_send returned -1)
 * ignored, or the run returning before the saves already sent in the
 * same batch have their answers; and a hash that failed ignored (a save
 * of garbage sent).  Batched, 10 items in batches of 5, save 7 refused
 * at once: -1 once saves 5 and 6 are answered.  Serial, the hash of item
 * 2 fails: -1, saves 0 and 1 stored, nothing of item 2 sent; serial, save
 * 2 not queued: -1.  Batched, the hash of item 7 fails: -1 with batch 0-4
 * stored and nothing of batch 5-9 sent. */
static void a_save_not_queued_or_a_failed_hash_makes_the_run_return_minus_1(void **state)
{
	struct world w;

	(void)state;
	world_start(&w, 20, 10, 10);
	GRADE_EXPECT(savelab_faults_armed(), "the grader's fault injection is "
		     "linked in", "it is not (lab.mk's LDFLAGS)");
	savelab_refuse_save(7);
	expect_failed_run(&w, ss_batched(&w.run, 5),
			  "ss_batched(r, 5) with save 7 not queued", 10);
	GRADE_EXPECT(w.run.sent == 7 && w.run.acked == 7,
		     "saves 0-6 sent and stored (5 and 6 waited for), nothing "
		     "sent after the refused save 7",
		     "%zu sent, %zu stored", w.run.sent, w.run.acked);
	world_free(&w);
	world_start(&w, 10, 10, 6);
	savelab_fail_hash(2);
	expect_failed_run(&w, ss_serial(&w.run), "ss_serial() with hash 2 failing",
			  2);
	GRADE_EXPECT(w.run.sent == 2 && w.run.acked == 2,
		     "saves 0 and 1 sent and stored; nothing for item 2",
		     "%zu sent, %zu stored", w.run.sent, w.run.acked);
	world_free(&w);
	world_start(&w, 10, 10, 6);
	savelab_refuse_save(2);
	expect_failed_run(&w, ss_serial(&w.run),
			  "ss_serial() with save 2 not queued", 3);
	GRADE_EXPECT(w.run.sent == 2 && w.run.acked == 2,
		     "saves 0 and 1 stored, then -1 at save 2",
		     "%zu sent, %zu stored", w.run.sent, w.run.acked);
	world_free(&w);
	world_start(&w, 10, 10, 15);
	savelab_fail_hash(7);
	expect_failed_run(&w, ss_batched(&w.run, 5),
			  "ss_batched(r, 5) with hash 7 failing", 8);
	GRADE_EXPECT(w.run.sent == 5 && w.run.acked == 5,
		     "batch 0-4 stored; nothing of batch 5-9 sent (its item 7 "
		     "could not be hashed)", "%zu sent, %zu stored", w.run.sent,
		     w.run.acked);
	world_free(&w);
}

/* Catches: a run that hangs, or returns 0, when the server goes away
 * (killed right after item 3 is hashed): every save after that fails
 * (connection refused or closed), so the run returns -1 at the first of
 * them, within the client's timeout (3 s, scaled).  Serial, 9 items;
 * batched, 15 in batches of 5, the server exiting (--exit-after 7) when
 * save 8 arrives, in the second batch. */
static void a_run_ends_with_minus_1_when_the_server_goes_away(void **state)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct world w;

	(void)state;
	world_start(&w, 10, 10, 9);
	savelab_kill_server_after_hash(&w.lab, 3);
	expect_failed_run(&w, ss_serial(&w.run), "ss_serial(), server killed", 4);
	GRADE_EXPECT(w.run.acked == 3, "saves 0-2 stored, then the failure",
		     "%zu stored", w.run.acked);
	world_free(&w);
	o.delay_ms = 10;
	o.exit_after = 7;
	world_start_with(&w, &o, 15);
	expect_failed_run(&w, ss_batched(&w.run, 5),
			  "ss_batched(r, 5), the server exits at save 8", 10);
	savelab_read_log(&w.lab);
	/* Saves 5 and 6 may be answered before save 7 arrives and the
	 * server exits (under load the batch's saves can spread over more
	 * than the 10 ms delay): what counts is that exactly the stored
	 * saves are counted stored. */
	GRADE_EXPECT(w.run.acked == w.lab.n_recs && w.run.acked >= 5 &&
		     w.run.acked <= 7,
		     "batch 0-4 stored, then the failures of batch 5-9; counted "
		     "stored = what the server stored",
		     "%zu counted stored, %zu stored by the server", w.run.acked,
		     w.lab.n_recs);
	world_free(&w);
}

static const struct grade_test tests[] = {
	GRADE_TEST(serial_run_waits_for_each_reply_before_the_next_hash, 15,
		   10000,
		   "after each ss_send, ss_wait before you hash the next item"),
	GRADE_TEST(serial_run_saves_each_item_once_with_its_digest, 10, 10000,
		   "save item i under id i with the digest ss_hash gave for i"),
	GRADE_TEST(batched_run_sends_a_whole_batch_at_once, 15, 10000,
		   "send every save of the batch first, then ss_wait once"),
	GRADE_TEST(batched_run_sends_the_last_partial_batch_together, 8, 5000,
		   "when n is not a multiple of batch, the last items form a "
		   "smaller batch: send it too"),
	GRADE_TEST(batched_run_saves_each_item_once_with_its_digest, 12, 10000,
		   "keep each digest in its own r->digests[k]; send each batch "
		   "once"),
	GRADE_TEST(runs_end_only_after_every_save_is_acknowledged, 10, 10000,
		   "the last ss_send needs an ss_wait after it too"),
	GRADE_TEST(batch_sizes_outside_1_to_the_maximum_are_refused_untouched,
		   6, 5000,
		   "check 1 <= batch <= SS_MAX_BATCH first, before any work"),
	GRADE_TEST(a_save_the_server_refuses_makes_the_run_return_minus_1, 8,
		   5000,
		   "when ss_wait returns -1, return -1: do not go on, do not "
		   "send the save again"),
	GRADE_TEST(a_save_not_queued_or_a_failed_hash_makes_the_run_return_minus_1,
		   8, 5000,
		   "check ss_hash and ss_send too; after a failed ss_send, "
		   "still ss_wait for the saves already sent, then return -1"),
	GRADE_TEST(a_run_ends_with_minus_1_when_the_server_goes_away, 8, 8000,
		   "a save to a dead server fails: the run returns -1"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "ex06_serial_saves",
			  "serial saves, then batches", tests,
			  sizeof(tests) / sizeof(tests[0]));
}
