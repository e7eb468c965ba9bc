/*
 * Unit tests of common/workload: the shared options of ex06-ex08 are read
 * with their bounds, other options are left to the program, a fixed
 * --links skips the calibration, and a calibrated item takes about the
 * time it was sized to.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hashwork.h"
#include "workload.h"

#include <stdio.h>
#include <string.h>

static struct cli quiet_cli(void)
{
	return (struct cli){ .prog = "test", .usage = NULL };
}

/* Runs workload_option with stderr sent to /dev/null (bad values print). */
static bool option(struct cli *c, struct workload *w, int opt, const char *arg)
{
	FILE *saved = stderr;
	bool taken;

	stderr = fopen("/dev/null", "w");
	taken = workload_option(c, w, opt, arg);
	fclose(stderr);
	stderr = saved;
	return taken;
}

static void each_shared_option_is_read_within_its_bounds(void **state)
{
	struct workload w = WORKLOAD_DEFAULTS("test");
	struct cli c = quiet_cli();

	(void)state;
	assert_true(option(&c, &w, 'n', "10000"));
	assert_true(option(&c, &w, 'd', "0"));
	assert_true(option(&c, &w, 'i', "0.1"));
	assert_true(option(&c, &w, 'L', "4294967296"));
	assert_true(option(&c, &w, 'D', "0"));
	assert_true(option(&c, &w, 'c', "64"));
	assert_false(cli_failed(&c));
	assert_int_equal(w.n, 10000);
	assert_int_equal(w.difficulty, 0);
	assert_true(w.item_ms > 0.099 && w.item_ms < 0.101);
	assert_true(w.links == HASHWORK_MAX_LINKS);
	assert_int_equal(w.delay_ms, 0);
	assert_int_equal(w.cap, 64);
}

static void a_value_past_a_bound_fails_the_parse(void **state)
{
	static const struct { int opt; const char *arg; } bad[] = {
		{ 'n', "0" }, { 'n', "10001" }, { 'd', "17" }, { 'i', "0.05" },
		{ 'L', "0" }, { 'L', "4294967297" }, { 'D', "-1" }, { 'c', "65" },
		{ 'c', "3x" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct workload w = WORKLOAD_DEFAULTS("test");
		struct cli c = quiet_cli();

		assert_true(option(&c, &w, bad[i].opt, bad[i].arg));
		if (!cli_failed(&c))
			fail_msg("-%c %s was accepted", bad[i].opt, bad[i].arg);
	}
}

static void other_options_are_left_to_the_program(void **state)
{
	struct workload w = WORKLOAD_DEFAULTS("test");
	struct cli c = quiet_cli();

	(void)state;
	assert_false(option(&c, &w, 'C', NULL));
	assert_false(option(&c, &w, 'b', "3"));
	assert_false(cli_failed(&c));
	assert_int_equal(w.n, 120);
}

static void fixed_links_skip_the_calibration(void **state)
{
	struct workload w = WORKLOAD_DEFAULTS("test");
	char buf[128];

	(void)state;
	w.links = 77;
	assert_int_equal(workload_plan(&w), 0);
	assert_true(w.links == 77);
	assert_true(w.ns_per_link == 0);
	assert_string_equal(workload_describe(&w, buf, sizeof(buf)),
			    "of 77 SHA-256 links (--links)");
}

/* Difficulty 7 halves the 16 ms default: the target is 8 ms.  The floor of
 * 20 such items is then about 160 ms; the bounds (40-640 ms, a factor of
 * 4 either way) only catch a unit mistake or a calibration that ignored
 * the target, on a machine whose load may stretch any one run. */
static void calibrated_items_take_about_their_target(void **state)
{
	struct workload w = WORKLOAD_DEFAULTS("test");
	char buf[128];
	double floor_s;

	(void)state;
	w.difficulty = 7;
	w.n = 20;
	assert_true(workload_item_target_ms(&w) > 7.99 &&
		    workload_item_target_ms(&w) < 8.01);
	assert_int_equal(workload_plan(&w), 0);
	assert_true(w.links > 0 && w.ns_per_link > 0);
	assert_non_null(strstr(workload_describe(&w, buf, sizeof(buf)),
			       "calibrated to 8.0 ms"));
	/* 0.16 s on an idle machine.  The floor is wall time, and make check
	 * runs its jobs side by side: at a load of 13 on two cores it took
	 * 1.0 s once.  The bounds catch a calibration off by a factor of
	 * four or more below (items too short) and of 15 above. */
	floor_s = workload_cpu_floor_s(&w);
	if (floor_s < 0.04 || floor_s > 2.4)
		fail_msg("20 items of 8 ms took %.3f s", floor_s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_shared_option_is_read_within_its_bounds),
		cmocka_unit_test(a_value_past_a_bound_fails_the_parse),
		cmocka_unit_test(other_options_are_left_to_the_program),
		cmocka_unit_test(fixed_links_skip_the_calibration),
		cmocka_unit_test(calibrated_items_take_about_their_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
