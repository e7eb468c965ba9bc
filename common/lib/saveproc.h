/*
 * saveproc: the save server (build/bin/saveserver) as a child process of a
 * grader or an experiment: start it, fail it on purpose, stop it.  What it
 * received (its counters, its saves, its log) is read through
 * saveinspect.h; the formats are saveproto.h's.
 *
 * The server binds 127.0.0.1 on a free port; saveproc_start returns once it
 * has printed its ready line.  The child stays in the caller's process group
 * (the grading harness kills a test's whole group) and gets SIGKILL when
 * the thread that started it dies (PR_SET_PDEATHSIG), so it never outlives
 * a crashed or killed grader: call saveproc_start from the main thread, or
 * from a thread that lives as long as the server.
 *
 * The binary is $YIELDLAB_SAVESERVER when set (the grade runner sets it,
 * for a grader it runs from memory), else the server this build made: its
 * path comes from make (saveproc_built_server below), never guessed from
 * where the caller sits.  The path is absolute: a build tree moved
 * elsewhere after it was built looks for the server where it was (the
 * grade runner's own setting still finds it).
 */
#ifndef YIELDLAB_SAVEPROC_H
#define YIELDLAB_SAVEPROC_H

#include <stdint.h>
#include <sys/types.h>

struct saveproc_options {
	int delay_ms;         /* each save is answered after this; 0 = at once */
	int max_in_flight;    /* saves held at once; <= 0 means 10 */
	const char *log_path; /* the server appends its log here, or NULL */
	int idle_timeout_ms;  /* close connections silent this long; <= 0
				 means the server's default, 10000 */
	/* Faults injected on purpose (common/saveserver/README.md, "Faults");
	 * all zero (as in SAVEPROC_DEFAULTS) means none. */
	const char *fail_ids; /* --fail-ids: saves of these ids ("3,7,10-12")
				 are answered fail_status after their delay,
				 never stored; NULL: none */
	int fail_status;      /* --fail-status, 400-599; 0 means 500 */
	int close_after;      /* --close-after: answer this many saves, then
				 close the connection of every later save
				 unanswered; 0: off; SAVEPROC_AT_ONCE: from
				 the first save */
	int exit_after;       /* --exit-after: the server exits (stops
				 listening, closes every connection, answers
				 no held save) when save exit_after + 1
				 arrives; 0: off; SAVEPROC_AT_ONCE: at the
				 first save */
	int jitter_ms;        /* --jitter-ms: each save waits delay_ms plus a
				 uniform 0..jitter_ms more; 0: none */
	int seed;             /* --seed for the jitter; 0 means 1 */
	int request_timeout_ms; /* --request-timeout-ms: close a connection
				 whose request has not arrived whole this
				 long after its first byte; 0: the server's
				 default, 5000 */
};

/* close_after / exit_after: act on the very first save (the server's 0). */
#define SAVEPROC_AT_ONCE (-1)

/* The server's defaults: 50 ms per save, 10 in flight, no log, no faults. */
#define SAVEPROC_DEFAULTS \
	{ .delay_ms = 50, .max_in_flight = 10, .log_path = NULL, .idle_timeout_ms = 0 }

struct saveproc {
	pid_t pid;            /* 0 when not running */
	int port;             /* the server's port on 127.0.0.1 */
	int log_fd;           /* the private log (saveproc_start_logged), or -1 */
	char why[256];        /* what went wrong, after a -1 (here or in
				 saveinspect) */
	int frozen;           /* saveproc_freeze'd and not thawed */
};

/*
 * Starts the server with o and waits (up to 10 s, scaled by
 * YIELDLAB_TIMEOUT_SCALE) for its ready line (saveproto.h).
 * @return 0 with p->pid and p->port set, or -1 with p->why set (and no
 * child left running).
 */
int saveproc_start(struct saveproc *p, const struct saveproc_options *o);

/*
 * Stops the server: SIGTERM, then waits up to 5 s (then SIGKILL).
 * @return 0 if it exited with status 0, or -1 with p->why saying how it
 * ended.  A stopped (or never started) p is a no-op returning 0.
 */
int saveproc_stop(struct saveproc *p);

/*
 * Kills the server at once (SIGKILL) and reaps it: the server "goes away"
 * mid-run.  Its open connections are closed by the kernel, so a client sees
 * its requests in flight fail ("connection closed") and later connects
 * refused on p->port, which is kept.  The private log stays readable
 * (saveinspect_read_own_log) until saveproc_stop, which still must be called
 * (it returns 0 after a kill).  Safe from a loop callback: it blocks only
 * until the kernel has ended the process (about a millisecond).
 * @return 0, or -1 (p->why set) if the server was not running.
 */
int saveproc_kill(struct saveproc *p);

/*
 * Freezes the server (SIGSTOP) or lets it go on (SIGCONT): a frozen server
 * accepts connections (the kernel does) but answers nothing, so a client's
 * saves time out.  saveproc_stop resumes a frozen server before stopping it.
 * @return 0, or -1 (p->why set) if the server is not running.
 */
int saveproc_freeze(struct saveproc *p);
int saveproc_thaw(struct saveproc *p);

/*
 * Starts the server as saveproc_start does, with its --log in a private
 * file: made in $TMPDIR (or /tmp), unlinked as soon as the server has
 * opened it, and kept open in p->log_fd until saveproc_stop.  A test that
 * fails or crashes leaves no file behind.  o->log_path is ignored.
 * @return 0, or -1 with p->why set.
 */
int saveproc_start_logged(struct saveproc *p, const struct saveproc_options *o);

/* Writes why into p->why (printf-style) and returns -1: for saveproc and
 * saveinspect, which report through the same p. */
int saveproc_fail(struct saveproc *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ms stretched by YIELDLAB_TIMEOUT_SCALE (>= 1) for slow machines, as the
 * graders' timeouts are. */
int64_t saveproc_scaled_ms(int64_t ms);

/* The server this build made: an absolute path, from make
 * (common/saveserver/saveserver.mk, through saveserver_path.c). */
extern const char saveproc_built_server[];

#endif
