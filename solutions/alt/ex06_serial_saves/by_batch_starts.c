/*
 * ex06 correct alternative — batches walked by their first item: an outer
 * loop over batch starts, one inner loop to hash, one to send; a helper
 * does one item of the serial version.
 */
#include "serial_saves.h"

static int one_item_serially(struct ss_run *r, size_t i)
{
	char hex[SS_HEX_SIZE];

	if (ss_hash(r, i, hex) < 0)
		return -1;
	if (ss_send(r, i, hex) < 0)
		return -1;
	return ss_wait(r);
}

int ss_serial(struct ss_run *r)
{
	size_t i = 0;

	while (i < r->n && one_item_serially(r, i) == 0)
		i++;
	return i == r->n ? 0 : -1;
}

int ss_batched(struct ss_run *r, size_t batch)
{
	if (batch < 1 || batch > SS_MAX_BATCH)
		return -1;
	for (size_t first = 0; first < r->n; first += batch) {
		size_t count = r->n - first < batch ? r->n - first : batch;
		size_t queued = 0;
		int waited;

		for (size_t k = 0; k < count; k++)
			if (ss_hash(r, first + k, r->digests[k]) != 0)
				return -1;
		while (queued < count &&
		       ss_send(r, first + queued, r->digests[queued]) == 0)
			queued++;
		waited = ss_wait(r);
		if (queued < count || waited != 0)
			return -1;
	}
	return 0;
}
