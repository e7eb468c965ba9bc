/*
 * saveserver: a slow "database" that is a real HTTP server (libevent evhttp)
 * on 127.0.0.1.  Each save is answered after --delay-ms, at most
 * --max-in-flight at a time.  See README.md in this folder.
 */
#include "server.h"

#include "cli.h"
#include "evbase.h"
#include "saveproto.h"

#include <err.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/util.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define MAX_HEADERS 8192
#define MAX_BODY 4096

struct options {
	int port, delay_ms, max_in_flight, idle_timeout_ms, request_timeout_ms;
	const char *log_path;
	struct faults faults;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: saveserver [--port N] [--delay-ms N] [--max-in-flight N]\n"
		"                  [--idle-timeout-ms N] [--log FILE] [--fail-ids LIST]\n"
		"                  [--fail-status N] [--close-after N] [--exit-after N]\n"
		"                  [--jitter-ms N] [--seed N] [--request-timeout-ms N]\n"
		"  --port N             TCP port on 127.0.0.1 (0-65535, default 0: any free)\n"
		"  --delay-ms N         answer each save after N ms (0-600000, default 50)\n"
		"  --max-in-flight N    hold at most N saves at once; later ones wait in\n"
		"                       arrival order (1-100000, default 10)\n"
		"  --idle-timeout-ms N  close a connection silent for N ms (1-3600000,\n"
		"                       default 10000)\n"
		"  --request-timeout-ms N  close a connection whose request has not\n"
		"                       arrived whole N ms after its first byte (1-3600000,\n"
		"                       default 5000)\n"
		"  --log FILE           append 'id digest received_ns answered_ns' per\n"
		"                       stored save (CLOCK_MONOTONIC ns)\n"
		"Faults, injected on purpose (for graders):\n"
		"  --fail-ids LIST      answer saves of these ids with --fail-status after\n"
		"                       their delay, never storing them; LIST is ids and\n"
		"                       ranges, e.g. 3,7,10-12\n"
		"  --fail-status N      the status for --fail-ids (400-599, default 500)\n"
		"  --close-after N      answer the first N saves; close the connection of\n"
		"                       every later save without an answer (0-1000000000)\n"
		"  --exit-after N       when save N+1 arrives, stop listening and exit 0:\n"
		"                       held saves are never answered (0-1000000000)\n"
		"  --jitter-ms N        add 0..N ms (uniform) to each save's delay (0-600000)\n"
		"  --seed N             the jitter's seed (default 1): same seed, same delays\n"
		"When ready it prints 'listening 127.0.0.1:PORT'.  SIGTERM or SIGINT\n"
		"stops it.  API: POST /save (id=N&digest=HEX64), GET /saves/N, GET /stats.\n");
}

/* The fault options; @return false if c is not one of them. */
static bool parse_fault(struct cli *cli, int c, const char *arg,
			struct faults *f)
{
	switch (c) {
	case 'F':
		if (faults_parse_ids(f, arg) != 0)
			cli_bad(cli, "--fail-ids needs ids or ranges like 3,7,10-12 "
				"(at most 1024 items, each below 2^64)");
		return true;
	case 'S': f->fail_status = cli_int(cli, arg, "--fail-status", 400, 599); return true;
	case 'C': f->close_after = cli_int(cli, arg, "--close-after", 0, 1000000000); return true;
	case 'X': f->exit_after = cli_int(cli, arg, "--exit-after", 0, 1000000000); return true;
	case 'J': f->jitter_ms = cli_int(cli, arg, "--jitter-ms", 0, 600000); return true;
	case 'R': f->rng = (uint64_t)cli_int(cli, arg, "--seed", 0, 2147483647); return true;
	}
	return false;
}

static void take_option(struct cli *cli, int val, char *arg, void *ctx)
{
	struct options *o = ctx;

	if (parse_fault(cli, val, arg, &o->faults))
		return;
	switch (val) {
	case 'p': o->port = cli_int(cli, arg, "--port", 0, 65535); break;
	case 'd': o->delay_ms = cli_int(cli, arg, "--delay-ms", 0, 600000); break;
	case 'm': o->max_in_flight = cli_int(cli, arg, "--max-in-flight", 1, 100000); break;
	case 'i': o->idle_timeout_ms = cli_int(cli, arg, "--idle-timeout-ms", 1, 3600000); break;
	case 'l': o->log_path = arg; break;
	case 'r': o->request_timeout_ms = cli_int(cli, arg, "--request-timeout-ms", 1, 3600000); break;
	}
}

static struct options parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "delay-ms", required_argument, NULL, 'd' },
		{ "max-in-flight", required_argument, NULL, 'm' },
		{ "idle-timeout-ms", required_argument, NULL, 'i' },
		{ "log", required_argument, NULL, 'l' },
		{ "request-timeout-ms", required_argument, NULL, 'r' },
		{ "fail-ids", required_argument, NULL, 'F' },
		{ "fail-status", required_argument, NULL, 'S' },
		{ "close-after", required_argument, NULL, 'C' },
		{ "exit-after", required_argument, NULL, 'X' },
		{ "jitter-ms", required_argument, NULL, 'J' },
		{ "seed", required_argument, NULL, 'R' },
		CLI_HELP_AND_END,
	};
	struct options o = { .port = 0, .delay_ms = 50, .max_in_flight = 10,
			     .idle_timeout_ms = 10000, .request_timeout_ms = 5000,
			     .log_path = NULL };
	struct cli parse = { .prog = "saveserver", .usage = usage }, *cli = &parse;

	faults_init(&o.faults);
	if (cli_parse(cli, argc, argv, longopts, take_option, &o) == CLI_HELP)
		exit(0);
	if (o.log_path && *o.log_path == '\0')
		cli_bad(cli, "--log needs a file name");
	if (cli_failed(cli))
		exit(2);
	return o;
}

static FILE *open_log(const char *path)
{
	FILE *f;

	if (!path)
		return NULL;
	f = fopen(path, "a");
	if (!f)
		err(1, "cannot open log %s", path);
	/* Line-buffered: each stored save reaches the file as it happens. */
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

/* Limits that turn hostile requests into a 4xx or a closed connection. */
static void configure(struct evhttp *http, int idle_timeout_ms)
{
	const struct timeval idle = {
		.tv_sec = idle_timeout_ms / 1000,
		.tv_usec = (idle_timeout_ms % 1000) * 1000,
	};

	/* Every method reaches our handler, which answers 405 where it does
	 * not fit; evhttp alone would answer 501 for the disallowed ones. */
	evhttp_set_allowed_methods(http, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
		EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
		EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT |
		EVHTTP_REQ_PATCH);
	evhttp_set_max_headers_size(http, MAX_HEADERS);
	evhttp_set_max_body_size(http, MAX_BODY);
	evhttp_set_timeout_tv(http, &idle);
}

static int bound_port(struct evhttp_bound_socket *handle)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (getsockname(evhttp_bound_socket_get_fd(handle),
			(struct sockaddr *)&sin, &len) != 0)
		err(1, "getsockname");
	return ntohs(sin.sin_port);
}

static void stop_cb(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	event_base_loopbreak(arg);
}

struct listener {
	struct evhttp *http;
	struct evhttp_bound_socket *handle;
	struct event_base *base;
	struct guard *guard;
};

/* --exit-after: refuse new connections at once, then end the loop after a
 * short grace (replies already queued, such as the last 201s, reach their
 * clients; held saves get none).  main then frees everything, which closes
 * the open connections. */
static void go_away(void *arg)
{
	struct listener *l = arg;
	const struct timeval grace = { 0, 50 * 1000 };

	fprintf(stderr, "saveserver: --exit-after reached: exiting\n");
	if (l->handle) {
		guard_unwatch_listener(l->guard);
		evhttp_del_accept_socket(l->http, l->handle);
		l->handle = NULL;
	}
	event_base_loopexit(l->base, &grace);
}

static void close_log(FILE *log, const char *path)
{
	if (log && fclose(log) != 0)
		err(1, "cannot write log %s", path);
}

struct stop_signals {
	struct event *term, *intr;
};

/* SIGTERM and SIGINT end the loop; main then frees everything. */
static void watch_stop_signals(struct event_base *base, struct stop_signals *sig)
{
	sig->term = evsignal_new(base, SIGTERM, stop_cb, base);
	sig->intr = evsignal_new(base, SIGINT, stop_cb, base);
	if (!sig->term || !sig->intr || evsignal_add(sig->term, NULL) != 0 ||
	    evsignal_add(sig->intr, NULL) != 0)
		errx(1, "out of memory");
}

static void unwatch_stop_signals(struct stop_signals *sig)
{
	event_free(sig->term);
	event_free(sig->intr);
	/* Freeing them restored the default action: a SIGTERM sent now (a
	 * saveproc_stop racing an --exit-after) must not turn this clean
	 * exit into a death by signal. */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
}

static struct evhttp_bound_socket *listen_on(struct evhttp *http, int port)
{
	struct evhttp_bound_socket *handle =
		evhttp_bind_socket_with_handle(http, "127.0.0.1", (ev_uint16_t)port);

	if (!handle)
		errx(1, "cannot listen on 127.0.0.1:%d (in use?)", port);
	return handle;
}

/* The ready line (saveproto.h): whoever started us waits for it. */
static void announce_ready(int port)
{
	char line[64];

	if (saveproto_format_ready(port, line, sizeof(line)) < 0)
		errx(1, "the ready line does not fit");
	fputs(line, stdout);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct options o = parse_args(argc, argv);
	FILE *log = open_log(o.log_path);
	struct server_options so = { .delay_ms = o.delay_ms,
		.max_in_flight = o.max_in_flight, .log = log, .faults = o.faults };
	struct event_base *base = evbase_new(EVBASE_PRECISE);
	struct evhttp *http = base ? evhttp_new(base) : NULL;
	struct guard *guard = http ? guard_new(base, http, o.request_timeout_ms) : NULL;
	struct listener listener = { http, NULL, base, guard };
	struct stop_signals sig;
	struct server *srv;

	if (!http || !guard)
		errx(1, "cannot create the event base or the HTTP server");
	/* A client that hangs up before its reply must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	configure(http, o.idle_timeout_ms);
	listener.handle = listen_on(http, o.port);
	guard_watch_listener(guard, listener.handle);
	so.guard = guard;
	so.go_away = go_away;
	so.go_away_arg = &listener;
	if (!(srv = server_new(base, http, &so)))
		errx(1, "out of memory");
	watch_stop_signals(base, &sig);
	announce_ready(bound_port(listener.handle));
	event_base_dispatch(base);

	server_free(srv);
	evhttp_free(http);
	guard_free(guard);
	unwatch_stop_signals(&sig);
	event_base_free(base);
	libevent_global_shutdown();
	close_log(log, o.log_path);
	return 0;
}
