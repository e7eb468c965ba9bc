/* The save client tests' shared fixture (savetest.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "savetest.h"

#include "clock.h"
#include "hashwork.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t savetest_bound_ns(int64_t ms)
{
	const char *env = getenv("YIELDLAB_TIMEOUT_SCALE");
	double scale = env ? atof(env) : 1.0;

	return (int64_t)((double)ms * (scale > 1.0 ? scale : 1.0)) * CLOCK_NS_PER_MS;
}

void savetest_digest(uint64_t id, char hex[65])
{
	char text[24];
	uint8_t d[32];

	snprintf(text, sizeof(text), "item-%llu", (unsigned long long)id);
	hashwork_buffer(text, strlen(text), d);
	hashwork_hex(d, hex);
}

void savetest_stop(struct saveproc *p)
{
	if (saveproc_stop(p) != 0)
		fail_msg("saveproc_stop: %s", p->why);
}

struct save_client *savetest_client(struct event_base *base, int port,
				    int pool, int timeout_ms)
{
	struct save_client_options o = { .port = port, .pool_size = pool,
					 .timeout_ms = timeout_ms };
	struct save_client *c = save_client_new(base, &o);

	assert_non_null(c);
	return c;
}

void savetest_save_range(struct save_client *c, uint64_t from, uint64_t to,
			 save_done_fn done, void *arg)
{
	char hex[65];

	for (uint64_t id = from; id < to; id++) {
		savetest_digest(id, hex);
		assert_int_equal(save_client_save(c, id, hex, done, arg), 0);
	}
}
