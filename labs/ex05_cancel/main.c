/* ex05 — do not edit: the grader builds with a pristine copy of this file. */
/*
 * ex05: start a transform, cancel it at a chosen moment, and measure how
 * long the cancel took to land — for several yield intervals, then for the
 * same transform on a worker thread (cancelled through its flag).
 *
 * Three times per run: how late the cancel request itself ran (its timer
 * waits for a yield too), from xf_cancel() to done, and from the moment the
 * cancel was due to done — the one the caller feels.
 */
#include "cancel.h"

#include "cli.h"
#include "clock.h"
#include "evbase.h"
#include "lag.h"

#include <err.h>
#include <event2/event.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INTERVALS 16

struct options {
	long rows;
	int rounds, cancel_ms, beat_ms;
	bool deadline, csv;
	size_t every[MAX_INTERVALS];
	int n_every;
};

struct run {
	const struct options *o;
	bool on_worker;
	size_t yield_every;
	struct event_base *base;
	struct table *table;
	struct xf_task task;
	struct xf_job job;
	bool done_seen;
	enum xf_status status;
	size_t rows_done;
	int64_t start_ns, due_ns, asked_ns, done_ns;
	struct lag_stats lag;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ex05 [--rows N] [--rounds N] [--cancel-ms N] [--every LIST]\n"
		"            [--deadline] [--beat-ms N] [--csv]\n"
		"  --rows N        rows in the table (1-10000000, default 40000)\n"
		"  --rounds N      SHA-256 rounds per row (1-1000, default 16: ~3 us)\n"
		"  --cancel-ms N   cancel this long after the start (0-60000, default 10)\n"
		"  --every LIST    yield intervals in rows, comma-separated, 0 = never\n"
		"                  (default 1,10,100,1000,10000,0)\n"
		"  --deadline      a deadline at --cancel-ms instead of a cancel request\n"
		"  --beat-ms N     heartbeat period in ms (1-1000, default 5)\n"
		"  --csv           print CSV (one row per run) instead of a table\n"
		"After the loop runs, one more run on a worker thread, cancelled through\n"
		"its flag.\n");
}

static void parse_every(struct cli *cli, struct options *o, const char *list)
{
	char *copy = strdup(list), *save = NULL;

	if (!copy)
		errx(1, "out of memory");
	o->n_every = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->n_every == MAX_INTERVALS) {
			cli_bad(cli, "--every takes at most 16 intervals");
			break;
		}
		o->every[o->n_every++] =
			(size_t)cli_long(cli, tok, "each --every interval", 0, 10000000);
	}
	free(copy);
	if (o->n_every == 0)
		cli_bad(cli, "--every needs at least one interval");
}

static void take_option(struct cli *cli, int val, char *arg, void *ctx)
{
	struct options *o = ctx;

	switch (val) {
	case 'r': o->rows = cli_long(cli, arg, "--rows", 1, 10000000); break;
	case 'o': o->rounds = (int)cli_long(cli, arg, "--rounds", 1, 1000); break;
	case 'c': o->cancel_ms = (int)cli_long(cli, arg, "--cancel-ms", 0, 60000); break;
	case 'e': parse_every(cli, o, arg); break;
	case 'd': o->deadline = true; break;
	case 'b': o->beat_ms = (int)cli_long(cli, arg, "--beat-ms", 1, 1000); break;
	case 'v': o->csv = true; break;
	}
}

static struct options parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rows", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'o' },
		{ "cancel-ms", required_argument, NULL, 'c' },
		{ "every", required_argument, NULL, 'e' },
		{ "deadline", no_argument, NULL, 'd' },
		{ "beat-ms", required_argument, NULL, 'b' },
		{ "csv", no_argument, NULL, 'v' },
		CLI_HELP_AND_END,
	};
	struct options o = { .rows = 40000, .rounds = 16, .cancel_ms = 10,
			     .beat_ms = 5 };
	struct cli cli = { .prog = "ex05", .usage = usage };

	parse_every(&cli, &o, "1,10,100,1000,10000,0");
	if (cli_parse(&cli, argc, argv, longopts, take_option, &o) == CLI_HELP)
		exit(0);
	if (cli_failed(&cli))
		exit(2);
	return o;
}

static void done_cb(enum xf_status status, size_t rows_done, void *arg)
{
	struct run *r = arg;

	r->done_ns = clock_monotonic_ns();
	r->done_seen = true;
	r->status = status;
	r->rows_done = rows_done;
}

static void cancel_cb(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;

	(void)fd;
	(void)what;
	r->asked_ns = clock_monotonic_ns();
	if (r->on_worker)
		xf_job_cancel(&r->job);
	else
		xf_cancel(&r->task);
}

static void start(struct run *r)
{
	int rc;

	r->start_ns = clock_monotonic_ns();
	r->due_ns = r->start_ns + r->o->cancel_ms * CLOCK_NS_PER_MS;
	if (r->on_worker)
		rc = xf_job_start(&r->job, r->base, r->table, done_cb, r);
	else
		rc = xf_start(&r->task, r->base, r->table, r->yield_every,
			      done_cb, r);
	if (rc != 0)
		errx(1, "could not start the transform");
	if (r->o->deadline && !r->on_worker)
		xf_set_deadline(&r->task, clock_now_ns() +
				r->o->cancel_ms * CLOCK_NS_PER_MS);
}

/* A loop task whose event is gone (or idle) without a done has stopped
 * for good: say so rather than wait. */
static bool task_stalled(const struct run *r)
{
	return !r->on_worker && !r->done_seen &&
	       (!r->task.ev || !event_pending(r->task.ev, EV_TIMEOUT, NULL));
}

static void measure(struct run *r)
{
	struct timeval tv = { r->o->cancel_ms / 1000,
			      (r->o->cancel_ms % 1000) * 1000 };
	struct lag *lag = lag_new(r->base, r->o->beat_ms * CLOCK_NS_PER_MS);
	struct event *timer = evtimer_new(r->base, cancel_cb, r);

	if (!lag || !timer || lag_start(lag) != 0)
		errx(1, "out of memory");
	start(r);
	if (!r->o->deadline || r->on_worker)
		evtimer_add(timer, &tv);
	while (!r->done_seen && event_base_loop(r->base, EVLOOP_ONCE) == 0)
		if (task_stalled(r))
			errx(1, "the task stopped without calling done "
			     "(not implemented yet?)");
	/* One more pass: the beat a stall delayed fires now, and so does a
	 * cancel that could not run before done (no yields). */
	event_base_loop(r->base, EVLOOP_NONBLOCK);
	if (evtimer_pending(timer, NULL) && !r->o->deadline)
		event_base_loop(r->base, EVLOOP_ONCE);
	lag_stop(lag);
	lag_get_stats(lag, &r->lag);
	event_free(timer);
	lag_free(lag);
}

/* ms from a to b as text; empty (CSV) or a dash when it did not happen. */
static const char *span(char *buf, int64_t a, int64_t b, bool csv)
{
	if (a == 0 || b == 0 || b < a)
		return csv ? "" : "-";
	snprintf(buf, 32, "%.3f", clock_ns_to_ms(b - a));
	return buf;
}

static void print_row(const struct run *r)
{
	const struct options *o = r->o;
	char every[32], late[32], ask[32], due[32];
	bool csv = o->csv;
	/* The cancel ran after done: the request came too late to count. */
	int64_t asked = r->asked_ns > r->done_ns ? 0 : r->asked_ns;

	if (r->on_worker)
		snprintf(every, sizeof(every), "%s", csv ? "1" : "flag/row");
	else if (r->yield_every == 0)
		snprintf(every, sizeof(every), "%s", csv ? "0" : "never");
	else
		snprintf(every, sizeof(every), "%zu", r->yield_every);
	printf(csv ? "%s,%s,%s,%ld,%zu,%s,%.3f,%s,%s,%s,%.3f\n"
		   : "%-7s %-9s %-10s %8ld %9zu  %-9s %8.3f %14s %14s %11s %13.3f\n",
	       r->on_worker ? "worker" : "loop", every,
	       o->deadline && !r->on_worker ? "deadline" : "cancel", o->rows,
	       r->rows_done, xf_status_name(r->status),
	       clock_ns_to_ms(r->done_ns - r->start_ns),
	       span(late, r->due_ns, r->asked_ns, csv),
	       span(ask, asked, r->done_ns, csv),
	       span(due, r->due_ns, r->done_ns, csv),
	       clock_ns_to_ms(r->lag.max_ns));
}

static void print_header(const struct options *o)
{
	if (o->csv) {
		printf("where,yield_every_rows,stop_by,rows,rows_done,status,"
		       "run_ms,request_late_ms,request_to_done_ms,"
		       "due_to_done_ms,worst_lag_ms\n");
		return;
	}
	printf("%ld rows x %d SHA-256 rounds; %s %d ms after the start; "
	       "heartbeat every %d ms\n\n", o->rows, o->rounds,
	       o->deadline ? "deadline" : "cancel requested", o->cancel_ms,
	       o->beat_ms);
	printf("where   yield     stop by        rows rows done  status      "
	       "run ms  request late  request->done     due->done  "
	       "worst lag ms\n");
}

static void one_run(const struct options *o, bool on_worker, size_t every)
{
	struct run r = { .o = o, .on_worker = on_worker, .yield_every = every };

	r.base = evbase_new(EVBASE_PRECISE | EVBASE_THREADS);
	r.table = table_new((size_t)o->rows, o->rounds);
	if (!r.base || !r.table)
		errx(1, "out of memory");
	measure(&r);
	print_row(&r);
	fflush(stdout);
	table_free(r.table);
	event_base_free(r.base);
}

int main(int argc, char **argv)
{
	struct options o = parse_args(argc, argv);

	print_header(&o);
	for (int i = 0; i < o.n_every; i++)
		one_run(&o, false, o.every[i]);
	one_run(&o, true, 0);
	if (!o.csv)
		printf("\n(request late: the cancel's own timer waited for a "
		       "yield; '-': not applicable,\n or the request came "
		       "after done)\n");
	return 0;
}
