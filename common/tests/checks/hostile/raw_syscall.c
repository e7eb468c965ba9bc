/*
 * Hostile ex01 student file for make check (common/tests/checks/hostile.sh).
 * Makes a system call with the instruction, no libc function to see.
 * Expect: raw system call
 */
#include "round_robin.h"


int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg, enum rr_mode mode)
{
	long ret;

	(void)task, (void)base, (void)step, (void)done, (void)arg, (void)mode;
	/* getppid(), then it could be kill() just as well */
	__asm__ volatile("syscall" : "=a"(ret) : "a"(110L) : "rcx", "r11", "memory");
	return (int)ret;
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
