#include "bench.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t bench_median_ns(const int64_t *values, size_t n)
{
	int64_t *sorted = malloc(n * sizeof(*sorted));
	int64_t median;

	if (!sorted)
		return values[0];
	memcpy(sorted, values, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_i64);
	/* Nearest rank, as the shell side of make bench takes its medians. */
	median = sorted[(n + 1) / 2 - 1];
	free(sorted);
	return median;
}
