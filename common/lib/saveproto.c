#include "saveproto.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int format(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* snprintf that says -1 (and leaves an empty string) when cut short. */
static int format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= size) {
		if (size > 0)
			buf[0] = '\0';
		return -1;
	}
	return len;
}

/* ---- numbers ----------------------------------------------------------- */

/* Decimal digits at *at (no sign, no blank), moved past.  @return 0, -1. */
static int take_u64(const char **at, uint64_t *out)
{
	size_t len = strspn(*at, "0123456789");
	char digits[24];

	if (len == 0 || len > 20)
		return -1;
	memcpy(digits, *at, len);
	digits[len] = '\0';
	errno = 0;
	*out = strtoull(digits, NULL, 10);
	if (errno == ERANGE)
		return -1;
	*at += len;
	return 0;
}

/* As take_u64, with an optional '-', within int64_t. */
static int take_i64(const char **at, int64_t *out)
{
	bool negative = **at == '-';
	const char *rest = *at + negative;
	uint64_t magnitude;

	if (take_u64(&rest, &magnitude) != 0 ||
	    magnitude > (uint64_t)INT64_MAX + negative)
		return -1;
	*out = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
	*at = rest;
	return 0;
}

int saveproto_parse_id(const char *text, uint64_t *id)
{
	return take_u64(&text, id) == 0 && *text == '\0' ? 0 : -1;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int saveproto_parse_digest(const char *text, uint8_t digest[32])
{
	if (strlen(text) != 64)
		return -1;
	for (int b = 0; b < 32; b++) {
		int hi = hex_value(text[2 * b]), lo = hex_value(text[2 * b + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		digest[b] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

void saveproto_hex(const uint8_t digest[32], char hex[65])
{
	static const char digits[] = "0123456789abcdef";

	for (int b = 0; b < 32; b++) {
		hex[2 * b] = digits[digest[b] >> 4];
		hex[2 * b + 1] = digits[digest[b] & 15];
	}
	hex[64] = '\0';
}

/* ---- the ready line ---------------------------------------------------- */

int saveproto_format_ready(int port, char *buf, size_t size)
{
	return format(buf, size, "%s%d\n", SAVEPROTO_READY_PREFIX, port);
}

int saveproto_parse_ready(const char *text, int *port)
{
	size_t prefix = strlen(SAVEPROTO_READY_PREFIX);
	uint64_t value;

	if (strncmp(text, SAVEPROTO_READY_PREFIX, prefix) != 0)
		return -1;
	text += prefix;
	if (take_u64(&text, &value) != 0 || value < 1 || value > 65535 ||
	    (*text != '\n' && *text != '\0'))
		return -1;
	*port = (int)value;
	return 0;
}

/* ---- the log line ------------------------------------------------------ */

int saveproto_format_record(const struct saveproto_record *r, char *buf,
			    size_t size)
{
	return format(buf, size, "%" PRIu64 " %s %" PRId64 " %" PRId64 "\n",
		      r->id, r->digest, r->received_ns, r->answered_ns);
}

/* 64 lowercase hex digits at *at, copied into digest, moved past. */
static int take_digest(const char **at, char digest[65])
{
	if (strspn(*at, "0123456789abcdef") != 64)
		return -1;
	memcpy(digest, *at, 64);
	digest[64] = '\0';
	*at += 64;
	return 0;
}

static int take_blank(const char **at)
{
	return *(*at)++ == ' ' ? 0 : -1;
}

int saveproto_parse_record(const char *line, struct saveproto_record *r)
{
	const char *at = line;

	if (take_u64(&at, &r->id) != 0 || take_blank(&at) != 0 ||
	    take_digest(&at, r->digest) != 0 || take_blank(&at) != 0 ||
	    take_i64(&at, &r->received_ns) != 0 || take_blank(&at) != 0 ||
	    take_i64(&at, &r->answered_ns) != 0)
		return -1;
	if (*at == '\n')
		at++;
	return *at == '\0' ? 0 : -1;
}

/* ---- /stats ------------------------------------------------------------ */

#define STATS_KEY(name) { #name, offsetof(struct saveproto_stats, name) }
static const struct stats_key {
	const char *name;
	size_t offset;
} stats_keys[] = {
	STATS_KEY(received), STATS_KEY(stored), STATS_KEY(duplicates),
	STATS_KEY(conflicts), STATS_KEY(rejected), STATS_KEY(failed),
	STATS_KEY(dropped), STATS_KEY(in_flight), STATS_KEY(queued),
	STATS_KEY(max_in_flight), STATS_KEY(max_queued), STATS_KEY(cap),
	STATS_KEY(delay_ms),
};
#define N_STATS_KEYS (sizeof(stats_keys) / sizeof(stats_keys[0]))

static uint64_t *stats_field(struct saveproto_stats *st, size_t key)
{
	return (uint64_t *)((char *)st + stats_keys[key].offset);
}

int saveproto_format_stats(const struct saveproto_stats *st, char *buf,
			   size_t size)
{
	struct saveproto_stats copy = *st;
	size_t len = 0;
	int got = format(buf, size, "{");

	for (size_t k = 0; got >= 0 && k < N_STATS_KEYS; k++) {
		len += (size_t)got;
		got = format(buf + len, size - len, "%s\"%s\": %" PRIu64,
			     k ? ", " : "", stats_keys[k].name, *stats_field(&copy, k));
	}
	if (got >= 0) {
		len += (size_t)got;
		got = format(buf + len, size - len, "}\n");
	}
	if (got < 0) {
		buf[0] = '\0';
		return -1;
	}
	return (int)(len + (size_t)got);
}

static void skip_blanks(const char **at)
{
	*at += strspn(*at, " \t\r\n");
}

/* "name": at *at (a key of the table, not seen before), moved past. */
static int take_key(const char **at, bool seen[N_STATS_KEYS], size_t *key)
{
	const char *end;

	if (**at != '"' || !(end = strchr(*at + 1, '"')))
		return -1;
	for (*key = 0; *key < N_STATS_KEYS; (*key)++) {
		const char *name = stats_keys[*key].name;

		if ((size_t)(end - *at - 1) == strlen(name) &&
		    strncmp(*at + 1, name, strlen(name)) == 0)
			break;
	}
	if (*key == N_STATS_KEYS || seen[*key])
		return -1;
	seen[*key] = true;
	*at = end + 1;
	skip_blanks(at);
	return *(*at)++ == ':' ? 0 : -1;
}

int saveproto_parse_stats(const char *json, struct saveproto_stats *out)
{
	bool seen[N_STATS_KEYS] = { false };
	const char *at = json;
	size_t key;

	skip_blanks(&at);
	if (*at++ != '{')
		return -1;
	for (size_t n = 0; n < N_STATS_KEYS; n++) {
		skip_blanks(&at);
		if (take_key(&at, seen, &key) != 0)
			return -1;
		skip_blanks(&at);
		if (take_u64(&at, stats_field(out, key)) != 0)
			return -1;
		skip_blanks(&at);
		if (*at++ != (n + 1 < N_STATS_KEYS ? ',' : '}'))
			return -1;
	}
	skip_blanks(&at);
	return *at == '\0' ? 0 : -1;
}

/* ---- the form body ----------------------------------------------------- */

char *saveproto_form_new(uint64_t id, const char *digest)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = strlen(digest);
	char *body = malloc(32 + 3 * len), *at;

	if (!body)
		return NULL;
	at = body + sprintf(body, "id=%" PRIu64 "&digest=", id);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)digest[i];

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c)) {
			*at++ = (char)c;
		} else {
			*at++ = '%';
			*at++ = hex[c >> 4];
			*at++ = hex[c & 15];
		}
	}
	*at = '\0';
	return body;
}

/* One field of the form: "id=N" or "digest=HEX64", each at most once. */
static const char *take_field(char *field, uint64_t *id, uint8_t digest[32],
			      bool *have_id, bool *have_digest)
{
	char *value = strchr(field, '=');

	if (*field == '\0')
		return "empty field: a stray '&' (the body is id=N&digest=HEX64)";
	if (!value)
		return "a field without '=': the body is id=N&digest=HEX64";
	*value++ = '\0';
	if (strcmp(field, "id") == 0 && !*have_id) {
		*have_id = true;
		if (saveproto_parse_id(value, id) != 0)
			return "bad id: expected a decimal number below 2^64";
	} else if (strcmp(field, "digest") == 0 && !*have_digest) {
		*have_digest = true;
		if (saveproto_parse_digest(value, digest) != 0)
			return "bad digest: expected 64 hex digits";
	} else {
		return "unexpected field: the body is id=N&digest=HEX64, each once";
	}
	return NULL;
}

/* Split at '&' by hand: evhttp_parse_query_str skips empty fields (a stray
 * '&') and decodes %XX, and neither has a place in this body. */
const char *saveproto_parse_form(char *body, uint64_t *id, uint8_t digest[32])
{
	bool have_id = false, have_digest = false;
	char *field = body, *amp;
	const char *why;

	for (;;) {
		amp = strchr(field, '&');
		if (amp)
			*amp = '\0';
		why = take_field(field, id, digest, &have_id, &have_digest);
		if (why)
			return why;
		if (!amp)
			break;
		field = amp + 1;
	}
	if (!have_id || !have_digest)
		return have_id ? "missing field: digest" : "missing field: id";
	return NULL;
}
