/*
 * ex04 — THE FILE YOU EDIT.  Read README.md in this folder first.
 *
 * Four parts, each marked TODO.  `make grade LAB=ex04` tells you which
 * behaviours work; `make hint LAB=ex04` gives a hint when you are stuck.
 */
#include "offload.h"

#include "stub.h"

#include <event2/event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

/* ---- provided: jobs and a FIFO of them ----------------------------------- */

struct job {
	offload_work_fn work;
	offload_done_fn done;
	void *arg;
	struct job *next;
};

struct job_queue {
	struct job *head, *tail;
};

static inline void queue_push(struct job_queue *q, struct job *job)
{
	job->next = NULL;
	if (q->tail)
		q->tail->next = job;
	else
		q->head = job;
	q->tail = job;
}

/* @return the oldest job, or NULL when the queue is empty. */
static inline struct job *queue_pop(struct job_queue *q)
{
	struct job *job = q->head;

	if (job) {
		q->head = job->next;
		if (!q->head)
			q->tail = NULL;
	}
	return job;
}

/* Empties the queue.  @return its jobs as a list linked by next, oldest
 * first (NULL if it was empty). */
static inline struct job *queue_take_all(struct job_queue *q)
{
	struct job *list = q->head;

	q->head = q->tail = NULL;
	return list;
}

/* Calls the done of every job of a list (on the calling thread) and frees
 * the jobs. */
static inline void run_dones(struct job *list)
{
	while (list) {
		struct job *next = list->next;

		if (list->done)
			list->done(list->arg);
		free(list);
		list = next;
	}
}

struct offload {
	struct event_base *base;
	struct event *doorbell;     /* rung by workers, handled on the loop */
	pthread_mutex_t lock;       /* guards todo, finished and stopping */
	pthread_cond_t wake;        /* a job was queued, or stopping was set */
	struct job_queue todo;      /* submitted, not yet taken by a worker */
	struct job_queue finished;  /* worked, waiting for done on the loop */
	bool stopping;
	int n_workers;              /* threads started */
	pthread_t workers[];
};

/* ---- the pool: yours ------------------------------------------------------ */

/*
 * TODO 1: a worker.  Until the pool stops and no job is left: wait on
 * pool->wake for a job in pool->todo (under pool->lock), run its work
 * WITHOUT holding the lock, append it to pool->finished, and ring the
 * doorbell (event_active) so the loop thread delivers it.  Note the order:
 * a ring the loop can answer before the result is there is no use.
 */
static void *worker_main(void *arg)
{
	(void)arg;
	/* (the helpers above are yours to use; this quiets clang until then) */
	(void)queue_push;
	(void)queue_pop;
	(void)queue_take_all;
	(void)run_dones;
	STUB_NOT_IMPLEMENTED();
	return NULL;
}

/*
 * TODO 2: the doorbell's callback, on the loop thread.  Several rings can
 * arrive as ONE callback (see README.md, "Why"): deliver every finished
 * job, and call the done callbacks without holding the lock.
 */
static void doorbell_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	STUB_NOT_IMPLEMENTED();
}

/* Provided: creates the pool, its doorbell event and its workers. */
struct offload *offload_new(struct event_base *base, int n_workers)
{
	struct offload *pool;

	if (n_workers < 1 || n_workers > 64)
		return NULL;
	pool = calloc(1, sizeof(*pool) + (size_t)n_workers * sizeof(pthread_t));
	if (!pool)
		return NULL;
	pool->base = base;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->wake, NULL);
	pool->doorbell = event_new(base, -1, 0, doorbell_cb, pool);
	if (!pool->doorbell) {
		offload_free(pool);
		return NULL;
	}
	for (int i = 0; i < n_workers; i++) {
		if (pthread_create(&pool->workers[i], NULL, worker_main, pool)) {
			offload_free(pool);
			return NULL;
		}
		pool->n_workers++;
	}
	return pool;
}

/* TODO 3: queue a job (malloc a struct job) and wake one worker.  Refuse
 * (return -1) once the pool is stopping. */
int offload_submit(struct offload *pool, offload_work_fn work,
		   offload_done_fn done, void *arg)
{
	(void)pool;
	(void)work;
	(void)done;
	(void)arg;
	STUB_NOT_IMPLEMENTED();
	return -1;
}

/*
 * TODO 4: shut down.  Set stopping and wake EVERY worker; join them all
 * (they finish the jobs still queued first); free the doorbell; deliver
 * the finished jobs the loop has not delivered yet; free everything.
 * pool may be only partly built (offload_new calls this on failure).
 */
void offload_free(struct offload *pool)
{
	(void)pool;
	STUB_NOT_IMPLEMENTED();
}
