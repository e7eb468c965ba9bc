/* ex07 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * Grader for ex07_overlap.  Each test catches one mistake; the comment
 * above it names the mistake and why its check holds on a loaded machine.
 *
 * Every test starts its own save server (a child process, killed with the
 * test) with a log: one line per stored save with the CLOCK_MONOTONIC
 * times it arrived and was answered.  The tests set those times against
 * the times the hashes completed (the trace, same clock): structure, not
 * a stopwatch.  Scaled down: 20 items of 32768 links (3-6 ms), a 30 ms
 * server capped at 10.
 */
#include "overlap.h"

#include "clock.h"
#include "evbase.h"
#include "grade.h"
#include "save.h"
#include "saveproc.h"
#include "trace.h"

#include <event2/event.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_ITEMS 20
#define LINKS 32768
#define DELAY_MS 30
#define CAP 10

/* ---- fixtures: a server with a log, a client, a task --------------------- */

struct world {
	struct event_base *base;
	struct saveproc server;
	struct save_client *client;
	struct hashwork *hasher;
	struct trace *trace;
	struct ovl_task task;
	int done_calls;
	size_t outstanding_at_done, acked_at_done;
	int64_t give_up_ns;
	struct save_record *recs;    /* the log, once read */
	size_t n_recs;
};

/* The server keeps its log in a private file that saveproc unlinks at
 * once: a failing test leaves no file behind. */
static void start_server(struct world *w)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;

	o.delay_ms = DELAY_MS;
	o.max_in_flight = CAP;
	if (saveproc_start_logged(&w->server, &o) != 0)
		grade_fail(__FILE__, __LINE__, "the save server starts",
			   "%s", w->server.why);
}

static void world_start(struct world *w)
{
	struct save_client_options co = { .pool_size = CAP,
		.timeout_ms = (int)(grade_bound_ns(3000) / CLOCK_NS_PER_MS) };

	memset(w, 0, sizeof(*w));
	start_server(w);
	co.port = w->server.port;
	w->base = evbase_new(EVBASE_PRECISE);
	w->client = w->base ? save_client_new(w->base, &co) : NULL;
	w->hasher = hashwork_new();
	w->trace = trace_new();
	GRADE_EXPECT(w->client && w->hasher && w->trace,
		     "an event base, a save client, a hasher and a trace",
		     "setup failed (out of memory?)");
}

static void world_free(struct world *w)
{
	if (w->task.ev)
		event_free(w->task.ev);
	save_client_free(w->client);
	event_base_free(w->base);
	hashwork_free(w->hasher);
	trace_free(w->trace);
	free(w->recs);
	saveproc_stop(&w->server);
}

/* The job's done: what the task had achieved when it said it was over. */
static void done_cb(struct ovl_task *t, void *arg)
{
	struct world *w = arg;

	w->done_calls++;
	w->outstanding_at_done = save_client_outstanding(w->client);
	w->acked_at_done = t->acked;
}

/* Saves are still on their way, or items remain and the task is still
 * scheduled to hash them.  (A task that goes on yielding after its last
 * item is not waited for: the last test looks at it.) */
static bool busy(const struct world *w)
{
	if (save_client_outstanding(w->client) > 0)
		return true;
	return w->task.hashed < w->task.job.n && w->task.ev &&
	       event_pending(w->task.ev, EV_TIMEOUT, NULL);
}

/* Every millisecond: ends the loop once the run is over (or at
 * give_up).  A timer, because a task that keeps yielding keeps the loop
 * busy forever: event_base_loop() never returns on its own then. */
static void referee_cb(evutil_socket_t fd, short what, void *arg)
{
	struct world *w = arg;

	(void)fd;
	(void)what;
	if (!busy(w) || clock_monotonic_ns() > w->give_up_ns)
		event_base_loopbreak(w->base);
}

/* Runs n items through the student's task, until nothing is left to do
 * (at most 5 s, scaled: the reference needs ~0.2 s). */
static void run_task(struct world *w, size_t n)
{
	struct ovl_job job = {
		.client = w->client, .hasher = w->hasher, .n = n,
		.links = LINKS, .trace = w->trace,
		.done = done_cb, .arg = w,
	};
	struct timeval tick = { 0, 1000 };
	struct event *referee = event_new(w->base, -1, EV_PERSIST, referee_cb, w);

	GRADE_EXPECT(referee && event_add(referee, &tick) == 0,
		     "a timer for the grader", "out of memory");
	w->give_up_ns = clock_monotonic_ns() + grade_bound_ns(5000);
	GRADE_EXPECT(ovl_start(&w->task, w->base, &job) == 0,
		     "ovl_start() returns 0", "it returned -1");
	event_base_loop(w->base, 0);
	event_free(referee);
	GRADE_EXPECT(w->task.hashed == n,
		     "every item is hashed (the task runs to its end)",
		     "%zu of %zu items hashed, then the task stopped",
		     w->task.hashed, n);
}

static void read_log(struct world *w)
{
	GRADE_EXPECT(saveproc_read_own_log(&w->server, &w->recs, &w->n_recs) == 0,
		     "the server's log can be read", "it could not be read");
}

static const struct save_record *record_of(const struct world *w, size_t id)
{
	for (size_t k = 0; k < w->n_recs; k++)
		if (w->recs[k].id == id)
			return &w->recs[k];
	return NULL;
}

/* When the trace says item i's hash completed (ns), or -1. */
static int64_t hashed_at(const struct world *w, size_t i)
{
	char name[24];
	long at;

	snprintf(name, sizeof(name), "h%zu", i);
	at = trace_find(w->trace, name, 0);
	return at < 0 ? -1 : trace_time_ns(w->trace, (size_t)at);
}

/* Fails unless the log holds exactly ids 0 .. n-1; says which are missing. */
static void expect_every_id(const struct world *w, size_t n)
{
	char missing[256] = "";
	size_t used = 0, absent = 0;

	for (size_t id = 0; id < n; id++) {
		if (record_of(w, id))
			continue;
		absent++;
		if (used + 8 < sizeof(missing))
			used += (size_t)snprintf(missing + used,
						 sizeof(missing) - used, " %zu", id);
	}
	GRADE_EXPECT(absent == 0 && w->n_recs == n,
		     "the server stored ids 0 to n-1, each once",
		     "%zu stored (n = %zu); ids missing:%s", w->n_recs, n,
		     absent ? missing : " none (extra ids were stored)");
}

/* ---- tests --------------------------------------------------------------- */

/*
 * Catches: saves that start only after the hashing ends — no yield
 * between hashes (a queued save cannot leave while the callback runs), or
 * digests kept and saved after the last item.  Either way no save reaches
 * the server before the last hash completes.  With a yield after each
 * hash, save i is written right after hash i+2 (17 of 20 arrive before
 * the last hash).  Asking for 5 fails only if save 4, written after hash
 * 6, is not read before hash 19 ends: the server process would have to
 * be descheduled for 13 hashes of ~6 ms, about 80 ms.  With six busy
 * loops on the two cores it still read 17 of 20 every time.
 */
static void saves_reach_the_server_while_the_hashing_goes_on(void **state)
{
	struct world w;
	int64_t last_hash;
	size_t early = 0;

	(void)state;
	world_start(&w);
	run_task(&w, N_ITEMS);
	read_log(&w);
	expect_every_id(&w, N_ITEMS);
	last_hash = hashed_at(&w, N_ITEMS - 1);
	for (size_t k = 0; k < w.n_recs; k++)
		early += w.recs[k].received_ns < last_hash;
	print_message("measured: %zu of %d saves arrived before the last hash\n",
		      early, N_ITEMS);
	GRADE_EXPECT(early >= N_ITEMS / 4,
		     "at least 5 of the 20 saves reach the server before the "
		     "last hash completes (about 17 do when each save leaves "
		     "during the next hash)",
		     "%zu did: the saves left only after the hashing", early);
	world_free(&w);
}

/*
 * Catches: waiting for each save's answer before hashing the next item
 * (the next hash started from the save's done callback: serial I/O).
 * With the saves overlapped, item i+1 is hashed while save i travels,
 * long before the server answers it (30 ms later): every pair qualifies.
 * Order only; asking for half of the 19 pairs is slack, not a bound.
 */
static void hashing_does_not_wait_for_each_save(void **state)
{
	struct world w;
	size_t ahead = 0;

	(void)state;
	world_start(&w);
	run_task(&w, N_ITEMS);
	read_log(&w);
	expect_every_id(&w, N_ITEMS);
	for (size_t i = 0; i + 1 < N_ITEMS; i++)
		ahead += hashed_at(&w, i + 1) < record_of(&w, i)->answered_ns;
	print_message("measured: item i+1 hashed before save i was answered "
		      "for %zu of %d items\n", ahead, N_ITEMS - 1);
	GRADE_EXPECT(ahead >= (N_ITEMS - 1) / 2,
		     "item i+1 is hashed before save i is answered, for most i "
		     "(the CPU does not wait for the server)",
		     "for %zu of %d items: the hashing waited for the saves",
		     ahead, N_ITEMS - 1);
	world_free(&w);
}

/*
 * Catches: done reported when the hashing ends, while saves are still on
 * their way (they may yet fail: the program would report lost data as
 * saved), and done called more than once.  After the last hash at least
 * the last save has yet to leave, so an early done always shows.
 */
static void done_comes_only_after_every_save_is_acknowledged(void **state)
{
	struct world w;

	(void)state;
	world_start(&w);
	run_task(&w, N_ITEMS);
	GRADE_EXPECT(w.done_calls == 1, "done is called exactly once",
		     "it was called %d times", w.done_calls);
	GRADE_EXPECT(w.outstanding_at_done == 0 && w.acked_at_done == N_ITEMS,
		     "when done is called, all 20 saves have their answer",
		     "%zu answered (stored), %zu still on their way",
		     w.acked_at_done, w.outstanding_at_done);
	world_free(&w);
}

/*
 * Catches: a save lost, repeated, or stored under the wrong id or with a
 * wrong digest.  The grader hashes every item itself and reads each
 * digest back from the log and with GET /saves/N.
 */
static void every_item_is_saved_once_with_its_digest(void **state)
{
	char want[OVL_HEX_SIZE], got[OVL_HEX_SIZE];
	uint8_t d[HASHWORK_DIGEST_LEN];
	struct save_stats st;
	struct world w;

	(void)state;
	world_start(&w);
	run_task(&w, N_ITEMS);
	GRADE_EXPECT(saveproc_stats(&w.server, &st) == 0,
		     "the server answers GET /stats", "%s", w.server.why);
	read_log(&w);
	expect_every_id(&w, N_ITEMS);
	for (size_t id = 0; id < N_ITEMS; id++) {
		const struct save_record *rec = record_of(&w, id);
		const char *stored = rec ? rec->digest : "(nothing)";

		GRADE_EXPECT(hashwork_item_links(w.hasher, id, LINKS, d) == 0,
			     "the grader hashes item i", "libcrypto failed");
		hashwork_hex(d, want);
		GRADE_EXPECT(strcmp(stored, want) == 0 &&
			     saveproc_get(&w.server, id, got) == 200 &&
			     strcmp(got, want) == 0,
			     "id i holds item i's own digest (log and GET /saves/i)",
			     "id %zu holds %.16s..., item %zu hashes to %.16s...",
			     id, stored, id, want);
	}
	GRADE_EXPECT(st.received == N_ITEMS && st.duplicates == 0 &&
		     st.conflicts == 0,
		     "exactly 20 saves sent, none repeated",
		     "%llu sent: %llu repeated, %llu with another digest",
		     (unsigned long long)st.received,
		     (unsigned long long)st.duplicates,
		     (unsigned long long)st.conflicts);
	world_free(&w);
}

/*
 * Catches: a task that keeps its event after the last item (never freed,
 * or still yielding with nothing left to hash).
 */
static void hashing_ends_by_freeing_the_task_event(void **state)
{
	struct world w;

	(void)state;
	world_start(&w);
	run_task(&w, 5);
	GRADE_EXPECT(w.task.ev == NULL,
		     "task->ev == NULL once the last item is hashed (event freed)",
		     "it is still set%s", w.task.ev &&
		     event_pending(w.task.ev, EV_TIMEOUT, NULL) ?
		     ", and still active: the task keeps yielding" : "");
	GRADE_EXPECT_INT(event_base_get_num_events(w.base, EVENT_BASE_COUNT_ACTIVE),
			 0, "events still active on the base after the run");
	world_free(&w);
}

static const struct grade_test tests[] = {
	GRADE_TEST(saves_reach_the_server_while_the_hashing_goes_on, 25, 10000,
		   "start each save right after its hash, then yield: the "
		   "request leaves at the loop's next poll"),
	GRADE_TEST(hashing_does_not_wait_for_each_save, 20, 10000,
		   "hash the next item after a yield, not from the save's done "
		   "callback"),
	GRADE_TEST(done_comes_only_after_every_save_is_acknowledged, 20, 10000,
		   "report_done when the hashing is over AND the last save has "
		   "its answer: usually in saved_cb"),
	GRADE_TEST(every_item_is_saved_once_with_its_digest, 20, 10000,
		   "save item i under id i with ovl_hash's digest for i, once"),
	GRADE_TEST(hashing_ends_by_freeing_the_task_event, 15, 10000,
		   "after the last item: event_free(t->ev), t->ev = NULL, and "
		   "no yield"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "ex07_overlap",
			  "overlap the saves with the hashing", tests,
			  sizeof(tests) / sizeof(tests[0]));
}
