/*
 * @ID@ correct alternative — one recursive call per step.
 */
#include "@TOPIC@.h"

static int count_from(int i, int n)
{
	return i == n ? i : count_from(i + 1, n);
}

int @TOPIC@_count(int n)
{
	return n < 0 ? -1 : count_from(0, n);
}
