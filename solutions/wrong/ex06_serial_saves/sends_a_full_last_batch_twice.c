/*
 * ex06 wrong solution — sends full batches in the loop and "the rest"
 * after it, but counts the rest as a whole batch when n is a multiple of
 * the batch size: the last batch is saved twice.
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
	size_t rest;

	if (batch == 0 || batch > SS_MAX_BATCH)
		return -1;
	for (size_t i = 0; i < r->n; i++) {
		if (ss_hash(r, i, r->digests[i % batch]) != 0)
			return -1;
		if ((i + 1) % batch == 0 &&
		    send_batch(r, i + 1 - batch, batch) != 0)
			return -1;
	}
	rest = r->n % batch ? r->n % batch : batch;
	return send_batch(r, r->n - rest, rest);
}
