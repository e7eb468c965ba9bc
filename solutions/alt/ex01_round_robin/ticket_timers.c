/*
 * ex01 correct alternative — zero-delay timers as tickets, a FIFO as the
 * order.
 *
 * A zero-delay timer does make the loop poll before it fires, but timers
 * with equal deadlines leave libevent's heap in no fixed order.  So the
 * timer here says only "one yielded task may run now"; which task runs is
 * decided by a first-in, first-out queue of the tasks that yielded.  Every
 * yield queues the task and schedules one ticket (a zero-delay timer that
 * frees itself), and every ticket that fires runs the oldest queued task of
 * its base.
 */
#include "round_robin.h"

#include "trace.h"

#include <event2/event.h>
#include <stdlib.h>

struct waiting {
	struct rr_task *task;
	struct waiting *next;
};

/* Tasks that yielded and wait for a ticket, oldest first (any base). */
static struct waiting *queue_head;
static struct waiting **queue_tail = &queue_head;

static void queue_push(struct waiting *w)
{
	w->next = NULL;
	*queue_tail = w;
	queue_tail = &w->next;
}

/* Removes and returns the oldest waiting task of base, or NULL. */
static struct rr_task *queue_pop(struct event_base *base)
{
	for (struct waiting **link = &queue_head; *link; link = &(*link)->next) {
		struct waiting *w = *link;
		struct rr_task *task = w->task;

		if (task->base != base)
			continue;
		*link = w->next;
		if (queue_tail == &w->next)
			queue_tail = link;
		free(w);
		return task;
	}
	return NULL;
}

static void step_once_or_all(struct rr_task *task)
{
	bool more;

	if (task->mode == RR_NO_YIELD) {
		do {
			more = task->step(task, task->arg);
			task->steps++;
		} while (more);
	} else {
		more = task->step(task, task->arg);
		task->steps++;
	}
	if (more && task->yield(task) == 0)
		return;
	task->yield_failed = more;
	event_free(task->ev);
	task->ev = NULL;
	if (task->done)
		task->done(task, task->arg);
}

static void first_step_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	step_once_or_all(arg);
}

/* A ticket is a one-shot timer event that frees itself when it fires. */
static void ticket_cb(evutil_socket_t fd, short what, void *arg)
{
	struct event *ticket = arg;
	struct rr_task *task = queue_pop(event_get_base(ticket));

	(void)fd;
	(void)what;
	event_free(ticket);
	if (task)
		step_once_or_all(task);
}

int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg,
		  enum rr_mode mode)
{
	*task = (struct rr_task){
		.base = base, .step = step, .done = done, .arg = arg,
		.mode = mode, .yield = rr_yield,
	};
	task->ev = event_new(base, -1, 0, first_step_cb, task);
	if (!task->ev)
		return -1;
	event_active(task->ev, EV_TIMEOUT, 0);
	return 0;
}

int rr_yield(struct rr_task *task)
{
	static const struct timeval now = { 0, 0 };
	struct waiting *w = malloc(sizeof(*w));
	struct event *ticket = evtimer_new(task->base, ticket_cb,
					   event_self_cbarg());

	/* Not event_base_once: with a zero delay it activates at once, in
	 * this pass, without a poll.  A timer in the heap waits for one. */
	if (!w || !ticket || evtimer_add(ticket, &now) != 0) {
		free(w);
		if (ticket)
			event_free(ticket);
		return -1;
	}
	w->task = task;
	queue_push(w);
	return 0;
}

bool chatty_step(struct rr_task *task, void *arg)
{
	struct chatty *c = arg;

	(void)task;
	trace_add(c->trace, "%s%d", c->name, c->next);
	c->next += 1;
	return c->next < c->count;
}
