/*
 * store: the save server's table of stored saves, id -> 32-byte digest.
 * Open addressing with linear probing; grows by doubling at 50% load, so
 * memory is about 100 bytes per stored save.
 */
#ifndef SAVESERVER_STORE_H
#define SAVESERVER_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;

/* @return an empty store, owned by the caller (store_free), or NULL. */
struct store *store_new(void);
void store_free(struct store *s);

/* Copies the digest stored for id into out.  @return true if id is stored. */
bool store_get(const struct store *s, uint64_t id, uint8_t out[32]);

/* Stores id -> digest; id must not be stored yet.  @return 0, or -1 when
 * out of memory. */
int store_put(struct store *s, uint64_t id, const uint8_t digest[32]);

size_t store_count(const struct store *s);

#endif
