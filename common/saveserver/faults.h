/*
 * faults: the failures the save server injects on purpose, so graders can
 * watch a client meet a failed save, a dropped connection or a server that
 * goes away.  Options and their meaning: common/saveserver/README.md.
 */
#ifndef SAVESERVER_FAULTS_H
#define SAVESERVER_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAULTS_MAX_RANGES 1024

struct faults_range {
	uint64_t lo, hi;      /* inclusive */
};

struct faults {
	struct faults_range fail[FAULTS_MAX_RANGES];
	size_t n_fail;
	int fail_status;      /* the answer for a failing id, 400-599 */
	long close_after;     /* drop saves after this many; < 0: never */
	long exit_after;      /* exit when save exit_after + 1 arrives; < 0: never */
	int jitter_ms;        /* extra delay, uniform in [0, jitter_ms] */
	uint64_t rng;         /* the jitter's generator state (the seed) */
};

/* No faults: every save is answered as usual. */
void faults_init(struct faults *f);

/* Parses a --fail-ids list, "3,7,10-12": decimal ids and inclusive ranges,
 * comma-separated, no spaces.  @return 0, or -1 (f unchanged past the
 * ranges already added) on a malformed list or more than
 * FAULTS_MAX_RANGES items. */
int faults_parse_ids(struct faults *f, const char *list);

/* @return true if saves of id are to fail. */
bool faults_fails(const struct faults *f, uint64_t id);

/* The next jitter in ms, in [0, jitter_ms] (0 when jitter is off). */
int faults_jitter_ms(struct faults *f);

/* The reason phrase for an injected status. */
const char *faults_reason(int status);

#endif
