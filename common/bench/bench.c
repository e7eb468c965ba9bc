#include "bench.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t bench_percentile_ns(const int64_t *values, size_t n, unsigned p)
{
	int64_t *sorted = malloc(n * sizeof(*sorted));
	size_t rank = (n * p + 99) / 100;
	int64_t v;

	if (!sorted)
		return values[0];
	memcpy(sorted, values, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_i64);
	/* Nearest rank, as the shell side of make bench takes its medians. */
	v = sorted[rank ? rank - 1 : 0];
	free(sorted);
	return v;
}

int64_t bench_median_ns(const int64_t *values, size_t n)
{
	return bench_percentile_ns(values, n, 50);
}
