/*
 * save: a non-blocking client of the save server (common/saveserver/).
 *
 * save_client_save() only queues a save and returns: the request leaves on
 * a later turn of the loop, over a pool of keep-alive connections (evhttp
 * sends one request at a time per connection).  Saves beyond the pool wait
 * in first-in, first-out order.  Every accepted save ends in exactly one
 * call of its done callback, on the loop thread, never from inside
 * save_client_save(): ok == 0 on success (201 stored, or 200 already stored
 * with the same digest), ok == -1 with why saying what failed: "timeout",
 * "HTTP 409", "connection refused", "connection closed", "client freed", ...
 *
 * The client ignores SIGPIPE for the process (if it was at its default):
 * a server that hangs up must fail a save, not kill the program.
 */
#ifndef YIELDLAB_SAVE_H
#define YIELDLAB_SAVE_H

#include <stddef.h>
#include <stdint.h>

struct event_base;

/* The end of one save.  ok: 0 stored, -1 failed; why: NULL on success,
 * else a short reason valid only during the call. */
typedef void (*save_done_fn)(uint64_t id, int ok, const char *why, void *arg);

struct save_client_options {
	const char *host;     /* NULL means "127.0.0.1" */
	int port;             /* the server's port (saveproc's p->port) */
	int pool_size;        /* keep-alive connections; <= 0 means 10 */
	int timeout_ms;       /* per request once sent (connect, write, wait
				 for the answer), on the real clock: a long
				 callback cannot make it expire early, and
				 a deadline that passes while a callback
				 holds the loop gets one timeout more; the
				 time a save waits in the client's own queue
				 does not count; <= 0 means 2000 */
};

struct save_client;

/* @return a client on base (not owned), owned by the caller
 * (save_client_free), or NULL on a bad port or when out of memory.
 * Connections are opened on first use. */
struct save_client *save_client_new(struct event_base *base,
				    const struct save_client_options *o);

/*
 * Queues the save of (id, digest_hex) — digest_hex is sent as given (the
 * server wants 64 hex digits) — and returns at once.  done(id, ok, why,
 * arg) is called exactly once later.
 * @return 0 if accepted, -1 (done never called) if digest_hex or done is
 * NULL, the client is being freed, or out of memory.
 */
int save_client_save(struct save_client *c, uint64_t id, const char *digest_hex,
		     save_done_fn done, void *arg);

/* Saves accepted whose done has not been called yet. */
size_t save_client_outstanding(const struct save_client *c);

/* Saves failed since the client was created. */
size_t save_client_failed(const struct save_client *c);

/*
 * Runs the base until every save is done (other events of the base run as
 * usual meanwhile).  Not from inside a callback of the same base.
 * @return 0 if no save failed since the previous drain (or since the
 * client was created), -1 otherwise or if the loop failed.
 */
int save_client_drain(struct save_client *c);

/*
 * Fails every outstanding save (done with why = "client freed", once
 * each), closes the connections and frees c; NULL is a no-op.  Not from
 * inside a done callback.
 */
void save_client_free(struct save_client *c);

#endif
