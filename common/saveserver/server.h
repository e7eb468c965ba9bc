/*
 * server: the save server's request handling on an evhttp.
 *
 * POST /save is held for delay_ms on a timer (never a sleeping thread) and
 * at most max_in_flight saves are held at once; the rest wait in arrival
 * order.  GET /saves/N and GET /stats are answered at once.  Protocol,
 * status codes and the log format: common/saveserver/README.md.
 */
#ifndef SAVESERVER_SERVER_H
#define SAVESERVER_SERVER_H

#include "faults.h"
#include "guard.h"

#include <stdio.h>

struct event_base;
struct evhttp;

struct server_options {
	int delay_ms;         /* >= 0 */
	int max_in_flight;    /* >= 1 */
	FILE *log;            /* a line per stored save, or NULL; not owned */
	struct faults faults; /* failures to inject (faults_init: none) */
	/* Called once when --exit-after is reached: main stops listening and
	 * ends the loop.  Held and later saves are never answered. */
	void (*go_away)(void *arg);
	void *go_away_arg;
	struct guard *guard;  /* the connection guard, or NULL; not owned */
};

struct server;

/* Installs the handlers on http (both not owned).  @return the server,
 * owned by the caller (server_free), or NULL when out of memory. */
struct server *server_new(struct event_base *base, struct evhttp *http,
			  const struct server_options *o);

/* Cancels held saves without answering them (evhttp_free, called next,
 * closes their connections and frees the requests), then frees s. */
void server_free(struct server *s);

#endif
