/*
 * hist.h - the statements the history database keeps, for the files
 * that speak SQL to it (hist.c sess.c ledger.c)
 *
 * A statement is prepared once per database handle and SQL text, reset
 * after each use and finalized by oxi_hist_close: preparing each
 * statement anew was a sixth of oxi-loop's CPU per message.
 */
#ifndef OXI_LOOP_HIST_H
#define OXI_LOOP_HIST_H

#include "loop/loop.h"

/*
 * The statement of sql for db in *st, prepared on first use; sql is a
 * string constant (its address is the key).  Give it back with
 * oxi_hist_end, or step it once with oxi_hist_run, which ends it; never
 * finalize it.  A statement of sql still in use is not handed out
 * twice: the second caller gets one of its own (ended the same way).
 * 0, or -1 with *err.
 */
int oxi_hist_stmt(struct sqlite3 *, const char *sql,
    struct sqlite3_stmt **st, const char **err);
/* gives st back: reset, bindings cleared; finalized if it is not kept
 * (one of oxi_hist_prep) */
void oxi_hist_end(struct sqlite3_stmt *);
/* [first user message, last reply] of a session (sess.c), or null if
 * it has not both */
jv oxi_hist_ends(struct sqlite3 *, const char *session);

#endif
