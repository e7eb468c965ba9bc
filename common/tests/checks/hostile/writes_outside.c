/*
 * Hostile ex01 student file for make check (common/tests/checks/hostile.sh).
 * Writes files outside build/: in the tree, /tmp and the home folder.
 * Expect: fopen
 */
#include "round_robin.h"

#include <stdio.h>
static void drop(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs("was here\n", f);
		fclose(f);
	}
}

int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg, enum rr_mode mode)
{
	(void)task, (void)base, (void)step, (void)done, (void)arg, (void)mode;
	drop("labs/ex01_round_robin/was_here.txt");
	drop("/tmp/yieldlab-hostile-was-here");
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
