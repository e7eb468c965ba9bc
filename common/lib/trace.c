#include "trace.h"

#include "clock.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct trace_entry {
	char name[TRACE_NAME_MAX];
	int64_t time_ns;
};

struct trace {
	/* Mutable through const pointers in readers: the lock is not state. */
	pthread_mutex_t lock;
	struct trace_entry *entries;
	size_t len, cap;
};

struct trace *trace_new(void)
{
	struct trace *t = calloc(1, sizeof(*t));

	if (t)
		pthread_mutex_init(&t->lock, NULL);
	return t;
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t->entries);
	free(t);
}

static int grow(struct trace *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	struct trace_entry *e = realloc(t->entries, cap * sizeof(*e));

	if (!e)
		return -1;
	t->entries = e;
	t->cap = cap;
	return 0;
}

int trace_add(struct trace *t, const char *fmt, ...)
{
	struct trace_entry entry = { .time_ns = clock_now_ns() };
	va_list ap;
	int rc = 0;

	va_start(ap, fmt);
	vsnprintf(entry.name, sizeof(entry.name), fmt, ap);
	va_end(ap);

	pthread_mutex_lock(&t->lock);
	if (t->len == t->cap && grow(t) == -1)
		rc = -1;
	else
		t->entries[t->len++] = entry;
	pthread_mutex_unlock(&t->lock);
	return rc;
}

size_t trace_len(const struct trace *t)
{
	return t->len;
}

const char *trace_name(const struct trace *t, size_t i)
{
	return i < t->len ? t->entries[i].name : "";
}

int64_t trace_time_ns(const struct trace *t, size_t i)
{
	return i < t->len ? t->entries[i].time_ns : 0;
}

long trace_find(const struct trace *t, const char *name, size_t from)
{
	for (size_t i = from; i < t->len; i++)
		if (strcmp(t->entries[i].name, name) == 0)
			return (long)i;
	return -1;
}

size_t trace_count_prefix(const struct trace *t, const char *prefix)
{
	size_t n = 0, plen = strlen(prefix);

	for (size_t i = 0; i < t->len; i++)
		n += strncmp(t->entries[i].name, prefix, plen) == 0;
	return n;
}

char *trace_join(const struct trace *t, const char *sep)
{
	size_t seplen = strlen(sep), size = 1;
	char *out, *p;

	for (size_t i = 0; i < t->len; i++)
		size += strlen(t->entries[i].name) + seplen;
	out = p = malloc(size);
	if (!out)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < t->len; i++) {
		if (i > 0) {
			memcpy(p, sep, seplen);
			p += seplen;
		}
		p = stpcpy(p, t->entries[i].name);
	}
	return out;
}
