/*
 * The harness's own test: a fake lab whose tests pass, fail, hang, crash and
 * misbehave the ways student code does.  common/grade/check.sh runs it and
 * checks that each one got the status named in its name, that results.json
 * stayed valid, and that nothing was left running.
 */
#include "grade.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void status_pass_plain(void **state)
{
	(void)state;
	assert_int_equal(2 + 2, 4);
}

static void status_fail_assertion(void **state)
{
	(void)state;
	GRADE_EXPECT(1 + 1 == 3, "1 + 1 == 3", "%d", 1 + 1);
}

static void status_timeout_endless_loop(void **state)
{
	volatile unsigned long spin = 0;

	(void)state;
	for (;;)
		spin++;
}

static void status_crash_segfault(void **state)
{
	volatile int *nowhere = NULL;

	(void)state;
	*nowhere = 1;
}

static void status_crash_abort(void **state)
{
	(void)state;
	abort();
}

static void status_crash_exit_zero(void **state)
{
	(void)state;
	exit(0);
}

static void status_crash_megabytes_of_output(void **state)
{
	char line[1024];

	(void)state;
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	for (;;)
		puts(line);
}

/* Leaves a grandchild sleeping; check.sh makes sure it is gone. */
static void status_fail_forks_and_leaves_a_child(void **state)
{
	(void)state;
	if (fork() == 0) {
		setsid();
		execlp("sleep", "sleep", "3600", (char *)NULL);
		_exit(0);
	}
	fail_msg("left a child behind");
}

static void status_fail_hostile_output(void **state)
{
	(void)state;
	fputs("quote \" backslash \\ bell \a nul-free \x01\x1f tab\t "
	      "bad utf8 \xff\xfe \xc3\x28 overlong \xc0\xaf "
	      "good \xc3\xa9 \xe2\x82\xac\n", stdout);
	fail();
}

static void scribble(const char *dir, const char *name, const char *junk)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(junk, f);
		fclose(f);
	}
}

/* Writes junk over the results the harness keeps, and plants a bogus
 * fragment: results.json must come out valid all the same. */
static void status_fail_overwrites_grader_files(void **state)
{
	const char *out = getenv("YIELDLAB_GRADE_OUT");

	(void)state;
	assert_non_null(out);
	scribble(out, "results.json", "{ \"score\": 100, broken");
	scribble(out, "labs/selftest.frag", "selftest 10 10 10 10\n{ junk\n");
	scribble(out, "labs/zz_planted.frag", "garbage\n{\"name\": oops}\n");
	fail_msg("scribbled over the grader's files");
}

static void status_pass_after_others_failed(void **state)
{
	(void)state;
	assert_true(1);
}

static const struct grade_test tests[] = {
	GRADE_TEST(status_pass_plain, 1, 2000, "-"),
	GRADE_TEST(status_fail_assertion, 1, 2000, "-"),
	GRADE_TEST(status_timeout_endless_loop, 1, 300, "-"),
	GRADE_TEST(status_crash_segfault, 1, 2000, "-"),
	GRADE_TEST(status_crash_abort, 1, 2000, "-"),
	GRADE_TEST(status_crash_exit_zero, 1, 2000, "-"),
	GRADE_TEST(status_crash_megabytes_of_output, 1, 20000, "-"),
	GRADE_TEST(status_fail_forks_and_leaves_a_child, 1, 2000, "-"),
	GRADE_TEST(status_fail_hostile_output, 1, 2000, "-"),
	GRADE_TEST(status_fail_overwrites_grader_files, 1, 2000, "-"),
	GRADE_TEST(status_pass_after_others_failed, 1, 2000, "-"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "selftest", "the harness grades itself",
			  tests, sizeof(tests) / sizeof(tests[0]));
}
