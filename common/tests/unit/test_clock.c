/* Unit tests of common/clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clock.h"

static void monotonic_clock_never_goes_back(void **state)
{
	int64_t prev = clock_monotonic_ns();

	(void)state;
	for (int i = 0; i < 10000; i++) {
		int64_t now = clock_monotonic_ns();

		assert_true(now >= prev);
		prev = now;
	}
}

static void fake_clock_stands_still_until_advanced(void **state)
{
	(void)state;
	clock_use_fake(1000);
	assert_int_equal(clock_now_ns(), 1000);
	assert_int_equal(clock_now_ns(), 1000);
	clock_advance_ns(250);
	assert_int_equal(clock_now_ns(), 1250);
	clock_set_source(NULL);
}

static int64_t fixed_source(void)
{
	return 42;
}

static void a_custom_source_replaces_the_clock_and_null_restores_it(void **state)
{
	(void)state;
	clock_set_source(fixed_source);
	assert_int_equal(clock_now_ns(), 42);
	clock_set_source(NULL);
	assert_true(clock_now_ns() > 42);
}

/* Bound: spinning 2 ms must take at least 2 ms (exact by construction)
 * and, on a loaded VM, well under 1 s. */
static void spin_holds_the_thread_for_at_least_the_asked_time(void **state)
{
	int64_t start = clock_monotonic_ns(), took;

	(void)state;
	clock_use_fake(0);   /* spinning reads the real clock regardless */
	clock_spin_ns(2 * CLOCK_NS_PER_MS);
	clock_set_source(NULL);
	took = clock_monotonic_ns() - start;
	assert_true(took >= 2 * CLOCK_NS_PER_MS);
	assert_true(took < CLOCK_NS_PER_S);
}

static void sleep_lasts_at_least_the_asked_time(void **state)
{
	int64_t start = clock_monotonic_ns();

	(void)state;
	clock_sleep_ns(3 * CLOCK_NS_PER_MS);
	assert_true(clock_monotonic_ns() - start >= 3 * CLOCK_NS_PER_MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(monotonic_clock_never_goes_back),
		cmocka_unit_test(fake_clock_stands_still_until_advanced),
		cmocka_unit_test(a_custom_source_replaces_the_clock_and_null_restores_it),
		cmocka_unit_test(spin_holds_the_thread_for_at_least_the_asked_time),
		cmocka_unit_test(sleep_lasts_at_least_the_asked_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
