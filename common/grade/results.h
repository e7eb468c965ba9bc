/*
 * results: the files a grade run leaves behind, shared by the graders and by
 * grade-report.
 *
 * Each lab writes OUT/labs/<lab>.frag: a first line "<lab> <score> <max>
 * <passed> <count>" and then one Gradescope test object (one line of JSON)
 * per test.  results_merge() joins every fragment into OUT/results.json, so
 * results.json is whole and valid after every test, whatever a lab printed.
 */
#ifndef YIELDLAB_RESULTS_H
#define YIELDLAB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Longest test output kept in results.json, in bytes. */
#define RESULTS_OUTPUT_MAX 8192

struct results_test {
	const char *lab;
	const char *name;
	const char *status;   /* pass, fail, timeout, crash, error */
	int score, max_score;
	double seconds;
	const char *output;   /* any bytes; escaped and truncated */
	size_t output_len;
};

/* Writes s[0..len) as a JSON string literal (quotes included): control
 * characters escaped, invalid UTF-8 replaced by U+FFFD, and anything past
 * max bytes cut with a note. */
void results_json_string(FILE *f, const char *s, size_t len, size_t max);

/* Writes s as XML character data, escaped, invalid UTF-8 replaced. */
void results_xml_text(FILE *f, const char *s, size_t len, size_t max);

/* Writes one test as a single line of JSON. */
void results_json_test(FILE *f, const struct results_test *t);

/* Rewrites OUT/results.json from every OUT/labs/ *.frag (atomic rename).
 * @return 0, or -1 with a message on stderr. */
int results_merge(const char *out_dir);

/* Sums the fragments of the labs named in only (space-separated; NULL for
 * every lab): score, max score, tests passed and tests graded, printing a
 * line per lab to f when f is not NULL.
 * @return the number of fragments read, or -1. */
int results_totals(const char *out_dir, const char *only, FILE *f, int *score,
		   int *max, int *passed, int *count);

#endif
