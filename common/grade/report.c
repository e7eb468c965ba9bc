/*
 * grade-report: after the graders of a `make grade` run, prints the score of
 * each lab and the total, rewrites results.json, and sets the exit status:
 * 0 when every graded test passed, 1 when some did not, 2 on bad arguments,
 * 3 when there were no results to read.
 */
#include "results.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *out_dir = "build/grade", *only = NULL;
	int score, max, passed, count, labs;

	for (int i = 1; i < argc; i += 2) {
		if (i + 1 < argc && strcmp(argv[i], "--out") == 0) {
			out_dir = argv[i + 1];
		} else if (i + 1 < argc && strcmp(argv[i], "--labs") == 0) {
			only = argv[i + 1];
		} else {
			fprintf(stderr, "usage: %s [--out DIR] [--labs 'LAB ...']\n",
				argv[0]);
			return 2;
		}
	}
	printf("Summary (%s/results.json holds every lab graded so far)\n",
	       out_dir);
	labs = results_totals(out_dir, only, stdout, &score, &max, &passed,
			      &count);
	if (labs <= 0) {
		fprintf(stderr, "grade-report: no results in %s/labs\n", out_dir);
		return 3;
	}
	if (results_merge(out_dir) != 0)
		return 3;
	printf("Total score: %d/%d (%d of %d tests passed)\n", score, max,
	       passed, count);
	return passed == count ? 0 : 1;
}
