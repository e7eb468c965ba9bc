/*
 * grade-run, the trusted runner: the only program that decides a score.  It
 * never links student code.  It checks each lab's student object (the
 * seal), runs each test in a fresh, contained exec of the lab's grader,
 * keeps time with its own clock, and is the only writer and reader of the
 * results files (OUT/labs/<lab>.frag, OUT/results.json, OUT/<lab>.xml).
 *
 * Modules: runner.c (command line, grading loop, terminal), contain.c (the
 * test's process: limits, seccomp, killing what it leaves), store.c (signed
 * fragments, results.json, JUnit, totals).
 */
#ifndef YIELDLAB_RUNNER_H
#define YIELDLAB_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Longest part of a test's log the runner reads back, in bytes. */
#define RUNNER_LOG_MAX (64 * 1024)

struct test_info {
	char *name;
	int points;
	int timeout_ms;
	unsigned flags;          /* GRADE_F_* */
	char *hint;
};

struct outcome {
	const char *status;      /* pass fail timeout crash skip forged sealed
				  * error interrupted; NULL: not run */
	char detail[2048];       /* the verdict in a sentence or a few */
	double seconds;
	char *summary;           /* what the terminal shows under a failure */
	char *log;               /* the raw log (first RUNNER_LOG_MAX bytes) */
	size_t log_len;
};

/* ---- contain.c ----------------------------------------------------------- */

struct contained {
	int exe_fd;              /* the grader, sealed in memory */
	const char *const *argv;
	int log_fd, nonce_fd, verdict_fd;
	double timeout_s;
	bool sanitizer;          /* no RLIMIT_AS; ptrace for LeakSanitizer */
};

struct exit_info {
	bool finished;           /* false: killed at its timeout */
	bool interrupted;        /* the runner got SIGINT/SIGTERM meanwhile */
	int wstatus;
	double seconds;
	int swept;               /* processes it left behind, killed */
};

/* Prepares the runner: subreaper, signals, which containment works here
 * (out_dir is hidden from tests).  @return 0 or -1. */
int contain_init(const char *out_dir);
/* True when tests run inside bubblewrap (exit status 128+N: signal N). */
bool contain_sandboxed(void);
/* Which containment is in force, one line for the terminal. */
const char *contain_describe(void);
/* A copy of the binary at path in sealed memory (so a file replaced later
 * changes nothing).  @return an fd, or -1 with errno. */
int contain_load(const char *path);
/* Runs one contained process to its end or timeout, then kills everything
 * it started.  @return 0, or -1 if it could not be started. */
int contain_run(const struct contained *c, struct exit_info *e);
/* True once SIGINT or SIGTERM reached the runner. */
bool contain_interrupted(void);
/* Kills and reaps every descendant.  @return how many were killed. */
int contain_sweep(void);

/* ---- store.c ------------------------------------------------------------- */

struct lab_result {
	const char *lab;
	const struct test_info *tests;
	const struct outcome *outcomes;
	size_t n;
};

/* Loads OUT/.key, creating it (fresh: always a new one).  @return 0/-1. */
int store_open(const char *out_dir, bool fresh);
/* Writes OUT/labs/<lab>.frag (signed) and OUT/<lab>.xml. */
int store_write_lab(const char *out_dir, const struct lab_result *r);
/* Rewrites OUT/results.json from the signed fragments; names the ignored
 * ones on stderr once per run.  @return 0 or -1. */
int store_merge(const char *out_dir);
/* Sums the signed fragments of the labs in only (NULL: every lab); prints
 * a line per lab to f when not NULL.  @return labs found, or -1. */
int store_totals(const char *out_dir, const char *only, FILE *f, int *score,
		 int *max, int *passed, int *count);
/* Field n (1 lab, 2 score, 3 max, 4 passed, 5 count) of a lab's signed
 * fragment into buf; empty when there is none.  tags: its tests' statuses. */
int store_field(const char *out_dir, const char *lab, int n, char *buf,
		size_t size);
int store_tags(const char *out_dir, const char *lab, FILE *f);
/* grade-note: adds the listed tests a lab's fragment lacks, scored 0 with
 * status and note as their output. */
int store_note(const char *out_dir, const char *lab, const char *list_path,
	       const char *status, const char *note, size_t note_len);

#endif
