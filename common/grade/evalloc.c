#include "evalloc.h"

#include <event2/event.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

/* Globals: libevent's allocator hook has no context pointer. */
static atomic_long live_blocks;
static atomic_bool installed;
/* Allocations left before they start failing; -1: never fail. */
static atomic_long until_failure = -1;

/* True when this allocation must fail (see evalloc_fail_after). */
static bool must_fail(void)
{
	long left = atomic_load(&until_failure);

	while (left > 0 &&
	       !atomic_compare_exchange_weak(&until_failure, &left, left - 1))
		;
	return left == 0;
}

static void *counted_malloc(size_t n)
{
	void *p = must_fail() ? NULL : malloc(n);

	if (p)
		atomic_fetch_add(&live_blocks, 1);
	return p;
}

static void *counted_realloc(void *old, size_t n)
{
	void *p;

	if (n > 0 && must_fail())
		return NULL;   /* as realloc does: old stays allocated */
	p = realloc(old, n);

	if (!old && p)
		atomic_fetch_add(&live_blocks, 1);
	else if (old && n == 0 && !p)
		atomic_fetch_sub(&live_blocks, 1);
	return p;
}

static void counted_free(void *p)
{
	if (p)
		atomic_fetch_sub(&live_blocks, 1);
	free(p);
}

void evalloc_install(void)
{
	if (atomic_exchange(&installed, true))
		return;
	event_set_mem_functions(counted_malloc, counted_realloc, counted_free);
}

long evalloc_live(void)
{
	return atomic_load(&live_blocks);
}

void evalloc_fail_after(long n)
{
	atomic_store(&until_failure, n < 0 ? -1 : n);
}
