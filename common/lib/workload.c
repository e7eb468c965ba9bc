#include "workload.h"

#include "clock.h"
#include "hashwork.h"

#include <math.h>
#include <unistd.h>

void workload_usage(FILE *f)
{
	fputs("  --n N           items to hash and save (1-10000, default 120)\n"
	      "  --item-ms MS    CPU time of one item: its SHA-256 links are\n"
	      "                  calibrated to it at start-up (0.1-1000, default 16)\n"
	      "  --difficulty D  scales the item time by 2^(D-8): 9 doubles it,\n"
	      "                  7 halves it (0-16, default 8)\n"
	      "  --links N       exactly N links per item, no calibration\n"
	      "  --delay-ms MS   the server answers each save after MS ms\n"
	      "                  (0-10000, default 50)\n"
	      "  --cap N         the server holds at most N saves at once; the\n"
	      "                  client opens as many connections (1-64, default 10)\n",
	      f);
}

bool workload_option(struct cli *cli, struct workload *w, int opt,
		     const char *arg)
{
	switch (opt) {
	case 'n': w->n = cli_int(cli, arg, "--n", 1, 10000); return true;
	case 'd': w->difficulty = cli_int(cli, arg, "--difficulty", 0, 16); return true;
	case 'i': w->item_ms = cli_double(cli, arg, "--item-ms", 0.1, 1000); return true;
	case 'L':
		w->links = (uint64_t)cli_long(cli, arg, "--links", 1,
					      (long)HASHWORK_MAX_LINKS);
		return true;
	case 'D': w->delay_ms = cli_int(cli, arg, "--delay-ms", 0, 10000); return true;
	case 'c': w->cap = cli_int(cli, arg, "--cap", 1, 64); return true;
	default: return false;
	}
}

double workload_item_target_ms(const struct workload *w)
{
	return ldexp(w->item_ms, w->difficulty - 8);
}

int workload_plan(struct workload *w)
{
	struct hashwork *h;

	if (w->links > 0)
		return 0;
	h = hashwork_new();
	if (!h)
		return -1;
	w->links = hashwork_calibrate(h, (int64_t)(workload_item_target_ms(w) * 1e6),
				      &w->ns_per_link);
	hashwork_free(h);
	return w->links > 0 ? 0 : -1;
}

const char *workload_describe(const struct workload *w, char *buf,
			      size_t size)
{
	if (w->ns_per_link > 0)
		snprintf(buf, size, "of %llu SHA-256 links (calibrated to "
			 "%.1f ms at %.0f ns per link)",
			 (unsigned long long)w->links,
			 workload_item_target_ms(w), w->ns_per_link);
	else
		snprintf(buf, size, "of %llu SHA-256 links (--links)",
			 (unsigned long long)w->links);
	return buf;
}

double workload_cpu_floor_s(const struct workload *w)
{
	struct hashwork *h = hashwork_new();
	uint8_t digest[HASHWORK_DIGEST_LEN];
	int64_t start = clock_monotonic_ns();
	int rc = h ? 0 : -1;

	workload_progress(w, "CPU floor (hashes only)");
	for (int i = 0; i < w->n && rc == 0; i++)
		rc = hashwork_item_links(h, (uint64_t)i, w->links, digest);
	hashwork_free(h);
	if (rc != 0)
		return -1;
	return (double)(clock_monotonic_ns() - start) / 1e9;
}

void workload_progress(const struct workload *w, const char *what)
{
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "%s: %s ...\n", w->prog, what);
}
