/* @ID@ — do not edit: the grader builds with a pristine copy of this file. */
/*
 * @ID@: runs the student's @TOPIC@_count and prints what it returned.
 */
#include "@TOPIC@.h"

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: @ID@ N\n  N  count from 0 up to N (0-1000)\n");
}

int main(int argc, char **argv)
{
	struct cli cli = { .prog = "@ID@", .usage = usage };
	int n = 0;

	if (argc != 2)
		cli_bad(&cli, "want one argument, N");
	else
		n = cli_int(&cli, argv[1], "N", 0, 1000);
	if (cli_failed(&cli))
		return 2;
	printf("@TOPIC@_count(%d) = %d\n", n, @TOPIC@_count(n));
	return 0;
}
