/*
 * Tests of the save server's fault options (--fail-ids, --fail-status,
 * --close-after, --exit-after, --jitter-ms) and of saveproc's mid-run
 * calls (saveproc_kill, saveproc_freeze), through the real save client:
 * every save ends in exactly one done call, a failed save says why, and
 * the server's counters and log agree.
 *
 * Real-time bounds are generous: each names what it guards and the time
 * this machine measured.  YIELDLAB_TIMEOUT_SCALE stretches them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clock.h"
#include "evbase.h"
#include "save.h"
#include "saveinspect.h"
#include "saveproc.h"
#include "savetest.h"

#include <event2/event.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SAVES 64

/* ---- fixtures ------------------------------------------------------------ */

struct tally {
	size_t calls, ok, failed;
	int calls_of[MAX_SAVES];
	int ok_of[MAX_SAVES];
	char why_of[MAX_SAVES][32];
	/* saveproc_kill from inside done, after this many successes (0: no) */
	size_t kill_after_ok;
	struct saveproc *server;
};

static void tally_cb(uint64_t id, int ok, const char *why, void *arg)
{
	struct tally *t = arg;

	t->calls++;
	assert_true(id < MAX_SAVES);
	t->calls_of[id]++;
	t->ok_of[id] = ok == 0;
	if (ok == 0) {
		t->ok++;
		assert_null(why);
	} else {
		t->failed++;
		assert_non_null(why);
		snprintf(t->why_of[id], sizeof(t->why_of[id]), "%s", why);
	}
	if (t->kill_after_ok && t->ok == t->kill_after_ok && ok == 0)
		assert_int_equal(saveproc_kill(t->server), 0);
}

static void start(struct saveproc *p, const struct saveproc_options *o)
{
	if (saveproc_start_logged(p, o) != 0)
		fail_msg("saveproc_start_logged: %s", p->why);
}

/* Every save of [0, n) ended exactly once. */
static void expect_each_done_once(const struct tally *t, size_t n)
{
	assert_int_equal(t->calls, n);
	for (size_t id = 0; id < n; id++)
		if (t->calls_of[id] != 1)
			fail_msg("save %zu: done called %d times, expected once",
				 id, t->calls_of[id]);
}

/* Every save done reported stored is in the server's log.  exact: and
 * nothing else is (false when the server was killed: a save it logged
 * may have lost its 201 on the way, a failure the client reports). */
static void expect_log_matches(struct saveproc *p, const struct tally *t,
			       size_t n, bool exact)
{
	struct saveproto_record *r;
	size_t got, stored = 0;
	bool logged[MAX_SAVES] = { false };

	assert_int_equal(saveinspect_read_own_log(p, &r, &got), 0);
	for (size_t i = 0; i < got; i++) {
		assert_true(r[i].id < n);
		logged[r[i].id] = true;
		if (exact)
			assert_true(t->ok_of[r[i].id]);
	}
	for (size_t id = 0; id < n; id++) {
		stored += (size_t)t->ok_of[id];
		if (t->ok_of[id] && !logged[id])
			fail_msg("save %zu was reported stored but is not in the log", id);
	}
	assert_true(exact ? got == stored : got >= stored);
	free(r);
}

/* ---- --fail-ids, --fail-status ------------------------------------------- */

static void run_fail_ids(int status, const char *want_why)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct tally t = { 0 };
	struct saveproto_stats st;
	struct saveproc p;
	struct save_client *c;
	char hex[65];

	o.delay_ms = 5;
	o.fail_ids = "3,10-12";
	o.fail_status = status;
	start(&p, &o);
	c = savetest_client(base, p.port, 4, 0);
	savetest_save_range(c, 0, 20, tally_cb, &t);
	assert_int_equal(save_client_drain(c), -1);
	expect_each_done_once(&t, 20);
	assert_int_equal(t.failed, 4);
	for (uint64_t id = 0; id < 20; id++) {
		bool failing = id == 3 || (id >= 10 && id <= 12);

		assert_int_equal(t.ok_of[id], !failing);
		if (failing)
			assert_string_equal(t.why_of[id], want_why);
		assert_int_equal(saveinspect_get(&p, id, hex), failing ? 404 : 200);
	}
	assert_int_equal(saveinspect_stats(&p, &st), 0);
	assert_int_equal(st.received, 20);
	assert_int_equal(st.stored, 16);
	assert_int_equal(st.failed, 4);
	expect_log_matches(&p, &t, 20, true);
	save_client_free(c);
	savetest_stop(&p);
	event_base_free(base);
}

/* Listed ids fail with 500 (the default status), are never stored nor
 * logged; the others are stored as usual. */
static void fail_ids_answer_500_and_store_nothing(void **state)
{
	(void)state;
	run_fail_ids(0, "HTTP 500");
}

static void fail_status_picks_the_answer(void **state)
{
	(void)state;
	run_fail_ids(409, "HTTP 409");
}

/* A failing id fails every time: a retry does not get it stored. */
static void a_failing_id_fails_again_on_retry(void **state)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct tally t = { 0 };
	struct saveproto_stats st;
	struct saveproc p;
	struct save_client *c;
	char hex[65];

	(void)state;
	o.delay_ms = 0;
	o.fail_ids = "0";
	start(&p, &o);
	c = savetest_client(base, p.port, 1, 0);
	savetest_digest(0, hex);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(save_client_save(c, 0, hex, tally_cb, &t), 0);
		assert_int_equal(save_client_drain(c), -1);
	}
	assert_int_equal(t.failed, 3);
	assert_int_equal(saveinspect_stats(&p, &st), 0);
	assert_int_equal(st.failed, 3);
	assert_int_equal(st.stored, 0);
	save_client_free(c);
	savetest_stop(&p);
	event_base_free(base);
}

/* ---- --close-after -------------------------------------------------------- */

/* One connection, so the server sees the saves in order: the first 5 are
 * stored, each later one fails with "connection closed", once, and the
 * client does not resend it (the server received each exactly once). */
static void close_after_drops_every_later_save_once(void **state)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct tally t = { 0 };
	struct saveproto_stats st;
	struct saveproc p;
	struct save_client *c;

	(void)state;
	o.delay_ms = 2;
	o.close_after = 5;
	start(&p, &o);
	c = savetest_client(base, p.port, 1, 0);
	savetest_save_range(c, 0, 12, tally_cb, &t);
	assert_int_equal(save_client_drain(c), -1);
	expect_each_done_once(&t, 12);
	for (uint64_t id = 0; id < 12; id++) {
		assert_int_equal(t.ok_of[id], id < 5);
		if (id >= 5)
			assert_string_equal(t.why_of[id], "connection closed");
	}
	assert_int_equal(saveinspect_stats(&p, &st), 0);
	assert_int_equal(st.received, 12);
	assert_int_equal(st.dropped, 7);
	assert_int_equal(st.stored, 5);
	expect_log_matches(&p, &t, 12, true);
	save_client_free(c);
	savetest_stop(&p);
	event_base_free(base);
}

/* SAVEPROC_AT_ONCE: the very first save is dropped already. */
static void close_at_once_drops_the_first_save(void **state)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct tally t = { 0 };
	struct saveproto_stats st;
	struct saveproc p;
	struct save_client *c;

	(void)state;
	o.close_after = SAVEPROC_AT_ONCE;
	start(&p, &o);
	c = savetest_client(base, p.port, 3, 0);
	savetest_save_range(c, 0, 6, tally_cb, &t);
	assert_int_equal(save_client_drain(c), -1);
	expect_each_done_once(&t, 6);
	assert_int_equal(t.failed, 6);
	assert_int_equal(saveinspect_stats(&p, &st), 0);
	assert_int_equal(st.dropped, 6);
	assert_int_equal(st.stored, 0);
	save_client_free(c);
	savetest_stop(&p);
	event_base_free(base);
}

/* ---- the server goes away --------------------------------------------------- */

/* --exit-after 4 on one connection: 4 stored, then the server exits; the
 * rest fail (the one it was sent on is closed, later connects refused),
 * each once, and the drain ends: measured ~0.1 s, bound 5 s. */
static void exit_after_ends_the_server_and_every_save_ends(void **state)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct tally t = { 0 };
	struct saveproc p;
	struct save_client *c;
	int64_t start_ns;

	(void)state;
	o.delay_ms = 2;
	o.exit_after = 4;
	start(&p, &o);
	c = savetest_client(base, p.port, 1, 0);
	savetest_save_range(c, 0, 10, tally_cb, &t);
	start_ns = clock_monotonic_ns();
	assert_int_equal(save_client_drain(c), -1);
	assert_true(clock_monotonic_ns() - start_ns < savetest_bound_ns(5000));
	expect_each_done_once(&t, 10);
	assert_int_equal(t.ok, 4);
	for (uint64_t id = 4; id < 10; id++)
		if (strcmp(t.why_of[id], "connection closed") != 0 &&
		    strcmp(t.why_of[id], "connection refused") != 0)
			fail_msg("save %d failed with '%s'", (int)id, t.why_of[id]);
	assert_string_equal(t.why_of[9], "connection refused");
	expect_log_matches(&p, &t, 10, true);
	/* It exited on its own, with status 0. */
	savetest_stop(&p);
	save_client_free(c);
	event_base_free(base);
}

/* saveproc_kill from inside a done callback, with 3 saves on the wire
 * and more queued: every save still ends once, the stored ones are in
 * the log, and a save after the kill is refused. */
static void a_server_killed_mid_run_fails_the_rest_once(void **state)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct tally t = { 0 };
	struct saveproc p;
	struct save_client *c;

	(void)state;
	o.delay_ms = 20;
	start(&p, &o);
	t.kill_after_ok = 5;
	t.server = &p;
	c = savetest_client(base, p.port, 3, 0);
	savetest_save_range(c, 0, 20, tally_cb, &t);
	assert_int_equal(save_client_drain(c), -1);
	expect_each_done_once(&t, 20);
	assert_true(t.ok >= 5 && t.ok <= 7);
	assert_int_equal(p.pid, 0);
	expect_log_matches(&p, &t, 20, false);
	savetest_save_range(c, 20, 21, tally_cb, &t);
	assert_int_equal(save_client_drain(c), -1);
	assert_string_equal(t.why_of[20], "connection refused");
	assert_int_equal(saveproc_kill(&p), -1);
	savetest_stop(&p);
	save_client_free(c);
	event_base_free(base);
}

/* A frozen server answers nothing: the save times out after the client's
 * 300 ms (bound 150 ms-3 s); thawed, it serves the next save. */
static void a_frozen_server_times_saves_out(void **state)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct tally t = { 0 };
	struct saveproc p;
	struct save_client *c;
	int64_t start_ns, took;

	(void)state;
	o.delay_ms = 0;
	start(&p, &o);
	c = savetest_client(base, p.port, 1, 300);
	assert_int_equal(saveproc_freeze(&p), 0);
	savetest_save_range(c, 0, 1, tally_cb, &t);
	start_ns = clock_monotonic_ns();
	assert_int_equal(save_client_drain(c), -1);
	took = clock_monotonic_ns() - start_ns;
	assert_string_equal(t.why_of[0], "timeout");
	assert_true(took >= 150 * CLOCK_NS_PER_MS && took < savetest_bound_ns(3000));
	assert_int_equal(saveproc_thaw(&p), 0);
	savetest_save_range(c, 1, 2, tally_cb, &t);
	assert_int_equal(save_client_drain(c), 0);
	assert_int_equal(saveproc_freeze(&p), 0);
	/* saveproc_stop ends a frozen server too. */
	savetest_stop(&p);
	save_client_free(c);
	event_base_free(base);
}

/* ---- --jitter-ms ------------------------------------------------------------ */

/* 30 saves held at once, delay 10 ms + jitter 0..40 ms: every save waits
 * at least its 10 ms, and the waits spread (the draws of seed 7 span more
 * than 20 ms; timer lateness only adds), so answers come out of arrival
 * order.  Upper bound per save: 50 ms + 1 s of slack for a loaded VM. */
static void jitter_spreads_the_delays(void **state)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct tally t = { 0 };
	struct saveproto_record *r;
	struct saveproc p;
	struct save_client *c;
	int64_t lo = INT64_MAX, hi = 0;
	size_t n;

	(void)state;
	o.delay_ms = 10;
	o.jitter_ms = 40;
	o.seed = 7;
	o.max_in_flight = 100;
	start(&p, &o);
	c = savetest_client(base, p.port, 30, 0);
	savetest_save_range(c, 0, 30, tally_cb, &t);
	assert_int_equal(save_client_drain(c), 0);
	assert_int_equal(saveinspect_read_own_log(&p, &r, &n), 0);
	assert_int_equal(n, 30);
	for (size_t i = 0; i < n; i++) {
		int64_t wait = r[i].answered_ns - r[i].received_ns;

		assert_true(wait >= 10 * CLOCK_NS_PER_MS);
		assert_true(wait < 50 * CLOCK_NS_PER_MS + savetest_bound_ns(1000));
		lo = wait < lo ? wait : lo;
		hi = wait > hi ? wait : hi;
	}
	print_message("measured: jittered waits %.1f-%.1f ms\n", lo / 1e6, hi / 1e6);
	assert_true(hi - lo > 20 * CLOCK_NS_PER_MS);
	free(r);
	save_client_free(c);
	savetest_stop(&p);
	event_base_free(base);
}

/* A bad fault option makes saveproc_start fail with the server's words. */
static void a_bad_fault_option_fails_the_start(void **state)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct saveproc p;
	int saved, null_fd, rc;

	(void)state;
	o.fail_ids = "3,,4";
	/* The server's usage on stderr is expected here: keep it out of
	 * the test's output. */
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null_fd = open("/dev/null", O_WRONLY);
	dup2(null_fd, STDERR_FILENO);
	rc = saveproc_start(&p, &o);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(null_fd);
	assert_int_equal(rc, -1);
	assert_int_equal(p.pid, 0);
	assert_non_null(strstr(p.why, "did not say"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fail_ids_answer_500_and_store_nothing),
		cmocka_unit_test(fail_status_picks_the_answer),
		cmocka_unit_test(a_failing_id_fails_again_on_retry),
		cmocka_unit_test(close_after_drops_every_later_save_once),
		cmocka_unit_test(close_at_once_drops_the_first_save),
		cmocka_unit_test(exit_after_ends_the_server_and_every_save_ends),
		cmocka_unit_test(a_server_killed_mid_run_fails_the_rest_once),
		cmocka_unit_test(a_frozen_server_times_saves_out),
		cmocka_unit_test(jitter_spreads_the_delays),
		cmocka_unit_test(a_bad_fault_option_fails_the_start),
	};

	/* A hung test must not hang make check: end the run after 2 minutes. */
	alarm(120);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
