/*
 * libcfault: fault injection with the real C library, for graders.
 *
 * A lab header that says "@return -1 when out of memory" or "NULL when a
 * thread cannot be started" makes a promise the happy path never tests.
 * In a grader's plain build this module sits between the code under test
 * and glibc: malloc, calloc and realloc fail on request (in the calling
 * thread only), pthread_create fails on request (EAGAIN), and free fills
 * every block it releases with 0xA5 first, so a read after free finds
 * garbage at once instead of the old value.  It also remembers the last
 * blocks freed (until they are handed out again), so that
 * pthread_mutex_destroy and pthread_cond_destroy can tell when they are
 * given memory that was already freed: glibc's destroy of a 0xA5-filled
 * mutex returns EBUSY without writing, so the mistake is otherwise silent
 * (and ASan does not see it either: glibc is not instrumented).
 * Everything else passes straight through to glibc.
 *
 * Sanitizer builds bring their own allocator and thread hooks: there this
 * module does nothing, libcfault_available() is false, and a test skips
 * the checks that need it (the plain build, which make grade runs first,
 * still makes them).
 */
#ifndef YIELDLAB_LIBCFAULT_H
#define YIELDLAB_LIBCFAULT_H

#include <stdbool.h>

/* True in the plain build, where the faults below can be injected. */
bool libcfault_available(void);

/* This thread's next n allocations (malloc, calloc, realloc) succeed and
 * every one after them fails with ENOMEM, until libcfault_allocs_fail_after
 * (-1) lets them succeed again. */
void libcfault_allocs_fail_after(long n);

/* The next n pthread_create calls (any thread) succeed and every one after
 * them fails with EAGAIN, until libcfault_threads_fail_after(-1). */
void libcfault_threads_fail_after(long n);

/* How many pthread_mutex_destroy / pthread_cond_destroy calls (any thread)
 * were given an object inside a block free() had released and nothing had
 * allocated again; *first (if not NULL) names the call of the first one.
 * Always 0 where libcfault is not available. */
long libcfault_destroys_after_free(const char **first);

#endif
