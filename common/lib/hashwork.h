/*
 * hashwork: the CPU work of the labs, made of real SHA-256 (libcrypto, EVP).
 *
 * Item i of L links is a chain: the seed is SHA-256 of i written in
 * decimal ASCII ("42"), and each of the L links replaces the 32-byte value
 * by its own SHA-256.  The item's result is the last value.
 *
 * How long L links take depends on the CPU: 2^16 links took 5 ms on one
 * machine and 14 ms on another.  A lesson that compares an item's time
 * with a server's delay therefore asks for a TIME: hashwork_calibrate()
 * measures this machine's rate at start-up and returns the links of an
 * item of that time.  Difficulty d (2^(d + HASHWORK_K) links) remains as a
 * fixed amount of work, for tests and known answers.
 *
 * A struct hashwork holds the fetched algorithm and one reused digest
 * context: use one per thread (a worker thread gets its own).
 */
#ifndef YIELDLAB_HASHWORK_H
#define YIELDLAB_HASHWORK_H

#include <stddef.h>
#include <stdint.h>

/* Links of difficulty d = 2^(d + HASHWORK_K); 8 + 8 = 2^16 = 65,536. */
#define HASHWORK_K 8

/* Highest difficulty accepted (2^(40 + K) links would run for days). */
#define HASHWORK_MAX_DIFFICULTY 40

/* Most links hashwork_item_links() and hashwork_calibrate() accept or
 * return: 2^32, an hour or more of hashing on any machine. */
#define HASHWORK_MAX_LINKS (UINT64_C(1) << 32)

#define HASHWORK_DIGEST_LEN 32
#define HASHWORK_HEX_LEN 64

struct hashwork;

/* @return a hasher (the SHA-256 algorithm fetched once, one context), owned
 * by the caller (hashwork_free), or NULL when libcrypto fails. */
struct hashwork *hashwork_new(void);

/* Frees h; NULL is a no-op. */
void hashwork_free(struct hashwork *h);

/* Links of one item at difficulty (0..HASHWORK_MAX_DIFFICULTY), or 0 when
 * difficulty is out of range. */
uint64_t hashwork_links(int difficulty);

/*
 * Computes item i at difficulty into out (32 bytes): the seed
 * SHA-256(decimal i), then hashwork_links(difficulty) links.
 * @return 0, or -1 on a bad difficulty or a libcrypto failure.
 */
int hashwork_item(struct hashwork *h, uint64_t i, int difficulty,
		  uint8_t out[HASHWORK_DIGEST_LEN]);

/*
 * Computes item i of `links` links into out (32 bytes): the seed
 * SHA-256(decimal i), then `links` links.  hashwork_item(h, i, d, out) is
 * hashwork_item_links(h, i, hashwork_links(d), out).
 * @return 0, or -1 when links is not in 1 .. HASHWORK_MAX_LINKS or
 * libcrypto fails.
 */
int hashwork_item_links(struct hashwork *h, uint64_t i, uint64_t links,
			uint8_t out[HASHWORK_DIGEST_LEN]);

/*
 * Measures this machine's rate (CLOCK_MONOTONIC, whatever clock_now_ns's
 * source): 200 ms of hashing first (a CPU that was idle runs its first
 * tens of milliseconds of work slowly: one start-up in three measured 140
 * ns per link where steady work takes 85), then chains grow until one
 * takes at least 2 ms, and the fastest of nine such chains gives ns per
 * link — the fastest, because a sample can only be slowed down by other
 * processes, never sped up.  Takes about 220-240 ms.
 * @return the links of an item that takes about target_ns on an idle CPU
 * (at least 1, at most HASHWORK_MAX_LINKS), or 0 when target_ns <= 0 or
 * libcrypto fails.  *ns_per_link (may be NULL) gets the measured rate.
 */
uint64_t hashwork_calibrate(struct hashwork *h, int64_t target_ns,
			    double *ns_per_link);

/*
 * Hashes seed links times (out = SHA-256(out), starting from seed; 0 links
 * copy the seed).  seed and out may be the same buffer.
 * @return 0, or -1 on a libcrypto failure.
 */
int hashwork_chain(struct hashwork *h, const uint8_t seed[HASHWORK_DIGEST_LEN],
		   uint64_t links, uint8_t out[HASHWORK_DIGEST_LEN]);

/*
 * SHA-256 of len bytes at buf in ONE library call (EVP_Digest): work with
 * nothing inside it to yield at, like Python's hashlib on a large buffer.
 * Thread-safe.  @return 0, or -1 on a libcrypto failure.
 */
int hashwork_buffer(const void *buf, size_t len,
		    uint8_t out[HASHWORK_DIGEST_LEN]);

/* Writes digest as 64 lowercase hex digits and a NUL into hex. */
void hashwork_hex(const uint8_t digest[HASHWORK_DIGEST_LEN],
		  char hex[HASHWORK_HEX_LEN + 1]);

#endif
