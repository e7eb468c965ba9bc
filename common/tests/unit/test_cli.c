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

#include <stdbool.h>
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

/* ---- cli_parse: the getopt_long loop every program shares ---------------- */

static const struct option parse_opts[] = {
	{ "count", required_argument, NULL, 'n' },
	{ "csv", no_argument, NULL, 'c' },
	CLI_HELP_AND_END,
};

struct parsed {
	int count, takes;
	bool csv;
};

static void take_parsed(struct cli *c, int val, char *arg, void *ctx)
{
	struct parsed *p = ctx;

	p->takes++;
	if (val == 'n')
		p->count = cli_int(c, arg, "--count", 1, 9);
	else if (val == 'c')
		p->csv = (arg == NULL);   /* a flag gets no value */
}

static struct parsed parse_result;
static enum cli_outcome parse_outcome;
static const char *parse_argv[8];

/* Runs cli_parse over the NULL-terminated parse_argv (copies, since
 * getopt_long permutes them). */
static void run_parse(struct cli *c)
{
	static char copies[8][32];
	char *argv[8];
	int argc = 0;

	for (; parse_argv[argc]; argc++) {
		snprintf(copies[argc], sizeof(copies[argc]), "%s",
			 parse_argv[argc]);
		argv[argc] = copies[argc];
	}
	argv[argc] = NULL;
	parse_result = (struct parsed){ 0 };
	parse_outcome = cli_parse(c, argc, argv, parse_opts, take_parsed,
				  &parse_result);
}

static const char *parse_of(struct cli *c, const char *a1, const char *a2,
			    const char *a3)
{
	parse_argv[0] = "prog";
	parse_argv[1] = a1;
	parse_argv[2] = a1 ? a2 : NULL;
	parse_argv[3] = a1 && a2 ? a3 : NULL;
	parse_argv[4] = NULL;
	return stderr_of(run_parse, c);
}

static void parse_hands_each_option_to_the_program(void **state)
{
	struct cli c = fresh();
	const char *out = parse_of(&c, "--count", "4", "--csv");

	(void)state;
	assert_int_equal(parse_outcome, CLI_OK);
	assert_int_equal(parse_result.count, 4);
	assert_true(parse_result.csv);
	assert_int_equal(parse_result.takes, 2);
	assert_string_equal(out, "");
	/* optind is reset: a second parse reads its own argv from the start */
	c = fresh();
	parse_of(&c, "--count", "7", NULL);
	assert_int_equal(parse_outcome, CLI_OK);
	assert_int_equal(parse_result.count, 7);
}

static void parse_help_prints_the_usage_and_stops(void **state)
{
	struct cli c = fresh();
	const char *out = parse_of(&c, "--help", "--count", "x");

	(void)state;
	assert_int_equal(parse_outcome, CLI_HELP);
	assert_int_equal(usage_calls, 1);
	assert_int_equal(parse_result.takes, 0);   /* stopped at --help */
	assert_string_equal(out, "");
	assert_false(cli_failed(&c));
}

static void parse_unknown_missing_and_stray_are_bad(void **state)
{
	struct cli c = fresh();
	const char *out = parse_of(&c, "--colour", NULL, NULL);

	(void)state;
	assert_int_equal(parse_outcome, CLI_BAD);
	assert_non_null(strstr(out, "prog: unknown option or missing value"));
	c = fresh();
	out = parse_of(&c, "--count", NULL, NULL);
	assert_int_equal(parse_outcome, CLI_BAD);
	assert_non_null(strstr(out, "prog: unknown option or missing value"));
	c = fresh();
	out = parse_of(&c, "--csv", "stray", NULL);
	assert_int_equal(parse_outcome, CLI_BAD);
	assert_non_null(strstr(out, "prog: unexpected argument"));
	assert_int_equal(usage_calls, 1);
	assert_true(parse_result.csv);   /* the good option was still read */
}

static void parse_a_bad_value_from_the_program_fails_the_parse(void **state)
{
	struct cli c = fresh();
	const char *out = parse_of(&c, "--count", "12", NULL);

	(void)state;
	assert_int_equal(parse_outcome, CLI_BAD);
	assert_non_null(strstr(out, "prog: --count must be a whole number from 1 to 9, not '12'"));
	assert_int_equal(usage_calls, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_range_values_come_back),
		cmocka_unit_test(a_bad_number_names_the_option_and_fails),
		cmocka_unit_test(empty_out_of_range_and_overflow_fail_with_one_usage),
		cmocka_unit_test(a_choice_lists_the_names_it_takes),
		cmocka_unit_test(parse_hands_each_option_to_the_program),
		cmocka_unit_test(parse_help_prints_the_usage_and_stops),
		cmocka_unit_test(parse_unknown_missing_and_stray_are_bad),
		cmocka_unit_test(parse_a_bad_value_from_the_program_fails_the_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
