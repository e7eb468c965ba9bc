/*
 * saveinspect: what a save server started with saveproc.h received — its
 * counters (GET /stats), one stored save (GET /saves/N) and its log — for
 * graders and experiments to compare with what a program says it saved.
 *
 * The requests are blocking, each on a private libevent base of its own
 * (evhttp, as the save client): call them between loop runs, or from a
 * callback only when the server does not wait on that loop.  They fail
 * after 5 s (scaled by YIELDLAB_TIMEOUT_SCALE).  A failure sets p->why.
 */
#ifndef YIELDLAB_SAVEINSPECT_H
#define YIELDLAB_SAVEINSPECT_H

#include "saveproc.h"
#include "saveproto.h"

#include <stddef.h>
#include <stdint.h>

/* GET /stats into *out.  @return 0, or -1 (p->why set). */
int saveinspect_stats(struct saveproc *p, struct saveproto_stats *out);

/*
 * GET /saves/id.  On 200 the stored digest (64 hex digits) is copied into
 * hex.  @return the HTTP status (200, 404, ...), or -1 with p->why set.
 */
int saveinspect_get(struct saveproc *p, uint64_t id, char hex[65]);

/*
 * Reads a server log into *out (malloc'd array the caller frees; NULL when
 * empty) and its length into *n, in file order.
 * @return 0, or -1 when the file cannot be read or a line is malformed
 * (errno: EINVAL for a malformed line).
 */
int saveinspect_read_log(const char *path, struct saveproto_record **out,
			 size_t *n);

/* Reads the private log of a server started with saveproc_start_logged,
 * as saveinspect_read_log does.  @return 0, or -1 (p->why set). */
int saveinspect_read_own_log(struct saveproc *p, struct saveproto_record **out,
			     size_t *n);

#endif
