/*
 * bench-hash: ns per link of the labs' SHA-256 chain (hashwork_chain: EVP,
 * the algorithm fetched once, one reused context) against the floor of the
 * same chain through OpenSSL's deprecated low-level SHA256_Init/Update/
 * Final, measured in the same run; and the one-shot EVP_Digest that
 * hashwork avoids.  Every kernel must end on the same digest.
 *
 * OpenSSL's allocator is counted too (CRYPTO_set_mem_functions): it shows
 * where EVP's time per link goes.  The CSV ends each row with the chain's
 * digest, so a peer in another language can show it did the same work.
 */
/* The floor needs the low-level API, deprecated in OpenSSL 3. */
#define OPENSSL_SUPPRESS_DEPRECATED

#include "bench.h"

#include "cli.h"

#include "clock.h"
#include "hashwork.h"

#include <err.h>
#include <getopt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PROG "bench-hash"
#define MAX_REPS 99

struct options {
	long links, reps;
	bool csv;
};

/* A chain: `links` times out = SHA-256(out), from seed. @return 0 or -1. */
typedef int (*chain_fn)(struct hashwork *h, const uint8_t *seed,
			uint64_t links, uint8_t *out);

struct kernel {
	const char *name, *what;
	chain_fn chain;
};

/* OpenSSL allocations since start (this program is single-threaded). */
static unsigned long openssl_allocs;

static void *count_malloc(size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	openssl_allocs++;
	return malloc(n);
}

static void *count_realloc(void *p, size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	openssl_allocs++;
	return realloc(p, n);
}

static void count_free(void *p, const char *file, int line)
{
	(void)file;
	(void)line;
	free(p);
}

static int chain_hashwork(struct hashwork *h, const uint8_t *seed,
			  uint64_t links, uint8_t *out)
{
	return hashwork_chain(h, seed, links, out);
}

static int chain_lowlevel(struct hashwork *h, const uint8_t *seed,
			  uint64_t links, uint8_t *out)
{
	uint8_t cur[SHA256_DIGEST_LENGTH];
	SHA256_CTX ctx;

	(void)h;
	memcpy(cur, seed, sizeof(cur));
	for (uint64_t n = 0; n < links; n++)
		if (SHA256_Init(&ctx) != 1 || SHA256_Update(&ctx, cur, sizeof(cur)) != 1 ||
		    SHA256_Final(cur, &ctx) != 1)
			return -1;
	memcpy(out, cur, sizeof(cur));
	return 0;
}

static int chain_oneshot(struct hashwork *h, const uint8_t *seed,
			 uint64_t links, uint8_t *out)
{
	uint8_t cur[SHA256_DIGEST_LENGTH];

	(void)h;
	memcpy(cur, seed, sizeof(cur));
	for (uint64_t n = 0; n < links; n++)
		if (EVP_Digest(cur, sizeof(cur), cur, NULL, EVP_sha256(), NULL) != 1)
			return -1;
	memcpy(out, cur, sizeof(cur));
	return 0;
}

static const struct kernel kernels[] = {
	{ "sha256_lowlevel", "SHA256_Init/Update/Final per link: the floor",
	  chain_lowlevel },
	{ "hashwork_chain", "hashwork_chain(): EVP, fetched once, one context",
	  chain_hashwork },
	{ "evp_digest_oneshot", "EVP_Digest(..., EVP_sha256(), ...) per link",
	  chain_oneshot },
};
#define N_KERNELS (sizeof(kernels) / sizeof(kernels[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--links N] [--reps N] [--csv]\n"
		"  --links N   links per timed chain (1000-100000000, default 262144)\n"
		"  --reps N    timed chains per kernel; the median is kept (1-99,\n"
		"              default 7)\n"
		"  --csv       print CSV (kernel,links,ns_per_link,allocs_per_link,digest)\n");
}

struct tally {
	int64_t ns_per_link_x1000[MAX_REPS];
	unsigned long allocs;
	uint8_t digest[SHA256_DIGEST_LENGTH];
};

/* One timed chain of kernel k into t's rep-th slot.  @return 0 or -1. */
static int time_chain(struct hashwork *h, size_t k, const struct options *o,
		      long rep, struct tally *t)
{
	static const uint8_t seed[SHA256_DIGEST_LENGTH] = { 'y', 'l' };
	unsigned long allocs = openssl_allocs;
	int64_t start = clock_monotonic_ns();

	if (kernels[k].chain(h, seed, (uint64_t)o->links, t->digest) != 0)
		return -1;
	t->ns_per_link_x1000[rep] = (int64_t)(1000.0 *
		bench_ns_per_op(clock_monotonic_ns() - start, (uint64_t)o->links));
	t->allocs += openssl_allocs - allocs;
	return 0;
}

static void print_row(const struct options *o, size_t k, const struct tally *t)
{
	double ns = (double)bench_median_ns(t->ns_per_link_x1000,
					    (size_t)o->reps) / 1000.0;
	double allocs = (double)t->allocs / ((double)o->links * (double)o->reps);

	char hex[2 * SHA256_DIGEST_LENGTH + 1];

	for (size_t i = 0; i < SHA256_DIGEST_LENGTH; i++)
		snprintf(hex + 2 * i, 3, "%02x", t->digest[i]);
	if (o->csv)
		printf("%s,%ld,%.1f,%.2f,%s\n", kernels[k].name, o->links, ns,
		       allocs, hex);
	else
		printf("%-19s %10.1f %12.2f  %s\n", kernels[k].name, ns, allocs,
		       kernels[k].what);
}

static void take_option(struct cli *cli, int val, char *arg, void *ctx)
{
	struct options *o = ctx;

	switch (val) {
	case 'l': o->links = cli_long(cli, arg, "--links", 1000, 100000000); break;
	case 'r': o->reps = cli_long(cli, arg, "--reps", 1, MAX_REPS); break;
	case 'c': o->csv = true; break;
	}
}

static struct options parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "links", required_argument, NULL, 'l' },
		{ "reps", required_argument, NULL, 'r' },
		{ "csv", no_argument, NULL, 'c' },
		CLI_HELP_AND_END,
	};
	static const struct bench_args args = { PROG, usage, longopts,
						take_option, NULL };
	struct options o = { 262144, 7, false };

	bench_parse_args(&args, argc, argv, &o);
	return o;
}

int main(int argc, char **argv)
{
	struct options o = parse_args(argc, argv);
	static struct tally tallies[N_KERNELS];
	struct hashwork *h;

	/* Before OpenSSL allocates anything, or the hook is refused. */
	CRYPTO_set_mem_functions(count_malloc, count_realloc, count_free);
	h = hashwork_new();
	if (!h)
		errx(1, "hashwork_new failed (libcrypto has no SHA-256?)");
	/* Reps outside, kernels inside: a burst of load on this shared
	 * machine then lands on every kernel alike. */
	for (long rep = 0; rep < o.reps; rep++) {
		fprintf(stderr, PROG ": round %ld of %ld\n", rep + 1, o.reps);
		for (size_t k = 0; k < N_KERNELS; k++)
			if (time_chain(h, k, &o, rep, &tallies[k]) != 0)
				errx(1, "%s failed (libcrypto error)", kernels[k].name);
	}
	for (size_t k = 1; k < N_KERNELS; k++)
		if (memcmp(tallies[k].digest, tallies[0].digest, SHA256_DIGEST_LENGTH))
			errx(1, "%s and %s end on different digests", kernels[k].name,
			     kernels[0].name);
	if (o.csv)
		printf("kernel,links,ns_per_link,allocs_per_link,digest\n");
	else
		printf("SHA-256 chains of %ld links of 32 bytes, median of %ld; "
		       "all end on the same digest\n%-19s %10s %12s  %s\n",
		       o.links, o.reps, "kernel", "ns/link", "allocs/link", "what");
	for (size_t k = 0; k < N_KERNELS; k++)
		print_row(&o, k, &tallies[k]);
	hashwork_free(h);
	return 0;
}
