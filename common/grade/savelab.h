/*
 * savelab: the world the ex06-ex08 graders test in, and the checks they
 * share — for graders only (it fails tests through common/grade).
 *
 * A world is a real save server (a child process with a private log, see
 * saveproc_start_logged), a save client on a precise-timer base, a hasher
 * and a trace.  The checks read the server's log (ids, digests, arrival
 * and answer times) and GET /stats: what the server really received.
 *
 * Faults, with real parts (a grader linked with
 *     -Wl,--wrap=save_client_save -Wl,--wrap=hashwork_item_links
 * as the labs' lab.mk do; without it the fault calls are no-ops and
 * savelab_faults_armed() says so):
 *   - savelab_refuse_save(id): save_client_save() refuses that id
 *     synchronously (returns -1, as it does when out of memory);
 *   - savelab_fail_hash(i): hashing item i fails (-1, as on a libcrypto
 *     failure);
 *   - savelab_kill_server_after_hash(w, i): once item i is hashed, the
 *     server is killed (SIGKILL): every later save fails (refused or
 *     closed);
 *   - savelab_conflict(w, id): id is stored first with another digest, so
 *     the real server answers the lab's save of id with 409 Conflict;
 *   - and the server's own fault options (savelab_start_with): answers of
 *     500 for some ids, connections closed, the server exiting.
 */
#ifndef YIELDLAB_SAVELAB_H
#define YIELDLAB_SAVELAB_H

#include "hashwork.h"
#include "saveinspect.h"
#include "saveproc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event;
struct event_base;
struct save_client;
struct trace;

struct savelab {
	struct event_base *base;
	struct saveproc server;
	struct save_client *client;
	struct hashwork *hasher;
	struct trace *trace;          /* "h<i>" from the lab, "s<i>" when the
					 save of i is queued, "|" per yield
					 (the lab's counting yield) */
	struct saveproto_record *recs;     /* the log, once read */
	size_t n_recs;
	int conflicts_planted;        /* saves the world made itself */
};

/* A server answering after delay_ms, at most cap at once, with a log; a
 * client with cap connections and a generous timeout (3 s, scaled); a
 * hasher and a trace.  Fails the test when something cannot start. */
void savelab_start(struct savelab *w, int delay_ms, int cap);

/* The same with the server's options o (its faults: fail_ids,
 * close_after, exit_after, ...; o->log_path is ignored): the client gets
 * o->max_in_flight connections. */
void savelab_start_with(struct savelab *w, const struct saveproc_options *o);

/* Frees everything and stops the server (if still running); resets the
 * faults. */
void savelab_free(struct savelab *w);

/* A fresh trace (the previous one is freed). */
void savelab_new_trace(struct savelab *w);

/* Reads the server's log into w->recs / w->n_recs (fails the test if it
 * cannot). */
void savelab_read_log(struct savelab *w);

/* The log's record of id, or NULL. */
const struct saveproto_record *savelab_record(const struct savelab *w, uint64_t id);

/* When the trace says item i's hash completed (ns), or -1. */
int64_t savelab_hashed_at(const struct savelab *w, size_t i);

/* GET /stats (fails the test if the server does not answer). */
void savelab_stats(struct savelab *w, struct saveproto_stats *st);

/* Fails unless the log holds exactly ids 0 .. n-1, each once. */
void savelab_expect_every_id(const struct savelab *w, size_t n);

/* Fails unless every id 0 .. n-1 is stored with item i's digest of
 * `links` links (log and GET /saves/i), and exactly n saves arrived, none
 * repeated.  Reads the log. */
void savelab_expect_digests(struct savelab *w, size_t n, uint64_t links);

/*
 * Runs the base until busy(arg) is false, checked every millisecond by a
 * timer (a task that keeps yielding keeps the loop busy forever, so the
 * loop cannot be left to return by itself), or until limit_ms (scaled)
 * have passed.  @return true if it ended because busy() said so.
 */
bool savelab_run(struct savelab *w, bool (*busy)(void *arg), void *arg,
		 int64_t limit_ms);

/* ---- the task's end: done and the referee -------------------------------- */

/* What the lab's done callback found, noted by the grader's done. */
struct savelab_done {
	int calls;
	size_t outstanding;      /* saves the client still had on their way */
	size_t acked, failed;    /* the task's counts */
	bool hashing_over;       /* the task's event was gone (t->ev == NULL) */
};

/* Notes one call of done (the last call's counts are kept); client may be
 * NULL (then no save counts as on its way). */
void savelab_note_done(struct savelab_done *d, struct save_client *client,
		       size_t acked, size_t failed, bool hashing_over);

/* Fails unless done came once, after the hashing and every answer, with
 * acked + failed of n as given; situation starts each message. */
void savelab_expect_done_with(const struct savelab_done *d, size_t n,
			      size_t acked, size_t failed,
			      const char *situation);

/* After one savelab_conflict and a run of n items: fails unless the
 * server received n + 1 saves (the world's own included) and refused one,
 * i.e. each save was sent once and the refused one not sent again. */
void savelab_expect_refused_save_not_resent(struct savelab *w, size_t n);

/* Fails unless one of several tasks on a loop got one done with n acked
 * and none failed; which names the task in the message. */
void savelab_expect_own_done(const struct savelab_done *d, size_t n,
			     const char *which);

/* The referee's question: true while client has saves on their way, or
 * the task's event ev is pending with items left (next < n), i.e. the
 * task is still scheduled to hash them. */
bool savelab_task_busy(struct save_client *client, struct event *ev,
		       size_t next, size_t n);

/* Fails unless no more than `left` libevent blocks are live beyond
 * live_before (an evalloc_live() read before the world started). */
void savelab_expect_blocks_freed(long live_before, long left);

/* A second logged server answering after delay_ms, and a client for it on
 * w's base (NULL when it cannot be made); fails the test if the server
 * does not start.  Stop it with save_client_free and saveproc_stop. */
struct save_client *savelab_second_server(struct savelab *w, int delay_ms,
					  struct saveproc *second);

/* libevent blocks (common/grade/evalloc.h) that a world of one save
 * leaves allocated once it is freed: 0, or 1 while common/lib/save.c frees
 * libevent's evhttp_uriencode string with free(), which the counter never
 * sees.  Measured each time, so a leak check that allows this many per
 * save holds before and after that is fixed. */
long savelab_blocks_left_per_save(void);

/* ---- faults ---------------------------------------------------------------- */

/* True when the grader was linked with the --wrap options above. */
bool savelab_faults_armed(void);

/* save_client_save() of id returns -1 at once (done never called). */
void savelab_refuse_save(uint64_t id);

/* save_client_save() refuses every save. */
void savelab_refuse_every_save(void);

/* Hashing item i (hashwork_item_links) fails. */
void savelab_fail_hash(uint64_t i);

/* Kills the world's server (SIGKILL) right after item i is hashed. */
void savelab_kill_server_after_hash(struct savelab *w, uint64_t i);

/* Saves id with a digest no item has (blocking: drains the client), so
 * that the lab's save of id gets 409 Conflict. */
void savelab_conflict(struct savelab *w, uint64_t id);

/* How many calls save_client_save() refused on purpose, and how many it
 * accepted, since the world started. */
size_t savelab_refused(void);
size_t savelab_accepted(void);

#endif
