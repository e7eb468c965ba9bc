/*
 * guard: what evhttp 2.1 leaves open to a hostile client, closed.
 *
 * - A deadline per request: it must arrive whole (head and body) within
 *   request_timeout_ms of its first byte, or its connection is closed.
 *   evhttp_set_timeout_tv in 2.1.12 is only a timeout between two reads
 *   (the bufferevent's read timeout, restarted by every byte), so a client
 *   sending one byte every 2 s held a connection for as long as it liked.
 * - A NUL byte anywhere in what a connection sent (evhttp cuts header
 *   values at a NUL without a word): its requests are refused.
 * - accept() failing with EMFILE (or ENFILE, ENOBUFS, ENOMEM): new
 *   connections are paused for 100 ms at a time and it is logged once per
 *   episode, instead of the listener spinning on a socket that stays
 *   readable and printing a warning each turn.
 *
 * Every connection goes through a pass-through filter bufferevent (made in
 * evhttp's bevcb) that sees its bytes as they arrive.
 */
#ifndef SAVESERVER_GUARD_H
#define SAVESERVER_GUARD_H

#include <stdbool.h>

struct event_base;
struct evhttp;
struct evhttp_bound_socket;
struct evhttp_request;

struct guard;

/* Installs the guard on http (both not owned; at most one guard per
 * process, for the listener's error callback).  @return the guard, owned
 * by the caller, or NULL when out of memory. */
struct guard *guard_new(struct event_base *base, struct evhttp *http,
			int request_timeout_ms);

/* Pauses accepting on handle when accept() runs out of descriptors. */
void guard_watch_listener(struct guard *g, struct evhttp_bound_socket *handle);

/* Before evhttp_del_accept_socket frees the listener. */
void guard_unwatch_listener(struct guard *g);

/* From the request callback: req has arrived whole, so its deadline ends.
 * @return false if its connection sent a NUL byte (refuse it). */
bool guard_request_arrived(struct guard *g, struct evhttp_request *req);

/* After evhttp_free (which frees every connection's state). */
void guard_free(struct guard *g);

#endif
