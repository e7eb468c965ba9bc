/*
 * ex06 — reference solution (instructors: drop-in for
 * labs/ex06_serial_saves/serial_saves.c).
 */
#include "serial_saves.h"

int ss_serial(struct ss_run *r)
{
	char hex[SS_HEX_SIZE];

	for (size_t i = 0; i < r->n; i++) {
		if (ss_hash(r, i, hex) != 0 || ss_send(r, i, hex) != 0)
			return -1;
		/* The await: nothing else happens until this save is in. */
		if (ss_wait(r) != 0)
			return -1;
	}
	return 0;
}

/* Sends the `count` digests of the batch that starts at item first, then
 * waits for all their answers at once.  A save that cannot be queued
 * stops the batch, but the saves already sent are still waited for: the
 * run never returns with a save on its way. */
static int send_batch(struct ss_run *r, size_t first, size_t count)
{
	int sent_all = 0;

	for (size_t k = 0; k < count && sent_all == 0; k++)
		sent_all = ss_send(r, first + k, r->digests[k]);
	if (ss_wait(r) != 0 || sent_all != 0)
		return -1;
	return 0;
}

int ss_batched(struct ss_run *r, size_t batch)
{
	size_t filled = 0;

	if (batch == 0 || batch > SS_MAX_BATCH)
		return -1;
	for (size_t i = 0; i < r->n; i++) {
		if (ss_hash(r, i, r->digests[filled]) != 0)
			return -1;
		filled++;
		/* A full batch, or the last items (a partial batch). */
		if (filled == batch || i + 1 == r->n) {
			if (send_batch(r, i + 1 - filled, filled) != 0)
				return -1;
			filled = 0;
		}
	}
	return 0;
}
