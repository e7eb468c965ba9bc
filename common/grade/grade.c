#include "grade.h"

#include "evalloc.h"
#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define SANITIZER_SCALE 3.0
/* Sanitizer reports must end the child so the test is marked a crash. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "abort_on_error=1:detect_leaks=1";
}
#elif defined(__SANITIZE_THREAD__)
#define SANITIZER_SCALE 5.0
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "halt_on_error=1:abort_on_error=1";
}
#else
#define SANITIZER_SCALE 1.0
#endif

/* A child may write at most this much output; past it, SIGXFSZ ends it. */
#define OUTPUT_LIMIT_BYTES (16L << 20)
/* Lines of a failing test's output shown on the terminal. */
#define SHOWN_LINES 24

struct outcome {
	const char *status;   /* pass fail timeout crash error */
	char detail[256];     /* how a timeout or crash happened */
	double seconds;
	char *output;         /* what the child printed (first 64 KiB) */
	size_t output_len;
};

struct run {
	const char *lab, *title, *out_dir, *rerun, *only;
	const struct grade_test *tests;
	size_t n_tests;
	struct outcome *outcomes;   /* one per test; status NULL if not run */
	bool color;
};

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

void grade_fail(const char *file, int line, const char *expected,
		const char *fmt, ...)
{
	char got[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(got, sizeof(got), fmt, ap);
	va_end(ap);
	print_error("expected: %s\n     got: %s\n", expected, got);
	_fail(file, line);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the child: one test, then a positive report on status_fd ---------- */

static void child_main(const struct grade_test *t, int status_fd, int out_fd)
{
	struct rlimit fsize = { OUTPUT_LIMIT_BYTES, OUTPUT_LIMIT_BYTES };
	struct CMUnitTest unit = { .name = t->name, .test_func = t->fn };
	int devnull = open("/dev/null", O_RDONLY);
	int failed;

	setpgid(0, 0);
	if (devnull >= 0)
		dup2(devnull, STDIN_FILENO);
	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	setrlimit(RLIMIT_FSIZE, &fsize);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Before the test's first libevent call: graders count what is freed. */
	evalloc_install();

	failed = _cmocka_run_group_tests(t->name, &unit, 1, NULL, NULL);
#if defined(__SANITIZE_ADDRESS__)
	if (!failed && __lsan_do_recoverable_leak_check() != 0)
		failed = 1;
#endif
	fflush(NULL);
	if (failed == 0 && write(status_fd, "PASS", 4) != 4)
		_exit(3);
	_exit(0);
}

/* ---- the parent: wait with a deadline, contain, classify ---------------- */

/* Kills whatever the test left behind: its process group, and any orphan
 * that escaped it and was handed to us as the subreaper. */
static void kill_leftovers(pid_t pgid)
{
	char path[64], buf[4096];
	FILE *f;

	kill(-pgid, SIGKILL);
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	f = fopen(path, "r");
	if (f) {
		while (fscanf(f, "%4095s", buf) == 1)
			kill((pid_t)atoi(buf), SIGKILL);
		fclose(f);
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static bool wait_with_deadline(pid_t pid, double deadline, int *wstatus)
{
	struct timespec tick = { 0, 1000000 };

	for (;;) {
		pid_t r = waitpid(pid, wstatus, WNOHANG);

		if (r == pid || (r == -1 && errno != EINTR))
			return true;
		if (now_s() > deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, wstatus, 0);
			return false;
		}
		nanosleep(&tick, NULL);
	}
}

static void read_output(int fd, struct outcome *o)
{
	size_t cap = 64 * 1024;
	ssize_t n;

	o->output = malloc(cap + 1);
	o->output_len = 0;
	if (!o->output)
		return;
	lseek(fd, 0, SEEK_SET);
	while (o->output_len < cap &&
	       (n = read(fd, o->output + o->output_len, cap - o->output_len)) > 0)
		o->output_len += (size_t)n;
	o->output[o->output_len] = '\0';
}

static bool output_has(const struct outcome *o, const char *needle)
{
	return o->output && memmem(o->output, o->output_len, needle,
				   strlen(needle)) != NULL;
}

static void classify_signal(struct outcome *o, int sig)
{
	o->status = "crash";
	if (sig == SIGXFSZ)
		snprintf(o->detail, sizeof(o->detail),
			 "printed more than %ld MiB of output and was stopped",
			 OUTPUT_LIMIT_BYTES >> 20);
	else if (sig == SIGABRT)
		snprintf(o->detail, sizeof(o->detail),
			 "aborted (SIGABRT): abort(), a failed assert() or a "
			 "sanitizer report");
	else
		snprintf(o->detail, sizeof(o->detail), "killed by signal %d (%s)",
			 sig, strsignal(sig));
}

static void classify(struct outcome *o, bool finished, int ws, bool passed,
		     double timeout_s)
{
	if (!finished) {
		o->status = "timeout";
		snprintf(o->detail, sizeof(o->detail),
			 "still running after %.1f s; killed", timeout_s);
	} else if (WIFSIGNALED(ws)) {
		classify_signal(o, WTERMSIG(ws));
	} else if (passed) {
		o->status = "pass";
	} else if (output_has(o, "Test failed with exception")) {
		o->status = "crash";
		snprintf(o->detail, sizeof(o->detail),
			 "crashed (cmocka caught a fatal signal, see the output)");
	} else if (output_has(o, "[  FAILED  ]")) {
		o->status = "fail";
	} else {
		o->status = "crash";
		snprintf(o->detail, sizeof(o->detail),
			 "the process exited with status %d before the test "
			 "finished (exit() called from the code under test?)",
			 WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
	}
}

static int open_log(const struct run *r, const struct grade_test *t)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/logs/%s", r->out_dir, r->lab);
	mkdir(r->out_dir, 0755);
	snprintf(path, sizeof(path), "%s/logs", r->out_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/logs/%s", r->out_dir, r->lab);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/logs/%s/%s.log", r->out_dir, r->lab,
		 t->name);
	return open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static void run_one_test(const struct run *r, const struct grade_test *t,
		     struct outcome *o)
{
	double timeout_s = t->timeout_ms / 1000.0 * grade_time_scale();
	int status_pipe[2], out_fd, ws = 0;
	double start = now_s();
	bool finished, passed = false;
	char token[8] = "";
	pid_t pid;

	memset(o, 0, sizeof(*o));
	out_fd = open_log(r, t);
	if (out_fd < 0 || pipe2(status_pipe, O_CLOEXEC) != 0) {
		o->status = "error";
		snprintf(o->detail, sizeof(o->detail), "harness: %s",
			 strerror(errno));
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(status_pipe[0]);
		child_main(t, status_pipe[1], out_fd);
	}
	close(status_pipe[1]);
	if (pid > 0)
		setpgid(pid, pid);
	finished = pid > 0 && wait_with_deadline(pid, start + timeout_s, &ws);
	if (pid > 0)
		kill_leftovers(pid);
	fcntl(status_pipe[0], F_SETFL, O_NONBLOCK);
	if (read(status_pipe[0], token, 4) == 4 && memcmp(token, "PASS", 4) == 0)
		passed = true;
	close(status_pipe[0]);
	o->seconds = now_s() - start;
	read_output(out_fd, o);
	close(out_fd);
	classify(o, pid < 0 || finished, ws, passed, timeout_s);
}

/* ---- reports ------------------------------------------------------------- */

/* cmocka's own framing lines say nothing a student needs. */
static bool is_framing(const char *line, size_t len)
{
	static const char *const skip[] = {
		"[==========]", "[ RUN      ]", "[       OK ]", "[  PASSED  ]",
		"[  FAILED  ]", " 1 FAILED TEST", "[   LINE   ]",
	};

	if (len == 0 || memmem(line, len, "[   LINE   ] ---", 16))
		return true;
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++) {
		size_t n = strlen(skip[i]);

		if (len >= n && memcmp(line, skip[i], n) == 0)
			return true;
	}
	return false;
}

static void show_output(const struct outcome *o)
{
	const char *p = o->output, *end = o->output + o->output_len;
	const char *prev = NULL;
	size_t prev_len = 0;
	int shown = 0;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		/* A stub prints its "not implemented" once per call: once is
		 * enough on the terminal (the log keeps them all). */
		bool repeat = prev && len == prev_len && memcmp(p, prev, len) == 0;

		prev = p;
		prev_len = len;
		if (!repeat && !is_framing(p, len)) {
			if (shown++ == SHOWN_LINES) {
				printf("        [... more in the log ...]\n");
				break;
			}
			/* "[  ERROR   ] --- " and "[   LINE   ] --- " */
			if (len > 17 && p[0] == '[' && memcmp(p + 12, " --- ", 5) == 0)
				printf("        %.*s\n", (int)(len - 17 > 200 ? 200 : len - 17), p + 17);
			else
				printf("        %.*s\n", (int)(len > 200 ? 200 : len), p);
		}
		p = nl ? nl + 1 : end;
	}
}

static const char *paint(const struct run *r, const char *status)
{
	if (!r->color)
		return "";
	return strcmp(status, "pass") == 0 ? "\033[32m" : "\033[31m";
}

static void print_row(const struct run *r, const struct grade_test *t,
		      const struct outcome *o)
{
	int score = strcmp(o->status, "pass") == 0 ? t->points : 0;

	printf("  %s%-7s%s %3d/%-3d  %s  (%.2f s)\n", paint(r, o->status),
	       o->status, r->color ? "\033[0m" : "", score, t->points, t->name,
	       o->seconds);
	if (score == t->points)
		return;
	if (o->detail[0])
		printf("        %s\n", o->detail);
	show_output(o);
	printf("        hint: %s\n", t->hint);
	printf("        log: %s/logs/%s/%s.log\n", r->out_dir, r->lab, t->name);
	printf("        rerun: %s LAB=%.*s T=%s\n", r->rerun,
	       (int)strcspn(r->lab, "_"), r->lab, t->name);
	fflush(stdout);
}

static void write_fragment(const struct run *r)
{
	char path[4096], tmp[4100];
	int score = 0, max = 0, passed = 0, count = 0;
	FILE *f;

	for (size_t i = 0; i < r->n_tests; i++) {
		const struct outcome *o = &r->outcomes[i];

		if (!o->status)
			continue;
		count++;
		max += r->tests[i].points;
		if (strcmp(o->status, "pass") == 0)
			passed++, score += r->tests[i].points;
	}
	snprintf(path, sizeof(path), "%s/labs", r->out_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/labs/%s.frag", r->out_dir, r->lab);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%s %d %d %d %d\n", r->lab, score, max, passed, count);
	for (size_t i = 0; i < r->n_tests; i++) {
		const struct outcome *o = &r->outcomes[i];
		struct results_test rt = {
			.lab = r->lab, .name = r->tests[i].name,
			.status = o->status, .max_score = r->tests[i].points,
			.seconds = o->seconds, .output = o->output,
			.output_len = o->output_len,
		};

		if (!o->status)
			continue;
		rt.score = strcmp(o->status, "pass") == 0 ? rt.max_score : 0;
		results_json_test(f, &rt);
	}
	if (fclose(f) == 0)
		rename(tmp, path);
}

static void write_junit(const struct run *r)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.xml", r->out_dir, r->lab);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuite name=\"%s\">\n", r->lab);
	for (size_t i = 0; i < r->n_tests; i++) {
		const struct outcome *o = &r->outcomes[i];

		if (!o->status)
			continue;
		fprintf(f, "  <testcase classname=\"%s\" name=\"%s\" time=\"%.3f\">",
			r->lab, r->tests[i].name, o->seconds);
		if (strcmp(o->status, "pass") != 0) {
			fprintf(f, "\n    <failure type=\"%s\" message=\"", o->status);
			results_xml_text(f, o->detail, strlen(o->detail), 256);
			fprintf(f, "\">");
			results_xml_text(f, o->output, o->output_len,
					 RESULTS_OUTPUT_MAX);
			fprintf(f, "</failure>\n  ");
		}
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "</testsuite>\n");
	fclose(f);
}

/* ---- main ---------------------------------------------------------------- */

static int usage(const char *prog, const char *problem)
{
	if (problem)
		fprintf(stderr, "%s: %s\n", prog, problem);
	fprintf(stderr,
		"usage: %s [--out DIR] [--only SUBSTRING] [--rerun CMD] [--list]\n"
		"  --out DIR      where results go (default build/grade)\n"
		"  --only SUB     run only the tests whose name contains SUB\n"
		"  --rerun CMD    the command printed to rerun one test\n"
		"  --list         list the tests with points and timeouts\n",
		prog);
	return 2;
}

static void list_tests(const struct run *r)
{
	for (size_t i = 0; i < r->n_tests; i++)
		printf("%-48s %3d pts  %6.1f s\n", r->tests[i].name,
		       r->tests[i].points, r->tests[i].timeout_ms / 1000.0);
}

static int parse_args(struct run *r, int argc, char **argv, bool *list)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "only", required_argument, NULL, 't' },
		{ "rerun", required_argument, NULL, 'r' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o': r->out_dir = optarg; break;
		case 't': r->only = optarg; break;
		case 'r': r->rerun = optarg; break;
		case 'l': *list = true; break;
		case 'h': usage(argv[0], NULL); exit(0);
		default: return -1;
		}
	}
	return optind == argc ? 0 : -1;
}

static int grade_all(struct run *r)
{
	int score = 0, max = 0, ran = 0;

	printf("%s — %s\n", r->lab, r->title);
	for (size_t i = 0; i < r->n_tests; i++) {
		const struct grade_test *t = &r->tests[i];

		if (r->only && !strstr(t->name, r->only))
			continue;
		run_one_test(r, t, &r->outcomes[i]);
		ran++;
		max += t->points;
		if (strcmp(r->outcomes[i].status, "pass") == 0)
			score += t->points;
		print_row(r, t, &r->outcomes[i]);
		write_fragment(r);
		write_junit(r);
		results_merge(r->out_dir);
	}
	if (ran == 0) {
		printf("  no test name contains '%s'; try --list\n", r->only);
		return 2;
	}
	printf("Score: %d/%d  %s\n", score, max, r->lab);
	if (score < max)
		printf("Stuck? make hint LAB=%.*s\n", (int)strcspn(r->lab, "_"),
		       r->lab);
	printf("\n");
	return score == max ? 0 : 1;
}

int grade_main(int argc, char **argv, const char *lab, const char *title,
	       const struct grade_test *tests, size_t n_tests)
{
	struct run r = {
		.lab = lab, .title = title, .out_dir = "build/grade",
		.rerun = "make grade", .tests = tests, .n_tests = n_tests,
		.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR"),
	};
	bool list = false;
	int status;

	if (parse_args(&r, argc, argv, &list) != 0)
		return usage(argv[0], "bad arguments");
	if (list) {
		list_tests(&r);
		return 0;
	}
	/* Tests may look (hostile ones: scribble) where results go; every
	 * fragment is rewritten from memory after each test regardless. */
	setenv("YIELDLAB_GRADE_OUT", r.out_dir, 1);
	/* Orphans of a test's own forks come back to us, to be killed. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	r.outcomes = calloc(n_tests, sizeof(*r.outcomes));
	if (!r.outcomes)
		return 3;
	status = grade_all(&r);
	for (size_t i = 0; i < n_tests; i++)
		free(r.outcomes[i].output);
	free(r.outcomes);
	return status;
}
