/*
 * loop.h - the loop wing: the turn engine, conversation history and the
 * inbox ledger
 */
#ifndef OXI_LOOP_H
#define OXI_LOOP_H

#include "oxi.h"

/*
 * turn.c: the turn engine.  A turn answers one msg.in: its text joins the
 * session's history, an llm.request goes out with the history, the system
 * prompt and the tools; llm.delta records become throttled msg.draft
 * records; the model's tool calls go out as tool.call records, their
 * results join the history and the model is asked again, until it answers
 * without tool calls (a msg.out) or fails (an error record for the chat).
 * Turns of one session run one after another, in order of arrival;
 * sessions run concurrently.  Each message id is answered once (the
 * inbox ledger of hist.c).
 *
 * The engine owns no fd and no process: it talks through a struct
 * oxi_loop_io, so the command wires it to coprocesses and a test to
 * arrays.  It never exits and prints only through err.c: a database
 * failure returns -1, oxi_loop_err says what failed, and the engine then
 * refuses every call but oxi_loop_err and oxi_loop_free.
 */
struct sqlite3;

struct oxi_loop_io {			/* how the engine talks */
	/* sends an llm.request (consumed): 0, or -1 if the stage is down */
	int  (*llm)(void *arg, jv req);
	/* sends a tool.call (consumed): 0, or -1 if the stage is down */
	int  (*tool)(void *arg, jv call);
	/* a record for stdout (consumed): typing, status, msg.draft,
	 * msg.out, error */
	void (*out)(void *arg, jv rec);
	void *arg;			/* for the three */
};

struct oxi_loop_cfg {
	const char *model;		/* or NULL: the llm stage's default */
	const char *system;		/* the system prompt */
	jv tools;			/* tool definitions, an array (borrowed) */
	int maxrounds;			/* llm requests per turn, >= 1 */
	int maxhist;			/* history messages per request, >= 1 */
	int draftms;			/* least ms between two drafts of a turn */
	long approvalms;		/* life of an approval.ask; 0: 5 min */
};

/* the stages oxi_loop_lost knows */
enum { OXI_LOOP_LLM = 1, OXI_LOOP_TOOL };

struct oxi_loop;

/*
 * A new engine on the history database db (oxi_hist_open; borrowed).
 * cfg is borrowed for the engine's life and read at each round, so the
 * command may change system and tools in it between calls (SIGHUP);
 * io is copied.
 */
struct oxi_loop *oxi_loop_new(struct sqlite3 *db,
    const struct oxi_loop_cfg *cfg, const struct oxi_loop_io *io);
/*
 * A checked msg.in (consumed; oxi_msg_check passed): starts its turn, or
 * queues it behind the turn of its session in flight.  A message id in
 * flight or already answered is skipped with an info line.  0, or -1 on
 * a database failure.
 */
int oxi_loop_msg(struct oxi_loop *, jv msgin);
/* a record from the llm stage (consumed): llm.delta, llm.response or
 * error; others are ignored.  0, or -1 on a database failure */
int oxi_loop_llm(struct oxi_loop *, jv rec);
/* a record from the tool stage (consumed): tool.result or error; others
 * are ignored.  0, or -1 on a database failure */
int oxi_loop_tool(struct oxi_loop *, jv rec);
/*
 * The stage OXI_LOOP_LLM or OXI_LOOP_TOOL exited (the command reaped and
 * logged it): every turn waiting on it ends with an error record
 * ("llm_exited", "tool_exited").  0, or -1 on a database failure.
 */
int oxi_loop_lost(struct oxi_loop *, int stage);
/*
 * An approval.answer (consumed): counts only for a pending ask of the
 * answer's channel and chat ("ref" its id, or "last": the latest there),
 * from the owner (oxi-loop(1), APPROVALS); others are ignored with an
 * info line.  0, or -1 on a database failure.
 */
int oxi_loop_answer(struct oxi_loop *, jv answer);
/* ms until a draft or an ask expiry is due (0: now), or -1 if none */
int oxi_loop_timeout(const struct oxi_loop *);
/* sends the drafts that are due and ends the asks that expired: 0, or
 * -1 if the engine has failed */
int oxi_loop_tick(struct oxi_loop *);
/* turns in flight or queued */
int oxi_loop_busy(const struct oxi_loop *);
/* after a -1: "unable to WHAT in 'DB': WHY"; else NULL */
const char *oxi_loop_err(const struct oxi_loop *);
/* frees the engine and its turns (not db, not cfg) */
void oxi_loop_free(struct oxi_loop *);

/*
 * taint.c: the origins of a turn's inputs, an array of strings in order
 * of first appearance, bounded (see oxi-loop(1)).  Each function consumes
 * the array and returns it; strings are borrowed.
 */
/* a new taint: the message's origin, "TRUST:CHANNEL" (trust NULL: user) */
jv oxi_loop_taint_new(const char *trust, const char *channel);
/* adds origin s unless it is there */
jv oxi_loop_taint_add(jv taint, const char *s);
/* adds the "taint" of a tool.result, v (consumed): an array of strings or
 * a string; other values add nothing */
jv oxi_loop_taint_merge(jv taint, jv v);

/*
 * status.c: the text of a status record for a call of tool name with
 * args (borrowed): the name and a summary of the arguments on one line
 * of at most 80 bytes, control characters out, secret-looking keys'
 * values as "***"
 */
jv oxi_loop_status_text(const char *name, jv args);

/*
 * approve.c: approvals in the chat
 */
/* the approval line of a held result of tool name, or NULL (free it) */
char *oxi_loop_held(const char *name, const char *content);
/* the question for the owner, in plain words, from the approval line */
jv oxi_loop_ask_text(const char *line);
/* appends line to the shell approval store (always) or its one-shot
 * store: 0, or -1 with errno */
int oxi_loop_store(const char *line, int always);
/* s (consumed) with the home, configuration and state directories
 * written "~" */
jv oxi_loop_tilde(jv s);

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
