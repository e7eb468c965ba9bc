#include "guard.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>

#define ACCEPT_PAUSE_MS 100

/* One connection's watch, made at its first byte, freed when evhttp frees
 * the connection (its close callback). */
struct conn {
	LIST_ENTRY(conn) link;
	struct evhttp_connection *evcon;
	struct bufferevent *bev;
	struct event *deadline;
	bool in_request;       /* bytes of a request arrived, not yet whole */
	bool saw_nul;
};

struct guard {
	struct event_base *base;
	struct timeval request_timeout;
	LIST_HEAD(, conn) conns;
	struct evconnlistener *listener;
	struct event *resume;
	bool paused, logged;
};

/* The callbacks of the listener and of evhttp's buffers get libevent's
 * arguments, not ours: there is one guard per process. */
static struct guard *the_guard;

/* ---- the request deadline and NUL bytes -------------------------------- */

/* The deadline passed: shut the socket down, so evhttp reads end of file
 * and frees the connection (and, through closed_cb, this watch). */
static void deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *k = arg;

	(void)fd;
	(void)what;
	shutdown(bufferevent_getfd(k->bev), SHUT_RDWR);
}

/* Bytes arrived on a watched connection (info->n_added of them, from
 * offset info->orig_size). */
static void bytes_cb(struct evbuffer *in, const struct evbuffer_cb_info *info,
		     void *arg)
{
	static const char nul = '\0';
	struct conn *k = arg;
	struct evbuffer_ptr from;

	if (info->n_added == 0)
		return;
	if (evbuffer_ptr_set(in, &from, info->orig_size, EVBUFFER_PTR_SET) == 0 &&
	    evbuffer_search(in, &nul, 1, &from).pos >= 0)
		k->saw_nul = true;
	if (!k->in_request) {
		k->in_request = true;
		/* From this pass's cached time: at most one callback's
		 * length early, for a deadline of seconds. */
		evtimer_add(k->deadline, &the_guard->request_timeout);
	}
}

static void closed_cb(struct evhttp_connection *evcon, void *arg)
{
	struct conn *k = arg;

	(void)evcon;
	evbuffer_remove_cb(bufferevent_get_input(k->bev), bytes_cb, k);
	LIST_REMOVE(k, link);
	event_free(k->deadline);
	free(k);
}

/* The first bytes of a connection: evhttp has set it up by now (the
 * bufferevent's callback argument is its evhttp_connection), so the watch
 * can hang on the connection's close callback. */
static void first_bytes_cb(struct evbuffer *in, const struct evbuffer_cb_info *info,
			   void *arg)
{
	struct bufferevent *bev = arg;
	struct guard *g = the_guard;
	struct conn *k;
	void *evcon = NULL;

	if (info->n_added == 0)
		return;
	bufferevent_getcb(bev, NULL, NULL, NULL, &evcon);
	evbuffer_remove_cb(in, first_bytes_cb, bev);
	k = calloc(1, sizeof(*k));
	if (!k || !evcon || !(k->deadline = evtimer_new(g->base, deadline_cb, k))) {
		free(k);   /* unwatched: only the idle timeout guards it */
		return;
	}
	k->evcon = evcon;
	k->bev = bev;
	LIST_INSERT_HEAD(&g->conns, k, link);
	evhttp_connection_set_closecb(evcon, closed_cb, k);
	evbuffer_add_cb(in, bytes_cb, k);
	bytes_cb(in, info, k);
}

/* evhttp's bevcb: the socket bufferevent evhttp would make, watched. */
static struct bufferevent *bev_cb(struct event_base *base, void *arg)
{
	struct guard *g = arg;
	struct bufferevent *bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);

	if (g->logged) {
		fprintf(stderr, "saveserver: accepting connections again\n");
		g->logged = false;
	}
	if (bev && !evbuffer_add_cb(bufferevent_get_input(bev), first_bytes_cb, bev)) {
		bufferevent_free(bev);
		return NULL;
	}
	return bev;
}

bool guard_request_arrived(struct guard *g, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct conn *k;

	LIST_FOREACH(k, &g->conns, link) {
		if (k->evcon == evcon) {
			k->in_request = false;
			evtimer_del(k->deadline);
			return !k->saw_nul;
		}
	}
	return true;
}

/* ---- accept() out of descriptors ---------------------------------------- */

static void resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct guard *g = arg;

	(void)fd;
	(void)what;
	g->paused = false;
	if (g->listener)
		evconnlistener_enable(g->listener);
}

static void accept_error_cb(struct evconnlistener *lev, void *arg)
{
	struct guard *g = the_guard;
	const struct timeval pause = { 0, ACCEPT_PAUSE_MS * 1000 };
	int err = errno;

	(void)arg;
	if (err != EMFILE && err != ENFILE && err != ENOBUFS && err != ENOMEM) {
		fprintf(stderr, "saveserver: accept: %s\n", strerror(err));
		return;
	}
	if (!g->logged)
		fprintf(stderr, "saveserver: accept: %s; pausing new connections "
			"(retrying every %d ms)\n", strerror(err), ACCEPT_PAUSE_MS);
	g->logged = true;
	g->paused = true;
	evconnlistener_disable(lev);
	evtimer_add(g->resume, &pause);
}

void guard_watch_listener(struct guard *g, struct evhttp_bound_socket *handle)
{
	g->listener = evhttp_bound_socket_get_listener(handle);
	evconnlistener_set_error_cb(g->listener, accept_error_cb);
}

void guard_unwatch_listener(struct guard *g)
{
	evtimer_del(g->resume);
	g->listener = NULL;
}

/* ---- life ----------------------------------------------------------------- */

struct guard *guard_new(struct event_base *base, struct evhttp *http,
			int request_timeout_ms)
{
	struct guard *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->resume = evtimer_new(base, resume_cb, g);
	if (!g->resume) {
		free(g);
		return NULL;
	}
	g->base = base;
	g->request_timeout.tv_sec = request_timeout_ms / 1000;
	g->request_timeout.tv_usec = request_timeout_ms % 1000 * 1000;
	LIST_INIT(&g->conns);
	evhttp_set_bevcb(http, bev_cb, g);
	the_guard = g;
	return g;
}

void guard_free(struct guard *g)
{
	if (!g)
		return;
	/* evhttp_free has freed every connection: conns is empty. */
	event_free(g->resume);
	if (the_guard == g)
		the_guard = NULL;
	free(g);
}
