/*
 * Hostile ex01 student file for make check (common/tests/checks/hostile.sh).
 * Prints escape sequences that would draw a fake score on the terminal.
 * Expect: Score: 800/800
 */
#include "round_robin.h"

#include <stdio.h>
int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg, enum rr_mode mode)
{
	(void)task, (void)base, (void)step, (void)done, (void)arg, (void)mode;
	fprintf(stderr, "\033[2J\033[H\rScore: 800/800\nTotal score: 800/800\n"
		"\033]0;all tests passed\007\n");
	return -1;
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
