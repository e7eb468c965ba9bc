/*
 * Unit tests of common/grade/libcfault: the C library's allocations and
 * thread starts fail on request, and freed memory is filled.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "libcfault.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Called through volatile pointers: a compiler may drop an allocation
 * whose block is never used, and with it the failure under test. */
static void *(*volatile do_malloc)(size_t) = malloc;
static void *(*volatile do_calloc)(size_t, size_t) = calloc;

static void allocations_fail_after_the_given_number(void **state)
{
	void *a, *b, *c;

	(void)state;
	assert_true(libcfault_available());
	libcfault_allocs_fail_after(1);
	a = do_malloc(32);
	b = do_malloc(32);
	c = do_calloc(4, 8);
	libcfault_allocs_fail_after(-1);
	assert_non_null(a);
	assert_null(b);
	assert_null(c);
	b = realloc(a, 64);
	assert_non_null(b);
	free(b);
}

static void *nothing(void *arg)
{
	return arg;
}

static void thread_starts_fail_after_the_given_number(void **state)
{
	pthread_t t1, t2;

	(void)state;
	libcfault_threads_fail_after(1);
	assert_int_equal(pthread_create(&t1, NULL, nothing, NULL), 0);
	assert_int_equal(pthread_create(&t2, NULL, nothing, NULL), EAGAIN);
	libcfault_threads_fail_after(-1);
	assert_int_equal(pthread_join(t1, NULL), 0);
	assert_int_equal(pthread_create(&t2, NULL, nothing, NULL), 0);
	assert_int_equal(pthread_join(t2, NULL), 0);
}

/* Reads a freed block on purpose, past the 16 bytes glibc reuses for its
 * free lists: the fill is what turns a read after free into garbage. */
static void freed_memory_is_filled(void **state)
{
	unsigned char *p = malloc(64);
	/* Kept as a number, so the compiler's use-after-free warning (right
	 * everywhere else) does not see this one deliberate read. */
	volatile uintptr_t where = (uintptr_t)p;

	(void)state;
	assert_non_null(p);
	memset(p, 0x11, 64);
	free(p);
	assert_int_equal(((volatile unsigned char *)where)[40], 0xA5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(allocations_fail_after_the_given_number),
		cmocka_unit_test(thread_starts_fail_after_the_given_number),
		cmocka_unit_test(freed_memory_is_filled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
