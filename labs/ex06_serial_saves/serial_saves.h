/* ex06 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * serial_saves: hash items and save each result to the save server, the
 * plain way — and then in batches.
 *
 * A run hashes items 0 .. n-1 (SHA-256 chains, common/hashwork) and saves
 * item i's digest under id i on the save server (common/saveserver), which
 * answers each save after its delay.  The provided functions below are the
 * three steps of every version:
 *
 *   ss_hash(r, i, hex)   the CPU work: item i's digest, as hex
 *   ss_send(r, i, hex)   queues the save of id i; returns at once
 *   ss_wait(r)           runs the event loop until every save sent so far
 *                        has its answer: the C spelling of `await`
 *
 * Nothing leaves while the program hashes: ss_send only queues, and the
 * loop (which writes requests and reads answers) turns only inside
 * ss_wait.  So a version that waits after every save pays the server's
 * delay n times over, and a version that sends a batch before it waits
 * pays it once per batch.
 */
#ifndef EX06_SERIAL_SAVES_H
#define EX06_SERIAL_SAVES_H

#include "hashwork.h"

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct save_client;
struct trace;

/* Room for one digest as text: 64 hex digits and a NUL. */
#define SS_HEX_SIZE (HASHWORK_HEX_LEN + 1)

/* The largest batch ss_batched() is asked for. */
#define SS_MAX_BATCH 64

struct ss_run {
	/* what to do (set by the caller) */
	struct save_client *client;   /* the saves go here (not owned) */
	struct hashwork *hasher;      /* (not owned) */
	size_t n;                     /* items 0 .. n-1; item i is saved as id i */
	uint64_t links;               /* SHA-256 links per item
					 (hashwork_item_links); the programs
					 get it from hashwork_calibrate(), so
					 an item takes a set time */
	struct trace *trace;          /* may be NULL: ss_hash records "h<i>"
					 when item i's hash is complete */
	/* room for one batch of digests, for ss_batched() */
	char digests[SS_MAX_BATCH][SS_HEX_SIZE];
	/* kept by the provided functions */
	size_t hashed;                /* ss_hash calls that succeeded */
	size_t sent;                  /* saves queued by ss_send */
	size_t acked, failed;         /* saves answered: stored / failed */
	int64_t hash_ns;              /* time spent inside ss_hash */
};

/* ---- provided (ss_work.c) ------------------------------------------------ */

/*
 * Prepares *r for a run (counters zeroed, digests cleared).  client and
 * hasher are not owned; trace may be NULL.
 */
void ss_init(struct ss_run *r, struct save_client *client,
	     struct hashwork *hasher, size_t n, uint64_t links,
	     struct trace *trace);

/*
 * Hashes item i (r->links links) into hex (64 hex digits and a NUL), then
 * records "h<i>" in r->trace.  Counts r->hashed and r->hash_ns.
 * @return 0, or -1 when libcrypto fails.
 */
int ss_hash(struct ss_run *r, size_t i, char hex[SS_HEX_SIZE]);

/*
 * Queues the save of id i with digest hex (copied: hex may be reused at
 * once) and returns at once; the request leaves when the loop turns (in
 * ss_wait).  Its answer adds one to r->acked, or to r->failed.
 * @return 0 if queued, -1 if not (then it counts in r->failed).
 */
int ss_send(struct ss_run *r, size_t i, const char *hex);

/*
 * Runs the event loop until every save queued so far has its answer.
 * @return 0 if every one of them was stored, -1 if some failed.
 */
int ss_wait(struct ss_run *r);

/* ---- yours (serial_saves.c) ---------------------------------------------- */

/*
 * The serial version: for each item in order, hash it, send its save and
 * wait for that save's answer before the next hash.  The server never
 * holds two saves of this run at once.
 * @return 0 when all n items are hashed and stored, -1 on the first
 * failure (a hash, a save that cannot be queued, a save that fails):
 * nothing is hashed or sent after it.
 *
 * Promise: items are hashed in order and each save is sent, and answered,
 *   before the next item is hashed — for every item, the last one too;
 *   the server never holds two saves of the run at once.
 *   [tests: serial_run_waits_for_each_reply_before_the_next_hash]
 * Promise: item i is saved once, under id i, with ss_hash's digest of i.
 *   [tests: serial_run_saves_each_item_once_with_its_digest]
 * Promise: it returns 0 only once every save has its answer (stored).
 *   [tests: runs_end_only_after_every_save_is_acknowledged]
 * Promise: a save the server refuses, a save that cannot be queued, a
 *   hash that fails, or a server that went away makes it return -1 at
 *   that item: the failed save is not counted stored nor sent again, and
 *   no later item is hashed.
 *   [tests: a_save_the_server_refuses_makes_the_run_return_minus_1,
 *   a_save_not_queued_or_a_failed_hash_makes_the_run_return_minus_1,
 *   a_run_ends_with_minus_1_when_the_server_goes_away]
 */
int ss_serial(struct ss_run *r);

/*
 * The batched version: hash `batch` items in order, keeping their digests
 * in r->digests[]; then send the whole batch and wait once for all its
 * answers; then the next batch.  The last batch holds what is left
 * (n % batch items, when n is not a multiple of batch).  When it returns,
 * every save has its answer.
 * @return 0 when all n items are hashed and stored; -1 when batch is not
 * in 1 .. SS_MAX_BATCH (then nothing is hashed or sent), or on the first
 * failure (a hash, a save that cannot be queued, a save that fails): the
 * saves already sent are waited for, and no further batch starts.
 *
 * Promise: a batch's saves are all sent before the one wait for their
 *   answers, and the next batch is hashed only after those answers.
 *   [tests: batched_run_sends_a_whole_batch_at_once]
 * Promise: the items left over (n % batch) form a last batch that goes
 *   out together, like every batch, after the batch before it.
 *   [tests: batched_run_sends_the_last_partial_batch_together]
 * Promise: item i is saved once, under id i, with its own digest (each
 *   digest of a batch kept in its own r->digests[k]).
 *   [tests: batched_run_saves_each_item_once_with_its_digest]
 * Promise: when it returns, every save it sent has its answer — at the
 *   end, and after a failure too.
 *   [tests: runs_end_only_after_every_save_is_acknowledged,
 *   a_save_not_queued_or_a_failed_hash_makes_the_run_return_minus_1]
 * Promise: a batch of 0 or above SS_MAX_BATCH returns -1 and touches
 *   nothing (no hash, no save); 1 and SS_MAX_BATCH work.
 *   [tests: batch_sizes_outside_1_to_the_maximum_are_refused_untouched]
 * Promise: a save the server refuses, a save that cannot be queued, a
 *   hash that fails, or a server that went away makes it return -1, with
 *   the failed save not counted stored nor sent again, and no batch after.
 *   [tests: a_save_the_server_refuses_makes_the_run_return_minus_1,
 *   a_save_not_queued_or_a_failed_hash_makes_the_run_return_minus_1,
 *   a_run_ends_with_minus_1_when_the_server_goes_away]
 */
int ss_batched(struct ss_run *r, size_t batch);

#endif
