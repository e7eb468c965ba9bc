/*
 * A hostile ex01 student file for make check (common/tests/checks/hostile.sh)
 * that passes the seal (it calls only what a lab may call) and misbehaves
 * at run time; each graded test meets a different kind, and the runner
 * must contain every one and still grade every other lab.
 *
 *   two chatty tasks of 3 steps   -> segfault
 *   four chatty tasks of 4 steps  -> abort()
 *   chatty tasks of 5 steps       -> floods stdout
 *   RR_NO_YIELD                   -> allocates memory until refused
 *   a step that takes over 1 ms   -> loops forever, asleep (the heartbeat
 *                                    test's long task works 2 ms a step)
 *   any other step function       -> ends its task after one step
 *
 * One endless loop, not one in every test with a step function of its own:
 * each costs the runner's whole limit (5 s).  It sleeps: the limit is wall
 * time, so it stops a sleeping loop as it stops a spinning one, and a spin
 * took 5 s of CPU from the jobs beside it (hang.c spins, for Ctrl-C).
 */
#include "round_robin.h"

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void flood(void)
{
	for (;;)
		puts("all work and no yield makes the loop a dull loop");
}

/* Asks for 64 MiB at a time (never touched, so no real memory is used)
 * until the memory limit says no. */
static int hog(void)
{
	long mib = 0;

	while (malloc(64L << 20))
		mib += 64;
	fprintf(stderr, "allocation refused after %ld MiB\n", mib);
	return -1;
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void task_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rr_task *task = arg;
	rr_done_fn finish;
	long start;

	(void)fd;
	(void)what;
	if (task->step == chatty_step) {
		task->step(task, task->arg);
		return;
	}
	start = now_ns();
	task->step(task, task->arg);
	if (now_ns() - start > 1000000L)
		for (;;)
			nanosleep(&(struct timespec){ .tv_sec = 1 }, NULL);
	finish = task->done;
	event_free(task->ev);
	task->ev = NULL;
	if (finish)
		finish(task, task->arg);
}

int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg,
		  enum rr_mode mode)
{
	if (mode == RR_NO_YIELD)
		return hog();
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
