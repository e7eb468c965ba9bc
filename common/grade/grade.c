/*
 * The half of the harness that is linked into each grader, beside the
 * student's code, and is therefore untrusted: it lists the tests and runs
 * exactly one of them per process (--run-one), reporting on a pipe the
 * runner gave it.  It decides no score.  Everything that does — timeouts,
 * containment, verdicts, results files — lives in the runner, grade-run
 * (common/grade/runner.c), which never links student code.
 *
 * Run directly (build/grader/ex01-sol --out DIR), a grader hands itself to
 * the runner, so every way of grading goes through the same verdicts.
 */
#include "grade.h"

#include "evalloc.h"
#include "saveproc.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define SANITIZER_SCALE 3.0
#define SANITIZER_NAME "address"
/* Sanitizer reports must end the child so the test is marked a crash. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "abort_on_error=1:detect_leaks=1";
}
#elif defined(__SANITIZE_THREAD__)
#define SANITIZER_SCALE 5.0
#define SANITIZER_NAME "thread"
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "halt_on_error=1:abort_on_error=1";
}
#else
#define SANITIZER_SCALE 1.0
#define SANITIZER_NAME "none"
#endif

/* Linked in only by the graders that start a save server (ex06-ex08): a
 * weak reference does not pull saveproc.o from the library. */
#pragma weak saveproc_start_logged

/* The nonce is at most this long (the runner sends 32 hex digits). */
#define NONCE_MAX 64

/* The test being run, and what the wrapper saw of it. */
static const struct grade_test *running;
static bool test_returned;      /* the test function returned normally */
static bool grade_failed;       /* grade_fail() was called */

double grade_time_scale(void)
{
	const char *env = getenv("YIELDLAB_TIMEOUT_SCALE");
	double scale = env ? strtod(env, NULL) : 1.0;

	if (!(scale >= 1.0))
		scale = 1.0;
	return scale * SANITIZER_SCALE;
}

int64_t grade_bound_ns(int64_t ms)
{
	return (int64_t)((double)ms * grade_time_scale() * 1e6);
}

int64_t grade_cpu_wait_ns(const char *schedstat_path)
{
	FILE *f = fopen(schedstat_path, "r");
	unsigned long long ran, waited = 0;

	if (f) {
		if (fscanf(f, "%llu %llu", &ran, &waited) != 2)
			waited = 0;
		fclose(f);
	}
	return (int64_t)waited;
}

int64_t grade_thread_cpu_wait_ns(void)
{
	return grade_cpu_wait_ns("/proc/thread-self/schedstat");
}

void grade_fail(const char *file, int line, const char *expected,
		const char *fmt, ...)
{
	char got[2048];
	va_list ap;

	grade_failed = true;
	va_start(ap, fmt);
	vsnprintf(got, sizeof(got), fmt, ap);
	va_end(ap);
	print_error("expected: %s\n     got: %s\n", expected, got);
	_fail(file, line);
}

/* ---- one test in this process -------------------------------------------- */

/* cmocka catches these and goes on; the runner should see the real signal. */
static void restore_fatal_signals(void)
{
	static const int sigs[] = { SIGSEGV, SIGFPE, SIGILL, SIGBUS, SIGSYS };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
}

/* Runs the test and notes that it came back: skip() and a failure jump out
 * of it, so a test that did not return cannot pass. */
static void wrapped_test(void **state)
{
	restore_fatal_signals();
	running->fn(state);
	test_returned = true;
}

/* The graders of labs with no helper process start none, and neither may
 * the code under test: no fork, no exec (threads are still fine).  A
 * filter cannot be lifted once loaded.  Not under a sanitizer, whose
 * runtime clones helpers (LeakSanitizer) or starts a symbolizer. */
static int forbid_spawning(void)
{
	scmp_filter_ctx ctx;
	int rc;

	if (strcmp(SANITIZER_NAME, "none") != 0)
		return 0;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -1;
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(fork), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(vfork), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(execve), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(execveat), 0);
	/* clone3's flags sit in memory a filter cannot read: glibc falls back
	 * to clone, whose flags it can. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
			       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc;
}

/* Reads the nonce before any code under test runs, and closes its pipe, so
 * the test has no descriptor left to learn it from. */
static int read_nonce(int fd, char *nonce, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size && (n = read(fd, nonce + len, size - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	nonce[len] = '\0';
	nonce[strcspn(nonce, "\n")] = '\0';
	return len > 0 ? 0 : -1;
}

static void write_verdict(int fd, const char *word, const char *nonce,
			  const char *why)
{
	char line[256];
	int len = snprintf(line, sizeof(line), "%s %s %s\n", word, nonce, why);

	if (len > 0 && write(fd, line, (size_t)len) != len)
		_exit(3);
	close(fd);
}

/* The end of a test's process, once its verdict is written.  Under ASan,
 * LeakSanitizer's own check at exit is skipped: a passed test's heap was
 * checked already (run_one), and that second scan of it cost about 1 s of
 * make check's CPU; a failed test has its verdict, and a leak report
 * after it would only bury the message that says why. */
static int end_test(int status)
{
#if defined(__SANITIZE_ADDRESS__)
	fflush(NULL);
	_exit(status);
#endif
	return status;
}

static int run_one(const struct grade_test *t, int nonce_fd, int verdict_fd,
		   bool no_spawn)
{
	struct CMUnitTest unit = { .name = t->name, .test_func = wrapped_test };
	char nonce[NONCE_MAX];
	int failures;
	bool leaked = false;

	if (read_nonce(nonce_fd, nonce, sizeof(nonce)) != 0) {
		fprintf(stderr, "grader: no nonce on fd %d\n", nonce_fd);
		return 3;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (no_spawn && forbid_spawning() != 0)
		printf("grader: could not forbid fork/exec (no seccomp here)\n");
	/* Before the test's first libevent call: graders count what is freed. */
	evalloc_install();
	running = t;
	failures = _cmocka_run_group_tests(t->name, &unit, 1, NULL, NULL);
#if defined(__SANITIZE_ADDRESS__)
	leaked = failures == 0 && __lsan_do_recoverable_leak_check() != 0;
#endif
	fflush(NULL);
	if (failures == 0 && test_returned && !grade_failed && !leaked) {
		write_verdict(verdict_fd, "PASS", nonce, "returned");
		return end_test(0);
	}
	write_verdict(verdict_fd, "FAIL", nonce,
		      !test_returned && failures == 0 ? "skipped" :
		      leaked ? "leaked" : "failed");
	return end_test(1);
}

/* ---- listing, and handing a direct run to the runner ---------------------- */

static void list_tests(const struct grade_test *tests, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%-48s %3d pts  %6.1f s\n", tests[i].name, tests[i].points,
		       tests[i].timeout_ms / 1000.0);
}

/* The runner's input: a header line, then one tab-separated line a test. */
static void list_tests_tsv(const char *lab, const char *title,
			   const struct grade_test *tests, size_t n)
{
	printf("#yieldlab-tests\t%s\t%g\t%s\t%s\t%s\n", lab, SANITIZER_SCALE,
	       SANITIZER_NAME, saveproc_start_logged ? "spawns" : "alone", title);
	for (size_t i = 0; i < n; i++)
		printf("%s\t%d\t%d\t%u\t%s\n", tests[i].name, tests[i].points,
		       tests[i].timeout_ms, tests[i].flags, tests[i].hint);
}

/* bin/grade-run beside the build tree this grader sits in. */
static int find_runner(char *path, size_t size)
{
	const char *env = getenv("YIELDLAB_GRADE_RUN");
	char dir[PATH_MAX];
	ssize_t len;

	if (env && *env)
		return snprintf(path, size, "%s", env) < (int)size ? 0 : -1;
	len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (len < 0)
		return -1;
	dir[len] = '\0';
	for (int up = 0; up < 5; up++) {
		char *slash = strrchr(dir, '/');

		if (!slash)
			break;
		*slash = '\0';
		if (snprintf(path, size, "%s/bin/grade-run", dir) < (int)size &&
		    access(path, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* A grader started by hand: the runner grades it (its argv is passed on). */
static int exec_runner(int argc, char **argv, const char *lab)
{
	char runner[PATH_MAX], self[PATH_MAX];
	char **args = calloc((size_t)argc + 10, sizeof(*args));
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int n = 0;

	if (!args || len < 0 || find_runner(runner, sizeof(runner)) != 0) {
		fprintf(stderr, "%s: cannot find bin/grade-run (build it with make)\n",
			argv[0]);
		return 3;
	}
	self[len] = '\0';
	args[n++] = runner;
	args[n++] = (char *)"grade";
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	args[n++] = (char *)"--lab";
	args[n++] = (char *)lab;
	args[n++] = (char *)"--grader";
	args[n++] = self;
	args[n] = NULL;
	execv(runner, args);
	fprintf(stderr, "%s: %s: %s\n", argv[0], runner, strerror(errno));
	return 3;
}

static const struct grade_test *find_test(const struct grade_test *tests,
					  size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(tests[i].name, name) == 0)
			return &tests[i];
	return NULL;
}

/* --run-one NAME --nonce-fd N --verdict-fd N: the runner's call. */
static int run_one_from_args(int argc, char **argv,
			     const struct grade_test *tests, size_t n)
{
	const struct grade_test *t;
	int nonce_fd = -1, verdict_fd = -1;
	bool no_spawn = false;

	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--no-spawn") == 0)
			no_spawn = true;
		else if (i + 1 < argc && strcmp(argv[i], "--nonce-fd") == 0)
			nonce_fd = atoi(argv[++i]);
		else if (i + 1 < argc && strcmp(argv[i], "--verdict-fd") == 0)
			verdict_fd = atoi(argv[++i]);
	}
	t = argc > 2 ? find_test(tests, n, argv[2]) : NULL;
	if (!t || nonce_fd < 0 || verdict_fd < 0) {
		fprintf(stderr, "%s --run-one NAME --nonce-fd N --verdict-fd N [--no-spawn]: "
			"bad arguments (the runner, grade-run, starts this)\n",
			argv[0]);
		return 2;
	}
	return run_one(t, nonce_fd, verdict_fd, no_spawn);
}

int grade_main(int argc, char **argv, const char *lab, const char *title,
	       const struct grade_test *tests, size_t n_tests)
{
	if (argc >= 2 && strcmp(argv[1], "--run-one") == 0)
		return run_one_from_args(argc, argv, tests, n_tests);
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		list_tests(tests, n_tests);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--list-tsv") == 0) {
		list_tests_tsv(lab, title, tests, n_tests);
		return 0;
	}
	return exec_runner(argc, argv, lab);
}
