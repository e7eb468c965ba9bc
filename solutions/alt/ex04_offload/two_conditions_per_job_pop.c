/*
 * ex04 correct alternative — two condition variables (one wakes workers
 * for work, one tells offload_free that every worker has left), a count
 * of live workers, signals sent after the unlock, and a doorbell callback
 * that pops finished jobs one by one, dropping the lock around each done.
 */
#include "offload.h"

#include <event2/event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct job {
	offload_work_fn work;
	offload_done_fn done;
	void *arg;
	struct job *next;
};

/* A FIFO kept as a pointer to the last job's next field. */
struct fifo {
	struct job *first;
	struct job **end;
};

static void fifo_init(struct fifo *f)
{
	f->first = NULL;
	f->end = &f->first;
}

static void fifo_add(struct fifo *f, struct job *job)
{
	job->next = NULL;
	*f->end = job;
	f->end = &job->next;
}

static struct job *fifo_get(struct fifo *f)
{
	struct job *job = f->first;

	if (job) {
		f->first = job->next;
		if (!f->first)
			f->end = &f->first;
	}
	return job;
}

struct offload {
	struct event_base *base;
	struct event *doorbell;
	pthread_mutex_t m;
	pthread_cond_t work_cv;     /* todo gained a job, or stop was set */
	pthread_cond_t gone_cv;     /* a worker left (live went down) */
	struct fifo todo, finished;
	bool stop;
	int live;                   /* workers that have not left yet */
	int n;
	pthread_t tid[];
};

static void *worker_loop(void *arg)
{
	struct offload *pool = arg;

	pthread_mutex_lock(&pool->m);
	for (;;) {
		struct job *job;

		while (!pool->todo.first && !pool->stop)
			pthread_cond_wait(&pool->work_cv, &pool->m);
		job = fifo_get(&pool->todo);
		if (!job)
			break;
		pthread_mutex_unlock(&pool->m);
		job->work(job->arg);
		pthread_mutex_lock(&pool->m);
		fifo_add(&pool->finished, job);
		/* Ringing with the lock held is fine: the loop takes the job
		 * only once we let go. */
		event_active(pool->doorbell, EV_READ, 0);
	}
	pool->live--;
	pthread_mutex_unlock(&pool->m);
	pthread_cond_signal(&pool->gone_cv);
	return NULL;
}

/* Pops and delivers until finished is empty. */
static void drain_finished(struct offload *pool)
{
	struct job *job;

	pthread_mutex_lock(&pool->m);
	while ((job = fifo_get(&pool->finished))) {
		pthread_mutex_unlock(&pool->m);
		if (job->done)
			job->done(job->arg);
		free(job);
		pthread_mutex_lock(&pool->m);
	}
	pthread_mutex_unlock(&pool->m);
}

static void on_doorbell(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	drain_finished(arg);
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
	fifo_init(&pool->todo);
	fifo_init(&pool->finished);
	pthread_mutex_init(&pool->m, NULL);
	pthread_cond_init(&pool->work_cv, NULL);
	pthread_cond_init(&pool->gone_cv, NULL);
	pool->doorbell = event_new(base, -1, 0, on_doorbell, pool);
	if (!pool->doorbell) {
		offload_free(pool);
		return NULL;
	}
	for (int i = 0; i < n_workers; i++) {
		pthread_mutex_lock(&pool->m);
		pool->live++;
		pthread_mutex_unlock(&pool->m);
		if (pthread_create(&pool->tid[i], NULL, worker_loop, pool)) {
			pthread_mutex_lock(&pool->m);
			pool->live--;
			pthread_mutex_unlock(&pool->m);
			offload_free(pool);
			return NULL;
		}
		pool->n++;
	}
	return pool;
}

int offload_submit(struct offload *pool, offload_work_fn work,
		   offload_done_fn done, void *arg)
{
	struct job *job;
	bool stopped;

	pthread_mutex_lock(&pool->m);
	stopped = pool->stop;
	pthread_mutex_unlock(&pool->m);
	if (stopped)
		return -1;     /* nothing allocated yet */
	job = malloc(sizeof(*job));
	if (!job)
		return -1;
	job->work = work;
	job->done = done;
	job->arg = arg;
	pthread_mutex_lock(&pool->m);
	fifo_add(&pool->todo, job);
	pthread_mutex_unlock(&pool->m);
	pthread_cond_signal(&pool->work_cv);
	return 0;
}

void offload_free(struct offload *pool)
{
	if (pool == NULL)
		return;
	pthread_mutex_lock(&pool->m);
	pool->stop = true;
	pthread_mutex_unlock(&pool->m);
	pthread_cond_broadcast(&pool->work_cv);
	pthread_mutex_lock(&pool->m);
	while (pool->live > 0)
		pthread_cond_wait(&pool->gone_cv, &pool->m);
	pthread_mutex_unlock(&pool->m);
	for (int i = 0; i < pool->n; i++)
		pthread_join(pool->tid[i], NULL);
	if (pool->doorbell)
		event_free(pool->doorbell);
	drain_finished(pool);
	pthread_cond_destroy(&pool->gone_cv);
	pthread_cond_destroy(&pool->work_cv);
	pthread_mutex_destroy(&pool->m);
	free(pool);
}
