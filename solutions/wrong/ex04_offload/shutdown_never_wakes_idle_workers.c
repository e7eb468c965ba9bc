/*
 * ex04 wrong solution — sets stopping but wakes no worker: a worker
 * already waiting on the condition sleeps on, and its join never returns.
 * Caught by: shutdown_with_jobs_in_flight_finishes_them_and_returns
 */
#include "offload.h"

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

/* ---- the pool ------------------------------------------------------------ */

/* Blocks until there is a job or the pool stops.  @return the job, or NULL
 * once the pool is stopping and nothing is left to do. */
static struct job *take_job(struct offload *pool)
{
	struct job *job;

	pthread_mutex_lock(&pool->lock);
	while (!pool->todo.head && !pool->stopping)
		pthread_cond_wait(&pool->wake, &pool->lock);
	job = queue_pop(&pool->todo);
	pthread_mutex_unlock(&pool->lock);
	return job;
}

static void *worker_main(void *arg)
{
	struct offload *pool = arg;
	struct job *job;

	while ((job = take_job(pool))) {
		job->work(job->arg);
		pthread_mutex_lock(&pool->lock);
		queue_push(&pool->finished, job);
		pthread_mutex_unlock(&pool->lock);
		/* A doorbell, not a queue: rings while the event is already
		 * active merge into one callback, so that callback must take
		 * every finished job, not one. */
		event_active(pool->doorbell, EV_READ, 0);
	}
	return NULL;
}

static void doorbell_cb(evutil_socket_t fd, short what, void *arg)
{
	struct offload *pool = arg;
	struct job *list;

	(void)fd;
	(void)what;
	pthread_mutex_lock(&pool->lock);
	list = queue_take_all(&pool->finished);
	pthread_mutex_unlock(&pool->lock);
	/* Unlocked: a done may submit, and submitting takes the lock. */
	run_dones(list);
}

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

int offload_submit(struct offload *pool, offload_work_fn work,
		   offload_done_fn done, void *arg)
{
	struct job *job = malloc(sizeof(*job));
	int rc = -1;

	if (!job)
		return -1;
	*job = (struct job){ .work = work, .done = done, .arg = arg };
	pthread_mutex_lock(&pool->lock);
	if (!pool->stopping) {
		queue_push(&pool->todo, job);
		pthread_cond_signal(&pool->wake);
		rc = 0;
	}
	pthread_mutex_unlock(&pool->lock);
	if (rc != 0)
		free(job);
	return rc;
}

void offload_free(struct offload *pool)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stopping = true;
	pthread_mutex_unlock(&pool->lock);
	for (int i = 0; i < pool->n_workers; i++)
		pthread_join(pool->workers[i], NULL);
	/* The workers drained todo before they ended; what they finished
	 * and the loop has not delivered yet is delivered here. */
	if (pool->doorbell)
		event_free(pool->doorbell);
	run_dones(queue_take_all(&pool->finished));
	pthread_cond_destroy(&pool->wake);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}
