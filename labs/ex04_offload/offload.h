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

/*
 * The promises above, each with the grader tests that hold the pool to it
 * (labs/ex04_offload/grade.c):
 *
 * Promise: offload_new returns NULL for fewer than 1 or more than 64
 * workers, when its doorbell event cannot be made, and when a worker
 * thread cannot be started, keeping nothing (the workers it did start are
 * gone); a pool of 64 works; offload_free(NULL) does nothing; offload_free
 * frees the pool itself too.  offload_submit with no memory either
 * refuses the job (-1, its done never comes) or accepts it (0, its done
 * comes once).
 *   [tests: pool_sizes_1_to_64_and_free_of_null]
 * Promise: done runs after its job's work has returned, with that job's
 * arg: each done sees its own, finished result; the pool's queues are
 * touched only under its lock, also when a worker pushes a finished job
 * while the loop takes the finished list (no data race: the
 * ThreadSanitizer rerun of make grade checks).
 *   [tests: jobs_produce_the_right_digests]
 * Promise: done runs on the loop thread, exactly once per job.
 *   [tests: completion_runs_on_the_loop_thread,
 *    thousand_tiny_jobs_get_exactly_a_thousand_callbacks]
 * Promise: done never runs inside offload_submit: only in a later pass of
 * the loop (or in offload_free).
 *   [tests: done_never_runs_inside_offload_submit]
 * Promise: work runs on a worker thread, never on the loop thread: the
 * loop keeps turning while the pool works (a heartbeat stays near idle
 * where the same work inline stalls it), and at shutdown too.
 *   [tests: offloaded_work_keeps_the_heartbeat_near_idle_while_inline_stalls,
 *    work_runs_on_a_worker_thread_even_at_shutdown]
 * Promise: n_workers threads take jobs, so up to n_workers jobs run at
 * once, and they take them in submission order.
 *   [tests: pool_runs_jobs_in_parallel_on_its_workers,
 *    workers_take_jobs_in_submission_order]
 * Promise: every finished job is delivered by the loop, however many
 * rings merged into one doorbell callback, and whenever the loop answers
 * a ring: a job is on the finished queue before its ring.
 *   [tests: thousand_tiny_jobs_get_exactly_a_thousand_callbacks,
 *    a_done_arrives_when_the_loop_answers_the_ring_at_once]
 * Promise: a job submitted to an idle pool starts at once: offload_submit
 * wakes a worker (no wake-up is lost, no worker polls).
 *   [tests: a_job_submitted_to_an_idle_pool_starts_promptly]
 * Promise: an idle pool uses no CPU: its workers sleep until woken.
 *   [tests: an_idle_pool_uses_no_cpu]
 * Promise: a worker woken with no job to take (another worker took it
 * first, or a broadcast) waits again; workers end only at offload_free.
 *   [tests: workers_wait_again_when_woken_with_no_job]
 * Promise: done may call offload_submit: dones run without the pool's
 * lock held.
 *   [tests: jobs_submitted_from_a_completion_run_too]
 * Promise: offload_free runs every job submitted before it, calls each
 * undelivered done exactly once on the calling thread, and returns with
 * no worker left waiting (idle workers are woken), free of data races.
 *   [tests: shutdown_with_jobs_in_flight_finishes_them_and_returns]
 * Promise: once offload_free has begun, offload_submit returns -1 (also
 * from a done that offload_free delivers) and keeps nothing of the job.
 *   [tests: submit_during_shutdown_is_refused_and_leaks_nothing]
 * Promise: nothing leaks: every job is freed after its done, the doorbell
 * event with the pool (counted in the plain build: libevent's live blocks
 * and the heap in use); offload_free frees the pool last, using nothing of
 * it afterwards (its lock and condition variable are destroyed first).
 *   [tests: a_freed_pool_leaves_no_event_and_no_job_behind]
 */

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
