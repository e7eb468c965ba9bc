/* Unit tests of common/lib/saveproto: every format written and read back,
 * and malformed input refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "saveproto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char HEX[] =
	"00112233445566778899aabbccddeeff0123456789abcdef0f1e2d3c4b5a6978";

static void the_ready_line_round_trips_and_names_its_port(void **state)
{
	char line[64];
	int port = 0;

	(void)state;
	assert_true(saveproto_format_ready(41873, line, sizeof(line)) > 0);
	assert_string_equal(line, "listening 127.0.0.1:41873\n");
	assert_int_equal(saveproto_parse_ready(line, &port), 0);
	assert_int_equal(port, 41873);
	assert_int_equal(saveproto_parse_ready("listening 127.0.0.1:1", &port), 0);
	assert_int_equal(port, 1);
	assert_int_equal(saveproto_format_ready(80, line, 10), -1);
	assert_string_equal(line, "");
}

static void a_line_that_is_not_a_ready_line_is_refused(void **state)
{
	static const char *const bad[] = {
		"", "listening 127.0.0.1:", "listening 127.0.0.1:0\n",
		"listening 127.0.0.1:65536\n", "listening 127.0.0.1:-5\n",
		"listening 127.0.0.1:80x\n", "listening 127.0.0.1: 80\n",
		"listening 0.0.0.0:80\n", "saveserver: bad option\n",
	};
	int port = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(saveproto_parse_ready(bad[i], &port), -1);
		assert_int_equal(port, 7);
	}
}

static void a_log_line_round_trips(void **state)
{
	struct saveproto_record r = { .id = UINT64_MAX, .received_ns = 100,
				      .answered_ns = INT64_MAX }, back;
	char line[200], expected[200];

	(void)state;
	memcpy(r.digest, HEX, 65);
	assert_true(saveproto_format_record(&r, line, sizeof(line)) > 0);
	snprintf(expected, sizeof(expected), "18446744073709551615 %s 100 %lld\n",
		 HEX, (long long)INT64_MAX);
	assert_string_equal(line, expected);
	assert_int_equal(saveproto_parse_record(line, &back), 0);
	assert_true(back.id == r.id);
	assert_string_equal(back.digest, HEX);
	assert_true(back.received_ns == 100 && back.answered_ns == INT64_MAX);
	/* The last line of a file may lack its newline. */
	line[strlen(line) - 1] = '\0';
	assert_int_equal(saveproto_parse_record(line, &back), 0);
	assert_int_equal(saveproto_format_record(&r, line, 50), -1);
}

static void a_malformed_log_line_is_refused(void **state)
{
	char bad[12][200];
	struct saveproto_record r;
	size_t n = 0;

	(void)state;
	snprintf(bad[n++], 200, "%s", "");
	snprintf(bad[n++], 200, "7 %s 1\n", HEX);                 /* a time short */
	snprintf(bad[n++], 200, "7 %s 1 2 3\n", HEX);             /* one too many */
	snprintf(bad[n++], 200, "7 %.63s 1 2\n", HEX);            /* 63 digits */
	snprintf(bad[n++], 200, "7 %sa 1 2\n", HEX);              /* 65 digits */
	snprintf(bad[n++], 200, "7 %.60sABCD 1 2\n", HEX);        /* upper case */
	snprintf(bad[n++], 200, "+7 %s 1 2\n", HEX);              /* a sign */
	snprintf(bad[n++], 200, "7  %s 1 2\n", HEX);              /* two blanks */
	snprintf(bad[n++], 200, "18446744073709551616 %s 1 2\n", HEX);
	snprintf(bad[n++], 200, "7 %s 1 9223372036854775808\n", HEX);
	snprintf(bad[n++], 200, "7 %s 1 2\n\n", HEX);             /* two lines */
	snprintf(bad[n++], 200, "x %s 1 2\n", HEX);
	for (size_t i = 0; i < n; i++)
		if (saveproto_parse_record(bad[i], &r) != -1)
			fail_msg("accepted the malformed log line '%s'", bad[i]);
}

/* Every counter a different value: a key read into the wrong field shows. */
static struct saveproto_stats numbered_stats(void)
{
	return (struct saveproto_stats){ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
					 UINT64_MAX };
}

static void the_stats_round_trip_each_counter_under_its_key(void **state)
{
	struct saveproto_stats st = numbered_stats(), back;
	char text[1024];

	(void)state;
	assert_true(saveproto_format_stats(&st, text, sizeof(text)) > 0);
	assert_string_equal(text,
		"{\"received\": 1, \"stored\": 2, \"duplicates\": 3, \"conflicts\": 4, "
		"\"rejected\": 5, \"failed\": 6, \"dropped\": 7, \"in_flight\": 8, "
		"\"queued\": 9, \"max_in_flight\": 10, \"max_queued\": 11, \"cap\": 12, "
		"\"delay_ms\": 18446744073709551615}\n");
	memset(&back, 0xee, sizeof(back));
	assert_int_equal(saveproto_parse_stats(text, &back), 0);
	assert_memory_equal(&back, &st, sizeof(st));
	assert_int_equal(saveproto_format_stats(&st, text, 100), -1);
	assert_string_equal(text, "");
}

static void the_stats_parser_takes_any_order_and_blanks(void **state)
{
	static const char text[] =
		" {\"delay_ms\":13,\"cap\" : 12, \"max_queued\": 11,\n"
		"\"max_in_flight\": 10, \"queued\": 9, \"in_flight\": 8, \"dropped\": 7,"
		"\"failed\": 6, \"rejected\": 5, \"conflicts\": 4, \"duplicates\": 3,"
		"\"stored\": 2, \"received\": 1 }\n";
	struct saveproto_stats want = numbered_stats(), back;

	(void)state;
	want.delay_ms = 13;
	assert_int_equal(saveproto_parse_stats(text, &back), 0);
	assert_memory_equal(&back, &want, sizeof(want));
}

/* Replaces the first from in text by to (text is big enough). */
static void replace(char *text, const char *from, const char *to)
{
	char *at = strstr(text, from), rest[1024];

	assert_non_null(at);
	snprintf(rest, sizeof(rest), "%s", at + strlen(from));
	sprintf(at, "%s%s", to, rest);
}

static void malformed_stats_are_refused(void **state)
{
	static const char *const edits[][2] = {
		{ "\"stored\": 2, ", "" },                     /* a key missing */
		{ "\"stored\"", "\"received\"" },              /* a key twice */
		{ "\"stored\"", "\"kept\"" },                  /* an unknown key */
		{ "\"stored\": 2", "\"stored\": -2" },
		{ "\"stored\": 2", "\"stored\": 2.5" },
		{ "\"stored\": 2", "\"stored\": \"2\"" },
		{ "\"stored\": 2", "\"stored\": 18446744073709551616" },
		{ "\"stored\": 2,", "\"stored\": 2" },         /* a comma missing */
		{ "{", "" },
		{ "}", "" },
		{ "}\n", "} x" },
		{ "}\n", ", }" },
	};
	struct saveproto_stats st = numbered_stats(), back;
	char good[1024], text[1024];

	(void)state;
	assert_true(saveproto_format_stats(&st, good, sizeof(good)) > 0);
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		snprintf(text, sizeof(text), "%s", good);
		replace(text, edits[i][0], edits[i][1]);
		if (saveproto_parse_stats(text, &back) != -1)
			fail_msg("accepted malformed stats: %s", text);
	}
	assert_int_equal(saveproto_parse_stats("", &back), -1);
}

static void a_form_body_round_trips(void **state)
{
	uint8_t digest[32], want[32];
	uint64_t id = 0;
	char *body = saveproto_form_new(42, HEX);

	(void)state;
	assert_non_null(body);
	assert_string_equal(body, "id=42&digest=" "00112233445566778899aabbccddeeff"
			    "0123456789abcdef0f1e2d3c4b5a6978");
	assert_null(saveproto_parse_form(body, &id, digest));
	assert_true(id == 42);
	assert_int_equal(saveproto_parse_digest(HEX, want), 0);
	assert_memory_equal(digest, want, 32);
	free(body);
}

/* A digest with '&' or '=' must not split into fields of its own. */
static void a_form_digest_travels_as_one_field(void **state)
{
	uint8_t digest[32];
	uint64_t id;
	char *body = saveproto_form_new(1, "ab&id=2 %");
	const char *why;

	(void)state;
	assert_non_null(body);
	assert_string_equal(body, "id=1&digest=ab%26id%3D2%20%25");
	why = saveproto_parse_form(body, &id, digest);
	assert_non_null(why);
	assert_non_null(strstr(why, "bad digest"));
	free(body);
}

static void a_malformed_form_says_what_is_wrong(void **state)
{
	static const char *const bad[][2] = {
		{ "", "empty field" },
		{ "id=1", "missing field: digest" },
		{ "digest=%s", "missing field: id" },
		{ "id=1&&digest=%s", "empty field" },
		{ "id=1&digest=%s&", "empty field" },
		{ "id=1&digest", "without '='" },
		{ "id=1&id=2&digest=%s", "unexpected field" },
		{ "id=1&digest=%s&x=2", "unexpected field" },
		{ "id=-1&digest=%s", "bad id" },
		{ "id=18446744073709551616&digest=%s", "bad id" },
		{ "id=1&digest=%.62s", "bad digest" },
	};
	uint8_t digest[32];
	uint64_t id;
	char body[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why;

		snprintf(body, sizeof(body), bad[i][0], HEX);
		why = saveproto_parse_form(body, &id, digest);
		if (!why || !strstr(why, bad[i][1]))
			fail_msg("form '%s': expected '%s', got '%s'", bad[i][0],
				 bad[i][1], why ? why : "(accepted)");
	}
}

static void ids_and_digests_keep_their_bounds(void **state)
{
	uint8_t digest[32], upper[32];
	char hex[65];
	uint64_t id;

	(void)state;
	assert_int_equal(saveproto_parse_id("18446744073709551615", &id), 0);
	assert_true(id == UINT64_MAX);
	assert_int_equal(saveproto_parse_id("0", &id), 0);
	assert_true(id == 0);
	assert_int_equal(saveproto_parse_id("18446744073709551616", &id), -1);
	assert_int_equal(saveproto_parse_id("", &id), -1);
	assert_int_equal(saveproto_parse_id("1 ", &id), -1);
	assert_int_equal(saveproto_parse_id("0x10", &id), -1);
	assert_int_equal(saveproto_parse_digest(HEX, digest), 0);
	saveproto_hex(digest, hex);
	assert_string_equal(hex, HEX);
	assert_int_equal(saveproto_parse_digest(
		"00112233445566778899AABBCCDDEEFF0123456789ABCDEF0F1E2D3C4B5A6978",
		upper), 0);
	assert_memory_equal(upper, digest, 32);
	hex[10] = 'g';
	assert_int_equal(saveproto_parse_digest(hex, digest), -1);
	assert_int_equal(saveproto_parse_digest("abc", digest), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_ready_line_round_trips_and_names_its_port),
		cmocka_unit_test(a_line_that_is_not_a_ready_line_is_refused),
		cmocka_unit_test(a_log_line_round_trips),
		cmocka_unit_test(a_malformed_log_line_is_refused),
		cmocka_unit_test(the_stats_round_trip_each_counter_under_its_key),
		cmocka_unit_test(the_stats_parser_takes_any_order_and_blanks),
		cmocka_unit_test(malformed_stats_are_refused),
		cmocka_unit_test(a_form_body_round_trips),
		cmocka_unit_test(a_form_digest_travels_as_one_field),
		cmocka_unit_test(a_malformed_form_says_what_is_wrong),
		cmocka_unit_test(ids_and_digests_keep_their_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
