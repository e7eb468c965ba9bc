/*
 * Hostile ex01 student file for make check (common/tests/checks/hostile.sh).
 * A constructor writes a full-marks fragment before any test runs.
 * Expect: constructor
 */
#include "round_robin.h"

#include <stdio.h>
__attribute__((constructor)) static void full_marks(void)
{
	FILE *f = fopen("build/grade/labs/ex01_round_robin.frag", "w");

	if (f) {
		fputs("ex01_round_robin 100 100 7 7\n", f);
		fclose(f);
	}
}

int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg, enum rr_mode mode)
{
	(void)task, (void)base, (void)step, (void)done, (void)arg, (void)mode;
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
