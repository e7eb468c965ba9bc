/*
 * @ID@ wrong solution — counts while i <= n: one step too far.
 * Caught by: counts_up_to_n
 */
#include "@TOPIC@.h"

int @TOPIC@_count(int n)
{
	int i = 0;

	if (n < 0)
		return -1;
	while (i <= n)
		i++;
	return i;
}
