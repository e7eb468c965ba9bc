#include "hashwork.h"

#include "clock.h"

#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hashwork {
	EVP_MD *sha256;      /* fetched once: EVP_Digest refetches per call */
	EVP_MD_CTX *ctx;     /* reused by every link */
};

struct hashwork *hashwork_new(void)
{
	struct hashwork *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	h->ctx = EVP_MD_CTX_new();
	if (!h->sha256 || !h->ctx) {
		hashwork_free(h);
		return NULL;
	}
	return h;
}

void hashwork_free(struct hashwork *h)
{
	if (!h)
		return;
	EVP_MD_CTX_free(h->ctx);
	EVP_MD_free(h->sha256);
	free(h);
}

uint64_t hashwork_links(int difficulty)
{
	if (difficulty < 0 || difficulty > HASHWORK_MAX_DIFFICULTY)
		return 0;
	return UINT64_C(1) << (difficulty + HASHWORK_K);
}

/* One SHA-256 on the reused context; OpenSSL's 1 becomes 0 here. */
static int digest(struct hashwork *h, const void *in, size_t len,
		  uint8_t out[HASHWORK_DIGEST_LEN])
{
	if (EVP_DigestInit_ex(h->ctx, h->sha256, NULL) != 1 ||
	    EVP_DigestUpdate(h->ctx, in, len) != 1 ||
	    EVP_DigestFinal_ex(h->ctx, out, NULL) != 1)
		return -1;
	return 0;
}

int hashwork_chain(struct hashwork *h, const uint8_t seed[HASHWORK_DIGEST_LEN],
		   uint64_t links, uint8_t out[HASHWORK_DIGEST_LEN])
{
	uint8_t cur[HASHWORK_DIGEST_LEN];

	memcpy(cur, seed, sizeof(cur));
	for (uint64_t n = 0; n < links; n++)
		if (digest(h, cur, sizeof(cur), cur) != 0)
			return -1;
	memcpy(out, cur, sizeof(cur));
	return 0;
}

int hashwork_item_links(struct hashwork *h, uint64_t i, uint64_t links,
			uint8_t out[HASHWORK_DIGEST_LEN])
{
	uint8_t seed[HASHWORK_DIGEST_LEN];
	char text[24];
	int len = snprintf(text, sizeof(text), "%" PRIu64, i);

	if (links == 0 || links > HASHWORK_MAX_LINKS ||
	    digest(h, text, (size_t)len, seed) != 0)
		return -1;
	return hashwork_chain(h, seed, links, out);
}

int hashwork_item(struct hashwork *h, uint64_t i, int difficulty,
		  uint8_t out[HASHWORK_DIGEST_LEN])
{
	return hashwork_item_links(h, i, hashwork_links(difficulty), out);
}

/* ns that a chain of `links` took, or -1 when libcrypto failed. */
static int64_t time_chain(struct hashwork *h, uint64_t links)
{
	uint8_t value[HASHWORK_DIGEST_LEN] = { 0 };
	int64_t start = clock_monotonic_ns();

	if (hashwork_chain(h, value, links, value) != 0)
		return -1;
	return clock_monotonic_ns() - start;
}

/* Samples must be long enough that the clock's own cost and a cold cache
 * do not count; 2 ms is thousands of links on any machine. */
#define CALIBRATE_SAMPLE_NS (2 * CLOCK_NS_PER_MS)
#define CALIBRATE_SAMPLES 9
/* Hashing before the samples are taken.  A CPU that was idle runs the first
 * tens of milliseconds of work slowly: without it, one start-up in three
 * here measured 140 ns per link where steady work takes 85, and items came
 * out at 10 ms instead of 16. */
#define CALIBRATE_WARM_UP_NS (200 * CLOCK_NS_PER_MS)

uint64_t hashwork_calibrate(struct hashwork *h, int64_t target_ns,
			    double *ns_per_link)
{
	uint64_t links = 256;
	int64_t took, best;
	double rate, want;

	if (target_ns <= 0)
		return 0;
	for (int64_t start = clock_monotonic_ns();
	     clock_monotonic_ns() - start < CALIBRATE_WARM_UP_NS;)
		if (time_chain(h, 4096) < 0)
			return 0;
	took = time_chain(h, links);
	while (took >= 0 && took < CALIBRATE_SAMPLE_NS && links < HASHWORK_MAX_LINKS)
		took = time_chain(h, links *= 2);
	best = took;
	for (int k = 1; k < CALIBRATE_SAMPLES && took >= 0; k++) {
		took = time_chain(h, links);
		best = took >= 0 && took < best ? took : best;
	}
	if (took < 0 || best <= 0)
		return 0;
	rate = (double)best / (double)links;
	if (ns_per_link)
		*ns_per_link = rate;
	want = (double)target_ns / rate + 0.5;
	if (want < 1)
		return 1;
	return want > (double)HASHWORK_MAX_LINKS ? HASHWORK_MAX_LINKS : (uint64_t)want;
}

int hashwork_buffer(const void *buf, size_t len,
		    uint8_t out[HASHWORK_DIGEST_LEN])
{
	return EVP_Digest(buf, len, out, NULL, EVP_sha256(), NULL) == 1 ? 0 : -1;
}

void hashwork_hex(const uint8_t digest_in[HASHWORK_DIGEST_LEN],
		  char hex[HASHWORK_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (int b = 0; b < HASHWORK_DIGEST_LEN; b++) {
		hex[2 * b] = digits[digest_in[b] >> 4];
		hex[2 * b + 1] = digits[digest_in[b] & 0xf];
	}
	hex[HASHWORK_HEX_LEN] = '\0';
}
