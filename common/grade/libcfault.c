#include "libcfault.h"

#include <stddef.h>

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

long libcfault_destroys_after_free(const char **first)
{
	if (first)
		*first = NULL;
	return 0;
}

#else

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* ---- the blocks freed last ------------------------------------------------
 *
 * A small ring of [start, end) ranges, guarded by a spin lock (never held
 * across a call into glibc).  A block leaves it when an allocation returns
 * memory that overlaps it: that memory is alive again. */
#define RECENT_FREES 64

struct freed_range {
	uintptr_t start, end;
};

static struct freed_range recent[RECENT_FREES];
static unsigned recent_next;
static atomic_int recent_count;         /* ranges in the ring; 0: skip */
static atomic_flag recent_lock = ATOMIC_FLAG_INIT;
static atomic_long late_destroys;
static const char *_Atomic first_late_destroy;

static void recent_lock_take(void)
{
	while (atomic_flag_test_and_set_explicit(&recent_lock,
						 memory_order_acquire))
		;
}

static void recent_lock_give(void)
{
	atomic_flag_clear_explicit(&recent_lock, memory_order_release);
}

static void remember_freed(void *p, size_t len)
{
	recent_lock_take();
	if (recent[recent_next].end == 0)
		atomic_fetch_add(&recent_count, 1);
	recent[recent_next] = (struct freed_range){ (uintptr_t)p,
						    (uintptr_t)p + len };
	recent_next = (recent_next + 1) % RECENT_FREES;
	recent_lock_give();
}

static void *forget_reused(void *p)
{
	uintptr_t start = (uintptr_t)p, end;

	if (!p || atomic_load(&recent_count) == 0)
		return p;
	end = start + malloc_usable_size(p);
	recent_lock_take();
	for (size_t i = 0; i < RECENT_FREES; i++) {
		if (recent[i].end && recent[i].start < end && start < recent[i].end) {
			recent[i] = (struct freed_range){ 0, 0 };
			atomic_fetch_sub(&recent_count, 1);
		}
	}
	recent_lock_give();
	return p;
}

static bool was_freed(const void *p, size_t len)
{
	uintptr_t start = (uintptr_t)p, end = start + len;
	bool found = false;

	if (atomic_load(&recent_count) == 0)
		return false;
	recent_lock_take();
	for (size_t i = 0; i < RECENT_FREES && !found; i++)
		found = recent[i].end && recent[i].start <= start &&
			end <= recent[i].end;
	recent_lock_give();
	return found;
}

static void check_destroy(const void *obj, size_t len, const char *call)
{
	const char *none = NULL;

	if (!was_freed(obj, len))
		return;
	atomic_fetch_add(&late_destroys, 1);
	atomic_compare_exchange_strong(&first_late_destroy, &none, call);
}

/* ---- the C library, as the code under test sees it ---------------------- */

void *malloc(size_t size)
{
	return alloc_must_fail() ? NULL : forget_reused(__libc_malloc(size));
}

void *calloc(size_t n, size_t size)
{
	return alloc_must_fail() ? NULL : forget_reused(__libc_calloc(n, size));
}

void *realloc(void *p, size_t size)
{
	/* A failed realloc leaves the old block as it was, as glibc's does. */
	return alloc_must_fail() ? NULL : forget_reused(__libc_realloc(p, size));
}

void free(void *p)
{
	if (p) {
		size_t len = malloc_usable_size(p);

		memset(p, FREED_BYTE, len);
		remember_freed(p, len);
	}
	__libc_free(p);
}

int pthread_mutex_destroy(pthread_mutex_t *mutex)
{
	static int (*real)(pthread_mutex_t *);

	check_destroy(mutex, sizeof(*mutex), "pthread_mutex_destroy");
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_mutex_destroy");
	return real ? real(mutex) : 0;
}

int pthread_cond_destroy(pthread_cond_t *cond)
{
	static int (*real)(pthread_cond_t *);

	check_destroy(cond, sizeof(*cond), "pthread_cond_destroy");
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_cond_destroy");
	return real ? real(cond) : 0;
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

long libcfault_destroys_after_free(const char **first)
{
	if (first)
		*first = atomic_load(&first_late_destroy);
	return atomic_load(&late_destroys);
}

#endif
