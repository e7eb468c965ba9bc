/*
 * grade-note: completes one lab's results fragment with the tests that never
 * ran — the student file was missing, did not compile, or the submission ran
 * out of time — each marked with a status and a note saying why, then
 * rewrites results.json.  So every graded submission lists every test, and
 * a 0 always comes with its reason.
 *
 *   grade-note --out DIR --lab LAB --list FILE --status S --note-file FILE
 *
 * FILE of --list is the lab grader's `--list` output.  Tests already in
 * DIR/labs/LAB.frag keep their results.  Exit status: 0 done, 2 usage,
 * 3 a file could not be read or written.
 */
#include "results.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_TESTS 256
#define NAME_MAX_LEN 200
#define NOTE_MAX_BYTES (64 * 1024)

struct listed_test {
	char name[NAME_MAX_LEN];
	int points;
	bool present;   /* already graded in the fragment */
};

struct note_args {
	const char *out_dir, *lab, *list_path, *status, *note_path;
};

struct lab_totals {
	int score, max, passed, count;
};

static int usage(const char *problem)
{
	if (problem)
		fprintf(stderr, "grade-note: %s\n", problem);
	fprintf(stderr,
		"usage: grade-note --out DIR --lab LAB --list FILE --status S "
		"--note-file FILE\n"
		"  --out DIR         the grade directory (DIR/labs/LAB.frag)\n"
		"  --lab LAB         the lab, e.g. ex01_round_robin\n"
		"  --list FILE       the output of the lab grader's --list\n"
		"  --status S        fail, timeout, crash or error\n"
		"  --note-file FILE  the text shown as each such test's output\n");
	return 2;
}

static bool valid_status(const char *s)
{
	return s && (strcmp(s, "fail") == 0 || strcmp(s, "timeout") == 0 ||
		     strcmp(s, "crash") == 0 || strcmp(s, "error") == 0);
}

static int parse_args(int argc, char **argv, struct note_args *a)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "lab", required_argument, NULL, 'l' },
		{ "list", required_argument, NULL, 't' },
		{ "status", required_argument, NULL, 's' },
		{ "note-file", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->out_dir = optarg; break;
		case 'l': a->lab = optarg; break;
		case 't': a->list_path = optarg; break;
		case 's': a->status = optarg; break;
		case 'n': a->note_path = optarg; break;
		default: return usage("unknown option or missing value");
		}
	}
	if (optind != argc)
		return usage("unexpected argument");
	if (!a->out_dir || !a->lab || !a->list_path || !a->note_path)
		return usage("--out, --lab, --list and --note-file are required");
	if (!valid_status(a->status))
		return usage("--status must be fail, timeout, crash or error");
	return 0;
}

/* Reads the grader's --list: "name points pts timeout s" per line. */
static int read_list(const char *path, struct listed_test *tests)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	while (n < MAX_TESTS && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%199s %d", tests[n].name, &tests[n].points) == 2) {
			tests[n].present = false;
			n++;
		}
	}
	fclose(f);
	return n;
}

/* Reads at most NOTE_MAX_BYTES of the note; the caller frees it. */
static char *read_note(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = malloc(NOTE_MAX_BYTES);

	*len = 0;
	if (!f || !buf) {
		if (f)
			fclose(f);
		else
			perror(path);
		free(buf);
		return NULL;
	}
	*len = fread(buf, 1, NOTE_MAX_BYTES, f);
	fclose(f);
	return buf;
}

/* Marks the listed test whose JSON line this is (its "name" is LAB/NAME). */
static void mark_present(const char *line, const char *lab,
			 struct listed_test *tests, int n)
{
	char prefix[NAME_MAX_LEN + 32];

	for (int i = 0; i < n; i++) {
		snprintf(prefix, sizeof(prefix), "{\"name\": \"%s/%s\"", lab,
			 tests[i].name);
		if (strncmp(line, prefix, strlen(prefix)) == 0)
			tests[i].present = true;
	}
}

/* Copies the graded tests of an existing fragment to out, adding up their
 * totals.  A missing or garbled fragment counts as empty. */
static void keep_graded(const char *frag_path, const struct note_args *a,
			struct listed_test *tests, int n, FILE *out,
			struct lab_totals *t)
{
	FILE *f = fopen(frag_path, "r");
	char lab[128], *line = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f)
		return;
	if (fscanf(f, "%127s %d %d %d %d", lab, &t->score, &t->max,
		   &t->passed, &t->count) != 5 || strcmp(lab, a->lab) != 0) {
		*t = (struct lab_totals){ 0 };
		fclose(f);
		return;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[0] != '{')
			continue;
		mark_present(line, a->lab, tests, n);
		fwrite(line, 1, (size_t)len, out);
	}
	free(line);
	fclose(f);
}

static void add_missing(const struct note_args *a, struct listed_test *tests,
			int n, const char *note, size_t note_len, FILE *out,
			struct lab_totals *t)
{
	for (int i = 0; i < n; i++) {
		struct results_test rt = {
			.lab = a->lab, .name = tests[i].name,
			.status = a->status, .score = 0,
			.max_score = tests[i].points, .seconds = 0.0,
			.output = note, .output_len = note_len,
		};

		if (tests[i].present)
			continue;
		results_json_test(out, &rt);
		t->max += tests[i].points;
		t->count++;
	}
}

/* Writes the whole new fragment to a temporary file, then renames it. */
static int rewrite_fragment(const struct note_args *a,
			    struct listed_test *tests, int n,
			    const char *note, size_t note_len)
{
	char path[4096], tmp[4160], body_path[4160];
	struct lab_totals t = { 0 };
	FILE *body, *out;
	int c;

	snprintf(path, sizeof(path), "%s/labs/%s.frag", a->out_dir, a->lab);
	snprintf(tmp, sizeof(tmp), "%s.note-tmp", path);
	snprintf(body_path, sizeof(body_path), "%s.note-body", path);
	body = fopen(body_path, "w+");
	if (!body) {
		perror(body_path);
		return -1;
	}
	keep_graded(path, a, tests, n, body, &t);
	add_missing(a, tests, n, note, note_len, body, &t);
	out = fopen(tmp, "w");
	if (!out) {
		perror(tmp);
		fclose(body);
		return -1;
	}
	fprintf(out, "%s %d %d %d %d\n", a->lab, t.score, t.max, t.passed, t.count);
	rewind(body);
	while ((c = fgetc(body)) != EOF)
		fputc(c, out);
	fclose(body);
	remove(body_path);
	if (fclose(out) != 0 || rename(tmp, path) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

static int make_labs_dir(const char *out_dir)
{
	char labs_dir[4200];

	/* Both levels may be missing when nothing was graded yet. */
	snprintf(labs_dir, sizeof(labs_dir), "%s/labs", out_dir);
	if (mkdir(out_dir, 0755) != 0 && errno != EEXIST)
		return -1;
	if (mkdir(labs_dir, 0755) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct note_args a = { 0 };
	struct listed_test *tests = calloc(MAX_TESTS, sizeof(*tests));
	size_t note_len;
	char *note;
	int n, status;

	if (!tests)
		return 3;
	if (parse_args(argc, argv, &a) != 0)
		return 2;
	n = read_list(a.list_path, tests);
	note = read_note(a.note_path, &note_len);
	if (n <= 0 || !note || make_labs_dir(a.out_dir) != 0) {
		if (n == 0)
			fprintf(stderr, "grade-note: no tests in %s\n", a.list_path);
		free(note);
		free(tests);
		return 3;
	}
	status = rewrite_fragment(&a, tests, n, note, note_len) == 0 &&
		 results_merge(a.out_dir) == 0 ? 0 : 3;
	free(note);
	free(tests);
	return status;
}
