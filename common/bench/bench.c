#include "bench.h"

#include "lag.h"

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
