/*
 * Hostile ex01 student file for make check (common/tests/checks/hostile.sh).
 * A grandchild in its own session rewrites results.json after grading.
 * Expect: fork
 */
#include "round_robin.h"

#include <stdio.h>
#include <unistd.h>
static void rewrite_later(void)
{
	FILE *f;

	sleep(5);
	f = fopen("build/grade/results.json", "w");
	if (f) {
		fputs("{\"score\": 800, \"tests\": []}\n", f);
		fclose(f);
	}
}

int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg, enum rr_mode mode)
{
	(void)task, (void)base, (void)step, (void)done, (void)arg, (void)mode;
	if (fork() == 0) {
		setsid();
		if (fork() == 0)
			rewrite_later();
		_exit(0);
	}
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
