/*
 * store: the results files, written and read by the runner alone.
 *
 * OUT/labs/<lab>.frag: "<lab> <score> <max> <passed> <count>", one
 * Gradescope test object (a line of JSON) per test, and a last line
 * "hmac <hex>": HMAC-SHA256 of everything before it under OUT/.key, a key
 * the runner makes (afresh for a whole `make grade`) and tests never see
 * (see README "What grading contains").  A fragment that does not verify —
 * planted, edited, or from before the key changed — is ignored and said so.
 */
#include "runner.h"
#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_BYTES 32
#define FRAG_MAX (8L << 20)

static unsigned char key[KEY_BYTES];
static bool key_loaded;

static int write_file_atomic(const char *path, const char *data, size_t len,
			     mode_t mode)
{
	char tmp[4200];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	if (write(fd, data, len) != (ssize_t)len || close(fd) != 0 ||
	    rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* A fresh run starts from no results at all. */
static void remove_fragments(const char *out_dir)
{
	char path[4096];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/labs", out_dir);
	d = opendir(path);
	while (d && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > 5 && strcmp(e->d_name + len - 5, ".frag") == 0) {
			snprintf(path, sizeof(path), "%s/labs/%s", out_dir, e->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
}

int store_open(const char *out_dir, bool fresh)
{
	char path[4096];
	int fd;

	mkdir(out_dir, 0755);
	snprintf(path, sizeof(path), "%s/labs", out_dir);
	mkdir(path, 0755);
	if (fresh)
		remove_fragments(out_dir);
	snprintf(path, sizeof(path), "%s/.key", out_dir);
	fd = fresh ? -1 : open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		key_loaded = read(fd, key, KEY_BYTES) == KEY_BYTES;
		close(fd);
		if (key_loaded)
			return 0;
	}
	if (getrandom(key, KEY_BYTES, 0) != KEY_BYTES)
		return -1;
	key_loaded = true;
	return write_file_atomic(path, (const char *)key, KEY_BYTES, 0600);
}

static void sign(const char *data, size_t len, char hex[65])
{
	unsigned char mac[32];
	unsigned int mac_len = sizeof(mac);

	HMAC(EVP_sha256(), key, KEY_BYTES, (const unsigned char *)data, len,
	     mac, &mac_len);
	for (unsigned i = 0; i < 32; i++)
		sprintf(hex + 2 * i, "%02x", mac[i]);
}

/* ---- writing ------------------------------------------------------------- */

static void json_test(FILE *f, const char *lab, const struct test_info *t,
		      const struct outcome *o)
{
	bool pass = strcmp(o->status, "pass") == 0;
	char name[256];
	char *text = NULL;
	size_t text_len = 0;
	FILE *m = open_memstream(&text, &text_len);

	/* The output opens with what the terminal shows, then the raw log. */
	if (m) {
		fputs(o->summary ? o->summary : "", m);
		if (o->log) {
			fprintf(m, "\n---- the test's output (%zu bytes "
				"kept; cut below if long) ----\n", o->log_len);
			fwrite(o->log, 1, o->log_len, m);
		}
		fclose(m);
	}
	snprintf(name, sizeof(name), "%s/%s", lab, t->name);
	fputs("{\"name\": ", f);
	results_json_string(f, name, strlen(name), sizeof(name));
	fprintf(f, ", \"score\": %d, \"max_score\": %d, \"status\": \"%s\", ",
		pass ? t->points : 0, t->points, pass ? "passed" : "failed");
	fprintf(f, "\"tags\": [\"%s\"], \"visibility\": \"visible\", "
		"\"output_format\": \"text\", \"output\": ", o->status);
	results_json_string(f, text ? text : "", text ? text_len : 0,
			    RESULTS_OUTPUT_MAX);
	fputs("}\n", f);
	free(text);
}

static void write_junit(const char *out_dir, const struct lab_result *r)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.xml", out_dir, r->lab);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuite name=\"%s\">\n", r->lab);
	for (size_t i = 0; i < r->n; i++) {
		const struct outcome *o = &r->outcomes[i];

		if (!o->status)
			continue;
		fprintf(f, "  <testcase classname=\"%s\" name=\"%s\" time=\"%.3f\">",
			r->lab, r->tests[i].name, o->seconds);
		if (strcmp(o->status, "pass") != 0) {
			fprintf(f, "\n    <failure type=\"%s\" message=\"", o->status);
			results_xml_text(f, o->detail, strlen(o->detail), 512);
			fprintf(f, "\">");
			results_xml_text(f, o->log, o->log_len, RESULTS_OUTPUT_MAX);
			fprintf(f, "</failure>\n  ");
		}
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "</testsuite>\n");
	fclose(f);
}

/* Signs body and writes it as OUT/labs/<lab>.frag. */
static int write_signed(const char *out_dir, const char *lab, char *body,
			size_t len)
{
	char path[4096], hex[65];
	char *signed_body = malloc(len + 80);
	int rc;

	if (!signed_body || !key_loaded) {
		free(signed_body);
		return -1;
	}
	sign(body, len, hex);
	memcpy(signed_body, body, len);
	len += (size_t)sprintf(signed_body + len, "hmac %s\n", hex);
	snprintf(path, sizeof(path), "%s/labs/%s.frag", out_dir, lab);
	rc = write_file_atomic(path, signed_body, len, 0644);
	free(signed_body);
	return rc;
}

int store_write_lab(const char *out_dir, const struct lab_result *r)
{
	int score = 0, max = 0, passed = 0, count = 0, rc;
	char *body = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);

	if (!f)
		return -1;
	for (size_t i = 0; i < r->n; i++) {
		if (!r->outcomes[i].status)
			continue;
		count++;
		max += r->tests[i].points;
		if (strcmp(r->outcomes[i].status, "pass") == 0)
			passed++, score += r->tests[i].points;
	}
	fprintf(f, "%s %d %d %d %d\n", r->lab, score, max, passed, count);
	for (size_t i = 0; i < r->n; i++)
		if (r->outcomes[i].status)
			json_test(f, r->lab, &r->tests[i], &r->outcomes[i]);
	fclose(f);
	rc = write_signed(out_dir, r->lab, body, len);
	free(body);
	write_junit(out_dir, r);
	return rc;
}

/* ---- reading: only what verifies ----------------------------------------- */

/* Reads OUT/labs/<name> and checks its signature.  @return the body (the
 * signed part, NUL-terminated; caller frees) or NULL. */
static char *read_verified(const char *out_dir, const char *name, size_t *len)
{
	char path[4096], hex[65];
	struct stat st;
	char *buf, *last;
	int fd;
	ssize_t got;

	snprintf(path, sizeof(path), "%s/labs/%s", out_dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > FRAG_MAX || !key_loaded) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	got = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	if (got != st.st_size || got < 70) {
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	last = buf + got - 70;   /* "hmac " + 64 hex + "\n", after a newline */
	if (last[-1] != '\n' || strncmp(last, "hmac ", 5) != 0) {
		free(buf);
		return NULL;
	}
	sign(buf, (size_t)(last - buf), hex);
	if (CRYPTO_memcmp(hex, last + 5, 64) != 0) {
		free(buf);
		return NULL;
	}
	*last = '\0';
	*len = (size_t)(last - buf);
	return buf;
}

struct frag_head {
	char lab[128];
	int score, max, passed, count;
};

static bool parse_head(const char *body, const char *file, struct frag_head *h)
{
	size_t n = strlen(file);

	if (sscanf(body, "%127s %d %d %d %d", h->lab, &h->score, &h->max,
		   &h->passed, &h->count) != 5)
		return false;
	/* A fragment signed for one lab cannot stand in for another. */
	return n > 5 && strlen(h->lab) == n - 5 && strncmp(h->lab, file, n - 5) == 0;
}

static bool word_in(const char *word, const char *list)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

typedef void (*frag_fn)(const struct frag_head *h, const char *body, void *ctx);

/* Calls fn on each verified fragment in name order; names the others once. */
static int each_fragment(const char *out_dir, frag_fn fn, void *ctx, bool tell)
{
	char path[4096];
	struct dirent **names;
	int n, count = 0;

	snprintf(path, sizeof(path), "%s/labs", out_dir);
	n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name), body_len;
		struct frag_head h;
		char *body;

		if (len > 5 && strcmp(name + len - 5, ".frag") == 0) {
			body = read_verified(out_dir, name, &body_len);
			if (body && parse_head(body, name, &h)) {
				fn(&h, body, ctx);
				count++;
			} else if (tell) {
				fprintf(stderr, "grade-run: ignored %s/labs/%s: not "
					"signed by this run's runner (planted, "
					"edited or stale)\n", out_dir, name);
			}
			free(body);
		}
		free(names[i]);
	}
	if (n > 0)
		free(names);
	return count;
}

struct totals {
	const char *only;
	FILE *report;
	int score, max, passed, count, labs;
};

static void add_totals(const struct frag_head *h, const char *body, void *ctx)
{
	struct totals *t = ctx;

	(void)body;
	if (t->only && !word_in(h->lab, t->only))
		return;
	if (t->report)
		fprintf(t->report, "  %-22s %3d/%-3d  (%d of %d tests passed)\n",
			h->lab, h->score, h->max, h->passed, h->count);
	t->score += h->score;
	t->max += h->max;
	t->passed += h->passed;
	t->count += h->count;
	t->labs++;
}

int store_totals(const char *out_dir, const char *only, FILE *f, int *score,
		 int *max, int *passed, int *count)
{
	struct totals t = { .only = only, .report = f };

	each_fragment(out_dir, add_totals, &t, false);
	*score = t.score;
	*max = t.max;
	*passed = t.passed;
	*count = t.count;
	return t.labs;
}

struct merge {
	FILE *out;
	bool first;
};

static void copy_tests(const struct frag_head *h, const char *body, void *ctx)
{
	struct merge *m = ctx;
	const char *line = strchr(body, '\n');

	(void)h;
	while (line && line[1]) {
		const char *end = strchr(line + 1, '\n');
		size_t len = end ? (size_t)(end - line - 1) : strlen(line + 1);

		fputs(m->first ? "\n    " : ",\n    ", m->out);
		fwrite(line + 1, 1, len, m->out);
		m->first = false;
		line = end;
	}
}

int store_merge(const char *out_dir)
{
	static bool told;
	struct totals t = { 0 };
	struct merge m = { .first = true };
	char path[4096];
	char *json = NULL;
	size_t len = 0;
	int rc;

	m.out = open_memstream(&json, &len);
	if (!m.out)
		return -1;
	each_fragment(out_dir, add_totals, &t, !told);
	told = true;
	fprintf(m.out, "{\n  \"score\": %d,\n  \"max_score\": %d,\n", t.score, t.max);
	fprintf(m.out, "  \"output\": \"%d of %d tests passed\",\n", t.passed,
		t.count);
	fputs("  \"visibility\": \"visible\",\n  \"tests\": [", m.out);
	each_fragment(out_dir, copy_tests, &m, false);
	fputs(m.first ? "]\n}\n" : "\n  ]\n}\n", m.out);
	fclose(m.out);
	snprintf(path, sizeof(path), "%s/results.json", out_dir);
	rc = write_file_atomic(path, json, len, 0644);
	free(json);
	return rc;
}

/* ---- the scripts' questions ------------------------------------------------ */

int store_field(const char *out_dir, const char *lab, int n, char *buf,
		size_t size)
{
	char name[160];
	size_t len;
	struct frag_head h;
	char *body;

	buf[0] = '\0';
	snprintf(name, sizeof(name), "%s.frag", lab);
	body = read_verified(out_dir, name, &len);
	if (body && parse_head(body, name, &h) && n >= 1 && n <= 5) {
		if (n == 1)
			snprintf(buf, size, "%s", h.lab);
		else
			snprintf(buf, size, "%d", n == 2 ? h.score : n == 3 ? h.max :
				 n == 4 ? h.passed : h.count);
	}
	free(body);
	return buf[0] ? 0 : -1;
}

/* Prints "test status" for each test of a lab's signed fragment. */
int store_tags(const char *out_dir, const char *lab, FILE *f)
{
	char name[160];
	size_t len, lab_len = strlen(lab);
	char *body, *p;

	snprintf(name, sizeof(name), "%s.frag", lab);
	body = read_verified(out_dir, name, &len);
	if (!body)
		return -1;
	for (p = body; (p = strstr(p, "{\"name\": \"")) != NULL;) {
		const char *test = p + 10 + lab_len + 1;
		const char *tag = strstr(p, "\"tags\": [\"");

		p += 10;
		if (!tag || strncmp(p, lab, lab_len) != 0)
			continue;
		fprintf(f, "%.*s %.*s\n", (int)strcspn(test, "\""), test,
			(int)strcspn(tag + 10, "\""), tag + 10);
	}
	free(body);
	return 0;
}

/* ---- grade-note: tests that never ran, completed with a note --------------- */

struct noted {
	char *body;          /* the new fragment, unsigned */
	size_t len;
	FILE *f;
	int score, max, passed, count;
};

/* Keeps the graded tests of the old fragment, adding up their points. */
static void keep_graded(const char *old, struct noted *n)
{
	const char *line = old ? strchr(old, '\n') : NULL;

	while (line && line[1]) {
		const char *end = strchr(line + 1, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line + 1) + 1;
		const char *sc = strstr(line, "\"score\": ");
		int score = 0, max = 0;

		if (sc && sscanf(sc, "\"score\": %d, \"max_score\": %d", &score,
				 &max) == 2) {
			fwrite(line + 1, 1, len - 1, n->f);
			fputc('\n', n->f);
			n->score += score;
			n->max += max;
			n->passed += score == max && max > 0;
			n->count++;
		}
		line = end;
	}
}

static bool graded_before(const char *old, const char *lab, const char *test)
{
	char needle[512];

	snprintf(needle, sizeof(needle), "{\"name\": \"%s/%s\"", lab, test);
	return old && strstr(old, needle);
}

int store_note(const char *out_dir, const char *lab, const char *list_path,
	       const char *status, const char *note, size_t note_len)
{
	char frag[160], line[512], tname[256];
	struct noted n = { 0 };
	size_t old_len;
	char *old, *head = NULL;
	size_t head_len = 0;
	FILE *list = fopen(list_path, "r"), *h;
	int points, rc;

	(void)note_len;   /* note is NUL-terminated */
	if (!list)
		return -1;
	snprintf(frag, sizeof(frag), "%s.frag", lab);
	old = read_verified(out_dir, frag, &old_len);
	n.f = open_memstream(&n.body, &n.len);
	keep_graded(old, &n);
	while (fgets(line, sizeof(line), list)) {
		struct test_info t = { .name = tname };
		struct outcome o = { .status = status, .summary = (char *)note };

		if (sscanf(line, "%255s %d", tname, &points) != 2 ||
		    graded_before(old, lab, tname))
			continue;
		t.points = points;
		json_test(n.f, lab, &t, &o);
		n.max += points;
		n.count++;
	}
	fclose(list);
	fclose(n.f);
	h = open_memstream(&head, &head_len);
	fprintf(h, "%s %d %d %d %d\n%s", lab, n.score, n.max, n.passed, n.count,
		n.body);
	fclose(h);
	rc = write_signed(out_dir, lab, head, head_len);
	free(head);
	free(n.body);
	free(old);
	return rc == 0 ? store_merge(out_dir) : -1;
}
