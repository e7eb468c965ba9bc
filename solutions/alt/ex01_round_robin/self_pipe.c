/*
 * ex01 correct alternative — the yield goes through the poller itself.
 *
 * Each task owns a non-blocking pipe, and its event waits for the pipe to
 * be readable.  To yield, the task writes one byte to its own pipe: the
 * loop can only see that byte by polling, so every step is preceded by a
 * poll, and epoll reports the pipes in the order they became ready, which
 * keeps the tasks first-in, first-out.  Costs two file descriptors per task
 * and a write and a read per step.
 */
#include "round_robin.h"

#include "trace.h"

#include <event2/event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

struct piped {
	struct rr_task *task;
	int rd, wr;
};

static struct piped *piped_of(const struct rr_task *task)
{
	return event_get_callback_arg(task->ev);
}

static void drain(int fd)
{
	char buf[16];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static void end_task(struct rr_task *task, bool yield_failed)
{
	struct piped *p = piped_of(task);
	rr_done_fn done = task->done;
	void *arg = task->arg;

	event_free(task->ev);
	close(p->rd);
	close(p->wr);
	free(p);
	task->ev = NULL;
	task->yield_failed = yield_failed;
	if (done)
		done(task, arg);
}

/* @return whether more steps remain after this callback's steps. */
static bool run_steps(struct rr_task *task)
{
	for (;;) {
		bool more = task->step(task, task->arg);

		task->steps++;
		if (!more || task->mode == RR_YIELD)
			return more;
	}
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct rr_task *task = ((struct piped *)arg)->task;

	(void)what;
	drain(fd);
	if (!run_steps(task))
		end_task(task, false);
	else if (task->yield(task) != 0)
		end_task(task, true);
}

int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg,
		  enum rr_mode mode)
{
	struct piped *p = malloc(sizeof(*p));
	int fds[2];

	*task = (struct rr_task){ .base = base, .step = step, .done = done,
				  .arg = arg, .mode = mode, .yield = rr_yield };
	if (!p)
		return -1;
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
		free(p);
		return -1;
	}
	*p = (struct piped){ .task = task, .rd = fds[0], .wr = fds[1] };
	task->ev = event_new(base, p->rd, EV_READ | EV_PERSIST, on_readable, p);
	if (!task->ev || event_add(task->ev, NULL) != 0 || rr_yield(task) != 0) {
		if (task->ev)
			event_free(task->ev);
		task->ev = NULL;
		close(p->rd);
		close(p->wr);
		free(p);
		return -1;
	}
	return 0;
}

int rr_yield(struct rr_task *task)
{
	return write(piped_of(task)->wr, "y", 1) == 1 ? 0 : -1;
}

bool chatty_step(struct rr_task *task, void *arg)
{
	struct chatty *c = arg;
	int i = c->next++;

	(void)task;
	trace_add(c->trace, "%s%d", c->name, i);
	return c->next < c->count;
}
