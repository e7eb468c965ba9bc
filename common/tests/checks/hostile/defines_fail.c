/*
 * Hostile ex01 student file for make check (common/tests/checks/hostile.sh).
 * Defines cmocka's _fail and _cmocka_run_group_tests, which the
 * grader would call instead of cmocka's.
 * Expect: defines _fail
 */
#include "round_robin.h"

#include <stddef.h>
void _fail(const char *file, const int line);
int _cmocka_run_group_tests(const char *name, const void *tests, size_t n,
			    void *setup, void *teardown);
void _fail(const char *file, const int line)
{
	(void)file, (void)line;
}

int _cmocka_run_group_tests(const char *name, const void *tests, size_t n,
			    void *setup, void *teardown)
{
	(void)name, (void)tests, (void)n, (void)setup, (void)teardown;
	return 0;
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
