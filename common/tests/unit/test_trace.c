/* Unit tests of common/trace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clock.h"
#include "trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void entries_keep_their_order_and_time(void **state)
{
	struct trace *t = trace_new();
	char *joined;

	(void)state;
	clock_use_fake(100);
	trace_add(t, "a%d", 0);
	clock_advance_ns(5);
	trace_add(t, "b%d", 0);
	trace_add(t, "beat");
	clock_set_source(NULL);
	assert_int_equal(trace_len(t), 3);
	assert_string_equal(trace_name(t, 1), "b0");
	assert_int_equal(trace_time_ns(t, 0), 100);
	assert_int_equal(trace_time_ns(t, 1), 105);
	joined = trace_join(t, " ");
	assert_string_equal(joined, "a0 b0 beat");
	free(joined);
	trace_free(t);
}

static void find_and_count_look_at_whole_names_and_prefixes(void **state)
{
	struct trace *t = trace_new();

	(void)state;
	trace_add(t, "s1");
	trace_add(t, "s10");
	trace_add(t, "beat");
	trace_add(t, "s1");
	assert_int_equal(trace_find(t, "s1", 0), 0);
	assert_int_equal(trace_find(t, "s1", 1), 3);
	assert_int_equal(trace_find(t, "s2", 0), -1);
	assert_int_equal(trace_count_prefix(t, "s1"), 3);
	assert_int_equal(trace_count_prefix(t, "beat"), 1);
	trace_free(t);
}

static void an_empty_trace_joins_to_an_empty_string(void **state)
{
	struct trace *t = trace_new();
	char *joined = trace_join(t, ", ");

	(void)state;
	assert_string_equal(joined, "");
	assert_string_equal(trace_name(t, 7), "");
	free(joined);
	trace_free(t);
}

static void long_names_are_truncated_not_overflowed(void **state)
{
	struct trace *t = trace_new();
	char big[100];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	trace_add(t, "%s", big);
	assert_int_equal(strlen(trace_name(t, 0)), TRACE_NAME_MAX - 1);
	trace_free(t);
}

static void *add_many(void *arg)
{
	for (int i = 0; i < 10000; i++)
		trace_add(arg, "w%d", i);
	return NULL;
}

static void threads_may_add_at_the_same_time(void **state)
{
	struct trace *t = trace_new();
	pthread_t a, b;

	(void)state;
	pthread_create(&a, NULL, add_many, t);
	pthread_create(&b, NULL, add_many, t);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert_int_equal(trace_len(t), 20000);
	trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(entries_keep_their_order_and_time),
		cmocka_unit_test(find_and_count_look_at_whole_names_and_prefixes),
		cmocka_unit_test(an_empty_trace_joins_to_an_empty_string),
		cmocka_unit_test(long_names_are_truncated_not_overflowed),
		cmocka_unit_test(threads_may_add_at_the_same_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
