/*
 * results: how untrusted bytes (a test's output) are written into the
 * results files, shared by the runner's writers.  Only the runner
 * (grade-run) writes or reads the results files themselves.
 */
#ifndef YIELDLAB_RESULTS_H
#define YIELDLAB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Longest test output kept in results.json, in bytes. */
#define RESULTS_OUTPUT_MAX 16384

/* Length of the valid UTF-8 sequence at s (at most left bytes), or 0. */
size_t results_utf8_len(const unsigned char *s, size_t left);

/* Writes s[0..len) as a JSON string literal (quotes included): control
 * characters escaped, invalid UTF-8 replaced by U+FFFD, and anything past
 * max bytes cut with a note. */
void results_json_string(FILE *f, const char *s, size_t len, size_t max);

/* Writes s as XML character data, escaped, invalid UTF-8 replaced. */
void results_xml_text(FILE *f, const char *s, size_t len, size_t max);

#endif
