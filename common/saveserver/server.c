#include "server.h"

#include "clock.h"
#include "saveproto.h"
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

struct server {
	struct event_base *base;
	struct server_options opt;
	struct store *store;
	struct pending_list waiting, working;
	struct saveproto_stats n;     /* cap and delay_ms: from opt */
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

/* A reply whose body is text, as it is (Content-Type set by the caller). */
static void send_body(struct evhttp_request *req, int code, const char *reason,
		      const char *text)
{
	struct evbuffer *body = evbuffer_new();

	if (body)
		evbuffer_add(body, text, strlen(text));
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

/* @return NULL if the body is a valid save (filled into p), else why not. */
static const char *parse_save(struct evhttp_request *req, struct pending *p)
{
	const char *why;
	char *body = body_string(req);

	if (!body)
		return "unreadable body (NUL byte, too big, or out of memory)";
	why = saveproto_parse_form(body, &p->id, p->digest);
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

static void write_log(struct server *s, const struct pending *p,
		      int64_t answered_ns)
{
	struct saveproto_record r = { .id = p->id, .received_ns = p->received_ns,
				      .answered_ns = answered_ns };
	char line[160];

	if (!s->opt.log)
		return;
	saveproto_hex(p->digest, r.digest);
	if (saveproto_format_record(&r, line, sizeof(line)) > 0)
		fputs(line, s->opt.log);
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

	while (!s->going_away && s->n.in_flight < (uint64_t)s->opt.max_in_flight &&
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

	if (saveproto_parse_id(id_text, &id) != 0) {
		reject(s, req, 400, "Bad Request",
		       "bad id: expected /saves/N, N a decimal number below 2^64");
		return;
	}
	if (!store_get(s->store, id, digest)) {
		reject(s, req, 404, "Not Found", "no save with this id");
		return;
	}
	saveproto_hex(digest, hex);
	send_text(req, 200, "OK", "%s\n", hex);
}

static void handle_stats(struct server *s, struct evhttp_request *req)
{
	struct saveproto_stats st = s->n;
	char text[1024];

	st.cap = (uint64_t)s->opt.max_in_flight;
	st.delay_ms = (uint64_t)s->opt.delay_ms;
	if (saveproto_format_stats(&st, text, sizeof(text)) < 0) {
		send_text(req, 500, "Internal Server Error", "stats do not fit\n");
		return;
	}
	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Content-Type", "application/json");
	send_body(req, 200, "OK", text);
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
		if (strcmp(path ? path : "", SAVEPROTO_PATH_SAVE) == 0)
			s->n.received++;
		reject(s, req, 400, "Bad Request",
		       "a NUL byte in the request (its head or body)");
		return;
	}
	if (!path)
		path = "";
	if (strcmp(path, SAVEPROTO_PATH_SAVE) == 0) {
		if (method_is(s, req, EVHTTP_REQ_POST, "POST"))
			handle_save(s, req);
	} else if (strncmp(path, SAVEPROTO_PATH_SAVES,
			   strlen(SAVEPROTO_PATH_SAVES)) == 0) {
		if (method_is(s, req, EVHTTP_REQ_GET, "GET"))
			handle_get_save(s, req, path + strlen(SAVEPROTO_PATH_SAVES));
	} else if (strcmp(path, SAVEPROTO_PATH_STATS) == 0) {
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
