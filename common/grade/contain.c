/*
 * contain: one test's process, from fork to the last descendant killed.
 *
 * The child gets its own session and process group, dies with the runner
 * (PR_SET_PDEATHSIG), has limits on memory, processes, file size, CPU and
 * core dumps, and runs under a seccomp filter (libseccomp) that refuses
 * ptrace, signals to any process that is not its own or a descendant,
 * leaving its session or group, namespaces, mounts and other system
 * controls.  The runner is a child subreaper: whatever a test starts, in
 * whatever session, comes back to it and is killed before the verdict.
 * Timeouts use the runner's clock, which no test can reach.
 */
#include "runner.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Output a test may write (its log), and memory it may map. */
#define OUTPUT_LIMIT_BYTES (16L << 20)
#define MEMORY_LIMIT_BYTES (4L << 30)
/* Processes (threads count) a non-root test may add to its user's. */
#define EXTRA_PROCESSES 256

static volatile sig_atomic_t interrupted;
static bool seccomp_ok = true;
static char seccomp_problem[160];
/* bubblewrap: the file system read-only, a private /tmp, the results
 * folder hidden, loopback only, its own pid namespace.  Whether it works
 * here is learnt from the first process the runner contains (a test
 * list): that run asks bwrap for its status (--json-status-fd), which
 * names the child once the sandbox is made, so a sandbox that could not be
 * made is told from a grader that failed without a throwaway sandbox of
 * its own (one per grade run, some 370 per make check, ~5 ms of CPU
 * each).  The status fd is bwrap's: the sandboxed process never has it. */
enum bwrap_state { BWRAP_UNTRIED, BWRAP_ON, BWRAP_OFF };
static enum bwrap_state bwrap_state;
static char bwrap_problem[200];
/* The status fd's number in the child, after fds 0-5 (child_exec). */
#define STATUS_FD 6
static char hidden_dir[PATH_MAX];

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

bool contain_interrupted(void)
{
	return interrupted != 0;
}

static void probe_seccomp(void);

int contain_init(const char *out_dir)
{
	struct sigaction sa = { .sa_handler = on_interrupt };

	if (!realpath(out_dir, hidden_dir))
		hidden_dir[0] = '\0';
	probe_seccomp();
	if (getenv("YIELDLAB_NO_BWRAP")) {
		bwrap_state = BWRAP_OFF;
		snprintf(bwrap_problem, sizeof(bwrap_problem),
			 "turned off by YIELDLAB_NO_BWRAP");
	}

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* `make grade | head`: a closed terminal must not end grading. */
	signal(SIGPIPE, SIG_IGN);
	/* Orphans of a test come back to us, whatever session they are in. */
	return prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 ? 0 : -1;
}

const char *contain_describe(void)
{
	static char line[640];

	snprintf(line, sizeof(line),
		 "containment: own session per test, killed with the runner, "
		 "limits on memory/processes/output/CPU, every descendant "
		 "killed before the verdict; seccomp %s%s; bubblewrap %s%s",
		 seccomp_ok ? "on" : "OFF: ", seccomp_ok ? "" : seccomp_problem,
		 bwrap_state == BWRAP_ON ?
		 "on (read-only files, private /tmp, loopback only)" : "OFF: ",
		 bwrap_state == BWRAP_ON ? "" : bwrap_state == BWRAP_OFF ?
		 bwrap_problem : "not tried (nothing ran)");
	return line;
}

int contain_load(const char *path)
{
	int in = open(path, O_RDONLY | O_CLOEXEC);
	int mem = memfd_create("grader", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	char buf[65536];
	ssize_t n = 0;

	if (in < 0 || mem < 0)
		goto fail;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(mem, buf, (size_t)n) != n)
			goto fail;
	if (n < 0 || fcntl(mem, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW |
			   F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
		goto fail;
	close(in);
	return mem;
fail:
	if (in >= 0)
		close(in);
	if (mem >= 0)
		close(mem);
	return -1;
}

/* ---- in the child, between fork and exec --------------------------------- */

static int processes_of_uid(uid_t uid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) != NULL) {
		char path[300];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%s/task", e->d_name);
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
		    stat(path, &st) == 0 && st.st_uid == uid)
			n += (int)st.st_nlink - 2;
	}
	if (d)
		closedir(d);
	return n;
}

static void set_limit(int resource, rlim_t soft, rlim_t hard)
{
	struct rlimit r = { soft, hard };

	setrlimit(resource, &r);
}

static void set_limits(const struct contained *c)
{
	rlim_t cpu = (rlim_t)ceil(c->timeout_s) + 2;

	set_limit(RLIMIT_FSIZE, OUTPUT_LIMIT_BYTES, OUTPUT_LIMIT_BYTES);
	set_limit(RLIMIT_CPU, cpu * 2, cpu * 2 + 2);
	set_limit(RLIMIT_CORE, 0, 0);
	/* Sanitizers reserve terabytes of address space for their shadow. */
	if (!c->sanitizer)
		set_limit(RLIMIT_AS, MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES);
	/* Root is not held to RLIMIT_NPROC; the sweep still kills them all. */
	if (getuid() != 0) {
		rlim_t n = (rlim_t)processes_of_uid(getuid()) + EXTRA_PROCESSES;

		set_limit(RLIMIT_NPROC, n, n);
	}
}

/* Refuses with EPERM: a grader and a correct solution need none of these. */
static const int denied_calls[] = {
	SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
	SCMP_SYS(setsid), SCMP_SYS(setpgid), SCMP_SYS(pidfd_open),
	SCMP_SYS(pidfd_send_signal), SCMP_SYS(pidfd_getfd), SCMP_SYS(rt_sigqueueinfo),
	SCMP_SYS(rt_tgsigqueueinfo), SCMP_SYS(mount), SCMP_SYS(umount2),
	SCMP_SYS(pivot_root), SCMP_SYS(chroot), SCMP_SYS(unshare), SCMP_SYS(setns),
	SCMP_SYS(bpf), SCMP_SYS(perf_event_open), SCMP_SYS(keyctl),
	SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(init_module),
	SCMP_SYS(finit_module), SCMP_SYS(delete_module), SCMP_SYS(kexec_load),
	SCMP_SYS(kexec_file_load), SCMP_SYS(reboot), SCMP_SYS(swapon),
	SCMP_SYS(swapoff), SCMP_SYS(settimeofday), SCMP_SYS(clock_settime),
	SCMP_SYS(clock_adjtime), SCMP_SYS(adjtimex), SCMP_SYS(iopl),
	SCMP_SYS(ioperm), SCMP_SYS(userfaultfd), SCMP_SYS(open_by_handle_at),
	SCMP_SYS(name_to_handle_at), SCMP_SYS(acct), SCMP_SYS(syslog),
	SCMP_SYS(quotactl), SCMP_SYS(setuid), SCMP_SYS(setgid),
	SCMP_SYS(setreuid), SCMP_SYS(setregid), SCMP_SYS(setresuid),
	SCMP_SYS(setresgid), SCMP_SYS(setgroups), SCMP_SYS(vhangup),
};

/* kill/tkill/tgkill only to ourselves and what we started: pids are handed
 * out in increasing order, so anything below our own pid is an ancestor or
 * a stranger, and a negative pid is a group or everyone. */
static int deny_foreign_signals(scmp_filter_ctx ctx, pid_t self)
{
	static const char *const calls[] = { "kill", "tkill", "tgkill" };
	int rc = 0;

	/* datum_b (0) is unused by LT and GT; naming it keeps clang's
	 * -Wmissing-field-initializers quiet about the macro's literal. */
	for (size_t i = 0; i < 3; i++) {
		int nr = seccomp_syscall_resolve_name(calls[i]);

		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
				       SCMP_A0_32(SCMP_CMP_LT, (uint32_t)self, 0));
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
				       SCMP_A0_32(SCMP_CMP_GT, 0x7fffffffu, 0));
	}
	return rc;
}

/* Loads the filter here, or (export_fd >= 0) writes it for bubblewrap to
 * load inside the sandbox, where the test is pid 2. */
static int install_seccomp(const struct contained *c, int export_fd)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc = ctx ? 0 : -1;

	for (size_t i = 0; ctx && i < sizeof(denied_calls) / sizeof(denied_calls[0]); i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), denied_calls[i], 0);
	/* LeakSanitizer stops the world with ptrace (its own threads only). */
	if (ctx && !c->sanitizer)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ptrace), 0);
	if (ctx)
		rc |= deny_foreign_signals(ctx, export_fd >= 0 ? 2 : getpid());
	if (ctx && rc == 0)
		rc = export_fd >= 0 ? seccomp_export_bpf(ctx, export_fd) :
			seccomp_load(ctx);
	if (ctx)
		seccomp_release(ctx);
	return rc;
}

static bool under_tmp(const char *path)
{
	return strncmp(path, "/tmp/", 5) == 0;
}

/* "--ro-bind path path" at a[n]; @return the new n. */
static int ro_bind(const char **a, int n, const char *path)
{
	a[n++] = "--ro-bind";
	a[n++] = path;
	a[n++] = path;
	return n;
}

/* The options that make bubblewrap's sandbox (with status_fd >= 0: and
 * its status there); the command follows. */
static int bwrap_args(const char **a, int seccomp_fd, int status_fd)
{
	static char fd_arg[16], status_arg[16];
	static char cwd[PATH_MAX], server_path[PATH_MAX];
	const char *server;
	static const char *const fixed[] = {
		"bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--tmpfs", "/tmp", "--setenv", "TMPDIR", "/tmp", "--unshare-pid",
		"--unshare-net", "--unshare-ipc", "--unshare-uts",
		"--die-with-parent", "--new-session", "--cap-drop", "ALL",
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		a[n++] = fixed[i];
	/* The private /tmp would hide a checkout (or a save server) that
	 * lives under /tmp: bound back, read-only, before the results folder
	 * is hidden inside it. */
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	if (under_tmp(cwd))
		n = ro_bind(a, n, cwd);
	server = getenv("YIELDLAB_SAVESERVER");
	if (server && under_tmp(server) && snprintf(server_path,
	    sizeof(server_path), "%s", server) < (int)sizeof(server_path))
		n = ro_bind(a, n, server_path);
	if (hidden_dir[0]) {
		a[n++] = "--tmpfs";
		a[n++] = hidden_dir;
	}
	if (cwd[0]) {
		a[n++] = "--chdir";
		a[n++] = cwd;
	}
	if (status_fd >= 0) {
		snprintf(status_arg, sizeof(status_arg), "%d", status_fd);
		a[n++] = "--json-status-fd";
		a[n++] = status_arg;
	}
	if (seccomp_fd >= 0) {
		snprintf(fd_arg, sizeof(fd_arg), "%d", seccomp_fd);
		a[n++] = "--seccomp";
		a[n++] = fd_arg;
	}
	a[n++] = "--";
	return n;
}

/* The grader runs as /proc/self/fd/5 inside the sandbox (fd 5 is kept
 * open across bubblewrap's exec for that). */
static void exec_in_bwrap(const struct contained *c, bool with_status)
{
	const char *a[64];
	int n, filter = -1;

	if (seccomp_ok) {
		filter = memfd_create("seccomp", 0);
		if (filter < 0 || install_seccomp(c, filter) != 0 ||
		    lseek(filter, 0, SEEK_SET) != 0)
			_exit(126);
	}
	n = bwrap_args(a, filter, with_status ? STATUS_FD : -1);
	a[n++] = "/proc/self/fd/5";
	for (int i = 1; c->argv[i] && n < 63; i++)
		a[n++] = c->argv[i];
	a[n] = NULL;
	execvp("bwrap", (char *const *)a);
	_exit(127);
}

/* status_fd >= 0: bubblewrap is being tried, and reports there. */
static void child_exec(const struct contained *c, pid_t runner, int status_fd)
{
	int devnull = open("/dev/null", O_RDONLY);
	sigset_t none;

	setsid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != runner)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* fds 0-2 the usual, 3 the nonce, 4 the verdict, 5 the grader, and
	 * STATUS_FD bwrap's status when it is tried: moved out of the way
	 * first, since any of them may sit on 0-6 now. */
	int from[7] = { devnull, c->log_fd, c->log_fd, c->nonce_fd,
			c->verdict_fd, c->exe_fd, status_fd };
	int n = status_fd >= 0 ? 7 : 6;

	for (int i = 0; i < n; i++)
		if (from[i] < 0 || (from[i] = fcntl(from[i], F_DUPFD, 16)) < 0)
			_exit(127);
	for (int i = 0; i < n; i++)
		if (dup2(from[i], i) < 0)
			_exit(127);
	closefrom(n);
	set_limits(c);
	if (bwrap_state != BWRAP_OFF)
		exec_in_bwrap(c, status_fd >= 0);
	fcntl(5, F_SETFD, FD_CLOEXEC);
	if (seccomp_ok && install_seccomp(c, -1) != 0)
		_exit(126);
	fexecve(5, (char *const *)c->argv, environ);
	_exit(127);
}

/* ---- in the runner --------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Our children (tests, and orphans handed to us), killed and reaped. */
static int kill_children(void)
{
	char path[64];
	int killed = 0, pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	f = fopen(path, "r");
	while (f && fscanf(f, "%d", &pid) == 1)
		killed += kill(pid, SIGKILL) == 0;
	if (f)
		fclose(f);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return killed;
}

int contain_sweep(void)
{
	struct timespec tick = { 0, 1000000 };
	int total = 0, killed;

	/* Killing a process hands its children to us: repeat until none. */
	for (int round = 0; round < 2000; round++) {
		killed = kill_children();
		total += killed;
		if (killed == 0 && waitpid(-1, NULL, WNOHANG) <= 0) {
			char path[64], c;
			FILE *f;

			snprintf(path, sizeof(path), "/proc/self/task/%d/children",
				 (int)getpid());
			f = fopen(path, "r");
			c = f ? (char)fgetc(f) : EOF;
			if (f)
				fclose(f);
			if (c == EOF)
				break;
		}
		nanosleep(&tick, NULL);
	}
	return total;
}

static bool wait_until(pid_t pid, double deadline, int *ws, bool *intr)
{
	struct timespec tick = { 0, 2000000 };

	for (;;) {
		pid_t r = waitpid(pid, ws, WNOHANG);

		if (r == pid || (r == -1 && errno != EINTR))
			return true;
		if (interrupted || now_s() > deadline) {
			*intr = interrupted != 0;
			kill(pid, SIGKILL);
			waitpid(pid, ws, 0);
			return false;
		}
		nanosleep(&tick, NULL);
	}
}

/* Finds out once, in a throwaway child, whether seccomp filters load here. */
static void probe_seccomp(void)
{
	struct contained c = { .timeout_s = 1 };
	int ws = 0;
	pid_t pid;

	pid = fork();
	if (pid == 0)
		_exit(install_seccomp(&c, -1) == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) ||
	    WEXITSTATUS(ws) != 0) {
		seccomp_ok = false;
		snprintf(seccomp_problem, sizeof(seccomp_problem),
			 "the kernel refused the filter (no seccomp here?)");
	}
}

/* What the first contained run tells of bubblewrap: the sandbox was made
 * if bwrap named its child on the status pipe (read once the run is over;
 * bwrap writes it before the grader starts). */
static void learn_bwrap(int status_read, const struct exit_info *e)
{
	char buf[512];
	ssize_t n = read(status_read, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (strstr(buf, "\"child-pid\"")) {
		bwrap_state = BWRAP_ON;
		return;
	}
	bwrap_state = BWRAP_OFF;
	snprintf(bwrap_problem, sizeof(bwrap_problem), "%s",
		 e->finished && WIFEXITED(e->wstatus) &&
		 WEXITSTATUS(e->wstatus) == 127 ?
		 "bwrap is not installed (Debian: bubblewrap)" :
		 "bwrap cannot make a sandbox here (needs root or user "
		 "namespaces)");
}

bool contain_sandboxed(void)
{
	return bwrap_state == BWRAP_ON;
}

int contain_run(const struct contained *c, struct exit_info *e)
{
	int status[2] = { -1, -1 };
	double start;
	pid_t pid, runner = getpid();

	memset(e, 0, sizeof(*e));
	if (bwrap_state == BWRAP_UNTRIED &&
	    pipe2(status, O_CLOEXEC | O_NONBLOCK) != 0)
		return -1;
	fflush(NULL);
	start = now_s();
	pid = fork();
	if (pid < 0) {
		if (status[0] >= 0) {
			close(status[0]);
			close(status[1]);
		}
		return -1;
	}
	if (pid == 0)
		child_exec(c, runner, status[1]);
	e->finished = wait_until(pid, start + c->timeout_s, &e->wstatus,
				 &e->interrupted);
	e->seconds = now_s() - start;
	e->swept = contain_sweep();
	if (status[0] < 0)
		return 0;
	close(status[1]);
	learn_bwrap(status[0], e);
	close(status[0]);
	if (bwrap_state == BWRAP_ON || e->interrupted)
		return 0;
	/* No sandbox was made, so nothing ran: again, without bubblewrap,
	 * on a log emptied of bwrap's complaint. */
	if (c->log_fd >= 0 && (ftruncate(c->log_fd, 0) != 0 ||
			       lseek(c->log_fd, 0, SEEK_SET) < 0))
		return -1;
	return contain_run(c, e);
}
