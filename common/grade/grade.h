/*
 * grade: the grading harness every lab's grader links.
 *
 * A grader is a table of cmocka test functions, each with points, a timeout
 * and a hint.  The grader is untrusted (it links the student's code): the
 * runner, grade-run (common/grade/runner.h), which links none, lists the
 * table from a build of grade.c without the student's object and runs each
 * test in a fresh, contained exec of the grader (grade_main's --run-one).
 * A hang is killed at its timeout on the runner's clock, a crash or an
 * exit() is reported as such, and the rest of the lab is still graded.  A
 * test passes only on a verdict carrying the runner's per-test nonce, after
 * the test function returned with no failure, and an exit status of 0.
 *
 * Results (written by the runner alone): a table and "Score: X/Y" on stdout,
 * a JUnit XML file per lab, and a signed fragment merged into results.json
 * (Gradescope's format) after each test.  common/grade/README.md says what
 * is contained.
 */
#ifndef YIELDLAB_GRADE_H
#define YIELDLAB_GRADE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

struct grade_test {
	const char *name;          /* reads as a sentence: snake_case */
	CMUnitTestFunction fn;
	int points;
	int timeout_ms;            /* before scaling; see grade_time_scale() */
	const char *hint;          /* one or two lines for the student */
	unsigned flags;            /* GRADE_F_* */
};

/* The test also runs under ThreadSanitizer as part of a plain `make grade`
 * (for tests whose mistakes are data races the plain build cannot see). */
#define GRADE_F_TSAN (1u << 0)

/* One row of a grader's table; the test's name is the function's name. */
#define GRADE_TEST(fn, points, timeout_ms, hint) \
	{ #fn, fn, points, timeout_ms, hint, 0 }

/* A row whose test is also run under ThreadSanitizer (GRADE_F_TSAN). */
#define GRADE_TEST_TSAN(fn, points, timeout_ms, hint) \
	{ #fn, fn, points, timeout_ms, hint, GRADE_F_TSAN }

/* The grader's main.  lab is "ex01_round_robin"; title is one line.  Run
 * by hand (build/grader/ex01-sol --out DIR [--test NAME]) it hands itself
 * to the runner; --list prints the table.
 * @return the process exit status: 0 all passed, 1 some failed, 2 usage,
 * 3 the harness failed. */
int grade_main(int argc, char **argv, const char *lab, const char *title,
	       const struct grade_test *tests, size_t n_tests);

/*
 * How much slower than a plain build on an idle machine this run may be:
 * YIELDLAB_TIMEOUT_SCALE (default 1) times 3 under ASan or 5 under TSan.
 * Timeouts are multiplied by it; real-time bounds in tests should be too.
 */
double grade_time_scale(void);

/* A generous real-time bound: ms scaled by grade_time_scale(), in ns. */
int64_t grade_bound_ns(int64_t ms);

/*
 * A thread's time runnable but waiting for a CPU, in ns, from its
 * schedstat file (/proc/thread-self/schedstat, or /proc/self/task/TID/...);
 * 0 where it cannot be read.  A real-time bound can leave it out: it is
 * the scheduler's delay, not the code's, and code that sleeps does not
 * wait for a CPU.
 */
int64_t grade_cpu_wait_ns(const char *schedstat_path);

/* The same for the calling thread. */
int64_t grade_thread_cpu_wait_ns(void);

/*
 * Fails the running test with a student-facing message:
 *     expected: <expected>
 *          got: <printf(fmt, ...)>
 */
void grade_fail(const char *file, int line, const char *expected,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Fails unless cond; expected says what should have been true. */
#define GRADE_EXPECT(cond, expected, ...)                                  \
	do {                                                               \
		if (!(cond))                                               \
			grade_fail(__FILE__, __LINE__, expected, __VA_ARGS__); \
	} while (0)

/* Fails unless two strings are equal. */
#define GRADE_EXPECT_STR(got, want)                                        \
	do {                                                               \
		const char *got_ = (got), *want_ = (want);                 \
		if (!got_ || strcmp(got_, want_) != 0)                     \
			grade_fail(__FILE__, __LINE__, want_, "%s",        \
				   got_ ? got_ : "(null)");                \
	} while (0)

/* Fails unless two integers are equal; what names the quantity. */
#define GRADE_EXPECT_INT(got, want, what)                                  \
	do {                                                               \
		long long got_ = (long long)(got), want_ = (long long)(want); \
		if (got_ != want_)                                         \
			grade_fail(__FILE__, __LINE__, what, "%lld (expected %lld)", \
				   got_, want_);                           \
	} while (0)

#endif
