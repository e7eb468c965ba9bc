/*
 * The save server against malformed and hostile requests, sent as raw bytes
 * over loopback.  Each case must get its 4xx (or have its connection
 * dropped), and the server must go on storing normal saves afterwards.
 *
 * Bounds: every wait is for something the server does at once, or after its
 * 500 ms idle timeout or 1000 ms request deadline; reads give up after 5 s.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clock.h"
#include "saveinspect.h"
#include "saveproc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DIGEST "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define FORM "Content-Type: application/x-www-form-urlencoded\r\n"

/* What a case expects besides a status: any 4xx; the connection closed by
 * the server with no answer; or either (when the server may close before
 * the client has sent everything, the kernel can reset the connection and
 * throw away the 4xx). */
enum { ANY_4XX = -4, CLOSED = -3, DROPPED = -1 };

struct hostile {
	const char *what;
	const char *bytes;      /* sent as is; NULL: the case builds its own */
	bool half_close;        /* shutdown(SHUT_WR) after sending */
	int want;               /* a status, ANY_4XX, CLOSED or DROPPED */
};

static struct saveproc server;

/* ---- raw HTTP over loopback ----------------------------------------------- */

static int connect_server(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)server.port) };
	struct timeval tv = { 5, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

/* Reads until the status line is complete or the connection ends.
 * @return the status, 0 if closed (or reset) with no answer, -2 if the
 * server neither answered nor closed within 5 s. */
static int read_status(int fd)
{
	char buf[512];
	size_t len = 0;
	ssize_t got;
	int status;

	while (len + 1 < sizeof(buf)) {
		got = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);
		if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return -2;
		if (got <= 0)
			break;
		len += (size_t)got;
		buf[len] = '\0';
		if (strstr(buf, "\r\n"))
			break;
	}
	buf[len] = '\0';
	return sscanf(buf, "HTTP/1.%*d %d", &status) == 1 ? status : 0;
}

static int exchange(const char *bytes, size_t len, bool half_close)
{
	int fd = connect_server(), status;

	if (len > 0)
		send(fd, bytes, len, MSG_NOSIGNAL);
	if (half_close)
		shutdown(fd, SHUT_WR);
	status = read_status(fd);
	close(fd);
	return status;
}

static void expect_outcome(const struct hostile *h, int status)
{
	bool ok;

	if (getenv("SHOW"))
		fprintf(stderr, "%s -> %d\n", h->what, status);

	if (h->want == ANY_4XX)
		ok = status >= 400 && status < 500;
	else if (h->want == CLOSED)
		ok = status == 0;
	else if (h->want == DROPPED)
		ok = status == 0 || (status >= 400 && status < 500);
	else
		ok = status == h->want;
	if (!ok)
		fail_msg("%s: expected %d (-4: any 4xx, -3: closed, -1: 4xx or closed), "
			 "got %d (0: closed without answer, -2: no answer in 5 s)",
			 h->what, h->want, status);
}

/* ---- the cases ------------------------------------------------------------ */

static const struct hostile cases[] = {
	{ "wrong method on /save", "DELETE /save HTTP/1.1\r\nHost: x\r\n\r\n", false, 405 },
	{ "POST to /stats", "POST /stats HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", false, 405 },
	{ "unknown path", "GET /nothing/here HTTP/1.1\r\nHost: x\r\n\r\n", false, 404 },
	{ "id that is not a number",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 78\r\n\r\n"
	  "id=abc&digest=" DIGEST, false, 400 },
	{ "missing digest",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 4\r\n\r\nid=1", false, 400 },
	{ "missing id",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 71\r\n\r\n"
	  "digest=" DIGEST, false, 400 },
	{ "digest too short",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 16\r\n\r\n"
	  "id=1&digest=abcd", false, 400 },
	{ "digest with a non-hex digit",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 76\r\n\r\n"
	  "id=1&digest=zz7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	  false, 400 },
	{ "id beyond 2^64",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 95\r\n\r\n"
	  "id=99999999999999999999&digest=" DIGEST, false, 400 },
	{ "id given twice",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 81\r\n\r\n"
	  "id=1&id=2&digest=" DIGEST, false, 400 },
	{ "a stray '&' at the end of the form",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 77\r\n\r\n"
	  "id=1&digest=" DIGEST "&", false, 400 },
	{ "an empty field inside the form",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 77\r\n\r\n"
	  "id=1&&digest=" DIGEST, false, 400 },
	{ "a percent-encoded digest",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 78\r\n\r\n"
	  "id=1&digest=%62a7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	  false, 400 },
	{ "a content type that only starts like a form",
	  "POST /save HTTP/1.1\r\nHost: x\r\n"
	  "Content-Type: application/x-www-form-urlencodedX\r\n"
	  "Content-Length: 76\r\n\r\nid=1&digest=" DIGEST, false, 415 },
	{ "JSON instead of a form",
	  "POST /save HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	  "Content-Length: 2\r\n\r\n{}", false, 415 },
	{ "bad id in GET /saves/N", "GET /saves/-3 HTTP/1.1\r\nHost: x\r\n\r\n", false, 400 },
	{ "oversized body announced",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 1000000\r\n\r\n",
	  false, 413 },
	{ "huge headers", NULL, false, DROPPED },
	{ "a request line that is not HTTP", "HELLO THERE\r\n\r\n", false, ANY_4XX },
	{ "a request cut off halfway, then EOF",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 76\r\n\r\nid=1&dig",
	  true, CLOSED },
	{ "a request cut off halfway, then silence",
	  "POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 76\r\n\r\nid=1&dig",
	  false, CLOSED },
	{ "a client that connects and says nothing", "", false, CLOSED },
};

static void run_case(void **state)
{
	const struct hostile *h = *state;

	expect_outcome(h, exchange(h->bytes, strlen(h->bytes), h->half_close));
}

/* 20 KB of headers (the server allows 8 KB). */
static void run_huge_headers(void **state)
{
	const struct hostile *h = *state;
	size_t pad = 20000;
	char *req = malloc(pad + 100);
	int n;

	assert_non_null(req);
	n = sprintf(req, "GET /stats HTTP/1.1\r\nHost: x\r\nX-Pad: ");
	memset(req + n, 'a', pad);
	strcpy(req + n + pad, "\r\n\r\n");
	expect_outcome(h, exchange(req, strlen(req), false));
	free(req);
}

/* A NUL byte inside a header value: evhttp cuts the value there, so the
 * Content-Type below would read as a plain form.  It must be refused. */
static void a_nul_byte_in_a_header_is_refused(void **state)
{
	static const char head[] =
		"POST /save HTTP/1.1\r\nHost: x\r\n"
		"Content-Type: application/x-www-form-urlencoded\0; evil\r\n"
		"Content-Length: 76\r\n\r\nid=9&digest=" DIGEST;
	static const struct hostile h = { "NUL in a header", NULL, false, 400 };
	char hex[65];

	(void)state;
	expect_outcome(&h, exchange(head, sizeof(head) - 1, false));
	assert_int_equal(saveinspect_get(&server, 9, hex), 404);
}

/* Slowloris: a head that grows by one byte every 300 ms (under the 500 ms
 * idle timeout, so only the request deadline can stop it).  The server
 * must close the connection about 1000 ms after the first byte: bound
 * 800 ms-4 s (measured ~1.1 s; without the deadline it stays open). */
static void a_request_trickling_in_is_cut_at_its_deadline(void **state)
{
	static const char start[] = "POST /save HTTP/1.1\r\nHost: x\r\nX-Slow: ";
	int fd = connect_server();
	int64_t t0 = clock_monotonic_ns(), took = -1;
	char byte;

	(void)state;
	assert_int_equal(send(fd, start, strlen(start), MSG_NOSIGNAL), (ssize_t)strlen(start));
	while (took < 0 && clock_monotonic_ns() - t0 < 4 * CLOCK_NS_PER_S) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, 300) > 0) {
			if (recv(fd, &byte, 1, 0) <= 0)
				took = clock_monotonic_ns() - t0;
		} else if (send(fd, "a", 1, MSG_NOSIGNAL) != 1) {
			took = clock_monotonic_ns() - t0;
		}
	}
	close(fd);
	if (took < 0)
		fail_msg("a request trickling in for 4 s was never cut off "
			 "(--request-timeout-ms 1000)");
	print_message("measured: trickling request closed after %.2f s\n", took / 1e9);
	assert_true(took >= 800 * CLOCK_NS_PER_MS);
}

/* A valid save whose client hangs up before the 300 ms answer: the server
 * must survive writing to a closed socket (SIGPIPE) and still store it. */
static void a_client_that_leaves_while_its_save_waits(void **state)
{
	static const char save[] =
		"POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 77\r\n\r\n"
		"id=77&digest=" DIGEST;
	int fd = connect_server();
	char hex[65];
	int64_t deadline = clock_monotonic_ns() + 5 * CLOCK_NS_PER_S;

	(void)state;
	assert_int_equal(send(fd, save, strlen(save), MSG_NOSIGNAL), (ssize_t)strlen(save));
	clock_sleep_ns(20 * CLOCK_NS_PER_MS);
	close(fd);
	while (saveinspect_get(&server, 77, hex) == 404 && clock_monotonic_ns() < deadline)
		clock_sleep_ns(20 * CLOCK_NS_PER_MS);
	assert_int_equal(saveinspect_get(&server, 77, hex), 200);
}

/* After all that, a normal save is stored and the counters add up. */
static void a_normal_save_still_works_afterwards(void **state)
{
	static const char save[] =
		"POST /save HTTP/1.1\r\nHost: x\r\n" FORM "Content-Length: 76\r\n\r\n"
		"id=5&digest=" DIGEST;
	struct saveproto_stats st;
	char hex[65];

	(void)state;
	assert_int_equal(exchange(save, strlen(save), false), 201);
	assert_int_equal(saveinspect_get(&server, 5, hex), 200);
	assert_string_equal(hex, DIGEST);
	assert_int_equal(saveinspect_stats(&server, &st), 0);
	/* every case above that reached a handler was counted as rejected */
	assert_true(st.rejected >= 12);
	assert_int_equal(st.stored, 2);
	assert_int_equal(st.in_flight, 0);
}

static int start(void **state)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;

	(void)state;
	o.delay_ms = 300;
	o.idle_timeout_ms = 500;
	o.request_timeout_ms = 1000;
	if (saveproc_start(&server, &o) != 0) {
		fprintf(stderr, "saveproc_start: %s\n", server.why);
		return -1;
	}
	return 0;
}

/* The server must still be healthy: SIGTERM ends it with status 0. */
static int stop(void **state)
{
	(void)state;
	if (saveproc_stop(&server) != 0) {
		fprintf(stderr, "saveproc_stop: %s\n", server.why);
		return -1;
	}
	return 0;
}

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

int main(void)
{
	struct CMUnitTest tests[N_CASES + 4];

	for (size_t i = 0; i < N_CASES; i++)
		tests[i] = (struct CMUnitTest){
			.name = cases[i].what,
			.test_func = cases[i].bytes ? run_case : run_huge_headers,
			.initial_state = (void *)&cases[i],
		};
	tests[N_CASES] = (struct CMUnitTest)cmocka_unit_test(
		a_nul_byte_in_a_header_is_refused);
	tests[N_CASES + 1] = (struct CMUnitTest)cmocka_unit_test(
		a_request_trickling_in_is_cut_at_its_deadline);
	tests[N_CASES + 2] = (struct CMUnitTest)cmocka_unit_test(
		a_client_that_leaves_while_its_save_waits);
	tests[N_CASES + 3] = (struct CMUnitTest)cmocka_unit_test(
		a_normal_save_still_works_afterwards);
	alarm(120);
	return _cmocka_run_group_tests("test_save_hostile", tests, N_CASES + 4,
				       start, stop);
}
