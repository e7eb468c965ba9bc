/* ex08 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * Grader for ex08_yield_cadence.  Each test catches one mistake; the
 * comment above it names the mistake and why its check holds on a loaded
 * machine.
 *
 * Every test starts its own save server (a child process, killed with the
 * test).  Yields are counted exactly: the grader swaps in a yield that
 * marks "|" in the trace between the items' "h<i>" entries, then yields
 * for real.  The drain is read from the server's log (CLOCK_MONOTONIC
 * arrival and answer times) against the hash completions: orders and
 * counts, no stopwatch.  The budget runs on a fake clock that charges
 * each item a set cost, so its yields must fall exactly where the budget
 * arithmetic says.
 */
#include "cadence.h"

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

#define MS CLOCK_NS_PER_MS
#define MAX_ITEMS 32

/* ---- fixtures: a server with a log, a client, a task --------------------- */

struct world {
	struct event_base *base;
	struct saveproc server;
	struct save_client *client;
	struct hashwork *hasher;
	struct trace *trace;
	struct cad_task task;
	bool started;
	unsigned yields;
	int done_calls;
	size_t outstanding_at_done, acked_at_done;
	int64_t give_up_ns;
	struct save_record *recs;    /* the log, once read */
	size_t n_recs;
};

/* The server keeps its log in a private file that saveproc unlinks at
 * once: a failing test leaves no file behind. */
static void start_server(struct world *w, int delay_ms, int cap)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;

	o.delay_ms = delay_ms;
	o.max_in_flight = cap;
	if (saveproc_start_logged(&w->server, &o) != 0)
		grade_fail(__FILE__, __LINE__, "the save server starts",
			   "%s", w->server.why);
}

/* A server answering after delay_ms, at most cap at once, and a client
 * with as many connections: the drain goes in waves of cap saves. */
static void world_start(struct world *w, int delay_ms, int cap)
{
	struct save_client_options co = { .pool_size = cap,
		.timeout_ms = (int)(grade_bound_ns(3000) / CLOCK_NS_PER_MS) };

	memset(w, 0, sizeof(*w));
	start_server(w, delay_ms, cap);
	co.port = w->server.port;
	w->base = evbase_new(EVBASE_PRECISE);
	w->client = w->base ? save_client_new(w->base, &co) : NULL;
	w->hasher = hashwork_new();
	w->trace = trace_new();
	GRADE_EXPECT(w->client && w->hasher && w->trace,
		     "an event base, a save client, a hasher and a trace",
		     "setup failed (out of memory?)");
}

/* Forgets the previous task (same server and client): a fresh trace. */
static void world_next_task(struct world *w)
{
	if (w->task.ev)
		event_free(w->task.ev);
	memset(&w->task, 0, sizeof(w->task));
	trace_free(w->trace);
	w->trace = trace_new();
	w->started = false;
	w->yields = 0;
	w->done_calls = 0;
	GRADE_EXPECT(w->trace, "a trace", "out of memory");
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

/* The grader's yield: counted and marked "|" in the trace, then real. */
static void counting_yield(struct cad_task *t)
{
	struct world *w = t->job.arg;

	w->yields++;
	trace_add(w->trace, "|");
	cad_yield(t);
}

static void done_cb(struct cad_task *t, void *arg)
{
	struct world *w = arg;

	w->done_calls++;
	w->outstanding_at_done = save_client_outstanding(w->client);
	w->acked_at_done = t->acked;
}

/* Saves are still on their way, or items remain and the task is still
 * scheduled to hash them. */
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

/* Runs n items of `links` links with cadence c until nothing is left to do
 * (at most 5 s, scaled: the reference needs well under 0.5 s). */
static void run_task(struct world *w, size_t n, uint64_t links,
		     struct cadence c)
{
	struct cad_job job = {
		.client = w->client, .hasher = w->hasher, .n = n,
		.links = links, .cadence = c, .trace = w->trace,
		.done = done_cb, .arg = w,
	};
	struct timeval tick = { 0, 1000 };
	struct event *referee = event_new(w->base, -1, EV_PERSIST, referee_cb, w);

	GRADE_EXPECT(referee && event_add(referee, &tick) == 0,
		     "a timer for the grader", "out of memory");
	w->give_up_ns = clock_monotonic_ns() + grade_bound_ns(5000);
	GRADE_EXPECT(cad_start(&w->task, w->base, &job) == 0,
		     "cad_start() returns 0", "it returned -1");
	w->task.yield = counting_yield;
	w->started = true;
	event_base_loop(w->base, 0);
	event_free(referee);
	GRADE_EXPECT(w->task.hashed == n,
		     "every item is hashed (the task runs to its end)",
		     "%zu of %zu items hashed, then the task stopped",
		     w->task.hashed, n);
}

/* After which items the task yielded: "4 9 14" (0-based item numbers). */
static const char *yields_after(const struct trace *t, char *buf, size_t size)
{
	const char *last = "start";
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < trace_len(t) && used + 16 < size; i++) {
		const char *name = trace_name(t, i);

		if (strcmp(name, "|") != 0)
			last = name;
		else
			used += (size_t)snprintf(buf + used, size - used, "%s%s",
						 used ? " " : "",
						 last[0] == 'h' ? last + 1 : last);
	}
	return buf[0] ? buf : "(no yield)";
}

/* What the cadence every = k asks for with n items. */
static const char *expected_yields(size_t n, unsigned k, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = k; k > 0 && i < n && used + 16 < size; i += k)
		used += (size_t)snprintf(buf + used, size - used, "%s%zu",
					 used ? " " : "", i - 1);
	return buf[0] ? buf : "(no yield)";
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

/* ---- tests: the count ---------------------------------------------------- */

/*
 * Catches: an off-by-one cadence — a yield after items 0, k, 2k (the
 * item's index instead of the count), a yield after the last item, a
 * slice of k + 1 items.  23 items of 1024 links for k = 1, 2, 5, 10:
 * yields after items k-1, 2k-1, ... below 22, exactly (22, 11, 4 and 2
 * yields).  A count: no clock involved.
 */
static void every_k_yields_exactly_after_every_kth_item(void **state)
{
	static const unsigned ks[] = { 1, 2, 5, 10 };
	char want[256], got[256], expected[320];
	const char *g;
	struct world w;

	(void)state;
	world_start(&w, 5, 10);
	for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
		world_next_task(&w);
		run_task(&w, 23, 1024, (struct cadence){ .every = ks[j] });
		expected_yields(23, ks[j], want, sizeof(want));
		snprintf(expected, sizeof(expected), "every = %u, 23 items: "
			 "yields after items %s", ks[j], want);
		g = yields_after(w.trace, got, sizeof(got));
		GRADE_EXPECT(strcmp(g, want) == 0, expected,
			     "yields after items %s", g);
	}
	world_free(&w);
}

/* Catches: a "never" (every = 0) that still yields — after every item
 * (`in_slice >= every` is always true for 0), or once at the end. */
static void never_does_not_yield_at_all(void **state)
{
	struct world w;
	char got[256];

	(void)state;
	world_start(&w, 5, 10);
	run_task(&w, 23, 1024, (struct cadence){ .every = 0 });
	GRADE_EXPECT(w.yields == 0,
		     "every = 0 (never): no yield, all 23 items in one slice",
		     "%u yield(s), after items %s", w.yields,
		     yields_after(w.trace, got, sizeof(got)));
	world_free(&w);
}

/* ---- tests: what never yielding does to the saves ------------------------- */

/* Waves of the drain, from the log alone (records in arrival order): a
 * save that arrived before any answer is in wave 1; one that arrived
 * after the answer of a save of wave w is in wave w + 1 at least.  The
 * longest such chain is how many whole server delays the client waited
 * one after the other.  (A save answered before save j arrived also
 * arrived before it, so its wave is known when j's is worked out.) */
static int count_waves(const struct world *w)
{
	size_t n = w->n_recs < MAX_ITEMS ? w->n_recs : MAX_ITEMS;
	int wave[MAX_ITEMS], most = 0;

	for (size_t j = 0; j < n; j++) {
		wave[j] = 1;
		for (size_t i = 0; i < j; i++)
			if (w->recs[i].answered_ns <= w->recs[j].received_ns &&
			    wave[i] + 1 > wave[j])
				wave[j] = wave[i] + 1;
		most = wave[j] > most ? wave[j] : most;
	}
	return most;
}

static int cmp_received(const void *a, const void *b)
{
	const struct save_record *x = a, *y = b;

	return (x->received_ns > y->received_ns) - (x->received_ns < y->received_ns);
}

/*
 * Catches: a never-yield run whose saves do not wait for the end —
 * e.g. each hash waiting for the previous save's answer.  Never yielding,
 * nothing can leave while the one slice runs: the server must see every
 * save after the last hash, and (20 saves, 5 connections, a server
 * capped at 5 answering after 50 ms) in exactly ceil(20 / 5) = 4 waves.
 * The wave count is from the log's own arrival and answer times; it
 * would read 5 only if a save of one wave were sent a whole 50 ms after
 * the first answer of the wave before it, a stall of 50 ms in the loop.
 */
static void never_drains_every_save_after_the_last_hash_in_waves(void **state)
{
	struct world w;
	int64_t last_hash;
	size_t late = 0;
	int waves;

	(void)state;
	world_start(&w, 50, 5);
	run_task(&w, 20, 4096, (struct cadence){ .every = 0 });
	read_log(&w);
	GRADE_EXPECT(w.n_recs == 20, "the server stored all 20 saves",
		     "it stored %zu", w.n_recs);
	last_hash = hashed_at(&w, 19);
	for (size_t k = 0; k < w.n_recs; k++)
		late += w.recs[k].received_ns > last_hash;
	GRADE_EXPECT(late == 20,
		     "never yielding, every save reaches the server after the "
		     "last hash (nothing leaves during the one slice)",
		     "%zu of 20 did: the saves travelled during the hashing",
		     late);
	qsort(w.recs, w.n_recs, sizeof(w.recs[0]), cmp_received);
	waves = count_waves(&w);
	GRADE_EXPECT(waves == 4,
		     "the saves drain in ceil(20 / 5) = 4 waves of the server's "
		     "delay", "%d waves", waves);
	world_free(&w);
}

/* ---- tests: the budget, on a fake clock ----------------------------------- */

/* The fake clock: the task's progress decides the time.  Every item
 * hashed so far costs its fake cost, every yield the time the loop spends
 * elsewhere; nothing else moves it, however often the clock is read. */
static const struct world *fake_world;
static const int64_t *fake_cost;
static int64_t fake_gap_ns;

static int64_t progress_clock(void)
{
	int64_t now = CLOCK_NS_PER_S;

	if (!fake_world || !fake_world->started)
		return now;
	for (size_t k = 0; k < fake_world->task.hashed && k < MAX_ITEMS; k++)
		now += fake_cost[k];
	return now + (int64_t)fake_world->yields * fake_gap_ns;
}

/*
 * Catches: a budget that is not reset at the start of every slice (set
 * once, or moved on by one budget: the 30 ms the loop spends elsewhere
 * per yield is then charged to the next slice, which yields after every
 * item), a budget that is ignored, and a yield counted in items.  20
 * items: 10 of 3 ms, then 10 of 7 ms (fake); budget 10 ms: slices of 4,
 * 4, 3 (3+3+7), then 2 items each: yields after items 3 7 10 12 14 16 18.
 */
static void budget_cadence_yields_when_the_budget_is_spent(void **state)
{
	static int64_t cost[20];
	struct world w;
	char got[256];
	const char *g;

	(void)state;
	for (size_t i = 0; i < 20; i++)
		cost[i] = (i < 10 ? 3 : 7) * MS;
	world_start(&w, 5, 10);
	fake_world = &w;
	fake_cost = cost;
	fake_gap_ns = 30 * MS;
	clock_set_source(progress_clock);
	run_task(&w, 20, 1024, (struct cadence){ .budget_ns = 10 * MS });
	g = yields_after(w.trace, got, sizeof(got));
	GRADE_EXPECT(strcmp(g, "3 7 10 12 14 16 18") == 0,
		     "items of 3 ms then 7 ms, budget 10 ms, 30 ms elsewhere "
		     "per yield: yields after items 3 7 10 12 14 16 18",
		     "yields after items %s", g);
	clock_set_source(NULL);
	fake_world = NULL;
	world_free(&w);
}

/* ---- tests: the end ------------------------------------------------------- */

/*
 * Catches: done reported when the hashing ends (the last saves still on
 * their way, so a failure would go unreported), done called more than
 * once, and saves lost, repeated or stored with a wrong digest.  20
 * items, every 5, a 30 ms server.
 */
static void every_save_is_acknowledged_before_done(void **state)
{
	char want[CAD_HEX_SIZE];
	uint8_t d[HASHWORK_DIGEST_LEN];
	struct save_stats st;
	struct world w;

	(void)state;
	world_start(&w, 30, 10);
	run_task(&w, 20, 4096, (struct cadence){ .every = 5 });
	GRADE_EXPECT(w.done_calls == 1, "done is called exactly once",
		     "it was called %d times", w.done_calls);
	GRADE_EXPECT(w.outstanding_at_done == 0 && w.acked_at_done == 20,
		     "when done is called, all 20 saves have their answer",
		     "%zu answered (stored), %zu still on their way",
		     w.acked_at_done, w.outstanding_at_done);
	GRADE_EXPECT(w.task.ev == NULL, "t->ev == NULL once the hashing is over",
		     "it is still set");
	GRADE_EXPECT(saveproc_stats(&w.server, &st) == 0 && st.received == 20 &&
		     st.duplicates == 0 && st.conflicts == 0,
		     "exactly 20 saves sent, none repeated",
		     "%llu sent, %llu repeated", (unsigned long long)st.received,
		     (unsigned long long)st.duplicates);
	read_log(&w);
	for (size_t id = 0; id < 20; id++) {
		const struct save_record *rec = record_of(&w, id);

		GRADE_EXPECT(hashwork_item_links(w.hasher, id, 4096, d) == 0,
			     "the grader hashes item i", "libcrypto failed");
		hashwork_hex(d, want);
		GRADE_EXPECT(rec && strcmp(rec->digest, want) == 0,
			     "id i is stored once, with item i's own digest",
			     "id %zu: %s", id, rec ? "another digest" : "not stored");
	}
	world_free(&w);
}

static const struct grade_test tests[] = {
	GRADE_TEST(every_k_yields_exactly_after_every_kth_item, 25, 10000,
		   "count the items of the current slice (t->in_slice); yield "
		   "when it reaches k and items remain"),
	GRADE_TEST(never_does_not_yield_at_all, 15, 10000,
		   "every = 0 means never: make that case explicit"),
	GRADE_TEST(never_drains_every_save_after_the_last_hash_in_waves, 20,
		   10000,
		   "start each save without waiting; hash the next item in the "
		   "same slice, not from the save's callback"),
	GRADE_TEST(budget_cadence_yields_when_the_budget_is_spent, 20, 10000,
		   "set t->slice_start_ns = clock_now_ns() at the start of "
		   "EVERY slice; compare after each item"),
	GRADE_TEST(every_save_is_acknowledged_before_done, 20, 10000,
		   "report_done when the hashing is over AND the last save has "
		   "its answer: usually in saved_cb"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "ex08_yield_cadence",
			  "the yield cadence as a dial", tests,
			  sizeof(tests) / sizeof(tests[0]));
}
