#include "store.h"

#include <stdlib.h>
#include <string.h>

struct slot {
	uint64_t id;
	uint8_t digest[32];
	bool used;
};

struct store {
	struct slot *slots;
	size_t cap, count;   /* cap is a power of two */
};

struct store *store_new(void)
{
	struct store *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cap = 1024;
	s->slots = calloc(s->cap, sizeof(*s->slots));
	if (!s->slots) {
		free(s);
		return NULL;
	}
	return s;
}

void store_free(struct store *s)
{
	if (!s)
		return;
	free(s->slots);
	free(s);
}

/* A 64-bit mix (splitmix64's finaliser) so sequential ids spread out. */
static size_t home_of(uint64_t id, size_t cap)
{
	id ^= id >> 30;
	id *= UINT64_C(0xbf58476d1ce4e5b9);
	id ^= id >> 27;
	id *= UINT64_C(0x94d049bb133111eb);
	id ^= id >> 31;
	return (size_t)id & (cap - 1);
}

static struct slot *find(const struct store *s, uint64_t id)
{
	size_t i = home_of(id, s->cap);

	while (s->slots[i].used && s->slots[i].id != id)
		i = (i + 1) & (s->cap - 1);
	return &s->slots[i];
}

bool store_get(const struct store *s, uint64_t id, uint8_t out[32])
{
	const struct slot *slot = find(s, id);

	if (!slot->used)
		return false;
	memcpy(out, slot->digest, 32);
	return true;
}

static int grow(struct store *s)
{
	struct store bigger = { .cap = s->cap * 2 };

	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -1;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].used)
			*find(&bigger, s->slots[i].id) = s->slots[i];
	free(s->slots);
	s->slots = bigger.slots;
	s->cap = bigger.cap;
	return 0;
}

int store_put(struct store *s, uint64_t id, const uint8_t digest[32])
{
	struct slot *slot;

	if (2 * (s->count + 1) > s->cap && grow(s) != 0)
		return -1;
	slot = find(s, id);
	slot->id = id;
	memcpy(slot->digest, digest, 32);
	if (!slot->used)
		s->count++;
	slot->used = true;
	return 0;
}

size_t store_count(const struct store *s)
{
	return s->count;
}
