/*
 * ex06 correct alternative — one flat loop per version with a single
 * exit: counters say where the batch stands, and every failure jumps to
 * the end, where what was sent is waited for before -1.
 */
#include "serial_saves.h"

#include <stdbool.h>

int ss_serial(struct ss_run *r)
{
	char digest[SS_HEX_SIZE];
	size_t item;

	for (item = 0; item < r->n; ++item) {
		bool ok = ss_hash(r, item, digest) == 0 &&
			  ss_send(r, item, digest) == 0;

		if (!ok || ss_wait(r) != 0)
			goto failed;
	}
	return 0;
failed:
	return -1;
}

int ss_batched(struct ss_run *r, size_t batch)
{
	size_t hashed = 0, base = 0;

	if (!(batch >= 1 && batch <= SS_MAX_BATCH))
		return -1;
	while (base < r->n) {
		if (ss_hash(r, base + hashed, r->digests[hashed]) != 0)
			return -1;
		++hashed;
		if (hashed < batch && base + hashed < r->n)
			continue;
		for (size_t k = 0; k < hashed; ++k)
			if (ss_send(r, base + k, r->digests[k]) != 0)
				goto wait_then_fail;
		if (ss_wait(r) != 0)
			return -1;
		base += hashed;
		hashed = 0;
	}
	return 0;
wait_then_fail:
	(void)ss_wait(r);
	return -1;
}
