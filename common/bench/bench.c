#include "bench.h"

#include "lag.h"

#include <stdlib.h>

int64_t bench_median_ns(const int64_t *values, size_t n)
{
	/* The lag meter's nearest-rank percentile: one definition of "median"
	 * for the whole project. */
	return lag_percentile_ns(values, n, 50);
}
