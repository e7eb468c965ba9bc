/*
 * Hostile ex01 student file for make check (common/tests/checks/hostile.sh).
 * Writes a PASS verdict line on every inherited descriptor (write is
 * allowed: ex04's doorbell needs it) and returns: no nonce, no pass.
 * Expect: forged
 */
#include "round_robin.h"

#include <unistd.h>
int rr_task_start(struct rr_task *task, struct event_base *base,
		  rr_step_fn step, rr_done_fn done, void *arg, enum rr_mode mode)
{
	static const char line[] = "PASS 00112233445566778899aabbccddeeff returned\n";

	(void)task, (void)base, (void)step, (void)done, (void)arg, (void)mode;
	for (int fd = 3; fd < 10; fd++)
		if (write(fd, line, sizeof(line) - 1) < 0)
			continue;
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
