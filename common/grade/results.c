#include "results.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Length of the valid UTF-8 sequence at s (at most left bytes), or 0. */
static size_t utf8_seq_len(const unsigned char *s, size_t left)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and past U+10FFFF are invalid too. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

static const char truncated_note[] = "\n[... output truncated by the grader ...]";

void results_json_string(FILE *f, const char *s, size_t len, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	bool cut = len > max;
	size_t end = cut ? max : len;

	fputc('"', f);
	for (size_t i = 0; i < end;) {
		size_t n = utf8_seq_len(p + i, end - i);

		if (n == 0) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		if (n > 1) {
			fwrite(p + i, 1, n, f);
		} else if (p[i] == '"' || p[i] == '\\') {
			fprintf(f, "\\%c", p[i]);
		} else if (p[i] == '\n') {
			fputs("\\n", f);
		} else if (p[i] == '\t') {
			fputs("\\t", f);
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			fprintf(f, "\\u%04x", p[i]);
		} else {
			fputc(p[i], f);
		}
		i += n;
	}
	if (cut)
		fputs("\\n[... output truncated by the grader ...]", f);
	fputc('"', f);
}

void results_xml_text(FILE *f, const char *s, size_t len, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	bool cut = len > max;
	size_t end = cut ? max : len;

	for (size_t i = 0; i < end;) {
		size_t n = utf8_seq_len(p + i, end - i);

		if (n == 0 || (n == 1 && p[i] < 0x20 && p[i] != '\n' &&
			       p[i] != '\t'))
			fputs("\xef\xbf\xbd", f);
		else if (p[i] == '<')
			fputs("&lt;", f);
		else if (p[i] == '>')
			fputs("&gt;", f);
		else if (p[i] == '&')
			fputs("&amp;", f);
		else if (p[i] == '"')
			fputs("&quot;", f);
		else
			fwrite(p + i, 1, n, f);
		i += n ? n : 1;
	}
	if (cut)
		fputs(truncated_note, f);
}

void results_json_test(FILE *f, const struct results_test *t)
{
	char name[256];

	snprintf(name, sizeof(name), "%s/%s", t->lab, t->name);
	fputs("{\"name\": ", f);
	results_json_string(f, name, strlen(name), sizeof(name));
	/* Gradescope knows "passed"/"failed"; our finer status is a tag. */
	fprintf(f, ", \"score\": %d, \"max_score\": %d, \"status\": \"%s\", ",
		t->score, t->max_score,
		strcmp(t->status, "pass") == 0 ? "passed" : "failed");
	fprintf(f, "\"tags\": [\"%s\"], \"visibility\": \"visible\", ",
		t->status);
	fputs("\"output\": ", f);
	results_json_string(f, t->output, t->output_len, RESULTS_OUTPUT_MAX);
	fputs("}\n", f);
}

/* Calls fn on every OUT/labs/ *.frag, in name order. */
static int each_fragment(const char *out_dir,
			 int (*fn)(FILE *frag, void *ctx), void *ctx)
{
	char path[4096];
	struct dirent **names;
	int n, count = 0;

	snprintf(path, sizeof(path), "%s/labs", out_dir);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);
		FILE *frag;

		if (len > 5 && strcmp(names[i]->d_name + len - 5, ".frag") == 0) {
			snprintf(path, sizeof(path), "%s/labs/%s", out_dir,
				 names[i]->d_name);
			frag = fopen(path, "r");
			if (frag) {
				count += fn(frag, ctx) == 0;
				fclose(frag);
			}
		}
		free(names[i]);
	}
	free(names);
	return count;
}

struct totals {
	const char *only;
	FILE *report;
	int score, max, passed, count;
};

/* True if word is one of the space-separated words of list. */
static bool word_in(const char *word, const char *list)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

static int add_totals(FILE *frag, void *ctx)
{
	struct totals *t = ctx;
	char lab[128];
	int score, max, passed, count;

	if (fscanf(frag, "%127s %d %d %d %d", lab, &score, &max, &passed,
		   &count) != 5)
		return -1;
	if (t->only && !word_in(lab, t->only))
		return 1;
	if (t->report)
		fprintf(t->report, "  %-22s %3d/%-3d  (%d of %d tests passed)\n",
			lab, score, max, passed, count);
	t->score += score;
	t->max += max;
	t->passed += passed;
	t->count += count;
	return 0;
}

int results_totals(const char *out_dir, const char *only, FILE *f, int *score,
		   int *max, int *passed, int *count)
{
	struct totals t = { .only = only, .report = f };
	int n = each_fragment(out_dir, add_totals, &t);

	*score = t.score;
	*max = t.max;
	*passed = t.passed;
	*count = t.count;
	return n;
}

struct merge {
	FILE *out;
	bool first;
};

/* Copies the test lines of one fragment into the tests[] array. */
static int copy_tests(FILE *frag, void *ctx)
{
	struct merge *m = ctx;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	char lab[128];
	int score, max, passed, count;

	/* A fragment a test scribbled over is skipped, not merged. */
	if (getline(&line, &cap, frag) < 0 ||
	    sscanf(line, "%127s %d %d %d %d", lab, &score, &max, &passed,
		   &count) != 5) {
		free(line);
		return -1;
	}
	while ((len = getline(&line, &cap, frag)) > 0) {
		if (strncmp(line, "{\"name\": \"", 10) != 0 ||
		    strcmp(line + len - 2, "}\n") != 0)
			continue;
		fputs(m->first ? "\n    " : ",\n    ", m->out);
		fwrite(line, 1, line[len - 1] == '\n' ? len - 1 : len, m->out);
		m->first = false;
	}
	free(line);
	return 0;
}

int results_merge(const char *out_dir)
{
	char tmp[4096], final[4096];
	int score, max, passed, count;
	struct merge m = { .first = true };

	results_totals(out_dir, NULL, NULL, &score, &max, &passed, &count);
	snprintf(tmp, sizeof(tmp), "%s/.results.json.%d", out_dir, (int)getpid());
	snprintf(final, sizeof(final), "%s/results.json", out_dir);
	m.out = fopen(tmp, "w");
	if (!m.out) {
		perror(tmp);
		return -1;
	}
	fprintf(m.out, "{\n  \"score\": %d,\n  \"max_score\": %d,\n", score, max);
	fprintf(m.out, "  \"output\": \"%d of %d tests passed\",\n", passed, count);
	fputs("  \"visibility\": \"visible\",\n  \"tests\": [", m.out);
	each_fragment(out_dir, copy_tests, &m);
	fputs(m.first ? "]\n}\n" : "\n  ]\n}\n", m.out);
	if (fclose(m.out) != 0 || rename(tmp, final) != 0) {
		perror(final);
		return -1;
	}
	return 0;
}
