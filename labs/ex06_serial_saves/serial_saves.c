/*
 * ex06 — THE FILE YOU EDIT.  Read README.md in this folder first.
 *
 * Two parts, each marked TODO.  `make grade LAB=ex06` tells you which
 * behaviours work; serial_saves.h describes ss_hash, ss_send and ss_wait.
 */
#include "serial_saves.h"

#include "stub.h"

/*
 * TODO 1: the serial version.  For each item i in order: ss_hash it,
 * ss_send its save, and ss_wait for the answer before you hash the next
 * item.  Return -1 as soon as a step fails, 0 at the end.
 */
int ss_serial(struct ss_run *r)
{
	(void)r;
	STUB_NOT_IMPLEMENTED();
	return -1;
}

/*
 * TODO 2: the batched version.  Hash up to `batch` items into
 * r->digests[0], r->digests[1], ...; when the batch is full, send every
 * digest of it (id = the item's own number) and ss_wait once.  Do not
 * forget the items left over at the end when n is not a multiple of
 * batch, and return only once every save has its answer.  A batch outside
 * 1 .. SS_MAX_BATCH is an error (-1).
 */
int ss_batched(struct ss_run *r, size_t batch)
{
	(void)r;
	(void)batch;
	STUB_NOT_IMPLEMENTED();
	return -1;
}
