/*
 * ex01 — reference solution (instructors: drop-in for
 * labs/ex01_round_robin/round_robin.c).
 */
#include "round_robin.h"

#include "trace.h"

#include <event2/event.h>

/* done comes last: it may start the task again or free *task. */
static void finish(struct rr_task *task)
{
	event_free(task->ev);
	task->ev = NULL;
	if (task->done)
		task->done(task, task->arg);
}

static void task_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rr_task *task = arg;
	bool more;

	(void)fd;
	(void)what;
	do {
		more = task->step(task, task->arg);
		task->steps++;
	} while (more && task->mode == RR_NO_YIELD);

	if (!more)
		finish(task);
	else if (task->yield(task) != 0) {
		task->yield_failed = true;
		finish(task);
	}
}

int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg,
		  enum rr_mode mode)
{
	*task = (struct rr_task){
		.base = base, .step = step, .done = done, .arg = arg,
		.mode = mode, .yield = rr_yield,
	};
	task->ev = event_new(base, -1, 0, task_cb, task);
	if (!task->ev)
		return -1;
	/* Not a yield: the first step simply joins the current pass. */
	event_active(task->ev, EV_TIMEOUT, 0);
	return 0;
}

/*
 * event_active puts the task at the back of the active queue; the queue is
 * drained to the end before the next poll, so on its own that is no yield.
 * event_base_loopcontinue ends this pass after the current callback: the
 * loop polls (timeout 0, since something is active), appends what became
 * ready behind us, and starts a new pass with the oldest active event.
 */
int rr_yield(struct rr_task *task)
{
	if (event_base_loopcontinue(task->base) != 0)
		return -1;
	event_active(task->ev, EV_TIMEOUT, 0);
	return 0;
}

bool chatty_step(struct rr_task *task, void *arg)
{
	struct chatty *c = arg;

	(void)task;
	trace_add(c->trace, "%s%d", c->name, c->next);
	return ++c->next < c->count;
}
