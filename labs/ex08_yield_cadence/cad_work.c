/* ex08 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * The hash of one item, and ex01's yield (neither is this lab's lesson).
 */
#include "cadence.h"

#include "clock.h"
#include "trace.h"

#include <event2/event.h>

int cad_hash(struct cad_task *t, size_t i, char hex[CAD_HEX_SIZE])
{
	uint8_t digest[HASHWORK_DIGEST_LEN];
	int64_t start = clock_now_ns();

	if (hashwork_item_links(t->job.hasher, i, t->job.links, digest) != 0)
		return -1;
	/* Counted before the clock is read again: a grader's fake clock may
	 * charge the item's cost from this count. */
	t->hashed++;
	t->hash_ns += clock_now_ns() - start;
	hashwork_hex(digest, hex);
	if (t->job.trace)
		trace_add(t->job.trace, "h%zu", i);
	return 0;
}

void cad_yield(struct cad_task *t)
{
	/* Fails only for a NULL base, and the task always has one. */
	(void)event_base_loopcontinue(t->base);
	event_active(t->ev, EV_TIMEOUT, 0);
}
