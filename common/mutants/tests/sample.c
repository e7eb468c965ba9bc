/* A comment with < and && and 0 that must not change. */
#include <stdio.h>

static int count_small(const int *v, int n, int limit)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (v[i] <= limit && v[i] != -1)
			k++;
	puts("done: a < b");
	return k;
}
