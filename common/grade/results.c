#include "results.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t results_utf8_len(const unsigned char *s, size_t left)
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
		size_t n = results_utf8_len(p + i, end - i);

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
		size_t n = results_utf8_len(p + i, end - i);

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
