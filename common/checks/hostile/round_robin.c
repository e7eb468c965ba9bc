/*
 * A hostile ex01 student file for make check (common/checks/hostile.sh):
 * each graded test meets a different kind of misbehaviour, and the harness
 * must contain every one and still grade every other lab.
 *
 *   two chatty tasks of 3 steps   -> segfault
 *   four chatty tasks of 4 steps  -> abort()
 *   chatty tasks of 5 steps       -> forks a sleeper, then floods stdout
 *   RR_NO_YIELD                   -> exit(0) in the middle of the test
 *   any other step function       -> scribbles over results.json, then
 *                                    loops forever
 */
#include "round_robin.h"

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void scribble_results(void)
{
	const char *out = getenv("YIELDLAB_GRADE_OUT");
	char path[4096];
	FILE *f;

	if (!out)
		return;
	snprintf(path, sizeof(path), "%s/results.json", out);
	f = fopen(path, "w");
	if (f) {
		fputs("{ not json at all", f);
		fclose(f);
	}
}

static void flood(void)
{
	if (fork() == 0) {
		execlp("sleep", "sleep", "3601", (char *)NULL);
		_exit(0);
	}
	for (;;)
		puts("all work and no yield makes the loop a dull loop");
}

static void task_cb(evutil_socket_t fd, short what, void *arg)
{
	volatile unsigned long spin = 0;
	struct rr_task *task = arg;

	(void)fd;
	(void)what;
	if (task->step != chatty_step) {
		scribble_results();
		for (;;)
			spin++;
	}
	task->step(task, task->arg);
}

int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg,
		  enum rr_mode mode)
{
	if (mode == RR_NO_YIELD)
		exit(0);
	*task = (struct rr_task){ .base = base, .step = step, .done = done,
				  .arg = arg, .mode = mode, .yield = rr_yield };
	task->ev = event_new(base, -1, 0, task_cb, task);
	event_active(task->ev, EV_TIMEOUT, 0);
	return 0;
}

int rr_yield(struct rr_task *task)
{
	(void)task;
	return 0;
}

bool chatty_step(struct rr_task *task, void *arg)
{
	struct chatty *c = arg;
	volatile int *nowhere = NULL;

	(void)task;
	if (c->count == 3)
		*nowhere = 1;
	if (c->count == 4)
		abort();
	if (c->count == 5)
		flood();
	return false;
}
