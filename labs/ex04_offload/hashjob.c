/* ex04 — do not edit: the grader builds with a pristine copy of this file. */
/* The work the pool runs: one SHA-256 over a whole buffer. */
#include "offload.h"

#include "clock.h"
#include "hashwork.h"

void hash_job_work(void *arg)
{
	struct hash_job *job = arg;

	job->status = hashwork_buffer(job->buf, job->len, job->digest);
	job->work_end_ns = clock_monotonic_ns();
}
