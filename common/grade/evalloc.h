/*
 * evalloc: counts libevent's live allocations, so a grader can tell an event
 * that was freed from one that was only deleted, in the plain build (no
 * sanitizer needed).
 *
 * The harness installs the counter in each test's process before the test
 * runs (libevent allows it only before its first allocation).  A test reads
 * the count before it creates a base and again after event_base_free(): any
 * difference is a libevent object (event, base, evhttp request, ...) that
 * the code under test never freed.
 */
#ifndef YIELDLAB_EVALLOC_H
#define YIELDLAB_EVALLOC_H

/* Routes libevent's malloc/realloc/free through the counter.  Call before
 * any other libevent call; later calls do nothing. */
void evalloc_install(void);

/* Blocks libevent has allocated and not yet freed (thread-safe). */
long evalloc_live(void);

/* Fault injection with the real allocator: after n more successful
 * allocations, every libevent malloc/realloc fails (returns NULL, as when
 * memory runs out) until evalloc_fail_after(-1) lets them succeed again.
 * A test uses it to see what the code under test does when event_new or
 * evtimer_new fails: the header says what it returns. */
void evalloc_fail_after(long n);

#endif
