#include "bench.h"

#include "lag.h"

#include <stdlib.h>

void bench_bad_usage(const char *prog, bench_usage_fn usage,
		     const char *problem)
{
	fprintf(stderr, "%s: %s\n", prog, problem);
	usage(stderr);
	exit(2);
}

long bench_parse_long(const char *prog, bench_usage_fn usage, const char *arg,
		      const char *option, long lo, long hi)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*arg == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "%s: %s must be a whole number from %ld to %ld, "
			"not '%s'\n", prog, option, lo, hi, arg);
		usage(stderr);
		exit(2);
	}
	return v;
}

int64_t bench_median_ns(const int64_t *values, size_t n)
{
	/* common/lag's percentile (interpolated): one definition of "median"
	 * for the whole project. */
	return lag_percentile_ns(values, n, 50);
}
