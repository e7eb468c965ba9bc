/* ex06 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * The three steps every version of ex06 is made of: hash, send, wait.
 */
#include "serial_saves.h"

#include "clock.h"
#include "save.h"
#include "trace.h"

#include <string.h>

void ss_init(struct ss_run *r, struct save_client *client,
	     struct hashwork *hasher, size_t n, uint64_t links,
	     struct trace *trace)
{
	memset(r, 0, sizeof(*r));
	r->client = client;
	r->hasher = hasher;
	r->n = n;
	r->links = links;
	r->trace = trace;
}

int ss_hash(struct ss_run *r, size_t i, char hex[SS_HEX_SIZE])
{
	uint8_t digest[HASHWORK_DIGEST_LEN];
	int64_t start = clock_now_ns();

	if (hashwork_item_links(r->hasher, i, r->links, digest) != 0)
		return -1;
	r->hash_ns += clock_now_ns() - start;
	r->hashed++;
	hashwork_hex(digest, hex);
	if (r->trace)
		trace_add(r->trace, "h%zu", i);
	return 0;
}

static void answered_cb(uint64_t id, int ok, const char *why, void *arg)
{
	struct ss_run *r = arg;

	(void)id;
	(void)why;
	if (ok == 0)
		r->acked++;
	else
		r->failed++;
}

int ss_send(struct ss_run *r, size_t i, const char *hex)
{
	if (save_client_save(r->client, i, hex, answered_cb, r) != 0) {
		r->failed++;
		return -1;
	}
	r->sent++;
	return 0;
}

int ss_wait(struct ss_run *r)
{
	return save_client_drain(r->client);
}
