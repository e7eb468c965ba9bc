/*
 * cli: reading a program's command line the same way everywhere.
 *
 * A program keeps one struct cli for its parse.  Each cli_* reader either
 * returns the value, or prints what was wrong ("ex01: --tasks must be a
 * whole number from 1 to 6, not 'x'") — and, the first time, the usage —
 * on stderr, remembers the failure and returns a harmless value.  After
 * parsing, the program asks cli_failed() and exits 2 itself: nothing here
 * exits.
 */
#ifndef YIELDLAB_CLI_H
#define YIELDLAB_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

struct cli {
	const char *prog;             /* "ex01": the prefix of every message */
	void (*usage)(FILE *f);       /* prints the whole usage to f */
	bool failed;                  /* set by the first bad argument */
};

/* Prints "prog: problem" and, for the first problem, the usage on stderr;
 * marks the parse failed. */
void cli_bad(struct cli *c, const char *problem);

/* The whole number in arg, from lo to hi; otherwise a message naming the
 * option (cli_bad) and lo. */
long cli_long(struct cli *c, const char *arg, const char *option, long lo,
	      long hi);

/* cli_long for an int range. */
int cli_int(struct cli *c, const char *arg, const char *option, int lo,
	    int hi);

/* The number in arg (strtod), from lo to hi; otherwise a message and lo. */
double cli_double(struct cli *c, const char *arg, const char *option,
		  double lo, double hi);

/* The index of arg in names[0..n), or a message listing the names and 0. */
int cli_choice(struct cli *c, const char *arg, const char *option,
	       const char *const *names, int n);

/* @return true when some argument was bad: exit 2 (the usage was printed). */
bool cli_failed(const struct cli *c);

/* Takes one option for the program: val is its longopts value, arg its
 * value (NULL for a flag).  A bad value is reported with cli_bad(c, ...). */
typedef void cli_option_fn(struct cli *c, int val, char *arg, void *ctx);

enum cli_outcome {
	CLI_OK,       /* every argument was read; cli_failed(c) is false */
	CLI_HELP,     /* --help: the usage is on stdout; exit 0 */
	CLI_BAD,      /* some argument was bad (said on stderr); exit 2 */
};

/* The last rows of every program's longopts: --help (the val cli_parse
 * answers with the usage) and the table's end. */
#define CLI_HELP_AND_END                                                   \
	{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }

/*
 * Reads argv with getopt_long and longopts (ending in CLI_HELP_AND_END),
 * from the start (optind is reset, so a second parse reads its own argv),
 * handing each option to take(c, val, arg, ctx).  The option with val
 * 'h' is --help: it prints the usage on stdout and stops at once.  An
 * unknown option, a missing value or a stray argument is reported with
 * cli_bad.
 * Checks that need every option (a required one, a combination) go after
 * the call, with cli_bad, before the program asks cli_failed().
 * @return CLI_HELP, or CLI_BAD when cli_failed(c), else CLI_OK.
 */
enum cli_outcome cli_parse(struct cli *c, int argc, char **argv,
			   const struct option *longopts, cli_option_fn *take,
			   void *ctx);

#endif
