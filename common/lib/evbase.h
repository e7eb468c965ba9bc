/*
 * evbase: creating the event_base every lab and grader uses.
 *
 * The default libevent 2.1 base reads CLOCK_MONOTONIC_COARSE (4 ms ticks on
 * these VMs) and rounds poll timeouts up to whole ms, so a 5 ms timer wakes
 * 2-3 ms late on an idle loop.  Every base here asks for the precise timer.
 */
#ifndef YIELDLAB_EVBASE_H
#define YIELDLAB_EVBASE_H

struct event_base;

enum evbase_flags {
	EVBASE_PRECISE = 1 << 0,  /* CLOCK_MONOTONIC + timerfd (the default) */
	EVBASE_COARSE = 1 << 1,   /* libevent's default clock, for demos */
	EVBASE_THREADS = 1 << 2,  /* worker threads may call event_active */
};

/*
 * Creates a base.  EVBASE_THREADS turns on libevent's pthread support first
 * (it must precede the base, or a worker's event_active does not wake the
 * loop).  @return the base, owned by the caller (event_base_free), or NULL.
 */
struct event_base *evbase_new(unsigned flags);

#endif
