#include "clock.h"

#include <errno.h>
#include <time.h>

/* The one replaceable hook of common/: graders swap in a fake clock. */
static clock_source_fn active_source = clock_monotonic_ns;
static int64_t fake_now_ns;

int64_t clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * CLOCK_NS_PER_S + ts.tv_nsec;
}

int64_t clock_now_ns(void)
{
	return active_source();
}

void clock_set_source(clock_source_fn source)
{
	active_source = source ? source : clock_monotonic_ns;
}

static int64_t fake_source(void)
{
	return fake_now_ns;
}

void clock_use_fake(int64_t start_ns)
{
	fake_now_ns = start_ns;
	clock_set_source(fake_source);
}

void clock_advance_ns(int64_t delta_ns)
{
	fake_now_ns += delta_ns;
}

void clock_spin_ns(int64_t delta_ns)
{
	int64_t end = clock_monotonic_ns() + delta_ns;

	while (clock_monotonic_ns() < end)
		;
}

void clock_sleep_ns(int64_t delta_ns)
{
	struct timespec left = {
		.tv_sec = delta_ns / CLOCK_NS_PER_S,
		.tv_nsec = delta_ns % CLOCK_NS_PER_S,
	};

	while (nanosleep(&left, &left) == -1 && errno == EINTR)
		;
}
