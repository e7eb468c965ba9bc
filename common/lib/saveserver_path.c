/*
 * The path of the save server this build made (saveproc.h).  make passes
 * it as SAVEPROC_SERVER_PATH (common/saveserver/saveserver.mk), an absolute
 * path that differs in every copy of the suite.  It is compiled here, in a
 * file of one line, and nowhere else: every other object's command line is
 * then the same in every copy, so a compiler cache reuses them (make check
 * builds the suite in about twenty copies).
 */
#include "saveproc.h"

#ifndef SAVEPROC_SERVER_PATH
#error "SAVEPROC_SERVER_PATH: make passes the built server's path"
#endif

const char saveproc_built_server[] = SAVEPROC_SERVER_PATH;
