/*
 * ex04 correct alternative — a self-pipe doorbell (asyncio's way: a byte
 * per ring, a persistent read event on the loop) instead of event_active,
 * and a growable ring buffer of job pointers instead of linked lists.
 */
#include "offload.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct job {
	offload_work_fn work;
	offload_done_fn done;
	void *arg;
};

/* A FIFO of job pointers in a circular array that doubles when full. */
struct ring {
	struct job **slot;
	size_t cap, head, len;
};

static bool ring_put(struct ring *r, struct job *job)
{
	if (r->len == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct job **slot = malloc(cap * sizeof(*slot));

		if (!slot)
			return false;
		for (size_t i = 0; i < r->len; i++)
			slot[i] = r->slot[(r->head + i) % r->cap];
		free(r->slot);
		r->slot = slot;
		r->cap = cap;
		r->head = 0;
	}
	r->slot[(r->head + r->len++) % r->cap] = job;
	return true;
}

static struct job *ring_take(struct ring *r)
{
	struct job *job;

	if (r->len == 0)
		return NULL;
	job = r->slot[r->head];
	r->head = (r->head + 1) % r->cap;
	r->len--;
	return job;
}

struct offload {
	struct event_base *base;
	struct event *bell_ev;      /* EV_READ | EV_PERSIST on bell[0] */
	int bell[2];                /* workers write a byte to bell[1] */
	pthread_mutex_t mu;
	pthread_cond_t has_work;
	struct ring todo, done_q;
	bool closing;
	int started;
	pthread_t thread[];
};

static void ring_bell(struct offload *p)
{
	char b = 1;

	/* Full pipe (EAGAIN): the loop has bytes to read already. */
	while (write(p->bell[1], &b, 1) < 0 && errno == EINTR)
		;
}

static void *worker(void *arg)
{
	struct offload *p = arg;

	for (;;) {
		struct job *job;
		bool queued;

		pthread_mutex_lock(&p->mu);
		while (p->todo.len == 0 && !p->closing)
			pthread_cond_wait(&p->has_work, &p->mu);
		job = ring_take(&p->todo);
		pthread_mutex_unlock(&p->mu);
		if (!job)
			return NULL;
		job->work(job->arg);
		pthread_mutex_lock(&p->mu);
		queued = ring_put(&p->done_q, job);
		pthread_mutex_unlock(&p->mu);
		if (queued)
			ring_bell(p);
		else
			abort();   /* out of memory with a result in hand */
	}
}

/* Delivers every job on done_q, one at a time, the lock not held. */
static void deliver(struct offload *p)
{
	for (;;) {
		struct job *job;

		pthread_mutex_lock(&p->mu);
		job = ring_take(&p->done_q);
		pthread_mutex_unlock(&p->mu);
		if (!job)
			return;
		if (job->done)
			job->done(job->arg);
		free(job);
	}
}

static void bell_cb(evutil_socket_t fd, short what, void *arg)
{
	char buf[256];

	(void)what;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	deliver(arg);
}

static int open_bell(struct offload *p)
{
	if (pipe(p->bell) != 0)
		return -1;
	for (int i = 0; i < 2; i++)
		fcntl(p->bell[i], F_SETFL, fcntl(p->bell[i], F_GETFL) | O_NONBLOCK);
	p->bell_ev = event_new(p->base, p->bell[0], EV_READ | EV_PERSIST,
			       bell_cb, p);
	if (!p->bell_ev || event_add(p->bell_ev, NULL) != 0)
		return -1;
	return 0;
}

struct offload *offload_new(struct event_base *base, int n_workers)
{
	struct offload *p;

	if (n_workers < 1 || n_workers > 64)
		return NULL;
	p = calloc(1, sizeof(*p) + (size_t)n_workers * sizeof(pthread_t));
	if (!p)
		return NULL;
	p->base = base;
	p->bell[0] = p->bell[1] = -1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->has_work, NULL);
	if (open_bell(p) != 0) {
		offload_free(p);
		return NULL;
	}
	for (; p->started < n_workers; p->started++)
		if (pthread_create(&p->thread[p->started], NULL, worker, p)) {
			offload_free(p);
			return NULL;
		}
	return p;
}

int offload_submit(struct offload *p, offload_work_fn work,
		   offload_done_fn done, void *arg)
{
	struct job *job = malloc(sizeof(*job));
	bool queued = false;

	if (!job)
		return -1;
	*job = (struct job){ work, done, arg };
	pthread_mutex_lock(&p->mu);
	if (!p->closing && ring_put(&p->todo, job)) {
		queued = true;
		pthread_cond_signal(&p->has_work);
	}
	pthread_mutex_unlock(&p->mu);
	if (!queued)
		free(job);
	return queued ? 0 : -1;
}

void offload_free(struct offload *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->closing = true;
	pthread_cond_broadcast(&p->has_work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->started; i++)
		pthread_join(p->thread[i], NULL);
	if (p->bell_ev)
		event_free(p->bell_ev);
	for (int i = 0; i < 2; i++)
		if (p->bell[i] >= 0)
			close(p->bell[i]);
	deliver(p);
	free(p->todo.slot);
	free(p->done_q.slot);
	pthread_cond_destroy(&p->has_work);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
