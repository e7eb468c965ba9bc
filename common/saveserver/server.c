#include "server.h"

#include "clock.h"
#include "store.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#define MAX_BODY 4096

/* One save the server holds: waiting for a slot, or on its delay timer. */
struct pending {
	TAILQ_ENTRY(pending) link;
	struct server *srv;
	struct evhttp_request *req;   /* owned by its connection */
	struct event *timer;
	uint64_t id;
	uint8_t digest[32];
	int64_t received_ns;
};
TAILQ_HEAD(pending_list, pending);

struct counts {
	uint64_t received, stored, duplicates, conflicts, rejected;
	uint64_t failed, dropped;     /* injected: --fail-ids, --close-after */
	size_t in_flight, queued, max_in_flight, max_queued;
};

struct server {
	struct event_base *base;
	struct server_options opt;
	struct store *store;
	struct pending_list waiting, working;
	struct counts n;
	bool going_away;              /* --exit-after reached: answer nothing */
};

/* ---- replies --------------------------------------------------------- */

static void send_text(struct evhttp_request *req, int code, const char *reason,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void send_text(struct evhttp_request *req, int code, const char *reason,
		      const char *fmt, ...)
{
	struct evbuffer *body = evbuffer_new();
	va_list ap;

	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Content-Type", "text/plain; charset=utf-8");
	if (body) {
		va_start(ap, fmt);
		evbuffer_add_vprintf(body, fmt, ap);
		va_end(ap);
	}
	evhttp_send_reply(req, code, reason, body);
	if (body)
		evbuffer_free(body);
}

/* Every 4xx goes through here, so "rejected" counts them all. */
static void reject(struct server *s, struct evhttp_request *req, int code,
		   const char *reason, const char *why)
{
	s->n.rejected++;
	send_text(req, code, reason, "%s\n", why);
}

/* ---- parsing ---------------------------------------------------------- */

/* A decimal id: 1-20 digits, no sign, no spaces, at most UINT64_MAX. */
static int parse_id(const char *text, uint64_t *id)
{
	size_t len = strspn(text, "0123456789");
	char *end;

	if (len == 0 || len > 20 || text[len] != '\0')
		return -1;
	errno = 0;
	*id = strtoull(text, &end, 10);
	return errno == ERANGE ? -1 : 0;
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

/* Exactly 64 hex digits (either case) into 32 bytes. */
static int parse_digest(const char *text, uint8_t out[32])
{
	if (strlen(text) != 64)
		return -1;
	for (int b = 0; b < 32; b++) {
		int hi = hex_value(text[2 * b]), lo = hex_value(text[2 * b + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[b] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* Copies the body as a C string; NULL if it holds a NUL or is too big. */
static char *body_string(struct evhttp_request *req)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(in);
	char *text;

	if (len > MAX_BODY)
		return NULL;
	text = malloc(len + 1);
	if (!text)
		return NULL;
	evbuffer_copyout(in, text, len);
	text[len] = '\0';
	if (strlen(text) != len) {
		free(text);
		return NULL;
	}
	return text;
}

/* One field of the form: "id=N" or "digest=HEX64", each at most once. */
static const char *check_field(char *field, struct pending *p, bool *have_id,
			       bool *have_digest)
{
	char *value = strchr(field, '=');

	if (*field == '\0')
		return "empty field: a stray '&' (the body is id=N&digest=HEX64)";
	if (!value)
		return "a field without '=': the body is id=N&digest=HEX64";
	*value++ = '\0';
	if (strcmp(field, "id") == 0 && !*have_id) {
		*have_id = true;
		if (parse_id(value, &p->id) != 0)
			return "bad id: expected a decimal number below 2^64";
	} else if (strcmp(field, "digest") == 0 && !*have_digest) {
		*have_digest = true;
		if (parse_digest(value, p->digest) != 0)
			return "bad digest: expected 64 hex digits";
	} else {
		return "unexpected field: the body is id=N&digest=HEX64, each once";
	}
	return NULL;
}

/* Exactly the fields id and digest, once each, both valid, split at '&'
 * by hand: evhttp_parse_query_str skips empty fields (a stray '&') and
 * decodes %XX, and neither has a place in this body. */
static const char *check_fields(char *body, struct pending *p)
{
	bool have_id = false, have_digest = false;
	char *field = body, *amp;
	const char *why;

	for (;;) {
		amp = strchr(field, '&');
		if (amp)
			*amp = '\0';
		if ((why = check_field(field, p, &have_id, &have_digest)) != NULL)
			return why;
		if (!amp)
			break;
		field = amp + 1;
	}
	if (!have_id || !have_digest)
		return have_id ? "missing field: digest" : "missing field: id";
	return NULL;
}

/* @return NULL if the body is a valid save (filled into p), else why not. */
static const char *parse_save(struct evhttp_request *req, struct pending *p)
{
	const char *why;
	char *body = body_string(req);

	if (!body)
		return "unreadable body (NUL byte, too big, or out of memory)";
	why = check_fields(body, p);
	free(body);
	return why;
}

/* ---- saves: queue, delay, commit -------------------------------------- */

static void answer_cb(evutil_socket_t fd, short what, void *arg);

static void free_pending(struct pending *p)
{
	if (p->timer)
		event_free(p->timer);
	free(p);
}

static void to_hex(const uint8_t digest[32], char hex[65])
{
	for (int b = 0; b < 32; b++)
		snprintf(hex + 2 * b, 3, "%02x", digest[b]);
}

static void write_log(struct server *s, const struct pending *p,
		      int64_t answered_ns)
{
	char hex[65];

	if (!s->opt.log)
		return;
	to_hex(p->digest, hex);
	fprintf(s->opt.log, "%" PRIu64 " %s %" PRId64 " %" PRId64 "\n", p->id,
		hex, p->received_ns, answered_ns);
}

/* The end of a save's delay: store it (or refuse a conflicting one). */
static void commit(struct server *s, struct pending *p)
{
	uint8_t have[32];
	int status = s->opt.faults.fail_status;

	if (faults_fails(&s->opt.faults, p->id)) {
		/* Decided at commit time, like a database that fails its write:
		 * the save held a slot for its whole delay. */
		s->n.failed++;
		send_text(p->req, status, faults_reason(status),
			  "injected failure for this id (--fail-ids)\n");
		return;
	}
	if (store_get(s->store, p->id, have)) {
		if (memcmp(have, p->digest, 32) == 0) {
			s->n.duplicates++;
			send_text(p->req, 200, "OK", "already stored\n");
		} else {
			s->n.conflicts++;
			reject(s, p->req, 409, "Conflict",
			       "this id already holds a different digest");
		}
		return;
	}
	if (store_put(s->store, p->id, p->digest) != 0) {
		send_text(p->req, 503, "Service Unavailable", "out of memory\n");
		return;
	}
	s->n.stored++;
	/* Logged before the reply is queued: whoever saw the 201 finds the
	 * line already in the file. */
	write_log(s, p, clock_monotonic_ns());
	send_text(p->req, 201, "Created", "stored\n");
}

/* The delay of one save: --delay-ms plus its --jitter-ms draw. */
static void arm_delay(struct server *s, struct pending *p)
{
	int ms = s->opt.delay_ms + faults_jitter_ms(&s->opt.faults);
	const struct timeval delay = {
		.tv_sec = ms / 1000,
		.tv_usec = (ms % 1000) * 1000,
	};

	evtimer_add(p->timer, &delay);
}

/* Moves waiting saves onto their timers while slots are free. */
static void admit(struct server *s)
{
	struct pending *p;

	while (!s->going_away && s->n.in_flight < (size_t)s->opt.max_in_flight &&
	       (p = TAILQ_FIRST(&s->waiting)) != NULL) {
		TAILQ_REMOVE(&s->waiting, p, link);
		s->n.queued--;
		TAILQ_INSERT_TAIL(&s->working, p, link);
		if (++s->n.in_flight > s->n.max_in_flight)
			s->n.max_in_flight = s->n.in_flight;
		/* The deadline is cached time + delay: refresh the cache so a
		 * save is never answered before delay_ms. */
		event_base_update_cache_time(s->base);
		arm_delay(s, p);
	}
}

static void answer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pending *p = arg;
	struct server *s = p->srv;

	(void)fd;
	(void)what;
	TAILQ_REMOVE(&s->working, p, link);
	s->n.in_flight--;
	commit(s, p);
	free_pending(p);
	admit(s);
}

#define FORM_TYPE "application/x-www-form-urlencoded"

/* The form type in any case, alone or with parameters ("; charset=..."),
 * and nothing else: a type that merely starts with it is another type. */
static bool form_encoded(struct evhttp_request *req)
{
	const char *type = evhttp_find_header(
		evhttp_request_get_input_headers(req), "Content-Type");
	const char *rest;

	/* No Content-Type at all is taken as a form, as curl -d sends. */
	if (!type)
		return true;
	if (strncasecmp(type, FORM_TYPE, strlen(FORM_TYPE)) != 0)
		return false;
	rest = type + strlen(FORM_TYPE);
	rest += strspn(rest, " \t");
	return *rest == '\0' || *rest == ';';
}

static void enqueue(struct server *s, struct pending *p)
{
	TAILQ_INSERT_TAIL(&s->waiting, p, link);
	s->n.queued++;
	admit(s);
	/* Measured after admit: only saves beyond the cap count as queued. */
	if (s->n.queued > s->n.max_queued)
		s->n.max_queued = s->n.queued;
}

/* --exit-after: the "database" crashes.  Held saves are never answered
 * (nor stored); main stops listening and ends the loop, and evhttp_free
 * then closes every connection. */
static void go_away(struct server *s)
{
	struct pending *p;

	s->going_away = true;
	TAILQ_FOREACH(p, &s->working, link)
		event_del(p->timer);
	if (s->opt.go_away)
		s->opt.go_away(s->opt.go_away_arg);
}

/* --close-after: close the connection without an answer.  Safe from the
 * request callback: evhttp reads nothing more from this connection, and
 * freeing it frees req (we keep no pointer to it). */
static void drop_connection(struct server *s, struct evhttp_request *req)
{
	s->n.dropped++;
	evhttp_connection_free(evhttp_request_get_connection(req));
}

/* @return true if an injected fault took the request (no answer). */
static bool fault_takes(struct server *s, struct evhttp_request *req)
{
	const struct faults *f = &s->opt.faults;

	if (f->exit_after >= 0 && s->n.received > (uint64_t)f->exit_after) {
		go_away(s);
		return true;
	}
	if (f->close_after >= 0 && s->n.received > (uint64_t)f->close_after) {
		drop_connection(s, req);
		return true;
	}
	return false;
}

static void handle_save(struct server *s, struct evhttp_request *req)
{
	struct pending *p;
	const char *why;

	s->n.received++;
	if (fault_takes(s, req))
		return;
	if (!form_encoded(req)) {
		reject(s, req, 415, "Unsupported Media Type",
		       "send application/x-www-form-urlencoded");
		return;
	}
	p = calloc(1, sizeof(*p));
	if (!p || !(p->timer = evtimer_new(s->base, answer_cb, p))) {
		free(p);
		send_text(req, 503, "Service Unavailable", "out of memory\n");
		return;
	}
	p->srv = s;
	p->req = req;
	p->received_ns = clock_monotonic_ns();
	if ((why = parse_save(req, p)) != NULL) {
		free_pending(p);
		reject(s, req, 400, "Bad Request", why);
		return;
	}
	enqueue(s, p);
}

/* ---- reads ------------------------------------------------------------ */

static void handle_get_save(struct server *s, struct evhttp_request *req,
			    const char *id_text)
{
	uint8_t digest[32];
	uint64_t id;
	char hex[65];

	if (parse_id(id_text, &id) != 0) {
		reject(s, req, 400, "Bad Request",
		       "bad id: expected /saves/N, N a decimal number below 2^64");
		return;
	}
	if (!store_get(s->store, id, digest)) {
		reject(s, req, 404, "Not Found", "no save with this id");
		return;
	}
	to_hex(digest, hex);
	send_text(req, 200, "OK", "%s\n", hex);
}

static void handle_stats(struct server *s, struct evhttp_request *req)
{
	const struct counts *n = &s->n;
	struct evbuffer *body = evbuffer_new();

	if (!body) {
		send_text(req, 503, "Service Unavailable", "out of memory\n");
		return;
	}
	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Content-Type", "application/json");
	evbuffer_add_printf(body,
		"{\"received\": %" PRIu64 ", \"stored\": %" PRIu64
		", \"duplicates\": %" PRIu64 ", \"conflicts\": %" PRIu64
		", \"rejected\": %" PRIu64 ", \"failed\": %" PRIu64
		", \"dropped\": %" PRIu64 ", \"in_flight\": %zu, \"queued\": %zu"
		", \"max_in_flight\": %zu, \"max_queued\": %zu, \"cap\": %d"
		", \"delay_ms\": %d}\n",
		n->received, n->stored, n->duplicates, n->conflicts, n->rejected,
		n->failed, n->dropped, n->in_flight, n->queued, n->max_in_flight, n->max_queued,
		s->opt.max_in_flight, s->opt.delay_ms);
	evhttp_send_reply(req, 200, "OK", body);
	evbuffer_free(body);
}

/* ---- routing ---------------------------------------------------------- */

static bool method_is(struct server *s, struct evhttp_request *req,
		      enum evhttp_cmd_type want, const char *allow)
{
	if (evhttp_request_get_command(req) == want)
		return true;
	evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", allow);
	reject(s, req, 405, "Method Not Allowed", "wrong method for this path");
	return false;
}

static void request_cb(struct evhttp_request *req, void *arg)
{
	struct server *s = arg;
	const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));

	/* Gone away: requests stay unanswered until evhttp_free closes
	 * their connections. */
	if (s->going_away)
		return;
	if (s->opt.guard && !guard_request_arrived(s->opt.guard, req)) {
		if (strcmp(path ? path : "", "/save") == 0)
			s->n.received++;
		reject(s, req, 400, "Bad Request",
		       "a NUL byte in the request (its head or body)");
		return;
	}
	if (!path)
		path = "";
	if (strcmp(path, "/save") == 0) {
		if (method_is(s, req, EVHTTP_REQ_POST, "POST"))
			handle_save(s, req);
	} else if (strncmp(path, "/saves/", 7) == 0) {
		if (method_is(s, req, EVHTTP_REQ_GET, "GET"))
			handle_get_save(s, req, path + 7);
	} else if (strcmp(path, "/stats") == 0) {
		if (method_is(s, req, EVHTTP_REQ_GET, "GET"))
			handle_stats(s, req);
	} else {
		reject(s, req, 404, "Not Found",
		       "unknown path: try POST /save, GET /saves/N or GET /stats");
	}
}

struct server *server_new(struct event_base *base, struct evhttp *http,
			  const struct server_options *o)
{
	struct server *s = calloc(1, sizeof(*s));

	if (!s || !(s->store = store_new())) {
		free(s);
		return NULL;
	}
	s->base = base;
	s->opt = *o;
	TAILQ_INIT(&s->waiting);
	TAILQ_INIT(&s->working);
	evhttp_set_gencb(http, request_cb, s);
	return s;
}

static void drop_all(struct pending_list *list)
{
	struct pending *p;

	while ((p = TAILQ_FIRST(list)) != NULL) {
		TAILQ_REMOVE(list, p, link);
		free_pending(p);
	}
}

void server_free(struct server *s)
{
	if (!s)
		return;
	drop_all(&s->waiting);
	drop_all(&s->working);
	store_free(s->store);
	free(s);
}
