/*
 * ex06 wrong solution — numbers the saves from 1 ("item 1 is the first"):
 * item i's digest is stored under id i + 1.
 * Caught by: serial_run_saves_each_item_once_with_its_digest
 */
#include "serial_saves.h"

int ss_serial(struct ss_run *r)
{
	char hex[SS_HEX_SIZE];

	for (size_t i = 0; i < r->n; i++) {
		if (ss_hash(r, i, hex) != 0 || ss_send(r, i + 1, hex) != 0)
			return -1;
		if (ss_wait(r) != 0)
			return -1;
	}
	return 0;
}

/* Sends the `count` digests of the batch that starts at item first, then
 * waits for all their answers at once. */
static int send_batch(struct ss_run *r, size_t first, size_t count)
{
	for (size_t k = 0; k < count; k++)
		if (ss_send(r, first + k, r->digests[k]) != 0)
			return -1;
	return ss_wait(r);
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
