/*
 * @ID@ — THE FILE YOU EDIT.  Read README.md in this folder first.
 */
#include "@TOPIC@.h"

#include "stub.h"

/* TODO: count from 0 up to n; refuse a negative n with -1. */
int @TOPIC@_count(int n)
{
	(void)n;
	STUB_NOT_IMPLEMENTED();
	return -2;
}
