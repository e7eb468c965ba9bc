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
#include "evalloc.h"
#include "grade.h"
#include "save.h"
#include "saveinspect.h"
#include "saveproc.h"
#include "savelab.h"
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

/* ---- the world: common/savelab, and the task ------------------------------ */

struct world {
	struct savelab lab;
	struct cad_task task;
	bool started;
	unsigned yields;
	unsigned yields_before_a_return; /* a yield while the last is pending */
	bool ev_kept_after_hashing;   /* seen by the loop: all hashed, t->ev set */
	struct savelab_done done;
};

/* A server answering after delay_ms, at most cap at once, and a client
 * with as many connections: the drain goes in waves of cap saves. */
static void world_start(struct world *w, int delay_ms, int cap)
{
	memset(w, 0, sizeof(*w));
	savelab_start(&w->lab, delay_ms, cap);
}

/* Forgets the previous task (same server and client): a fresh trace. */
static void world_next_task(struct world *w)
{
	if (w->task.ev)
		event_free(w->task.ev);
	memset(&w->task, 0, sizeof(w->task));
	savelab_new_trace(&w->lab);
	w->started = false;
	w->yields = 0;
	w->yields_before_a_return = 0;
	w->ev_kept_after_hashing = false;
	w->done.calls = 0;
}

static void world_free(struct world *w)
{
	if (w->task.ev)
		event_free(w->task.ev);
	savelab_free(&w->lab);
}

/* The grader's yield: real, then counted and marked "|" in the trace.
 * The task's event still active from the previous yield means the slice
 * did not return after it (the loop has not run the next slice yet).
 * cad_yield comes first and nothing reads the clock between it and the
 * count, so the fake clock below never goes back. */
static void counting_yield(struct cad_task *t)
{
	struct world *w = t->job.arg;

	if (t->ev && event_pending(t->ev, EV_TIMEOUT, NULL))
		w->yields_before_a_return++;
	cad_yield(t);
	w->yields++;
	trace_add(w->lab.trace, "|");
}

static void done_cb(struct cad_task *t, void *arg)
{
	struct world *w = arg;

	savelab_note_done(&w->done, w->lab.client, t->acked, t->failed,
			  t->ev == NULL);
}

/* Saves are still on their way, or items remain and the task is still
 * scheduled to hash them. */
static bool busy(void *arg)
{
	struct world *w = arg;

	/* The loop runs this between slices only: every item hashed means
	 * the hashing is over, and the event must be gone. */
	if (w->started && w->task.hashed == w->task.job.n && w->task.ev)
		w->ev_kept_after_hashing = true;
	return savelab_task_busy(w->lab.client, w->task.ev, w->task.next,
				 w->task.job.n);
}

/* Runs n items of `links` links with cadence c until nothing is left to
 * do (at most 5 s, scaled: the reference needs well under 0.5 s). */
static void run_task_unchecked(struct world *w, size_t n, uint64_t links,
			       struct cadence c)
{
	struct cad_job job = {
		.client = w->lab.client, .hasher = w->lab.hasher, .n = n,
		.links = links, .cadence = c, .trace = w->lab.trace,
		.done = done_cb, .arg = w,
	};

	GRADE_EXPECT(cad_start(&w->task, w->lab.base, &job) == 0,
		     "cad_start() returns 0", "it returned -1");
	w->task.yield = counting_yield;
	w->started = true;
	savelab_run(&w->lab, busy, w, 5000);
}

/* The same, and every item must have been hashed. */
static void run_task(struct world *w, size_t n, uint64_t links,
		     struct cadence c)
{
	run_task_unchecked(w, n, links, c);
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

		if (name[0] == 'h')
			last = name;     /* an item's hash ("s<i>": its save) */
		else if (strcmp(name, "|") == 0)
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

/* ---- tests: the count ---------------------------------------------------- */

/*
 * Catches: an off-by-one cadence — a yield after items 0, k, 2k (the
 * item's index instead of the count), a yield after the last item, a
 * slice of k + 1 items.  23 items of 1024 links for k = 1, 2, 5, 10:
 * yields after items k-1, 2k-1, ... below 22, exactly (22, 11, 4 and 2
 * yields).  And a slice that does not return after its yield (it goes on
 * hashing, the yields only marking the trace): a yield that finds the
 * task's event still active from the one before.  A count: no clock
 * involved.
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
		g = yields_after(w.lab.trace, got, sizeof(got));
		GRADE_EXPECT(strcmp(g, want) == 0, expected,
			     "yields after items %s", g);
		GRADE_EXPECT(w.yields_before_a_return == 0,
			     "the slice returns after each yield: the next item "
			     "is hashed by the next slice, after the loop's turn",
			     "every = %u: %u of %u yields came while the one "
			     "before was still pending (no return after "
			     "t->yield?)", ks[j], w.yields_before_a_return,
			     w.yields);
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
		     yields_after(w.lab.trace, got, sizeof(got)));
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
	size_t n = w->lab.n_recs < MAX_ITEMS ? w->lab.n_recs : MAX_ITEMS;
	int wave[MAX_ITEMS], most = 0;

	for (size_t j = 0; j < n; j++) {
		wave[j] = 1;
		for (size_t i = 0; i < j; i++)
			if (w->lab.recs[i].answered_ns <= w->lab.recs[j].received_ns &&
			    wave[i] + 1 > wave[j])
				wave[j] = wave[i] + 1;
		most = wave[j] > most ? wave[j] : most;
	}
	return most;
}

static int cmp_received(const void *a, const void *b)
{
	const struct saveproto_record *x = a, *y = b;

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
	savelab_read_log(&w.lab);
	GRADE_EXPECT(w.lab.n_recs == 20, "the server stored all 20 saves",
		     "it stored %zu", w.lab.n_recs);
	last_hash = savelab_hashed_at(&w.lab, 19);
	for (size_t k = 0; k < w.lab.n_recs; k++)
		late += w.lab.recs[k].received_ns > last_hash;
	GRADE_EXPECT(late == 20,
		     "never yielding, every save reaches the server after the "
		     "last hash (nothing leaves during the one slice)",
		     "%zu of 20 did: the saves travelled during the hashing",
		     late);
	qsort(w.lab.recs, w.lab.n_recs, sizeof(w.lab.recs[0]), cmp_received);
	waves = count_waves(&w);
	GRADE_EXPECT(waves == 4,
		     "the saves drain in ceil(20 / 5) = 4 waves of the server's "
		     "delay", "%d waves", waves);
	world_free(&w);
}

/* ---- tests: the budget, on a fake clock ----------------------------------- */

/* The fake clock: the task's progress decides the time.  Every item
 * hashed so far costs its fake cost, every save queued fake_save_ns, every
 * yield the time the loop spends elsewhere — charged once the loop has
 * taken its turn, i.e. when the task's event is no longer active from
 * that yield (the next slice has begun); nothing else moves it, however
 * often the clock is read. */
static const struct world *fake_world;
static const int64_t *fake_cost;
static int64_t fake_gap_ns, fake_save_ns;

static int64_t progress_clock(void)
{
	int64_t now = CLOCK_NS_PER_S;
	unsigned gaps;

	if (!fake_world || !fake_world->started)
		return now;
	for (size_t k = 0; k < fake_world->task.hashed && k < MAX_ITEMS; k++)
		now += fake_cost[k];
	now += (int64_t)savelab_accepted() * fake_save_ns;
	gaps = fake_world->yields;
	if (gaps > 0 && fake_world->task.ev &&
	    event_pending(fake_world->task.ev, EV_TIMEOUT, NULL))
		gaps--;               /* the last yield's turn is still to come */
	return now + (int64_t)gaps * fake_gap_ns;
}

/* Runs n items of cadence c with the fake clock on a fresh world: item i
 * costs cost[i], each save queued save_ns, each yield's turn elsewhere
 * gap_ns.  @return after which items the task yielded (yields_after, in
 * got). */
static const char *yields_on_fake_clock(const int64_t *cost, size_t n,
					int64_t save_ns, int64_t gap_ns,
					struct cadence c, char *got,
					size_t size)
{
	struct world w;
	const char *g;

	world_start(&w, 5, 10);
	fake_world = &w;
	fake_cost = cost;
	fake_gap_ns = gap_ns;
	fake_save_ns = save_ns;
	clock_set_source(progress_clock);
	run_task(&w, n, 1024, c);
	g = yields_after(w.lab.trace, got, size);
	clock_set_source(NULL);
	fake_world = NULL;
	fake_save_ns = 0;
	world_free(&w);
	return g;
}

/*
 * Catches: a budget that is not reset at the start of every slice (set
 * once, moved on by one budget, or taken right after the previous
 * slice's yield: the 30 ms the loop spends elsewhere per yield is then
 * charged to the next slice, which yields after every item), a budget
 * that is ignored, and a yield counted in items.  20
 * items: 10 of 3 ms, then 10 of 7 ms (fake); budget 10 ms: slices of 4,
 * 4, 3 (3+3+7), then 2 items each: yields after items 3 7 10 12 14 16 18.
 */
static void budget_cadence_yields_when_the_budget_is_spent(void **state)
{
	static int64_t cost[20];
	char got[256];
	const char *g;

	(void)state;
	for (size_t i = 0; i < 20; i++)
		cost[i] = (i < 10 ? 3 : 7) * MS;
	g = yields_on_fake_clock(cost, 20, 0, 30 * MS,
				 (struct cadence){ .budget_ns = 10 * MS },
				 got, sizeof(got));
	GRADE_EXPECT(strcmp(g, "3 7 10 12 14 16 18") == 0,
		     "items of 3 ms then 7 ms, budget 10 ms, 30 ms elsewhere "
		     "per yield: yields after items 3 7 10 12 14 16 18",
		     "yields after items %s", g);
}

/* The smallest budget is a budget: 1 ns is spent by any item, so the
 * task yields after every item but the last (every = 0 would never). */
static void expect_a_one_ns_budget_yields_after_every_item(void)
{
	static int64_t cost[4] = { MS, MS, MS, MS };
	char got[256];

	/* Items are numbered from 0: yields after items 0, 1 and 2 of 4. */
	GRADE_EXPECT_STR(yields_on_fake_clock(cost, 4, 0, MS,
					      (struct cadence){ .budget_ns = 1 },
					      got, sizeof(got)), "0 1 2");
}

/* The budget is in nanoseconds: 9 ms + 1 ns is not spent after three
 * items of 3 ms (1 ns short), only after the fourth.  10 items: yields
 * after items 3 7; a budget rounded to whole milliseconds (or any unit
 * coarser than 1 ns) yields after items 2 5 8. */
static void expect_a_budget_one_ns_over_three_items_takes_four(void)
{
	static int64_t cost[10];
	char got[256];

	for (size_t i = 0; i < 10; i++)
		cost[i] = 3 * MS;
	GRADE_EXPECT_STR(yields_on_fake_clock(cost, 10, 0, 30 * MS,
					      (struct cadence){
						      .budget_ns = 9 * MS + 1 },
					      got, sizeof(got)), "3 7");
}

/*
 * Catches: a budget compared with > instead of >= (the header: the slice
 * is over once the time spent >= budget_ns), and a budget that counts
 * only the hashing (t->hash_ns) instead of the slice's time.  9 items,
 * each 4 ms of hashing and 1 ms to queue its save (fake), budget 10 ms:
 * each slice reaches the budget exactly after its second item, so the
 * yields fall after items 1 3 5 7; with > (or hashing time only) a whole
 * item later, after items 2 5.  Then a budget of 9 ms + 1 ns with items
 * of 3 ms, which a budget compared in whole milliseconds gets wrong, and
 * the smallest budget, 1 ns.
 */
static void budget_is_spent_exactly_at_the_boundary(void **state)
{
	static int64_t cost[9];
	char got[256];
	const char *g;

	(void)state;
	for (size_t i = 0; i < 9; i++)
		cost[i] = 4 * MS;
	g = yields_on_fake_clock(cost, 9, 1 * MS, 30 * MS,
				 (struct cadence){ .budget_ns = 10 * MS },
				 got, sizeof(got));
	GRADE_EXPECT(strcmp(g, "1 3 5 7") == 0,
		     "items of 4 ms + 1 ms for the save, budget 10 ms: a slice "
		     "is over when its time >= the budget, so yields after items "
		     "1 3 5 7",
		     "yields after items %s%s", g,
		     strcmp(g, "2 5") == 0 ? " (> instead of >=, or only the "
		     "hashing time counted?)" : "");
	expect_a_budget_one_ns_over_three_items_takes_four();
	expect_a_one_ns_budget_yields_after_every_item();
}

/*
 * Catches: the count checked before (or besides) the budget — with both
 * set, every must be ignored.  10 items of 3 ms (fake), every = 1 and a
 * 10 ms budget: yields after items 3 7 (the budget's), not after every
 * item.
 */
static void every_is_ignored_when_a_budget_is_set(void **state)
{
	static int64_t cost[10];
	char got[256];
	const char *g;

	(void)state;
	for (size_t i = 0; i < 10; i++)
		cost[i] = 3 * MS;
	g = yields_on_fake_clock(cost, 10, 0, 30 * MS,
				 (struct cadence){ .every = 1,
						   .budget_ns = 10 * MS },
				 got, sizeof(got));
	GRADE_EXPECT(strcmp(g, "3 7") == 0,
		     "every = 1 AND a 10 ms budget, items of 3 ms: the budget "
		     "decides (every is ignored): yields after items 3 7",
		     "yields after items %s", g);
}

/* ---- tests: the end ------------------------------------------------------- */

/* Fails unless cad_start (provided, in the student file) still refuses a
 * job of 0 items, a negative budget, no client or no hasher. */
static void expect_start_refuses_bad_jobs(struct world *w)
{
	struct cad_job job = { .client = w->lab.client, .hasher = w->lab.hasher,
			       .n = 0, .links = 1024 };

	GRADE_EXPECT(cad_start(&w->task, w->lab.base, &job) == -1,
		     "cad_start() with n = 0 returns -1 (it is provided: keep "
		     "its checks)", "it returned 0");
	w->task.ev = NULL;
	job.n = 3;
	job.cadence.budget_ns = -1;
	GRADE_EXPECT(cad_start(&w->task, w->lab.base, &job) == -1,
		     "cad_start() with budget_ns < 0 returns -1", "it returned 0");
	w->task.ev = NULL;
	job.cadence.budget_ns = 0;
	job.client = NULL;
	GRADE_EXPECT(cad_start(&w->task, w->lab.base, &job) == -1,
		     "cad_start() with no client returns -1", "it returned 0");
	w->task.ev = NULL;
	job.client = w->lab.client;
	job.hasher = NULL;
	GRADE_EXPECT(cad_start(&w->task, w->lab.base, &job) == -1,
		     "cad_start() with no hasher returns -1", "it returned 0");
	w->task.ev = NULL;
}

/*
 * Catches: done reported when the hashing ends (the last saves still on
 * their way, so a failure would go unreported), done called more than
 * once, and saves lost, repeated or stored with a wrong digest.  20
 * items, every 5, a 30 ms server.  An event kept after the last hash
 * (freed only with the last answer): the grader's 1 ms referee timer
 * sees t->ev still set between the last slice and the last answer, which
 * comes 30 ms at the earliest after the last save is written.  An event
 * only deleted, never freed (the libevent block counter sees it once the
 * world is freed).  And a cad_start edited to accept a job of 0 items or
 * a negative budget.
 */
static void every_save_is_acknowledged_before_done(void **state)
{
	long per_save = savelab_blocks_left_per_save(), live_before = evalloc_live();
	struct world w;
	long left;

	(void)state;
	world_start(&w, 30, 10);
	expect_start_refuses_bad_jobs(&w);
	run_task(&w, 20, 4096, (struct cadence){ .every = 5 });
	GRADE_EXPECT(w.done.calls == 1, "done is called exactly once",
		     "it was called %d times", w.done.calls);
	GRADE_EXPECT(w.done.outstanding == 0 && w.done.acked == 20,
		     "when done is called, all 20 saves have their answer",
		     "%zu answered (stored), %zu still on their way",
		     w.done.acked, w.done.outstanding);
	GRADE_EXPECT(w.task.ev == NULL && !w.ev_kept_after_hashing,
		     "t->ev == NULL once the hashing is over (the event freed "
		     "at the end of the last slice, saves still on their way)",
		     "%s", w.task.ev ? "it is still set" : "it was still set "
		     "after the last slice, while saves were on their way");
	savelab_expect_digests(&w.lab, 20, 4096);
	left = per_save * (long)savelab_accepted();
	world_free(&w);
	savelab_expect_blocks_freed(live_before, left);
}

/* ---- tests: failures ------------------------------------------------------- */

/*
 * Catches: done that never comes when the last save fails (only stored
 * saves counted), a failed save counted as stored, or sent again.  Id 11
 * of 12 is stored first with another digest: the server answers the
 * task's save of it with 409.  Every 4 items.
 */
static void done_comes_once_when_the_last_save_fails(void **state)
{
	struct world w;

	(void)state;
	world_start(&w, 20, 10);
	savelab_conflict(&w.lab, 11);
	run_task(&w, 12, 4096, (struct cadence){ .every = 4 });
	savelab_expect_done_with(&w.done, 12, 11, 1, "save 11 refused (409)");
	savelab_expect_refused_save_not_resent(&w.lab, 12);
	world_free(&w);
}

/*
 * Catches: done only ever reported from a save's answer.  Never yielding,
 * with every save refused at once by save_client_save: no answer will
 * ever come, so the end of the one slice must report done itself.  And a
 * refused save tried again: save_client_save refuses 6 calls, no more.
 */
static void done_comes_once_when_every_save_is_refused_at_once(void **state)
{
	struct world w;

	(void)state;
	world_start(&w, 5, 10);
	GRADE_EXPECT(savelab_faults_armed(), "the grader's fault injection is "
		     "linked in", "it is not (lab.mk's LDFLAGS)");
	savelab_refuse_every_save();
	run_task(&w, 6, 1024, (struct cadence){ .every = 0 });
	savelab_expect_done_with(&w.done, 6, 0, 6,
				 "every save refused by save_client_save");
	GRADE_EXPECT(savelab_refused() == 6,
		     "each of the 6 saves tried once: nothing is sent again",
		     "save_client_save was refused %zu times", savelab_refused());
	world_free(&w);
}

/*
 * Catches: a failed hash that ends the task (done never comes), that is
 * saved anyway, or not counted.  Item 4 of 9 fails to hash, every 2: the
 * task goes on; 8 stored, 1 failed, no save of id 4.  The failed item
 * still counts in its slice (items are counted from 1, each one): yields
 * after items 1 3 5 7, not 1 3 6.
 */
static void a_failed_hash_counts_as_failed_and_the_task_goes_on(void **state)
{
	struct saveproto_stats st;
	struct world w;
	char got[256];
	const char *g;

	(void)state;
	world_start(&w, 10, 10);
	savelab_fail_hash(4);
	run_task_unchecked(&w, 9, 1024, (struct cadence){ .every = 2 });
	savelab_expect_done_with(&w.done, 9, 8, 1, "the hash of item 4 failed");
	g = yields_after(w.lab.trace, got, sizeof(got));
	GRADE_EXPECT(strcmp(g, "1 3 5 7") == 0,
		     "every = 2, item 4 of 9 fails: it counts in its slice all "
		     "the same, yields after items 1 3 5 7",
		     "yields after items %s", g);
	savelab_stats(&w.lab, &st);
	savelab_read_log(&w.lab);
	GRADE_EXPECT(st.received == 8 && !savelab_record(&w.lab, 4),
		     "8 saves sent, none for item 4", "%llu sent%s",
		     (unsigned long long)st.received,
		     savelab_record(&w.lab, 4) ? ", one of them for item 4" :
		     "");
	world_free(&w);
}

static void expect_counted_once(struct world *w, size_t n);

/*
 * Catches: a task that hangs or never reports done when the server goes
 * away (killed after hash 5 of 16, every 2): every save still on its way
 * fails (connection closed or refused) within the client's timeout (3 s,
 * scaled; the run's limit is 5 s).  Done once; stored + failed = 16,
 * never more stored than the server logged.  Then, never yielding, a
 * server that answers 6 saves and closes the connection of every later
 * one (--close-after 6): exactly 6 stored, 10 failed.
 */
static void the_task_ends_when_the_server_goes_away(void **state)
{
	struct world w;

	(void)state;
	world_start(&w, 20, 10);
	savelab_kill_server_after_hash(&w.lab, 5);
	run_task(&w, 16, 4096, (struct cadence){ .every = 2 });
	expect_counted_once(&w, 16);
	world_free(&w);
	memset(&w, 0, sizeof(w));
	savelab_start_with(&w.lab, &(struct saveproc_options){
		.delay_ms = 20, .max_in_flight = 10, .close_after = 6 });
	run_task(&w, 16, 4096, (struct cadence){ .every = 0 });
	expect_counted_once(&w, 16);
	GRADE_EXPECT(w.done.acked == 6,
		     "6 stored: the server answered 6 saves, then closed the "
		     "connection of every later one", "%zu counted stored",
		     w.done.acked);
	world_free(&w);
}

/* Fails unless done came once with stored + failed = n and no more
 * stored than the server logged. */
static void expect_counted_once(struct world *w, size_t n)
{
	savelab_read_log(&w->lab);
	GRADE_EXPECT(w->done.calls == 1 && w->done.outstanding == 0,
		     "done once, when every save has its answer",
		     "done was called %d times, with %zu saves on their way",
		     w->done.calls, w->done.outstanding);
	GRADE_EXPECT(w->done.acked + w->done.failed == n &&
		     w->done.acked <= w->lab.n_recs,
		     "each save counted once: stored (at most what the server "
		     "logged) or failed", "%zu acked, %zu failed of %zu; the "
		     "server logged %zu", w->done.acked, w->done.failed,
		     n, w->lab.n_recs);
}

/* ---- tests: two tasks -------------------------------------------------------- */

struct tally {
	struct savelab_done done;
	unsigned yields;
};

/* A pair's yield: counted for its own task, then real. */
static void tally_yield(struct cad_task *t)
{
	((struct tally *)t->job.arg)->yields++;
	cad_yield(t);
}

static void tally_done(struct cad_task *t, void *arg)
{
	struct tally *y = arg;

	savelab_note_done(&y->done, t->job.client, t->acked, t->failed,
			  t->ev == NULL);
}

struct pair {
	struct save_client *c1, *c2;
	struct cad_task a, b;
};

static bool pair_busy(void *arg)
{
	const struct pair *p = arg;

	return savelab_task_busy(p->c1, p->a.ev, p->a.next, p->a.job.n) ||
	       savelab_task_busy(p->c2, p->b.ev, p->b.next, p->b.job.n);
}

static void expect_tally(const struct tally *y, size_t n, unsigned yields,
			 const char *which)
{
	savelab_expect_own_done(&y->done, n, which);
	GRADE_EXPECT(y->yields == yields,
		     "each task yields on its own count",
		     "%s: %u yields, expected %u", which, y->yields, yields);
}

/*
 * Catches: task state kept outside *t (a static item count for the
 * slice, a static "hashing over" flag or answer counter): two tasks on
 * one loop at once — 8 items every 3 and 5 items every 2, to two servers
 * on the same base — each must yield on its own count (2 yields each)
 * and get one done with its own counts.  Then the first task's struct,
 * finished and not cleared, starts a task of 4 items every 3: a
 * cad_start that keeps the last run's counts never reaches 4 answers.
 */
static void two_tasks_on_one_loop_keep_their_own_counts(void **state)
{
	struct tally ya = { 0 }, yb = { 0 }, yc = { 0 };
	struct saveproc second;
	struct pair p;
	struct world w;

	(void)state;
	world_start(&w, 10, 10);
	p = (struct pair){ .c1 = w.lab.client,
			   .c2 = savelab_second_server(&w.lab, 10, &second) };
	GRADE_EXPECT(p.c2 && cad_start(&p.a, w.lab.base, &(struct cad_job){
			.client = p.c1, .hasher = w.lab.hasher, .n = 8,
			.links = 1024, .cadence = { .every = 3 },
			.done = tally_done, .arg = &ya }) == 0 &&
		     cad_start(&p.b, w.lab.base, &(struct cad_job){
			.client = p.c2, .hasher = w.lab.hasher, .n = 5,
			.links = 1024, .cadence = { .every = 2 },
			.done = tally_done, .arg = &yb }) == 0,
		     "two tasks start", "cad_start() failed");
	p.a.yield = tally_yield;
	p.b.yield = tally_yield;
	savelab_run(&w.lab, pair_busy, &p, 5000);
	expect_tally(&ya, 8, 2, "the first of two tasks at once (every 3)");
	expect_tally(&yb, 5, 2, "the second of two tasks at once (every 2)");
	GRADE_EXPECT(cad_start(&p.a, w.lab.base, &(struct cad_job){
			.client = p.c1, .hasher = w.lab.hasher, .n = 4,
			.links = 1024, .cadence = { .every = 3 },
			.done = tally_done, .arg = &yc }) == 0,
		     "a task starts again in a finished task's struct",
		     "cad_start() failed");
	p.a.yield = tally_yield;
	savelab_run(&w.lab, pair_busy, &p, 5000);
	expect_tally(&yc, 4, 1, "a task started again in the first one's "
		     "struct (every 3)");
	save_client_free(p.c2);
	saveproc_stop(&second);
	world_free(&w);
}

static const struct grade_test tests[] = {
	GRADE_TEST(every_k_yields_exactly_after_every_kth_item, 12, 5000,
		   "count the items of the current slice (t->in_slice); yield "
		   "when it reaches k and items remain, then return"),
	GRADE_TEST(never_does_not_yield_at_all, 8, 5000,
		   "every = 0 means never: make that case explicit"),
	GRADE_TEST(never_drains_every_save_after_the_last_hash_in_waves, 10,
		   5000,
		   "start each save without waiting; hash the next item in the "
		   "same slice, not from the save's callback"),
	GRADE_TEST(budget_cadence_yields_when_the_budget_is_spent, 12, 5000,
		   "set t->slice_start_ns = clock_now_ns() at the start of "
		   "EVERY slice; compare after each item"),
	GRADE_TEST(budget_is_spent_exactly_at_the_boundary, 8, 5000,
		   "the slice is over when clock_now_ns() - start >= budget_ns: "
		   ">=, not >"),
	GRADE_TEST(every_is_ignored_when_a_budget_is_set, 7, 5000,
		   "with budget_ns > 0 only the budget decides (slice_over "
		   "shows the order)"),
	GRADE_TEST(every_save_is_acknowledged_before_done, 12, 5000,
		   "report_done when the hashing is over AND the last save has "
		   "its answer: usually in saved_cb"),
	GRADE_TEST(done_comes_once_when_the_last_save_fails, 8, 5000,
		   "count ok != 0 in t->failed; the task is over when acked + "
		   "failed == n"),
	GRADE_TEST(done_comes_once_when_every_save_is_refused_at_once, 7, 5000,
		   "a save_client_save that returns -1 counts in t->failed; at "
		   "the end of the hashing, report_done if every save is "
		   "answered"),
	GRADE_TEST(a_failed_hash_counts_as_failed_and_the_task_goes_on, 6, 5000,
		   "when cad_hash fails, count it in t->failed, skip its save, "
		   "and go on with the next item (it still counts in its slice)"),
	GRADE_TEST(the_task_ends_when_the_server_goes_away, 5, 8000,
		   "every save ends in saved_cb, stored or failed: count both"),
	GRADE_TEST(two_tasks_on_one_loop_keep_their_own_counts, 5, 5000,
		   "keep every bit of a task's state in *t (no static "
		   "variables): two tasks may run at once"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "ex08_yield_cadence",
			  "the yield cadence as a dial", tests,
			  sizeof(tests) / sizeof(tests[0]));
}
