/*
 * stub: how a student file says "this part is yours to write".  A stub
 * prints one line naming the function and file, so every failing test of a
 * fresh lab says plainly why it failed.
 */
#ifndef YIELDLAB_STUB_H
#define YIELDLAB_STUB_H

#include <stdio.h>

#define STUB_NOT_IMPLEMENTED()                                            \
	fprintf(stderr, "not implemented: %s() in %s (your code goes there)\n", \
		__func__, __FILE__)

#endif
