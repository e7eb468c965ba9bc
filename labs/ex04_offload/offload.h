/* ex04 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * offload: a small pool of worker threads for work that cannot yield.
 *
 * One long library call (SHA-256 of 32 MiB is one EVP_Digest call, ~25 ms)
 * has no loop inside it to put a yield in: run on the loop thread it stalls
 * every timer and socket for its whole length.  The pool runs such work on
 * worker threads and hands each result back to the loop thread, where the
 * job's done callback runs like any other callback.
 *
 * Threads: the base must be created with evbase_new(... | EVBASE_THREADS),
 * so that a worker's event_active() wakes the loop.  The pool's functions
 * are called on the loop thread: the thread that runs event_base_loop()
 * on the base (offload_submit may also be called from inside done).
 */
#ifndef EX04_OFFLOAD_H
#define EX04_OFFLOAD_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct offload;

/* The work of a job: runs on a worker thread, never on the loop thread. */
typedef void (*offload_work_fn)(void *arg);

/* The completion of a job: runs on the loop thread, once, after its work. */
typedef void (*offload_done_fn)(void *arg);

/*
 * Starts n_workers (1..64) worker threads that take jobs in submission
 * order, and a doorbell event on base through which they hand finished jobs
 * back.  @return the pool, owned by the caller (offload_free), or NULL on
 * failure (bad n_workers, out of memory, no thread).
 */
struct offload *offload_new(struct event_base *base, int n_workers);

/*
 * Queues a job: work(arg) runs on some worker; then done(arg) runs on the
 * loop thread, in a later pass of the loop (never inside offload_submit).
 * arg is not owned by the pool.  @return 0, or -1 (out of memory, or the
 * pool is shutting down).
 */
int offload_submit(struct offload *pool, offload_work_fn work,
		   offload_done_fn done, void *arg);

/*
 * Shuts the pool down and frees it.  Every job submitted before the call
 * still runs; offload_free waits for the work, then calls each job's done
 * that has not run yet, on the calling thread, exactly once, and returns
 * with no thread left running.  Call it on the loop thread, not from
 * inside a done callback.  NULL is a no-op.
 */
void offload_free(struct offload *pool);

/* ---- provided (hashjob.c): the work the program and the grader offload -- */

/* SHA-256 of len bytes at buf (not owned), in one library call. */
struct hash_job {
	const uint8_t *buf;
	size_t len;
	uint8_t digest[32];     /* the result, written by the work */
	int64_t work_end_ns;    /* clock_monotonic_ns() when the work ended */
	int status;             /* 0, or -1 if libcrypto failed */
};

/* An offload_work_fn: arg is a struct hash_job. */
void hash_job_work(void *arg);

#endif
