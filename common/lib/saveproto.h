/*
 * saveproto: the save server's formats, written and read in one place.
 *
 * The server (common/saveserver), its client (save.h), the process control
 * (saveproc.h), the inspection (saveinspect.h) and the graders all go
 * through here, so a format changes in one file.  Pure formatting and
 * parsing: no I/O, no allocation except saveproto_form_new.
 *
 * The formats (the user's view is common/saveserver/README.md):
 *   ready line  "listening 127.0.0.1:PORT\n", once, when the server listens;
 *   form body   "id=N&digest=HEX64" (POST /save), each field once;
 *   log line    "id digest received_ns answered_ns\n": id in decimal, the
 *               digest as 64 lowercase hex digits, two CLOCK_MONOTONIC
 *               times in ns (clock_monotonic_ns(), comparable across
 *               processes on one machine): when the request had arrived
 *               whole, and when its 201 was sent.  One line per save
 *               answered 201, written before the 201 is sent;
 *   /stats      one flat JSON object of the counters below, every key once,
 *               in the order of struct saveproto_stats.
 */
#ifndef YIELDLAB_SAVEPROTO_H
#define YIELDLAB_SAVEPROTO_H

#include <stddef.h>
#include <stdint.h>

#define SAVEPROTO_PATH_SAVE "/save"      /* POST: one save */
#define SAVEPROTO_PATH_SAVES "/saves/"   /* GET /saves/N: its digest */
#define SAVEPROTO_PATH_STATS "/stats"    /* GET: the counters */
#define SAVEPROTO_READY_PREFIX "listening 127.0.0.1:"

/* The counters of GET /stats (what each counts: the server's README). */
struct saveproto_stats {
	uint64_t received;       /* POST /save requests that arrived */
	uint64_t stored;         /* saves stored (answered 201) */
	uint64_t duplicates;     /* repeats of a stored save (answered 200) */
	uint64_t conflicts;      /* saves of a stored id with another digest (409) */
	uint64_t rejected;       /* requests answered with a 4xx by the handlers */
	uint64_t failed;         /* saves failed on purpose (--fail-ids) */
	uint64_t dropped;        /* saves whose connection was closed (--close-after) */
	uint64_t in_flight;      /* saves on their delay timer now */
	uint64_t queued;         /* saves waiting for a slot now */
	uint64_t max_in_flight;  /* the most ever held at once (<= cap) */
	uint64_t max_queued;     /* the most ever waiting at once */
	uint64_t cap;            /* --max-in-flight */
	uint64_t delay_ms;       /* --delay-ms */
};

/* One line of the server's log. */
struct saveproto_record {
	uint64_t id;
	char digest[65];         /* 64 lowercase hex digits */
	int64_t received_ns, answered_ns;
};

/* Every format function writes a NUL-terminated text into buf and returns
 * its length, or -1 (buf holds no text) when size is too small. */

int saveproto_format_ready(int port, char *buf, size_t size);
/* The port of a ready line (ending at "\n" or the end), 1-65535.
 * @return 0, or -1 when text is not a ready line. */
int saveproto_parse_ready(const char *text, int *port);

int saveproto_format_record(const struct saveproto_record *r, char *buf,
			    size_t size);
/* One log line (its "\n" optional).  @return 0, or -1 when malformed:
 * a field missing, extra text, a digest not 64 lowercase hex digits. */
int saveproto_parse_record(const char *line, struct saveproto_record *r);

int saveproto_format_stats(const struct saveproto_stats *st, char *buf,
			   size_t size);
/* A /stats body: every key once, no other key, each value a decimal
 * below 2^64, blanks anywhere JSON allows.  @return 0, or -1 (out
 * unspecified). */
int saveproto_parse_stats(const char *json, struct saveproto_stats *out);

/* The body of POST /save, malloc'd (the caller frees), or NULL when out of
 * memory.  digest is sent as given, percent-encoded where it is not
 * [A-Za-z0-9-._~], so that whatever a caller passes arrives as one field
 * for the server to judge. */
char *saveproto_form_new(uint64_t id, const char *digest);
/* Splits a form body (in place: '&' and '=' become NULs) into its id and
 * digest.  @return NULL if it holds exactly id and digest, once each, both
 * valid; else why not, a sentence for the 400's body. */
const char *saveproto_parse_form(char *body, uint64_t *id, uint8_t digest[32]);

/* A decimal id: 1-20 digits, no sign or blank, at most UINT64_MAX.
 * @return 0, or -1. */
int saveproto_parse_id(const char *text, uint64_t *id);
/* Exactly 64 hex digits (either case) into 32 bytes.  @return 0, or -1. */
int saveproto_parse_digest(const char *text, uint8_t digest[32]);
/* 32 bytes as 64 lowercase hex digits and a NUL. */
void saveproto_hex(const uint8_t digest[32], char hex[65]);

#endif
