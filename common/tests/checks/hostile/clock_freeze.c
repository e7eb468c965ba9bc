/*
 * Hostile ex01 student file for make check (common/tests/checks/hostile.sh).
 * Defines clock_gettime to freeze time, then loops forever.
 * Expect: defines clock_gettime
 */
#include "round_robin.h"

#include <time.h>
int clock_gettime(clockid_t id, struct timespec *ts)
{
	(void)id;
	ts->tv_sec = 0;
	ts->tv_nsec = 0;
	return 0;
}

int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg, enum rr_mode mode)
{
	volatile unsigned long spin = 0;

	(void)task, (void)base, (void)step, (void)done, (void)arg, (void)mode;
	for (;;)
		spin++;
}

int rr_yield(struct rr_task *task)
{
	(void)task;
	return -1;
}

bool chatty_step(struct rr_task *task, void *arg)
{
	(void)task;
	(void)arg;
	return false;
}
