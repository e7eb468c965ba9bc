#include "evalloc.h"

#include <event2/event.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

/* The one mutable global: libevent's allocator hook has no context pointer. */
static atomic_long live_blocks;
static atomic_bool installed;

static void *counted_malloc(size_t n)
{
	void *p = malloc(n);

	if (p)
		atomic_fetch_add(&live_blocks, 1);
	return p;
}

static void *counted_realloc(void *old, size_t n)
{
	void *p = realloc(old, n);

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
