/*
 * saveproc: the save server (build/bin/saveserver) as a child process of a
 * grader or an experiment.
 *
 * The server binds 127.0.0.1 on a free port; saveproc_start returns once it
 * has printed its ready line.  The child stays in the caller's process group
 * (the grading harness kills a test's whole group) and gets SIGKILL when
 * the thread that started it dies (PR_SET_PDEATHSIG), so it never outlives
 * a crashed or killed grader: call saveproc_start from the main thread, or
 * from a thread that lives as long as the server.
 *
 * The binary is the first that exists of: $YIELDLAB_SAVESERVER,
 * <dir of this program>/saveserver, <dir of this program>/../bin/saveserver,
 * <dir of this program>/../../../bin/saveserver (graders of wrong solutions).
 *
 * The log (saveproc_options.log_path) has one line per stored save, written
 * as it is stored and before its 201 is sent:
 *     id digest received_ns answered_ns
 * id in decimal, digest as 64 lowercase hex digits, and two CLOCK_MONOTONIC
 * times in ns (clock_monotonic_ns(), comparable across processes on one
 * machine): when the request arrived at the server (fully read), and when
 * its 201 was sent.  Only saves answered 201 are logged; a repeated save
 * (200 "already stored") and a conflicting one (409) are not.
 */
#ifndef YIELDLAB_SAVEPROC_H
#define YIELDLAB_SAVEPROC_H

#include <stddef.h>
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
	char why[256];        /* what went wrong, after a -1 (also written by
				 the const functions: a diagnostic, not state) */
	int frozen;           /* saveproc_freeze'd and not thawed */
};

/* The counters of GET /stats (see common/saveserver/README.md). */
struct saveproc_stats {
	uint64_t received;       /* POST /save requests that arrived */
	uint64_t stored;         /* saves stored (answered 201) */
	uint64_t duplicates;     /* repeats of a stored save (answered 200) */
	uint64_t conflicts;      /* saves of a stored id with another digest (409) */
	uint64_t rejected;       /* requests answered with a 4xx by the handlers */
	uint64_t failed;         /* saves failed on purpose (fail_ids) */
	uint64_t dropped;        /* saves whose connection was closed (close_after) */
	uint64_t in_flight;      /* saves on their delay timer now */
	uint64_t queued;         /* saves waiting for a slot now */
	uint64_t max_in_flight;  /* the most ever held at once (<= cap) */
	uint64_t max_queued;     /* the most ever waiting at once */
	uint64_t cap;            /* --max-in-flight */
	uint64_t delay_ms;       /* --delay-ms */
};

/* One line of the server's log. */
struct saveproc_record {
	uint64_t id;
	char digest[65];
	int64_t received_ns, answered_ns;
};

/*
 * Starts the server with o and waits (up to 10 s, scaled by
 * YIELDLAB_TIMEOUT_SCALE) for its line "listening 127.0.0.1:PORT".
 * @return 0 with p->pid and p->port set, or -1 with p->why set (and no
 * child left running).
 */
int saveproc_start(struct saveproc *p, const struct saveproc_options *o);

/*
 * GET /stats, blocking (up to 5 s): for graders and experiments between
 * loop runs, never from inside a callback of a loop that talks to the
 * server.  @return 0, or -1 with p->why set.
 */
int saveproc_stats(const struct saveproc *p, struct saveproc_stats *out);

/*
 * GET /saves/id, blocking (up to 5 s).  On 200 the stored digest (64 hex
 * digits) is copied into hex.  @return the HTTP status (200, 404, ...), or
 * -1 with p->why set.
 */
int saveproc_get(const struct saveproc *p, uint64_t id, char hex[65]);

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
 * (saveproc_read_own_log) until saveproc_stop, which still must be called
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

/* Reads the private log of a server started with saveproc_start_logged,
 * as saveproc_read_log does.  @return 0, or -1 (p->why set). */
int saveproc_read_own_log(struct saveproc *p, struct saveproc_record **out,
			  size_t *n);

/*
 * Reads a server log into *out (malloc'd array the caller frees; NULL when
 * empty) and its length into *n, in file order.
 * @return 0, or -1 when the file cannot be read or a line is malformed
 * (errno: EINVAL for a malformed line).
 */
int saveproc_read_log(const char *path, struct saveproc_record **out, size_t *n);

#endif
