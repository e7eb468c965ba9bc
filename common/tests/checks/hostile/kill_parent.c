/*
 * Hostile ex01 student file for make check (common/tests/checks/hostile.sh).
 * Kills the process that started the test.
 * Expect: kill
 */
#include "round_robin.h"

#include <signal.h>
#include <unistd.h>
int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg, enum rr_mode mode)
{
	(void)task, (void)base, (void)step, (void)done, (void)arg, (void)mode;
	kill(getppid(), SIGKILL);
	return 0;
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
