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

#endif
