#include "libcfault.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LIBCFAULT_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LIBCFAULT_OFF 1
#endif
#endif

#ifdef LIBCFAULT_OFF

bool libcfault_available(void)
{
	return false;
}

void libcfault_allocs_fail_after(long n)
{
	(void)n;
}

void libcfault_threads_fail_after(long n)
{
	(void)n;
}

#else

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* glibc's own entry points, which these definitions stand in front of. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);

#define FREED_BYTE 0xA5

/* Per thread: a test fails the loop thread's allocations while a worker
 * (or libevent's own thread) goes on.  -1: never fail. */
static _Thread_local long allocs_left = -1;
static atomic_long threads_left = -1;

/* Counts one allocation down.  @return true when it must fail. */
static bool alloc_must_fail(void)
{
	if (allocs_left < 0)
		return false;
	if (allocs_left == 0) {
		errno = ENOMEM;
		return true;
	}
	allocs_left--;
	return false;
}

void *malloc(size_t size)
{
	return alloc_must_fail() ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	return alloc_must_fail() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	/* A failed realloc leaves the old block as it was, as glibc's does. */
	return alloc_must_fail() ? NULL : __libc_realloc(p, size);
}

void free(void *p)
{
	if (p)
		memset(p, FREED_BYTE, malloc_usable_size(p));
	__libc_free(p);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
		   void *(*start)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *,
			   void *(*)(void *), void *);
	long left = atomic_load(&threads_left);

	while (left > 0 &&
	       !atomic_compare_exchange_weak(&threads_left, &left, left - 1))
		;
	if (left == 0)
		return EAGAIN;
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
	return real ? real(thread, attr, start, arg) : EAGAIN;
}

bool libcfault_available(void)
{
	return true;
}

void libcfault_allocs_fail_after(long n)
{
	allocs_left = n < 0 ? -1 : n;
}

void libcfault_threads_fail_after(long n)
{
	atomic_store(&threads_left, n < 0 ? -1 : n);
}

#endif
