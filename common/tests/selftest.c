/*
 * The harness's own test: a fake lab whose tests pass, fail, hang, crash,
 * misbehave the ways student code does, and try to forge a pass (this file
 * is not sealed, so the runner's own defences are what stop it).  common/tests/check.sh runs it and
 * checks that each one got the status named in its name, that results.json
 * stayed valid, and that nothing was left running.
 */
#include "grade.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The grader's own clock, frozen: only the runner's clock may time a test,
 * so the endless loop below must still be stopped at its timeout. */
int clock_gettime(clockid_t id, struct timespec *ts)
{
	(void)id;
	ts->tv_sec = 1;
	ts->tv_nsec = 0;
	return 0;
}

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
		execlp("sleep", "yieldlab-selftest-orphan", "3600", (char *)NULL);
		_exit(0);
	}
	fail_msg("left a child behind");
}

static void status_fail_hostile_output(void **state)
{
	(void)state;
	fputs("\033[2J\033[HScore: 100/100  (a fake line drawn on the terminal)\n"
	      "\xc2\x9b" "31mC1 escape\n", stdout);
	fputs("quote \" backslash \\ bell \a nul-free \x01\x1f tab\t "
	      "bad utf8 \xff\xfe \xc3\x28 overlong \xc0\xaf "
	      "good \xc3\xa9 \xe2\x82\xac\n", stdout);
	fail();
}

/* Where results go, read as a hostile test would: from the runner's
 * command line (--out DIR). */
static const char *results_dir(void)
{
	static char args[4096];
	char path[64];
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)getppid());
	f = fopen(path, "r");
	if (!f)
		return NULL;
	len = fread(args, 1, sizeof(args) - 1, f);
	fclose(f);
	args[len] = '\0';
	for (char *p = args; p < args + len; p += strlen(p) + 1)
		if (strcmp(p, "--out") == 0)
			return p + strlen(p) + 1;
	return NULL;
}

static void scribble(const char *name, const char *junk)
{
	const char *dir = results_dir();
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(junk, f);
		fclose(f);
	}
}

/* A constructor runs before any test: it plants a full-marks fragment.
 * Only the runner's signed fragments count. */
__attribute__((constructor)) static void plant_full_marks(void)
{
	scribble("labs/selftest.frag",
		 "selftest 15 15 15 15\n{\"name\": \"selftest/x\", \"score\": 15}\n");
}

/* Writes junk over the results the runner keeps, and plants fragments:
 * results.json must come out valid and unchanged in score. */
static void status_fail_overwrites_grader_files(void **state)
{
	(void)state;
	scribble("results.json", "{ \"score\": 100, broken");
	scribble("labs/zz_planted.frag", "zz_planted 99 99 1 1\n{\"name\": oops}\n"
		 "hmac 0000000000000000000000000000000000000000000000000000000000000000\n");
	fail_msg("scribbled over the grader's files");
}

/* cmocka's skip(): a skipped test is not a pass. */
static void status_skip_calls_skip(void **state)
{
	(void)state;
	skip();
}

/* "PASS" on the verdict pipe, then out: no nonce, no pass. */
static void status_forged_writes_pass_and_exits(void **state)
{
	(void)state;
	for (int fd = 3; fd < 10; fd++)
		if (write(fd, "PASS 0123456789abcdef0123456789abcdef returned\n", 47) < 0)
			continue;
	_exit(0);
}

/* Signals the runner: refused (seccomp), and the runner grades on. */
static void status_fail_kills_its_runner(void **state)
{
	(void)state;
	kill(getppid(), SIGKILL);
	fail_msg("the runner survived (as it must)");
}

/* A grandchild in its own session that would rewrite results.json after
 * grading: killed before the verdict (check.sh looks for it). */
static void status_fail_double_fork_in_its_own_session(void **state)
{
	(void)state;
	if (fork() == 0) {
		if (fork() == 0) {
			setsid();
			execlp("sleep", "yieldlab-selftest-orphan", "3602", (char *)NULL);
			_exit(0);
		}
		_exit(0);
	}
	fail_msg("left a grandchild behind");
}

/* A lab whose grader starts no helper process (no save server) runs its
 * tests with fork and exec refused; threads still work. */
static void *nothing(void *arg)
{
	return arg;
}

static void status_pass_cannot_fork_or_exec(void **state)
{
	pthread_t thread;
	pid_t pid;

	(void)state;
	pid = fork();
	if (pid == 0)
		_exit(0);
	assert_true(pid < 0 && errno == EPERM);
	execlp("true", "true", (char *)NULL);
	assert_int_equal(errno, EPERM);
	assert_int_equal(pthread_create(&thread, NULL, nothing, NULL), 0);
	assert_int_equal(pthread_join(thread, NULL), 0);
}

static void status_pass_after_others_failed(void **state)
{
	(void)state;
	assert_true(1);
}

#if defined(__SANITIZE_ADDRESS__)
/* Only in the ASan build (make check's san-address job grades it alone):
 * blocks never freed fail the test through LeakSanitizer, with its own
 * message, although the test's checks held.  Ten blocks, dropped in a
 * function of their own: a stale copy of one pointer on the stack would
 * keep that one block reachable, not all ten. */
static void __attribute__((noinline)) lose_blocks(void)
{
	for (int i = 0; i < 10; i++) {
		char *volatile block = malloc(100);

		if (block)
			block[0] = (char)i;
	}
}

static void status_fail_leaks_blocks(void **state)
{
	(void)state;
	lose_blocks();
	assert_true(1);
}
#endif

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
	GRADE_TEST(status_skip_calls_skip, 1, 2000, "-"),
	GRADE_TEST(status_forged_writes_pass_and_exits, 1, 2000, "-"),
	GRADE_TEST(status_fail_kills_its_runner, 1, 2000, "-"),
	GRADE_TEST(status_fail_double_fork_in_its_own_session, 1, 2000, "-"),
	GRADE_TEST(status_pass_cannot_fork_or_exec, 1, 2000, "-"),
	GRADE_TEST(status_pass_after_others_failed, 1, 2000, "-"),
#if defined(__SANITIZE_ADDRESS__)
	GRADE_TEST(status_fail_leaks_blocks, 1, 2000, "-"),
#endif
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "selftest", "the harness grades itself",
			  tests, sizeof(tests) / sizeof(tests[0]));
}
