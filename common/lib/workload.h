/*
 * workload: the items the ex06-ex08 programs hash and save — how many,
 * how long each one takes on this CPU, and the save server's delay and
 * cap — read from the options the three programs share, in one place.
 *
 * An item's lesson is its TIME against the server's delay: 2^16 SHA-256
 * links took 5 ms on one CPU and 14 ms on another, so a fixed count of
 * links would teach opposite lessons on the two.  Items are therefore
 * sized in milliseconds (--item-ms, scaled by --difficulty) and calibrated
 * to links at start-up, unless --links fixes the count.
 */
#ifndef YIELDLAB_WORKLOAD_H
#define YIELDLAB_WORKLOAD_H

#include "cli.h"

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct workload {
	const char *prog;          /* "ex06": the prefix of progress lines */
	int n;                     /* --n: items to hash and save */
	int difficulty;            /* --difficulty: item time x 2^(D-8) */
	int delay_ms;              /* --delay-ms: the server's answer delay */
	int cap;                   /* --cap: saves the server holds at once */
	double item_ms;            /* --item-ms: one item's CPU time */
	uint64_t links;            /* per item: --links, or calibrated */
	double ns_per_link;        /* measured by the calibration, or 0 */
};

/* The defaults the programs' usage texts state. */
#define WORKLOAD_DEFAULTS(program) \
	{ .prog = (program), .n = 120, .difficulty = 8, .delay_ms = 50, \
	  .cap = 10, .item_ms = 16 }

/* The shared entries of a getopt_long table (values 'n', 'd', 'i', 'L',
 * 'D', 'c'); the program adds its own options and the terminator. */
#define WORKLOAD_LONGOPTS \
	{ "n", required_argument, NULL, 'n' }, \
	{ "difficulty", required_argument, NULL, 'd' }, \
	{ "item-ms", required_argument, NULL, 'i' }, \
	{ "links", required_argument, NULL, 'L' }, \
	{ "delay-ms", required_argument, NULL, 'D' }, \
	{ "cap", required_argument, NULL, 'c' }

/* Prints the usage lines of the shared options. */
void workload_usage(FILE *f);

/* Reads option opt (a getopt_long value) into w when it is one of the
 * shared options; a bad value is reported through cli.
 * @return true when opt was a shared option. */
bool workload_option(struct cli *cli, struct workload *w, int opt,
		     const char *arg);

/* Calibrates w->links to w's item time (unless --links set it).
 * @return 0, or -1 when libcrypto failed. */
int workload_plan(struct workload *w);

/* "of 123456 SHA-256 links (calibrated to 16.0 ms at 130 ns per link)"
 * in buf. @return buf. */
const char *workload_describe(const struct workload *w, char *buf,
			      size_t size);

/* The item time in ms that --item-ms and --difficulty ask for. */
double workload_item_target_ms(const struct workload *w);

/* The CPU floor: the seconds the n hashes take with no saves at all.
 * @return the seconds, or -1 when libcrypto failed. */
double workload_cpu_floor_s(const struct workload *w);

/* "ex06: what ..." on stderr, only when a person is watching. */
void workload_progress(const struct workload *w, const char *what);

#endif
