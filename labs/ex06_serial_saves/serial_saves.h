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
 * failure (a hash or a save).
 */
int ss_serial(struct ss_run *r);

/*
 * The batched version: hash `batch` items in order, keeping their digests
 * in r->digests[]; then send the whole batch and wait once for all its
 * answers; then the next batch.  The last batch holds what is left
 * (n % batch items, when n is not a multiple of batch).  When it returns,
 * every save has its answer.
 * @return 0 when all n items are hashed and stored; -1 on a failure or
 * when batch is not in 1 .. SS_MAX_BATCH.
 */
int ss_batched(struct ss_run *r, size_t batch);

#endif
