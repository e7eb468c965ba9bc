/*
 * @ID@ — reference solution (instructors: drop-in for
 * labs/@LAB@/@TOPIC@.c).
 */
#include "@TOPIC@.h"

int @TOPIC@_count(int n)
{
	int i = 0;

	if (n < 0)
		return -1;
	while (i < n)
		i++;
	return i;
}
