/*
 * ex06 wrong solution — hashes every item of a batch into the same
 * buffer, so the whole batch is sent with the digest of its last item.
 * Caught by: batched_run_saves_each_item_once_with_its_digest
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

static int send_batch(struct ss_run *r, size_t first, size_t count)
{
	for (size_t k = 0; k < count; k++)
		if (ss_send(r, first + k, r->digests[0]) != 0)
			return -1;
	return ss_wait(r);
}

int ss_batched(struct ss_run *r, size_t batch)
{
	size_t filled = 0;

	if (batch == 0 || batch > SS_MAX_BATCH)
		return -1;
	for (size_t i = 0; i < r->n; i++) {
		if (ss_hash(r, i, r->digests[0]) != 0)
			return -1;
		filled++;
		if (filled == batch || i + 1 == r->n) {
			if (send_batch(r, i + 1 - filled, filled) != 0)
				return -1;
			filled = 0;
		}
	}
	return 0;
}
