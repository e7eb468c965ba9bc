/*
 * savetest: what the save client's unit tests (test_save, test_save_faults)
 * share — a real server started and stopped, a client for it, the digest
 * of an item, and real-time bounds that YIELDLAB_TIMEOUT_SCALE stretches.
 * A failure fails the running cmocka test.
 */
#ifndef YIELDLAB_SAVETEST_H
#define YIELDLAB_SAVETEST_H

#include "save.h"
#include "saveproc.h"

#include <event2/event.h>
#include <stdint.h>

/* ms as ns, times YIELDLAB_TIMEOUT_SCALE when that is above 1. */
int64_t savetest_bound_ns(int64_t ms);

/* The digest the tests save for item id: SHA-256 of "item-<id>", in hex. */
void savetest_digest(uint64_t id, char hex[65]);

/* Stops the server; a failure to stop fails the test. */
void savetest_stop(struct saveproc *p);

/* A client of the server on port: pool connections, timeout_ms per save
 * (0: none). */
struct save_client *savetest_client(struct event_base *base, int port,
				    int pool, int timeout_ms);

/* Saves items [from, to) with their digests, each ending in done(arg). */
void savetest_save_range(struct save_client *c, uint64_t from, uint64_t to,
			 save_done_fn done, void *arg);

#endif
