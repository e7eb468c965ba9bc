/* @ID@ — do not edit: the grader builds with a pristine copy of this file. */
/*
 * @TOPIC@: (one paragraph: what the student builds, and why it matters on
 * an event loop).  This lab was made by `make new-lab`; replace the example
 * function below with the lab's own, keeping one Promise line for each
 * thing the header guarantees (common/tests/checks/promises.sh checks the map).
 */
#ifndef @GUARD@
#define @GUARD@

/*
 * Counts from 0 up to n, one at a time (the example's "work").
 *
 * Promise: returns n for every n from 0 to 1000.
 *   [tests: counts_up_to_n]
 * Promise: returns -1, and does nothing else, for a negative n.
 *   [tests: a_negative_n_is_refused]
 */
int @TOPIC@_count(int n);

#endif
