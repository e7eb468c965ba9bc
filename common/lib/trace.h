/*
 * trace: an ordered, thread-safe log of short named events ("a0", "beat")
 * with the clock_now_ns() time of each.  Graders assert on its order.
 */
#ifndef YIELDLAB_TRACE_H
#define YIELDLAB_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_NAME_MAX 32

struct trace;

/* @return an empty trace, owned by the caller (trace_free), or NULL. */
struct trace *trace_new(void);
void trace_free(struct trace *t);

/* Appends a printf-formatted name (truncated to TRACE_NAME_MAX - 1 bytes).
 * @return 0 on success, -1 when out of memory. */
int trace_add(struct trace *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

size_t trace_len(const struct trace *t);

/* Name and time of entry i (i < trace_len); the name lives as long as t. */
const char *trace_name(const struct trace *t, size_t i);
int64_t trace_time_ns(const struct trace *t, size_t i);

/* Index of the first entry at or after from named name, or -1. */
long trace_find(const struct trace *t, const char *name, size_t from);

/* Number of entries whose name starts with prefix. */
size_t trace_count_prefix(const struct trace *t, const char *prefix);

/* All names joined by sep, e.g. "a0 b0 a1".  @return a string the caller
 * frees, or NULL when out of memory. */
char *trace_join(const struct trace *t, const char *sep);

#endif
