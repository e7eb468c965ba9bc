#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cli_bad(struct cli *c, const char *problem)
{
	fprintf(stderr, "%s: %s\n", c->prog, problem);
	if (!c->failed && c->usage)
		c->usage(stderr);
	c->failed = true;
}

long cli_long(struct cli *c, const char *arg, const char *option, long lo,
	      long hi)
{
	char problem[256], *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (*arg != '\0' && *end == '\0' && errno == 0 && v >= lo && v <= hi)
		return v;
	snprintf(problem, sizeof(problem),
		 "%s must be a whole number from %ld to %ld, not '%.64s'",
		 option, lo, hi, arg);
	cli_bad(c, problem);
	return lo;
}

int cli_int(struct cli *c, const char *arg, const char *option, int lo,
	    int hi)
{
	return (int)cli_long(c, arg, option, lo, hi);
}

double cli_double(struct cli *c, const char *arg, const char *option,
		  double lo, double hi)
{
	char problem[256], *end;
	double v = strtod(arg, &end);

	if (*arg != '\0' && *end == '\0' && v >= lo && v <= hi)
		return v;
	snprintf(problem, sizeof(problem),
		 "%s must be a number from %g to %g, not '%.64s'", option, lo,
		 hi, arg);
	cli_bad(c, problem);
	return lo;
}

int cli_choice(struct cli *c, const char *arg, const char *option,
	       const char *const *names, int n)
{
	char problem[512];
	size_t len;

	for (int i = 0; i < n; i++)
		if (strcmp(arg, names[i]) == 0)
			return i;
	len = (size_t)snprintf(problem, sizeof(problem),
			       "%s must be one of", option);
	for (int i = 0; i < n && len < sizeof(problem); i++)
		len += (size_t)snprintf(problem + len, sizeof(problem) - len,
					"%s %s", i ? "," : "", names[i]);
	if (len < sizeof(problem))
		snprintf(problem + len, sizeof(problem) - len, "; not '%.64s'",
			 arg);
	cli_bad(c, problem);
	return 0;
}

bool cli_failed(const struct cli *c)
{
	return c->failed;
}

enum cli_outcome cli_parse(struct cli *c, int argc, char **argv,
			   const struct option *longopts, cli_option_fn *take,
			   void *ctx)
{
	int val;

	opterr = 0;     /* cli_bad says what was wrong, once, with the usage */
	optind = 0;     /* glibc: 0 starts a fresh scan of this argv */
	while ((val = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (val == 'h') {
			if (c->usage)
				c->usage(stdout);
			return CLI_HELP;
		}
		if (val == '?' || val == ':')
			cli_bad(c, "unknown option or missing value");
		else
			take(c, val, optarg, ctx);
	}
	if (optind != argc)
		cli_bad(c, "unexpected argument");
	return cli_failed(c) ? CLI_BAD : CLI_OK;
}
