/*
 * Unit tests of common/grade/evalloc: libevent's live blocks are counted,
 * and allocations fail on request (the graders' out-of-memory injection).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "evalloc.h"

#include <event2/event.h>

static void noop_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
}

static void a_freed_event_leaves_the_count_where_it_was(void **state)
{
	struct event_base *base = event_base_new();
	long before = evalloc_live();
	struct event *ev = event_new(base, -1, 0, noop_cb, NULL);

	(void)state;
	assert_non_null(ev);
	assert_int_equal(evalloc_live(), before + 1);
	event_free(ev);
	assert_int_equal(evalloc_live(), before);
	event_base_free(base);
}

static void allocations_fail_after_the_given_number(void **state)
{
	struct event_base *base = event_base_new();
	struct event *a, *b, *c;

	(void)state;
	evalloc_fail_after(1);
	a = event_new(base, -1, 0, noop_cb, NULL);
	b = event_new(base, -1, 0, noop_cb, NULL);
	c = event_new(base, -1, 0, noop_cb, NULL);
	evalloc_fail_after(-1);
	assert_non_null(a);
	assert_null(b);
	assert_null(c);
	b = event_new(base, -1, 0, noop_cb, NULL);
	assert_non_null(b);
	event_free(a);
	event_free(b);
	event_base_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_freed_event_leaves_the_count_where_it_was),
		cmocka_unit_test(allocations_fail_after_the_given_number),
	};

	evalloc_install();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
