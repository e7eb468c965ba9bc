#include "bench.h"

#include "lag.h"

#include <stdlib.h>

void bench_parse_args(const struct bench_args *a, int argc, char **argv,
		      void *opts)
{
	struct cli cli = { .prog = a->prog, .usage = a->usage };

	if (cli_parse(&cli, argc, argv, a->longopts, a->take, opts) == CLI_HELP)
		exit(0);
	if (a->check)
		a->check(&cli, opts);
	if (cli_failed(&cli))
		exit(2);
}

int64_t bench_percentile_ns(const int64_t *values, size_t n, unsigned p)
{
	/* The library's percentile (interpolated between ranks): the bench
	 * does not ship a nearest-rank one, which is ex02's to write. */
	return lag_percentile_ns(values, n, p);
}

int64_t bench_median_ns(const int64_t *values, size_t n)
{
	return bench_percentile_ns(values, n, 50);
}
