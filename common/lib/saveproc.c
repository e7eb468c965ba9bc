#include "saveproc.h"

#include "clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define READY_PREFIX "listening 127.0.0.1:"

static int fail(const struct saveproc *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes p->why even through a const pointer: every struct saveproc is a
 * caller's variable, never a const object, and why is a diagnostic. */
static int fail(const struct saveproc *p, const char *fmt, ...)
{
	char *why = ((struct saveproc *)p)->why;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* YIELDLAB_TIMEOUT_SCALE stretches waits on slow machines, as in graders. */
static int64_t scaled_ms(int64_t ms)
{
	const char *env = getenv("YIELDLAB_TIMEOUT_SCALE");
	double scale = env ? atof(env) : 1.0;

	return (int64_t)(ms * (scale >= 1.0 ? scale : 1.0));
}

/* ---- finding and starting the binary ---------------------------------- */

static int find_server(char *path, size_t size)
{
	const char *env = getenv("YIELDLAB_SAVESERVER");
	/* Programs sit in bin/, tests in test/, graders in grader/, and a
	 * wrong solution's grader in grader/wrong/<lab>/. */
	static const char *const beside[] = { "saveserver", "../bin/saveserver",
					      "../../../bin/saveserver" };
	char exe[PATH_MAX];
	ssize_t len;

	if (env && *env) {
		snprintf(path, size, "%s", env);
		return access(path, X_OK);
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return -1;
	exe[len] = '\0';
	*strrchr(exe, '/') = '\0';
	for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
		int len_used = snprintf(path, size, "%s/%s", exe, beside[i]);

		if (len_used > 0 && (size_t)len_used < size && access(path, X_OK) == 0)
			return 0;
	}
	return -1;
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
 * port, or -1 (line in buf, possibly empty). */
static int read_ready(int fd, char *buf, size_t size, int64_t deadline_ns)
{
	size_t len = 0;

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
	buf[len] = '\0';
	if (strncmp(buf, READY_PREFIX, strlen(READY_PREFIX)) != 0)
		return -1;
	return atoi(buf + strlen(READY_PREFIX));
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
		return fail(p, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0)
		exec_child(path, argv, fds[1], parent);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return fail(p, "fork: %s", strerror(errno));
	}
	return pid;
}

/* The server's command line for o: the strings live in numbers. */
#define MAX_ARGS 24
struct server_args {
	char *argv[MAX_ARGS];
	char numbers[MAX_ARGS][24];
	size_t n;
};

static void add_arg(struct server_args *a, const char *arg)
{
	a->argv[a->n++] = (char *)arg;
}

static void add_number(struct server_args *a, const char *option, long value)
{
	add_arg(a, option);
	snprintf(a->numbers[a->n], sizeof(a->numbers[a->n]), "%ld", value);
	add_arg(a, a->numbers[a->n]);
}

/* A count option where 0 is off and SAVEPROC_AT_ONCE means 0. */
static void add_count(struct server_args *a, const char *option, int value)
{
	if (value != 0)
		add_number(a, option, value == SAVEPROC_AT_ONCE ? 0 : value);
}

static void build_argv(struct server_args *a, char *path,
		       const struct saveproc_options *o)
{
	a->n = 0;
	add_arg(a, path);
	add_number(a, "--delay-ms", o->delay_ms);
	add_number(a, "--max-in-flight", o->max_in_flight > 0 ? o->max_in_flight : 10);
	if (o->idle_timeout_ms > 0)
		add_number(a, "--idle-timeout-ms", o->idle_timeout_ms);
	if (o->log_path) {
		add_arg(a, "--log");
		add_arg(a, o->log_path);
	}
	if (o->fail_ids) {
		add_arg(a, "--fail-ids");
		add_arg(a, o->fail_ids);
	}
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
}

int saveproc_start(struct saveproc *p, const struct saveproc_options *o)
{
	char path[PATH_MAX], line[128];
	struct server_args args;
	int fds[2];

	*p = (struct saveproc){ .log_fd = -1 };
	if (find_server(path, sizeof(path)) != 0)
		return fail(p, "saveserver not found (tried $YIELDLAB_SAVESERVER, "
			    "then beside this program and in ../bin; run make)");
	build_argv(&args, path, o);
	p->pid = spawn(p, path, args.argv, fds);
	if (p->pid < 0) {
		p->pid = 0;
		return -1;
	}
	p->port = read_ready(fds[0], line, sizeof(line),
			     clock_monotonic_ns() + scaled_ms(10000) * CLOCK_NS_PER_MS);
	close(fds[0]);
	if (p->port <= 0) {
		reap(p);
		return fail(p, "%s did not say '%sPORT' (it said '%.60s')", path,
			    READY_PREFIX, line);
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
		return fail(p, "mkstemp(%s): %s", path, strerror(errno));
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

int saveproc_read_own_log(struct saveproc *p, struct saveproc_record **out,
			  size_t *n)
{
	char path[64];

	if (p->log_fd < 0)
		return fail(p, "no private log: the server was not started "
			    "with saveproc_start_logged");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p->log_fd);
	if (saveproc_read_log(path, out, n) != 0)
		return fail(p, "the server's log is unreadable or malformed");
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
		return fail(p, "saveproc_kill: the server is not running");
	reap(p);
	return 0;
}

static int send_signal(struct saveproc *p, int sig, const char *name)
{
	if (p->pid <= 0)
		return fail(p, "%s: the server is not running", name);
	if (kill(p->pid, sig) != 0)
		return fail(p, "%s: kill: %s", name, strerror(errno));
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
	if (wait_exit(p->pid, scaled_ms(5000), &status) != 0) {
		reap(p);
		return fail(p, "saveserver ignored SIGTERM for 5 s; killed it");
	}
	p->pid = 0;
	if (WIFSIGNALED(status))
		return fail(p, "saveserver died of signal %d", WTERMSIG(status));
	if (WEXITSTATUS(status) != 0)
		return fail(p, "saveserver exited with status %d", WEXITSTATUS(status));
	return 0;
}

/* ---- blocking HTTP for graders ----------------------------------------- */

static int connect_local(int port, int64_t timeout_ms)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port) };
	struct timeval tv = { .tv_sec = timeout_ms / 1000,
			      .tv_usec = (timeout_ms % 1000) * 1000 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Sends "GET path" with HTTP/1.0 and reads the whole answer into buf.
 * @return the status code, or -1 with p->why set. */
static int http_get(const struct saveproc *p, const char *path, char *buf, size_t size)
{
	int fd = connect_local(p->port, scaled_ms(5000)), status;
	size_t len = 0;
	ssize_t got;

	if (fd < 0)
		return fail(p, "cannot connect to 127.0.0.1:%d: %s", p->port,
			    strerror(errno));
	dprintf(fd, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
	while (len + 1 < size && (got = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	buf[len] = '\0';
	if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
		return fail(p, "GET %s: no HTTP answer (got %zu bytes)", path, len);
	return status;
}

static const char *body_of(const char *answer)
{
	const char *body = strstr(answer, "\r\n\r\n");

	return body ? body + 4 : "";
}

/* The number after "key": in a flat JSON object, or -1 if absent. */
static int json_u64(const char *json, const char *key, uint64_t *out)
{
	char quoted[64];
	const char *at;

	snprintf(quoted, sizeof(quoted), "\"%s\":", key);
	at = strstr(json, quoted);
	if (!at || sscanf(at + strlen(quoted), " %" SCNu64, out) != 1)
		return -1;
	return 0;
}

int saveproc_stats(const struct saveproc *p, struct saveproc_stats *out)
{
	static const char *const keys[] = { "received", "stored", "duplicates",
		"conflicts", "rejected", "failed", "dropped", "in_flight", "queued",
		"max_in_flight", "max_queued", "cap", "delay_ms" };
	uint64_t *fields[] = { &out->received, &out->stored, &out->duplicates,
		&out->conflicts, &out->rejected, &out->failed, &out->dropped,
		&out->in_flight, &out->queued,
		&out->max_in_flight, &out->max_queued, &out->cap, &out->delay_ms };
	char answer[2048];
	int status = http_get(p, "/stats", answer, sizeof(answer));

	if (status < 0)
		return -1;
	if (status != 200)
		return fail(p, "GET /stats answered %d", status);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_u64(body_of(answer), keys[i], fields[i]) != 0)
			return fail(p, "GET /stats: no \"%s\" in %.200s", keys[i],
				    body_of(answer));
	return 0;
}

int saveproc_get(const struct saveproc *p, uint64_t id, char hex[65])
{
	char path[40], answer[1024];
	int status;

	snprintf(path, sizeof(path), "/saves/%" PRIu64, id);
	status = http_get(p, path, answer, sizeof(answer));
	if (status == 200 && sscanf(body_of(answer), "%64[0-9a-f]", hex) != 1)
		return fail(p, "GET %s: 200 without a digest", path);
	return status;
}

/* ---- the log ----------------------------------------------------------- */

static int parse_record(const char *line, struct saveproc_record *r)
{
	int used = 0;

	if (sscanf(line, "%" SCNu64 " %64[0-9a-f] %" SCNd64 " %" SCNd64 "%n",
		   &r->id, r->digest, &r->received_ns, &r->answered_ns, &used) != 4 ||
	    strlen(r->digest) != 64 || (line[used] != '\n' && line[used] != '\0'))
		return -1;
	return 0;
}

static int append(struct saveproc_record **out, size_t *n, size_t *cap,
		  const struct saveproc_record *r)
{
	if (*n == *cap) {
		size_t bigger = *cap ? *cap * 2 : 256;
		struct saveproc_record *grown = realloc(*out, bigger * sizeof(**out));

		if (!grown)
			return -1;
		*out = grown;
		*cap = bigger;
	}
	(*out)[(*n)++] = *r;
	return 0;
}

int saveproc_read_log(const char *path, struct saveproc_record **out, size_t *n)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t cap = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!f)
		return -1;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		struct saveproc_record r;

		if (parse_record(line, &r) != 0) {
			errno = EINVAL;
			rc = -1;
		} else {
			rc = append(out, n, &cap, &r);
		}
	}
	fclose(f);
	if (rc != 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}
