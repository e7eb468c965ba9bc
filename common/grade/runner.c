/*
 * grade-run: the trusted runner (see runner.h).  Subcommands:
 *
 *   grade  --out DIR [--fresh] [--test NAME | --only SUB] [--rerun CMD]
 *          [--first-failure] [--jobs N]
 *          [--seal SCRIPT] --lab LAB --grader BIN [--lister BIN]
 *          [--object OBJ --api FILE] [--tsan BIN] [--lab ...]
 *   report --out DIR [--labs 'LAB ...']     totals, results.json, status
 *   field  --out DIR --lab LAB N            one number of a lab's result
 *   tags   --out DIR --lab LAB              "test status" per test
 *   note   --out DIR --lab LAB --list FILE --status S --note-file FILE
 *
 * Installed as grade-report and grade-note too, where its name is the
 * subcommand.  Exit status: 0 every graded test passed, 1 some did not,
 * 2 bad arguments, 3 the runner failed, 4 graded but the terminal went
 * away (results complete; e.g. `make grade | head`), 130 interrupted.
 * With --jobs N, N labs are graded at once, each in a child of the runner;
 * each lab's report is printed whole, in the order the labs were given.
 */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results.h"
#include "saveproc.h"

#define MAX_LABS 32
#define SHOWN_LINES 24
#define GRADE_F_TSAN 1u

struct lab {
	const char *name, *grader, *lister, *object, *api, *tsan;
	int exe_fd, tsan_fd;
	char title[256], sanitizer[16];
	bool spawns;            /* its grader starts a helper (save server) */
	double scale;
	struct test_info *tests;
	struct outcome *outcomes;
	size_t n;
	char sealed[2000];      /* non-empty: the seal's verdict, scores 0 */
};

struct opts {
	const char *cmd, *out_dir, *test, *only, *rerun, *seal, *labs;
	const char *list, *status, *note_file;
	bool fresh;
	bool first_failure;          /* stop a lab at its first lost test */
	int jobs;                    /* labs graded at once (--jobs N) */
	struct lab labs_v[MAX_LABS];
	int n_labs;
	const char *fields;      /* field: "N" or "N,N,..." */
};

static bool terminal_gone;

/* Everything for the terminal goes through here: a closed pipe (`| head`)
 * stops the printing, never the grading. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	if (terminal_gone)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (fflush(stdout) != 0 || ferror(stdout))
		terminal_gone = true;
}

/* Appends s[0..len) to f with control characters and escape sequences
 * shown escaped, so a test cannot draw on the terminal (a fake "Score:"). */
static void put_clean(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = results_utf8_len(p + i, len - i);

		if (n == 1 && (p[i] >= 0x20 && p[i] != 0x7f))
			fputc(p[i], f);
		else if (n == 1 && p[i] == '\t')
			fputs("    ", f);
		else if (n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)
			fprintf(f, "\\u%04x", p[i + 1]);   /* C1 controls */
		else if (n > 1)
			fwrite(p + i, 1, n, f);
		else
			fprintf(f, "\\x%02x", p[i]);
		i += n ? n : 1;
	}
}

/* ---- the lab's test list, from a binary with no student code ------------- */

static char *read_fd_all(int fd, size_t max, size_t *len)
{
	char *buf = malloc(max + 1);
	ssize_t n;

	*len = 0;
	if (!buf)
		return NULL;
	lseek(fd, 0, SEEK_SET);
	while (*len < max && (n = read(fd, buf + *len, max - *len)) > 0)
		*len += (size_t)n;
	buf[*len] = '\0';
	return buf;
}

/* Runs exe (an fd from contain_load) contained, stdout into memory. */
static char *run_capture(int exe_fd, const char *const *argv, double timeout_s,
			 size_t *len)
{
	int out = memfd_create("listing", MFD_CLOEXEC);
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct contained c = { .exe_fd = exe_fd, .argv = argv, .log_fd = out,
			       .nonce_fd = null_fd, .verdict_fd = null_fd,
			       .timeout_s = timeout_s, .sanitizer = true };
	struct exit_info e;
	char *text = NULL;

	if (out >= 0 && null_fd >= 0 && contain_run(&c, &e) == 0 && e.finished &&
	    WIFEXITED(e.wstatus) && WEXITSTATUS(e.wstatus) == 0)
		text = read_fd_all(out, 1 << 20, len);
	if (out >= 0)
		close(out);
	if (null_fd >= 0)
		close(null_fd);
	return text;
}

static int parse_header(struct lab *l, char *line)
{
	char *fields[6];
	int n = 0;

	for (char *tok = strtok(line, "\t"); tok && n < 6; tok = strtok(NULL, "\t"))
		fields[n++] = tok;
	if (n != 6 || strcmp(fields[0], "#yieldlab-tests") != 0 ||
	    strcmp(fields[1], l->name) != 0)
		return -1;
	l->scale = strtod(fields[2], NULL);
	snprintf(l->sanitizer, sizeof(l->sanitizer), "%s", fields[3]);
	l->spawns = strcmp(fields[4], "spawns") == 0;
	snprintf(l->title, sizeof(l->title), "%s", fields[5]);
	return 0;
}

static int parse_test(struct test_info *t, char *line)
{
	char *name = strsep(&line, "\t"), *points = strsep(&line, "\t");
	char *timeout = strsep(&line, "\t"), *flags = strsep(&line, "\t");

	if (!name || !*name || !points || !timeout || !flags || !line)
		return -1;
	t->name = strdup(name);
	t->points = atoi(points);
	t->timeout_ms = atoi(timeout);
	t->flags = (unsigned)atoi(flags);
	t->hint = strdup(line);
	return t->points >= 0 && t->timeout_ms > 0 ? 0 : -1;
}

static int load_list(struct lab *l)
{
	const char *argv[] = { "grader", "--list-tsv", NULL };
	int fd = contain_load(l->lister ? l->lister : l->grader);
	size_t len, cap = 16;
	char *text = fd >= 0 ? run_capture(fd, argv, 20.0, &len) : NULL;
	char *save = NULL, *line;

	if (fd >= 0)
		close(fd);
	line = text ? strtok_r(text, "\n", &save) : NULL;
	if (!line || parse_header(l, line) != 0) {
		free(text);
		return -1;
	}
	l->tests = calloc(cap, sizeof(*l->tests));
	while (l->tests && (line = strtok_r(NULL, "\n", &save)) != NULL) {
		if (l->n == cap)
			l->tests = realloc(l->tests, (cap *= 2) * sizeof(*l->tests));
		if (!l->tests || parse_test(&l->tests[l->n], line) != 0)
			break;
		l->n++;
	}
	free(text);
	l->outcomes = calloc(l->n ? l->n : 1, sizeof(*l->outcomes));
	return l->tests && l->outcomes && l->n > 0 ? 0 : -1;
}

/* ---- the seal: the student object, checked before anything of it runs ---- */

static void check_seal(const struct opts *o, struct lab *l)
{
	int out = memfd_create("seal", MFD_CLOEXEC);
	size_t len = 0;
	char *text = NULL;
	int ws = -1;
	pid_t pid;

	if (!l->object || !o->seal || out < 0) {
		if (out >= 0)
			close(out);
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(out, 1);
		dup2(out, 2);
		execlp("bash", "bash", o->seal, l->object, l->api ? l->api : "",
		       l->name, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &ws, 0);
	text = read_fd_all(out, sizeof(l->sealed) - 1, &len);
	close(out);
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		snprintf(l->sealed, sizeof(l->sealed), "%s",
			 text && len ? text : "the seal check could not run");
	free(text);
}

/* ---- one test --------------------------------------------------------------- */

static int open_log(const char *out_dir, const char *lab, const char *test,
		    const char *suffix)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/logs", out_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/logs/%s", out_dir, lab);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/logs/%s/%s%s.log", out_dir, lab, test,
		 suffix);
	return open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
}

static void make_nonce(char hex[33])
{
	unsigned char raw[16];

	if (getrandom(raw, sizeof(raw), 0) != sizeof(raw))
		abort();
	for (int i = 0; i < 16; i++)
		sprintf(hex + 2 * i, "%02x", raw[i]);
}

static void classify_signal(struct outcome *o, int sig, bool tsan)
{
	o->status = "crash";
	if (sig == SIGXFSZ)
		snprintf(o->detail, sizeof(o->detail), "printed more than 16 MiB "
			 "of output and was stopped");
	else if (sig == SIGXCPU)
		snprintf(o->detail, sizeof(o->detail), "used more CPU time than "
			 "its limit and was stopped");
	else if (sig == SIGABRT)
		snprintf(o->detail, sizeof(o->detail), "aborted (SIGABRT): abort(), "
			 "a failed assert() or a %s report", tsan ?
			 "ThreadSanitizer (data race)" : "sanitizer");
	else
		snprintf(o->detail, sizeof(o->detail), "killed by signal %d (%s)",
			 sig, strsignal(sig));
}

/* The verdict is one line "PASS|FAIL <nonce> <why>", alone on the pipe. */
static void classify_verdict(struct outcome *o, const char *v, const char *nonce,
			     int code)
{
	char word[8] = "", got[40] = "", why[16] = "", tail;
	int n = sscanf(v, "%7s %39s %15s%c", word, got, why, &tail);
	bool exact = n == 4 && tail == '\n' && strchr(v, '\n')[1] == '\0';

	if (!*v) {
		o->status = "crash";
		snprintf(o->detail, sizeof(o->detail), "the process exited with "
			 "status %d before the test finished (exit() or _exit() "
			 "called from the code under test?)", code);
	} else if (!exact || strcmp(got, nonce) != 0) {
		o->status = "forged";
		snprintf(o->detail, sizeof(o->detail), "a verdict the runner did "
			 "not issue was written to its pipe (no or wrong nonce): a "
			 "forged result scores 0");
	} else if (strcmp(word, "PASS") == 0 && code == 0) {
		o->status = "pass";
	} else if (strcmp(word, "PASS") == 0) {
		o->status = "crash";
		snprintf(o->detail, sizeof(o->detail), "reported a pass, then "
			 "exited with status %d", code);
	} else if (strcmp(why, "skipped") == 0) {
		o->status = "skip";
		snprintf(o->detail, sizeof(o->detail), "the test was skipped "
			 "(skip() called): a skipped test scores 0");
	} else {
		o->status = "fail";
		snprintf(o->detail, sizeof(o->detail), "failed: a check of the "
			 "test did not hold");
		if (strcmp(why, "leaked") == 0)
			snprintf(o->detail, sizeof(o->detail), "LeakSanitizer "
				 "found memory that was never freed");
	}
}

static void classify(struct outcome *o, const struct exit_info *e,
		     const char *verdict, const char *nonce, double timeout_s,
		     bool tsan)
{
	if (e->interrupted) {
		o->status = "interrupted";
		snprintf(o->detail, sizeof(o->detail), "grading was interrupted "
			 "(Ctrl-C or SIGTERM); the test was killed");
	} else if (!e->finished) {
		o->status = "timeout";
		snprintf(o->detail, sizeof(o->detail), "timeout: still running "
			 "after %.1f s (the runner's clock); killed", timeout_s);
	} else if (WIFSIGNALED(e->wstatus)) {
		classify_signal(o, WTERMSIG(e->wstatus), tsan);
	} else if (contain_sandboxed() && WEXITSTATUS(e->wstatus) > 128 &&
		   WEXITSTATUS(e->wstatus) < 128 + 65 && !*verdict) {
		/* bubblewrap reports its child's fatal signal as 128+N */
		classify_signal(o, WEXITSTATUS(e->wstatus) - 128, tsan);
	} else {
		classify_verdict(o, verdict, nonce, WEXITSTATUS(e->wstatus));
	}
}

static void read_verdict(int fd, char *buf, size_t size)
{
	ssize_t n;
	size_t len = 0;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	if (strlen(buf) != len)      /* a NUL in the verdict: forged */
		snprintf(buf, size, "?");
}

/* The test's timeout, scaled like the grader's own bounds: by
 * YIELDLAB_TIMEOUT_SCALE and by the sanitizer of the build. */
static double timeout_s(const struct lab *l, const struct test_info *t,
			bool tsan)
{
	const char *env = getenv("YIELDLAB_TIMEOUT_SCALE");
	double scale = (tsan ? 5.0 : l->scale) * (env ? fmax(1.0, atof(env)) : 1.0);

	return t->timeout_ms / 1000.0 * scale;
}

/* One exec of the grader for one test, under the runner's eye. */
static void run_test(const struct opts *op, const struct lab *l,
		     const struct test_info *t, bool tsan, struct outcome *o)
{
	const char *argv[] = { l->name, "--run-one", t->name, "--nonce-fd", "3",
			       "--verdict-fd", "4", l->spawns ? NULL : "--no-spawn",
			       NULL };
	int nonce_pipe[2], verdict_pipe[2];
	char nonce[33], verdict[512];
	struct contained c = { .exe_fd = tsan ? l->tsan_fd : l->exe_fd,
			       .argv = argv, .timeout_s = timeout_s(l, t, tsan),
			       .sanitizer = tsan || strcmp(l->sanitizer, "none") != 0 };
	struct exit_info e;

	memset(o, 0, sizeof(*o));
	c.log_fd = open_log(op->out_dir, l->name, t->name, tsan ? ".tsan" : "");
	if (c.log_fd < 0 || pipe2(nonce_pipe, O_CLOEXEC) != 0 ||
	    pipe2(verdict_pipe, O_CLOEXEC) != 0) {
		o->status = "error";
		snprintf(o->detail, sizeof(o->detail), "runner: %s", strerror(errno));
		return;
	}
	make_nonce(nonce);
	if (write(nonce_pipe[1], nonce, 32) != 32)
		abort();
	close(nonce_pipe[1]);
	c.nonce_fd = nonce_pipe[0];
	c.verdict_fd = verdict_pipe[1];
	if (contain_run(&c, &e) != 0) {
		o->status = "error";
		snprintf(o->detail, sizeof(o->detail), "runner: fork: %s",
			 strerror(errno));
	}
	close(nonce_pipe[0]);
	close(verdict_pipe[1]);
	read_verdict(verdict_pipe[0], verdict, sizeof(verdict));
	close(verdict_pipe[0]);
	o->seconds = e.seconds;
	o->log = read_fd_all(c.log_fd, RUNNER_LOG_MAX, &o->log_len);
	close(c.log_fd);
	if (!o->status)
		classify(o, &e, verdict, nonce, c.timeout_s, tsan);
	if (tsan && strcmp(o->status, "pass") != 0) {
		char plain[400];

		snprintf(plain, sizeof(plain), "%.399s", o->detail[0] ? o->detail :
			 "an assertion failed");
		snprintf(o->detail, sizeof(o->detail), "passed the plain build, "
			 "but under ThreadSanitizer: %s", plain);
	}
}

/* ---- what a student reads under a failing test -------------------------- */

/* cmocka's own framing lines say nothing a student needs. */
static bool is_framing(const char *line, size_t len)
{
	static const char *const skip[] = {
		"[==========]", "[ RUN      ]", "[       OK ]", "[  PASSED  ]",
		"[  FAILED  ]", " 1 FAILED TEST", "[   LINE   ]", "[  SKIPPED ]",
		" 1 SKIPPED TEST",
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

static void summarize_log(FILE *f, const struct outcome *o)
{
	const char *p = o->log, *end = o->log + o->log_len, *prev = NULL;
	size_t prev_len = 0;
	int shown = 0;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		/* A stub prints "not implemented" once per call: once is enough
		 * here (the log keeps them all). */
		bool repeat = prev && len == prev_len && memcmp(p, prev, len) == 0;

		prev = p;
		prev_len = len;
		if (!repeat && !is_framing(p, len)) {
			if (shown++ == SHOWN_LINES) {
				fputs("[... more in the log ...]\n", f);
				break;
			}
			/* "[  ERROR   ] --- " prefixes */
			if (len > 17 && p[0] == '[' && memcmp(p + 12, " --- ", 5) == 0)
				p += 17, len -= 17;
			put_clean(f, p, len > 200 ? 200 : len);
			fputc('\n', f);
		}
		p = nl ? nl + 1 : end;
	}
}

static void summarize(const struct opts *op, const struct lab *l,
		      const struct test_info *t, struct outcome *o)
{
	size_t len;
	FILE *f = open_memstream(&o->summary, &len);
	bool pass = strcmp(o->status, "pass") == 0;

	if (!f)
		return;
	if (pass) {
		fprintf(f, "passed (%.2f s)\n", o->seconds);
	} else {
		if (o->detail[0])
			fprintf(f, "%s\n", o->detail);
		if (strcmp(o->status, "sealed") != 0)
			summarize_log(f, o);
		fputs("hint: ", f);
		put_clean(f, t->hint, strlen(t->hint));
		fprintf(f, "\nlog: %s/logs/%s/%s.log\n", op->out_dir, l->name,
			t->name);
		fprintf(f, "rerun: %s LAB=%.*s TEST=%s\n", op->rerun,
			(int)strcspn(l->name, "_"), l->name, t->name);
	}
	fclose(f);
}

static void print_row(const struct lab *l, const struct test_info *t,
		      const struct outcome *o, bool color)
{
	bool pass = strcmp(o->status, "pass") == 0;
	const char *s = o->summary ? o->summary : "";

	say("  %s%-7s%s %3d/%-3d  %s  (%.2f s)\n",
	    color ? (pass ? "\033[32m" : "\033[31m") : "", o->status,
	    color ? "\033[0m" : "", pass ? t->points : 0, t->points, t->name,
	    o->seconds);
	(void)l;
	if (pass)
		return;
	/* The seal's verdict was shown once, above the lab's tests. */
	if (strcmp(o->status, "sealed") == 0) {
		say("        the seal failed (see above): 0 points\n");
		return;
	}
	/* The summary was cleaned when it was made. */
	while (*s) {
		size_t n = strcspn(s, "\n");

		say("        %.*s\n", (int)n, s);
		s += n + (s[n] == '\n');
	}
}

/* ---- grading -------------------------------------------------------------- */

static bool selected(const struct opts *op, const struct test_info *t)
{
	if (op->test)
		return strcmp(t->name, op->test) == 0;
	return !op->only || strstr(t->name, op->only);
}

static void grade_test(const struct opts *op, struct lab *l, size_t i, bool color)
{
	struct test_info *t = &l->tests[i];
	struct outcome *o = &l->outcomes[i];

	if (l->sealed[0]) {
		memset(o, 0, sizeof(*o));
		o->status = "sealed";
		snprintf(o->detail, sizeof(o->detail), "%.2000s", l->sealed);
	} else {
		run_test(op, l, t, false, o);
		if (strcmp(o->status, "pass") == 0 && (t->flags & GRADE_F_TSAN) &&
		    l->tsan_fd >= 0) {
			struct outcome tsan;
			double plain_s = o->seconds;

			run_test(op, l, t, true, &tsan);
			free(o->log);
			*o = tsan;
			o->seconds += plain_s;
		}
	}
	summarize(op, l, t, o);
	print_row(l, t, o, color);
}

/* @return 1 if some test did not pass, 0 if all did, 130 interrupted. */
static int grade_lab(const struct opts *op, struct lab *l, bool color)
{
	int score = 0, max = 0, ran = 0;

	say("%s — ", l->name);
	put_clean(stdout, l->title, strlen(l->title));
	say("\n");
	if (l->sealed[0]) {
		say("  the student object failed the seal, so every test scores 0:\n");
		for (const char *s = l->sealed; *s;) {
			size_t n = strcspn(s, "\n");

			if (n)
				say("    %.*s\n", (int)n, s);
			s += n + (s[n] == '\n');
		}
	}
	for (size_t i = 0; i < l->n && !contain_interrupted(); i++) {
		if (!selected(op, &l->tests[i]))
			continue;
		grade_test(op, l, i, color);
		ran++;
		max += l->tests[i].points;
		if (strcmp(l->outcomes[i].status, "pass") == 0)
			score += l->tests[i].points;
		store_write_lab(op->out_dir, &(struct lab_result){
			l->name, l->tests, l->outcomes, l->n });
		store_merge(op->out_dir);
		/* make mutants asks only whether some test fails. */
		if (op->first_failure && score < max)
			break;
	}
	if (contain_interrupted())
		return 130;
	if (ran == 0) {
		say("  no test is named '%s'; see %s --list\n",
		    op->test ? op->test : op->only, l->grader);
		return 2;
	}
	say("Score: %d/%d  %s\n", score, max, l->name);
	if (score < max)
		say("Stuck? make hint LAB=%.*s\n", (int)strcspn(l->name, "_"), l->name);
	say("\n");
	return score == max ? 0 : 1;
}

static int prepare_lab(const struct opts *op, struct lab *l)
{
	l->exe_fd = contain_load(l->grader);
	l->tsan_fd = l->tsan ? contain_load(l->tsan) : -1;
	if (l->exe_fd < 0 || (l->tsan && l->tsan_fd < 0)) {
		fprintf(stderr, "grade-run: %s: cannot read %s: %s\n", l->name,
			l->exe_fd < 0 ? l->grader : l->tsan, strerror(errno));
		return -1;
	}
	if (load_list(l) != 0) {
		fprintf(stderr, "grade-run: %s: %s --list-tsv gave no tests\n",
			l->name, l->lister ? l->lister : l->grader);
		return -1;
	}
	check_seal(op, l);
	return 0;
}

/* The save server of ex06-ex08 is the one this build made
 * (saveproc_built_server), and $YIELDLAB_SAVESERVER, when set, wins.  It is
 * named in the environment for the sandbox, which binds it in when it sits
 * under /tmp (contain.c). */
static void point_at_saveserver(void)
{
	if (!getenv("YIELDLAB_SAVESERVER") && access(saveproc_built_server, X_OK) == 0)
		setenv("YIELDLAB_SAVESERVER", saveproc_built_server, 1);
}

static int print_totals(const char *out_dir, const char *only)
{
	int score, max, passed, count;

	say("Summary (%s/results.json holds every lab graded and signed so far)\n",
	    out_dir);
	if (terminal_gone)
		store_totals(out_dir, only, NULL, &score, &max, &passed, &count);
	else if (store_totals(out_dir, only, stdout, &score, &max, &passed,
			      &count) <= 0) {
		fprintf(stderr, "grade-run: no signed results in %s/labs\n", out_dir);
		return 3;
	}
	say("Total score: %d/%d (%d of %d tests passed)\n", score, max, passed,
	    count);
	return passed == count ? 0 : 1;
}

/* ---- labs in parallel (--jobs N) ------------------------------------------ */

/* One lab graded in a child of the runner; its report goes to a memory file
 * that the runner prints whole, in lab order, once the lab is done. */
struct lab_job {
	pid_t pid;              /* 0: not started; -1: finished */
	int out_fd;
	int rc;
};

static void run_lab_job(const struct opts *op, struct lab *l, int out_fd,
			bool color)
{
	int rc;

	/* Not inherited through fork: the lab's orphans must come back here. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(3);
	rc = grade_lab(op, l, color);
	contain_sweep();
	fflush(stdout);
	_exit(rc);
}

static int start_lab_job(const struct opts *op, struct lab *l,
			 struct lab_job *j, bool color)
{
	j->out_fd = memfd_create("lab-report", MFD_CLOEXEC);
	if (j->out_fd < 0)
		return -1;
	fflush(NULL);
	j->pid = fork();
	if (j->pid == 0)
		run_lab_job(op, l, j->out_fd, color);
	return j->pid > 0 ? 0 : -1;
}

/* Prints a finished lab's report whole, then forgets it. */
static void show_lab_job(struct lab_job *j)
{
	char buf[8192];
	ssize_t n;

	lseek(j->out_fd, 0, SEEK_SET);
	while ((n = read(j->out_fd, buf, sizeof(buf))) > 0)
		say("%.*s", (int)n, buf);
	close(j->out_fd);
}

/* Records the exit of whichever job pid was; other pids (orphans of a
 * finished lab) are only reaped.  @return 1 if pid was a job's. */
static int finish_lab_job(const struct opts *op, struct lab_job *jobs, int n,
			  pid_t pid, int ws)
{
	for (int i = 0; i < n; i++) {
		if (jobs[i].pid != pid)
			continue;
		jobs[i].pid = -1;
		jobs[i].rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : 3;
		if (!WIFEXITED(ws))
			fprintf(stderr, "grade-run: grading %s died (signal %d)\n",
				op->labs_v[i].name, WTERMSIG(ws));
		return 1;
	}
	return 0;
}

static void stop_lab_jobs(struct lab_job *jobs, int n)
{
	for (int i = 0; i < n; i++)
		if (jobs[i].pid > 0)
			kill(jobs[i].pid, SIGTERM);
}

/* Grades up to op->jobs labs at a time; prints each report whole in lab
 * order.  @return the worst lab status, as the sequential loop does. */
static int grade_labs_parallel(struct opts *op, bool color)
{
	struct lab_job jobs[MAX_LABS] = { { 0 } };
	int started = 0, shown = 0, running = 0, status = 0, ws;

	while (shown < op->n_labs) {
		while (running < op->jobs && started < op->n_labs &&
		       !contain_interrupted()) {
			if (start_lab_job(op, &op->labs_v[started],
					  &jobs[started], color) != 0) {
				fprintf(stderr, "grade-run: cannot start a lab: %s\n",
					strerror(errno));
				stop_lab_jobs(jobs, started);
				return 3;
			}
			started++, running++;
		}
		if (running == 0)
			break;          /* interrupted before the rest started */
		pid_t pid = waitpid(-1, &ws, 0);

		if (pid < 0) {
			if (errno != EINTR)
				return 3;
			if (contain_interrupted())
				stop_lab_jobs(jobs, started);
			continue;
		}
		running -= finish_lab_job(op, jobs, started, pid, ws);
		for (; shown < started && jobs[shown].pid == -1; shown++) {
			show_lab_job(&jobs[shown]);
			status = jobs[shown].rc > status ? jobs[shown].rc : status;
		}
	}
	store_merge(op->out_dir);
	return status;
}

static int grade_labs(struct opts *op, bool color)
{
	int status = 0, rc;

	if (op->jobs > 1 && op->n_labs > 1)
		return grade_labs_parallel(op, color);
	for (int i = 0; i < op->n_labs && !contain_interrupted(); i++) {
		rc = grade_lab(op, &op->labs_v[i], color);
		status = rc > status ? rc : status;
	}
	return status;
}

static int cmd_grade(struct opts *op)
{
	bool color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	char only[MAX_LABS * 64] = "";
	int status;

	if (op->n_labs == 0)
		return 2;
	if (store_open(op->out_dir, op->fresh) != 0 || contain_init(op->out_dir) != 0) {
		fprintf(stderr, "grade-run: cannot prepare %s: %s\n", op->out_dir,
			strerror(errno));
		return 3;
	}
	unsetenv("YIELDLAB_GRADE_OUT");
	/* Every binary is read into sealed memory before any test runs: what
	 * a test does to the files later changes nothing. */
	point_at_saveserver();
	for (int i = 0; i < op->n_labs; i++) {
		if (prepare_lab(op, &op->labs_v[i]) != 0)
			return 3;
		strcat(strcat(only, op->labs_v[i].name), " ");
	}
	say("%s\n\n", contain_describe());
	status = grade_labs(op, color);
	if (contain_interrupted()) {
		contain_sweep();
		fprintf(stderr, "grade-run: interrupted; every test process was "
			"killed; results so far are in %s\n", op->out_dir);
		return 130;
	}
	if (status == 2)
		return 2;
	if (print_totals(op->out_dir, only) == 3)
		status = 3;
	if (terminal_gone) {
		fprintf(stderr, "grade-run: the output was cut (stdout closed); "
			"grading finished, results are in %s/results.json\n",
			op->out_dir);
		return 4;
	}
	return status;
}

static int cmd_note(const struct opts *op, const char *lab)
{
	size_t len = 0;
	int fd = op->note_file ? open(op->note_file, O_RDONLY | O_CLOEXEC) : -1;
	char *note = fd >= 0 ? read_fd_all(fd, 64 * 1024, &len) : NULL;
	static const char *const ok[] = { "fail", "timeout", "crash", "error" };
	bool valid = false;

	for (size_t i = 0; op->status && i < 4; i++)
		valid |= strcmp(op->status, ok[i]) == 0;
	if (fd >= 0)
		close(fd);
	if (!note || !lab || !op->list || !valid) {
		fprintf(stderr, "grade-note: needs --lab, --list, --note-file and "
			"--status fail|timeout|crash|error\n");
		free(note);
		return 2;
	}
	if (store_open(op->out_dir, false) != 0 ||
	    store_note(op->out_dir, lab, op->list, op->status, note, len) != 0) {
		fprintf(stderr, "grade-note: cannot write %s/labs/%s.frag\n",
			op->out_dir, lab);
		free(note);
		return 3;
	}
	free(note);
	return 0;
}

/* The fields named in list ("2" or "2,3,5"), on one line with a space
 * between them; nothing when the fragment is missing, not signed, or a
 * field is not there.  (Several in one call: each call loads libcrypto and
 * checks the signature, ~4 ms of CPU, and make status asks four per lab.) */
static int print_fields(const char *out_dir, const char *lab, const char *list)
{
	char line[256] = "", buf[128];
	size_t used = 0;

	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (store_field(out_dir, lab, atoi(p), buf, sizeof(buf)) != 0 ||
		    used + strlen(buf) + 2 > sizeof(line))
			return 0;
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s",
					 used ? " " : "", buf);
	}
	if (used)
		printf("%s\n", line);
	return 0;
}

/* Whether list is "N" or "N,N,..." with each N a field number from 1. */
static bool fields_valid(const char *list)
{
	const char *p = list;

	while (p && *p >= '1' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '\0')
			return true;
		p = *p == ',' ? p + 1 : NULL;
	}
	return false;
}

/* report, field, tags, note: the scripts' only way into the results. */
static int cmd_read(const struct opts *op)
{
	const char *lab = op->n_labs ? op->labs_v[0].name : NULL;

	if (strcmp(op->cmd, "note") == 0)
		return cmd_note(op, lab);
	if (store_open(op->out_dir, false) != 0)
		return 3;
	if (strcmp(op->cmd, "report") == 0) {
		int rc = print_totals(op->out_dir, op->labs);

		return store_merge(op->out_dir) == 0 ? rc : 3;
	}
	if (!lab)
		return 2;
	if (strcmp(op->cmd, "field") == 0)
		return print_fields(op->out_dir, lab, op->fields);
	store_tags(op->out_dir, lab, stdout);
	return 0;
}

static int usage(const char *problem)
{
	if (problem)
		fprintf(stderr, "grade-run: %s\n", problem);
	fprintf(stderr,
		"usage: grade-run grade --out DIR [--fresh] [--test NAME | --only SUB]\n"
		"                 [--first-failure] [--jobs N] [--rerun CMD] [--seal SCRIPT]\n"
		"                 --lab LAB --grader BIN\n"
		"                 [--lister BIN] [--object OBJ --api FILE] [--tsan BIN]\n"
		"                 [--lab LAB ...]\n"
		"       grade-run report --out DIR [--labs 'LAB ...']\n"
		"       grade-run field --out DIR --lab LAB N[,N...]\n"
		"                 (1 lab, 2 score, 3 max, 4 passed, 5 count)\n"
		"       grade-run tags --out DIR --lab LAB\n"
		"       grade-run note --out DIR --lab LAB --list FILE --status S\n"
		"                 --note-file FILE\n");
	return 2;
}

/* Options naming a lab's parts apply to the last --lab. */
static int lab_option(struct opts *op, const char *name, const char *value)
{
	static const char *const parts[] = { "--grader", "--lister", "--object",
					     "--api", "--tsan" };
	struct lab *l = op->n_labs ? &op->labs_v[op->n_labs - 1] : NULL;
	const char **slots[5];

	if (strcmp(name, "--lab") == 0) {
		if (op->n_labs == MAX_LABS)
			return -1;
		op->labs_v[op->n_labs++] = (struct lab){ .name = value,
							 .exe_fd = -1, .tsan_fd = -1 };
		return 0;
	}
	if (!l)
		return -1;
	slots[0] = &l->grader, slots[1] = &l->lister, slots[2] = &l->object;
	slots[3] = &l->api, slots[4] = &l->tsan;
	for (int i = 0; i < 5; i++)
		if (strcmp(name, parts[i]) == 0)
			return *slots[i] = value, 0;
	return -1;
}

static int parse_args(struct opts *op, int argc, char **argv)
{
	static const char *const names[] = { "--out", "--test", "--only",
		"--rerun", "--seal", "--labs", "--list", "--status", "--note-file" };
	const char **vals[] = { &op->out_dir, &op->test, &op->only, &op->rerun,
		&op->seal, &op->labs, &op->list, &op->status, &op->note_file };

	for (int i = 0; i < argc; i++) {
		bool known = false;

		if (strcmp(argv[i], "--fresh") == 0) {
			op->fresh = true;
			continue;
		}
		if (strcmp(argv[i], "--first-failure") == 0) {
			op->first_failure = true;
			continue;
		}
		if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) {
			op->jobs = atoi(argv[++i]);
			if (op->jobs < 1)
				return -1;
			continue;
		}
		if (strcmp(op->cmd, "field") == 0 && i == argc - 1 &&
		    argv[i][0] != '-') {
			op->fields = argv[i];
			continue;
		}
		if (i + 1 >= argc)
			return -1;
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strcmp(argv[i], names[k]) == 0)
				*vals[k] = argv[i + 1], known = true;
		if (!known && lab_option(op, argv[i], argv[i + 1]) != 0)
			return -1;
		i++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct opts op = { .out_dir = "build/grade", .rerun = "make grade" };
	const char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int first = 2;

	if (strcmp(self, "grade-report") == 0)
		op.cmd = "report", first = 1;
	else if (strcmp(self, "grade-note") == 0)
		op.cmd = "note", first = 1;
	else if (argc >= 2)
		op.cmd = argv[1];
	if (!op.cmd || (argc >= 2 && strcmp(argv[first - 1], "--help") == 0))
		return usage(NULL);
	if (parse_args(&op, argc - first, argv + first) != 0)
		return usage("bad arguments");
	if (strcmp(op.cmd, "grade") == 0) {
		for (int i = 0; i < op.n_labs; i++)
			if (!op.labs_v[i].grader)
				return usage("every --lab needs a --grader");
		return op.n_labs ? cmd_grade(&op) : usage("no --lab to grade");
	}
	if (strcmp(op.cmd, "field") == 0 && !fields_valid(op.fields))
		return usage("field needs N[,N...], field numbers from 1");
	if (strcmp(op.cmd, "report") == 0 || strcmp(op.cmd, "field") == 0 ||
	    strcmp(op.cmd, "tags") == 0 || strcmp(op.cmd, "note") == 0)
		return cmd_read(&op);
	return usage("unknown subcommand");
}
