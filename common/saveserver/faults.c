#include "faults.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void faults_init(struct faults *f)
{
	memset(f, 0, sizeof(*f));
	f->fail_status = 500;
	f->close_after = -1;
	f->exit_after = -1;
	f->rng = 1;
}

/* A decimal id at *text: 1-20 digits, at most UINT64_MAX; advances *text. */
static int take_id(const char **text, uint64_t *id)
{
	size_t len = strspn(*text, "0123456789");
	char *end;

	if (len == 0 || len > 20)
		return -1;
	errno = 0;
	*id = strtoull(*text, &end, 10);
	if (errno == ERANGE || end != *text + len)
		return -1;
	*text = end;
	return 0;
}

int faults_parse_ids(struct faults *f, const char *list)
{
	const char *at = list;

	for (;;) {
		struct faults_range r;

		if (f->n_fail == FAULTS_MAX_RANGES || take_id(&at, &r.lo) != 0)
			return -1;
		r.hi = r.lo;
		if (*at == '-') {
			at++;
			if (take_id(&at, &r.hi) != 0 || r.hi < r.lo)
				return -1;
		}
		f->fail[f->n_fail++] = r;
		if (*at != ',')
			break;
		at++;
	}
	return *at == '\0' ? 0 : -1;
}

bool faults_fails(const struct faults *f, uint64_t id)
{
	for (size_t i = 0; i < f->n_fail; i++)
		if (id >= f->fail[i].lo && id <= f->fail[i].hi)
			return true;
	return false;
}

/* splitmix64: small, seedable, good enough to spread delays. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

int faults_jitter_ms(struct faults *f)
{
	if (f->jitter_ms <= 0)
		return 0;
	return (int)(next_random(&f->rng) % ((uint64_t)f->jitter_ms + 1));
}

const char *faults_reason(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 409: return "Conflict";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	}
	return status < 500 ? "Client Error" : "Server Error";
}
