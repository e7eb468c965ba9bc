/* Unit tests of common/lib/saveinspect against the real save server: the
 * answers it reads, the failures it reports, and no libevent block left
 * behind by its private base (evalloc counts them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "evalloc.h"
#include "saveinspect.h"
#include "saveproc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void start(struct saveproc *p, int delay_ms, int cap)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;

	o.delay_ms = delay_ms;
	o.max_in_flight = cap;
	if (saveproc_start_logged(p, &o) != 0)
		fail_msg("saveproc_start_logged: %s", p->why);
}

static void stats_and_get_read_the_server_and_free_their_base(void **state)
{
	struct saveproto_stats st;
	struct saveproc p;
	char hex[65];
	long before;

	(void)state;
	start(&p, 37, 3);
	before = evalloc_live();
	assert_int_equal(saveinspect_stats(&p, &st), 0);
	/* The options the server was started with come back as its counters. */
	assert_true(st.delay_ms == 37 && st.cap == 3);
	assert_true(st.received == 0 && st.stored == 0);
	assert_int_equal(saveinspect_get(&p, 5, hex), 404);
	assert_int_equal(evalloc_live(), before);
	assert_int_equal(saveproc_stop(&p), 0);
}

static void a_server_gone_is_reported_not_waited_for(void **state)
{
	struct saveproto_stats st;
	struct saveproc p;
	char port[16], hex[65];
	long before;

	(void)state;
	start(&p, 0, 1);
	assert_int_equal(saveproc_kill(&p), 0);
	before = evalloc_live();
	assert_int_equal(saveinspect_stats(&p, &st), -1);
	snprintf(port, sizeof(port), ":%d", p.port);
	if (!strstr(p.why, port))
		fail_msg("the reason should name the server's port: '%s'", p.why);
	assert_int_equal(saveinspect_get(&p, 1, hex), -1);
	assert_int_equal(evalloc_live(), before);
	assert_int_equal(saveproc_stop(&p), 0);
}

static void a_log_is_read_whole_or_not_at_all(void **state)
{
	char path[] = "/tmp/yieldlab-inspect.XXXXXX";
	struct saveproto_record *r = (void *)1;
	int fd = mkstemp(path);
	size_t n = 9;
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "1 %064d 10 20\n2 %064d 30 40\n", 0, 0);
	fflush(f);
	assert_int_equal(saveinspect_read_log(path, &r, &n), 0);
	assert_int_equal(n, 2);
	assert_true(r[1].id == 2 && r[1].answered_ns == 40);
	free(r);
	fprintf(f, "3 not-a-digest 50 60\n");
	fclose(f);
	errno = 0;
	assert_int_equal(saveinspect_read_log(path, &r, &n), -1);
	assert_int_equal(errno, EINVAL);
	assert_null(r);
	assert_int_equal(n, 0);
	unlink(path);
}

static void a_server_without_a_private_log_says_so(void **state)
{
	struct saveproc_options o = SAVEPROC_DEFAULTS;
	struct saveproto_record *r;
	struct saveproc p;
	size_t n;

	(void)state;
	if (saveproc_start(&p, &o) != 0)
		fail_msg("saveproc_start: %s", p.why);
	assert_int_equal(saveinspect_read_own_log(&p, &r, &n), -1);
	assert_non_null(strstr(p.why, "saveproc_start_logged"));
	assert_int_equal(saveproc_stop(&p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stats_and_get_read_the_server_and_free_their_base),
		cmocka_unit_test(a_server_gone_is_reported_not_waited_for),
		cmocka_unit_test(a_log_is_read_whole_or_not_at_all),
		cmocka_unit_test(a_server_without_a_private_log_says_so),
	};

	evalloc_install();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
