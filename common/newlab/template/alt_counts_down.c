/*
 * @ID@ correct alternative — counts down to zero instead of up.
 */
#include "@TOPIC@.h"

int @TOPIC@_count(int n)
{
	int left;

	if (n < 0)
		return -1;
	for (left = n; left > 0; left--)
		;
	return n - left;
}
