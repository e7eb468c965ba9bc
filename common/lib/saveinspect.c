#include "saveinspect.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one blocking GET, on evhttp ----------------------------------------- */

/* What came back for one GET. */
struct answer {
	struct event_base *base;
	int status;               /* the HTTP status, or -1: no answer */
	const char *why;          /* when status is -1 */
	char body[2048];          /* as much of the body as fits, NUL-ended */
};

static void answer_error_cb(enum evhttp_request_error error, void *arg)
{
	struct answer *a = arg;

	a->why = error == EVREQ_HTTP_TIMEOUT ? "no answer in time" :
		 error == EVREQ_HTTP_EOF ? "the connection closed" :
		 "the request failed (refused or reset)";
}

static void answer_cb(struct evhttp_request *req, void *arg)
{
	struct answer *a = arg;
	ev_ssize_t len;

	event_base_loopbreak(a->base);
	if (!req || evhttp_request_get_response_code(req) == 0)
		return;
	a->status = evhttp_request_get_response_code(req);
	len = evbuffer_copyout(evhttp_request_get_input_buffer(req), a->body,
			       sizeof(a->body) - 1);
	a->body[len > 0 ? len : 0] = '\0';
}

/* Sends GET path to the server and runs a's base until the answer (or
 * the timeout).  @return 0 when a request went out, -1 when none could. */
static int send_get(struct saveproc *p, const char *path, struct answer *a,
		    struct evhttp_connection *conn)
{
	int64_t ms = saveproc_scaled_ms(5000);
	struct timeval timeout = { .tv_sec = ms / 1000,
				   .tv_usec = (ms % 1000) * 1000 };
	struct evhttp_request *req = evhttp_request_new(answer_cb, a);

	if (!req)
		return saveproc_fail(p, "GET %s: out of memory", path);
	evhttp_request_set_error_cb(req, answer_error_cb);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Host",
			  "127.0.0.1");
	evhttp_connection_set_timeout_tv(conn, &timeout);
	/* On failure the connection has freed req already. */
	if (evhttp_make_request(conn, req, EVHTTP_REQ_GET, path) != 0)
		return saveproc_fail(p, "GET %s: cannot connect to 127.0.0.1:%d",
				     path, p->port);
	event_base_dispatch(a->base);
	return 0;
}

/* GET path on a base of its own, so that no loop of the caller runs.
 * @return the status (a->body holds the body), or -1 with p->why set. */
static int http_get(struct saveproc *p, const char *path, struct answer *a)
{
	struct evhttp_connection *conn = NULL;
	int rc = -1;

	*a = (struct answer){ .status = -1, .why = "no answer" };
	a->base = event_base_new();
	if (a->base)
		conn = evhttp_connection_base_new(a->base, NULL, "127.0.0.1",
						  (ev_uint16_t)p->port);
	if (!conn)
		saveproc_fail(p, "GET %s: out of memory", path);
	else if (send_get(p, path, a, conn) == 0 && a->status < 0)
		saveproc_fail(p, "GET %s from 127.0.0.1:%d: %s", path, p->port,
			      a->why);
	else
		rc = a->status;
	if (conn)
		evhttp_connection_free(conn);
	if (a->base)
		event_base_free(a->base);
	return rc;
}

int saveinspect_stats(struct saveproc *p, struct saveproto_stats *out)
{
	struct answer a;
	int status = http_get(p, SAVEPROTO_PATH_STATS, &a);

	if (status < 0)
		return -1;
	if (status != 200)
		return saveproc_fail(p, "GET /stats answered %d", status);
	if (saveproto_parse_stats(a.body, out) != 0)
		return saveproc_fail(p, "GET /stats: not the server's counters: "
				     "%.200s", a.body);
	return 0;
}

int saveinspect_get(struct saveproc *p, uint64_t id, char hex[65])
{
	char path[48];
	struct answer a;
	int status;

	snprintf(path, sizeof(path), "%s%" PRIu64, SAVEPROTO_PATH_SAVES, id);
	status = http_get(p, path, &a);
	if (status == 200 && sscanf(a.body, "%64[0-9a-f]", hex) != 1)
		return saveproc_fail(p, "GET %s: 200 without a digest", path);
	return status;
}

/* ---- the log ------------------------------------------------------------- */

static int append(struct saveproto_record **out, size_t *n, size_t *cap,
		  const struct saveproto_record *r)
{
	if (*n == *cap) {
		size_t bigger = *cap ? *cap * 2 : 256;
		struct saveproto_record *grown = realloc(*out, bigger * sizeof(**out));

		if (!grown)
			return -1;
		*out = grown;
		*cap = bigger;
	}
	(*out)[(*n)++] = *r;
	return 0;
}

int saveinspect_read_log(const char *path, struct saveproto_record **out,
			 size_t *n)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t cap = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!f)
		return -1;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		struct saveproto_record r;

		if (saveproto_parse_record(line, &r) != 0) {
			errno = EINVAL;
			rc = -1;
		} else {
			rc = append(out, n, &cap, &r);
		}
	}
	fclose(f);
	if (rc != 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int saveinspect_read_own_log(struct saveproc *p, struct saveproto_record **out,
			     size_t *n)
{
	char path[64];

	if (p->log_fd < 0)
		return saveproc_fail(p, "no private log: the server was not "
				     "started with saveproc_start_logged");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p->log_fd);
	if (saveinspect_read_log(path, out, n) != 0)
		return saveproc_fail(p, "the server's log is unreadable or malformed");
	return 0;
}
