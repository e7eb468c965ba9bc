#include "saveproc.h"

#include "clock.h"
#include "saveproto.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int saveproc_fail(struct saveproc *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return -1;
}

int64_t saveproc_scaled_ms(int64_t ms)
{
	const char *env = getenv("YIELDLAB_TIMEOUT_SCALE");
	double scale = env ? atof(env) : 1.0;

	return (int64_t)(ms * (scale >= 1.0 ? scale : 1.0));
}

/* ---- finding and starting the binary ---------------------------------- */

/* $YIELDLAB_SAVESERVER, else the server of this build. */
static const char *server_path(void)
{
	const char *env = getenv("YIELDLAB_SAVESERVER");

	return env && *env ? env : saveproc_built_server;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void exec_child(const char *path, char *const argv[], int out_fd,
		       pid_t parent)
{
	int null_fd;

	/* Die with the parent; if it is already gone, do not start at all. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(127);
	null_fd = open("/dev/null", O_RDONLY);
	if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 ||
	    dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	execv(path, argv);
	_exit(127);
}

/* Reads the ready line from fd, waiting until deadline_ns.  @return the
 * port, or -1 (what came in buf, possibly empty). */
static int read_ready(int fd, char *buf, size_t size, int64_t deadline_ns)
{
	size_t len = 0;
	int port;

	buf[0] = '\0';
	while (len + 1 < size && !memchr(buf, '\n', len)) {
		int64_t left_ms = (deadline_ns - clock_monotonic_ns()) / CLOCK_NS_PER_MS;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t got;

		if (left_ms <= 0 || poll(&pfd, 1, (int)left_ms) <= 0)
			break;
		got = read(fd, buf + len, size - 1 - len);
		if (got <= 0)
			break;
		len += (size_t)got;
		buf[len] = '\0';
	}
	return saveproto_parse_ready(buf, &port) == 0 ? port : -1;
}

static void reap(struct saveproc *p)
{
	kill(p->pid, SIGKILL);
	waitpid(p->pid, NULL, 0);
	p->pid = 0;
	p->frozen = 0;
}

static pid_t spawn(struct saveproc *p, const char *path, char *const argv[],
		   int fds[2])
{
	pid_t parent = getpid(), pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return saveproc_fail(p, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0)
		exec_child(path, argv, fds[1], parent);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return saveproc_fail(p, "fork: %s", strerror(errno));
	}
	return pid;
}

/* The server's command line for o, in copies of its own: execv takes
 * char *const[], and the strings it is made of are const. */
#define MAX_ARGS 24
struct server_args {
	char *argv[MAX_ARGS];
	size_t n;
	bool short_of_memory;
};

static void add_arg(struct server_args *a, const char *arg)
{
	char *copy = strdup(arg);

	if (!copy)
		a->short_of_memory = true;
	else
		a->argv[a->n++] = copy;
}

static void add_number(struct server_args *a, const char *option, long value)
{
	char number[24];

	snprintf(number, sizeof(number), "%ld", value);
	add_arg(a, option);
	add_arg(a, number);
}

/* A count option where 0 is off and SAVEPROC_AT_ONCE means 0. */
static void add_count(struct server_args *a, const char *option, int value)
{
	if (value != 0)
		add_number(a, option, value == SAVEPROC_AT_ONCE ? 0 : value);
}

static void add_text(struct server_args *a, const char *option, const char *text)
{
	if (text) {
		add_arg(a, option);
		add_arg(a, text);
	}
}

static void free_args(struct server_args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->argv[i]);
	a->n = 0;
}

/* @return 0, or -1 when out of memory (nothing left allocated). */
static int build_argv(struct server_args *a, const char *path,
		      const struct saveproc_options *o)
{
	*a = (struct server_args){ .n = 0 };
	add_arg(a, path);
	add_number(a, "--delay-ms", o->delay_ms);
	add_number(a, "--max-in-flight", o->max_in_flight > 0 ? o->max_in_flight : 10);
	if (o->idle_timeout_ms > 0)
		add_number(a, "--idle-timeout-ms", o->idle_timeout_ms);
	add_text(a, "--log", o->log_path);
	add_text(a, "--fail-ids", o->fail_ids);
	if (o->fail_status > 0)
		add_number(a, "--fail-status", o->fail_status);
	add_count(a, "--close-after", o->close_after);
	add_count(a, "--exit-after", o->exit_after);
	if (o->jitter_ms > 0)
		add_number(a, "--jitter-ms", o->jitter_ms);
	if (o->seed > 0)
		add_number(a, "--seed", o->seed);
	if (o->request_timeout_ms > 0)
		add_number(a, "--request-timeout-ms", o->request_timeout_ms);
	a->argv[a->n] = NULL;
	if (a->short_of_memory)
		free_args(a);
	return a->short_of_memory ? -1 : 0;
}

int saveproc_start(struct saveproc *p, const struct saveproc_options *o)
{
	const char *path = server_path();
	struct server_args args;
	char line[128];
	int fds[2];

	*p = (struct saveproc){ .log_fd = -1 };
	if (access(path, X_OK) != 0)
		return saveproc_fail(p, "no runnable saveserver at %s: run make; "
				     "if this folder moved since it was built, make clean "
				     "first (or set $YIELDLAB_SAVESERVER)", path);
	if (build_argv(&args, path, o) != 0)
		return saveproc_fail(p, "out of memory");
	p->pid = spawn(p, path, args.argv, fds);
	free_args(&args);
	if (p->pid < 0) {
		p->pid = 0;
		return -1;
	}
	p->port = read_ready(fds[0], line, sizeof(line),
			     clock_monotonic_ns() + saveproc_scaled_ms(10000) * CLOCK_NS_PER_MS);
	close(fds[0]);
	if (p->port <= 0) {
		reap(p);
		return saveproc_fail(p, "%s did not say '%sPORT' (it said '%.60s')",
				     path, SAVEPROTO_READY_PREFIX, line);
	}
	return 0;
}

int saveproc_start_logged(struct saveproc *p, const struct saveproc_options *o)
{
	struct saveproc_options with_log = *o;
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/yieldlab-saves.XXXXXX", dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		*p = (struct saveproc){ .log_fd = -1 };
		return saveproc_fail(p, "mkstemp(%s): %s", path, strerror(errno));
	}
	with_log.log_path = path;
	rc = saveproc_start(p, &with_log);
	/* The server has the file open by its ready line (or has failed). */
	unlink(path);
	if (rc != 0) {
		close(fd);
		return -1;
	}
	p->log_fd = fd;
	return 0;
}

/* ---- stopping ---------------------------------------------------------- */

static int wait_exit(pid_t pid, int64_t ms, int *status)
{
	int64_t deadline = clock_monotonic_ns() + ms * CLOCK_NS_PER_MS;

	do {
		pid_t got = waitpid(pid, status, WNOHANG);

		if (got == pid)
			return 0;
		if (got < 0 && errno != EINTR)
			return -1;
		clock_sleep_ns(2 * CLOCK_NS_PER_MS);
	} while (clock_monotonic_ns() < deadline);
	return -1;
}

int saveproc_kill(struct saveproc *p)
{
	if (p->pid <= 0)
		return saveproc_fail(p, "saveproc_kill: the server is not running");
	reap(p);
	return 0;
}

static int send_signal(struct saveproc *p, int sig, const char *name)
{
	if (p->pid <= 0)
		return saveproc_fail(p, "%s: the server is not running", name);
	if (kill(p->pid, sig) != 0)
		return saveproc_fail(p, "%s: kill: %s", name, strerror(errno));
	return 0;
}

int saveproc_freeze(struct saveproc *p)
{
	if (send_signal(p, SIGSTOP, "saveproc_freeze") != 0)
		return -1;
	p->frozen = 1;
	return 0;
}

int saveproc_thaw(struct saveproc *p)
{
	if (send_signal(p, SIGCONT, "saveproc_thaw") != 0)
		return -1;
	p->frozen = 0;
	return 0;
}

int saveproc_stop(struct saveproc *p)
{
	int status = 0;

	/* > 0: a zeroed, never started struct must not close stdin. */
	if (p->log_fd > 0) {
		close(p->log_fd);
		p->log_fd = -1;
	}
	if (p->pid <= 0)
		return 0;
	kill(p->pid, SIGTERM);
	/* Only when frozen: a SIGCONT sent to a server that LeakSanitizer is
	 * stopping with ptrace at its exit stalls that for many seconds. */
	if (p->frozen)
		saveproc_thaw(p);
	if (wait_exit(p->pid, saveproc_scaled_ms(5000), &status) != 0) {
		reap(p);
		return saveproc_fail(p, "saveserver ignored SIGTERM for 5 s; killed it");
	}
	p->pid = 0;
	if (WIFSIGNALED(status))
		return saveproc_fail(p, "saveserver died of signal %d", WTERMSIG(status));
	if (WEXITSTATUS(status) != 0)
		return saveproc_fail(p, "saveserver exited with status %d", WEXITSTATUS(status));
	return 0;
}
