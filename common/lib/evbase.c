#include "evbase.h"

#include <event2/event.h>
#include <event2/thread.h>
#include <pthread.h>

static pthread_once_t threads_once = PTHREAD_ONCE_INIT;
static int threads_status = -1;

static void enable_threads(void)
{
	threads_status = evthread_use_pthreads();
}

struct event_base *evbase_new(unsigned flags)
{
	struct event_config *cfg;
	struct event_base *base;

	if (flags & EVBASE_THREADS) {
		pthread_once(&threads_once, enable_threads);
		if (threads_status != 0)
			return NULL;
	}
	cfg = event_config_new();
	if (!cfg)
		return NULL;
	if (!(flags & EVBASE_COARSE))
		event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	return base;
}
