/*
 * Unit tests of common/cli: values in range come back, anything else is a
 * message naming the option, the usage once, and a failed parse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage_calls;

static void count_usage(FILE *f)
{
	(void)f;
	usage_calls++;
}

static struct cli fresh(void)
{
	usage_calls = 0;
	return (struct cli){ .prog = "prog", .usage = count_usage };
}

/* Runs fn with stderr captured; returns what it printed (static). */
static const char *stderr_of(void (*fn)(struct cli *), struct cli *c)
{
	static char buf[1024];
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	fn(c);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return buf;
}

static void in_range_values_come_back(void **state)
{
	struct cli c = fresh();

	(void)state;
	assert_int_equal(cli_long(&c, "7", "--n", 1, 9), 7);
	assert_int_equal(cli_int(&c, "-3", "--n", -5, 5), -3);
	assert_int_equal(cli_long(&c, "9", "--n", 1, 9), 9);
	assert_true(cli_double(&c, "0.5", "--ms", 0.01, 1000) == 0.5);
	assert_false(cli_failed(&c));
	assert_int_equal(usage_calls, 0);
}

static void parse_bad_number(struct cli *c)
{
	assert_int_equal(cli_long(c, "12x", "--tasks", 1, 6), 1);
}

static void a_bad_number_names_the_option_and_fails(void **state)
{
	struct cli c = fresh();
	const char *out = stderr_of(parse_bad_number, &c);

	(void)state;
	assert_non_null(strstr(out, "prog: --tasks must be a whole number from 1 to 6, not '12x'"));
	assert_true(cli_failed(&c));
	assert_int_equal(usage_calls, 1);
}

static void parse_edges(struct cli *c)
{
	cli_long(c, "", "--a", 0, 1);
	cli_long(c, "0", "--b", 1, 2);
	cli_long(c, "99999999999999999999999", "--c", 0, 10);
	cli_double(c, "nan", "--d", 0, 1);
}

static void empty_out_of_range_and_overflow_fail_with_one_usage(void **state)
{
	struct cli c = fresh();
	const char *out = stderr_of(parse_edges, &c);

	(void)state;
	assert_non_null(strstr(out, "--a must be"));
	assert_non_null(strstr(out, "--b must be"));
	assert_non_null(strstr(out, "--c must be"));
	assert_non_null(strstr(out, "--d must be a number from 0 to 1, not 'nan'"));
	assert_true(cli_failed(&c));
	assert_int_equal(usage_calls, 1);
}

static void parse_choice(struct cli *c)
{
	static const char *const names[] = { "never", "every", "budget" };

	assert_int_equal(cli_choice(c, "every", "--mode", names, 3), 1);
	assert_false(cli_failed(c));
	assert_int_equal(cli_choice(c, "often", "--mode", names, 3), 0);
}

static void a_choice_lists_the_names_it_takes(void **state)
{
	struct cli c = fresh();
	const char *out = stderr_of(parse_choice, &c);

	(void)state;
	assert_non_null(strstr(out, "--mode must be one of never, every, budget; not 'often'"));
	assert_true(cli_failed(&c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_range_values_come_back),
		cmocka_unit_test(a_bad_number_names_the_option_and_fails),
		cmocka_unit_test(empty_out_of_range_and_overflow_fail_with_one_usage),
		cmocka_unit_test(a_choice_lists_the_names_it_takes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
