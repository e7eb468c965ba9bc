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

struct locked {
	long value;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* The order of offload_free's last three lines: destroys, then free, is
 * fine; free, then a destroy, is counted, and a block allocated again is
 * alive, not freed. */
static void destroys_after_free_are_counted(void **state)
{
	struct locked *a = malloc(sizeof(*a)), *b;
	const char *first = NULL;
	long before = libcfault_destroys_after_free(NULL);
	volatile uintptr_t where;

	(void)state;
	assert_non_null(a);
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	free(a);
	assert_int_equal(libcfault_destroys_after_free(NULL), before);
	b = malloc(sizeof(*b));
	assert_non_null(b);
	pthread_mutex_init(&b->lock, NULL);
	where = (uintptr_t)b;
	free(b);
	pthread_mutex_destroy(&((struct locked *)where)->lock);
	assert_int_equal(libcfault_destroys_after_free(&first), before + 1);
	assert_string_equal(first, "pthread_mutex_destroy");
	b = malloc(sizeof(*b));
	assert_non_null(b);
	pthread_mutex_init(&b->lock, NULL);
	pthread_mutex_destroy(&b->lock);
	free(b);
	assert_int_equal(libcfault_destroys_after_free(NULL), before + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(allocations_fail_after_the_given_number),
		cmocka_unit_test(thread_starts_fail_after_the_given_number),
		cmocka_unit_test(freed_memory_is_filled),
		cmocka_unit_test(destroys_after_free_are_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
