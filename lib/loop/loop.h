/*
 * loop.h - the loop wing: conversation history and the inbox ledger
 */
#ifndef OXI_LOOP_H
#define OXI_LOOP_H

#include "oxi.h"

/* hist.c: conversation history and inbox ledger (SQLite) */
/* opens and migrates the history database; NULL with *err as oxi_db_open */
struct sqlite3 *oxi_hist_open(const char *path, const char **err);
/* appends message m (consumed): {"role","content","tool_calls","tool_call_id"} */
int oxi_hist_add(struct sqlite3 *, const char *session, const char *msgid,
    jv m, const char **err);
/* the last max messages of a session, oldest first, starting at a user
 * message; an invalid jv with a message on error */
jv oxi_hist_load(struct sqlite3 *, const char *session, int max);
/* the inbox state of msgid copied into buf ("working", "done", "failed"),
 * or NULL if unknown */
const char *oxi_hist_state(struct sqlite3 *, const char *msgid, char *buf,
    size_t n);
/* records the state (and final reply text, may be NULL) of msgid */
int oxi_hist_mark(struct sqlite3 *, const char *msgid, const char *session,
    const char *state, const char *reply, const char **err);
/* deletes the messages stored for msgid (to redo an interrupted turn) */
int oxi_hist_forget(struct sqlite3 *, const char *msgid, const char **err);

#endif
