/*
 * engine.h - inside the turn engine: the turn, the engine, and what its
 * files share.  From the bottom up: out.c the records it writes, media.c
 * the attachments of a message, wrap.c outside content in markers, ctx.c
 * the request and its context (tripwire.c its canary), turn.c the life
 * of a turn, slash.c the commands and ask.c the approvals, engine.c the
 * entry points of loop.h.  A file calls only the files below it.  Included only by
 * lib/loop/ and tests/unit/.
 */
#ifndef OXI_LOOP_ENGINE_H
#define OXI_LOOP_ENGINE_H

#include "loop/loop.h"

struct sqlite3;

enum {
	WAIT_START,		/* queued behind a turn of its conversation */
	WAIT_LLM,		/* its llm.request is in flight */
	WAIT_TOOLS,		/* its tool calls are in flight */
	WAIT_SUMMARY,		/* the summary of older turns is in flight */
	WAIT_RETRY,		/* the model failed for now: tries again later */
	WAIT_VOICE,		/* a voice message's transcribe is in flight */
	WAIT_MEMORY,		/* its recall is in flight (memory.c) */
	LOST			/* its stage died: about to fail */
};

struct call {
	char id[OXI_ID_LEN + 1];	/* our tool.call id */
	char *model_id;		/* the model's id for the call */
	int done;		/* its tool.result arrived */
	jv rec;			/* the tool.call, to send again */
	char *held;		/* the approval line of a pending ask */
	char askid[OXI_ID_LEN + 1];	/* its approval.ask */
	long long expires;	/* when the ask ends (oxi_clock_ms) */
	int asked;		/* asks that went out: 1 shell, 2 guard */
	char *src;		/* origins its result added, or NULL */
	long long sent;		/* when it last went out (oxi_clock_ms) */
};

struct turn {
	struct turn *next;	/* all turns, in arrival order */
	jv in;			/* the msg.in record */
	const char *msgid;	/* borrowed from in */
	char *key;		/* its conversation: channel:account:chat[:thread] */
	char *session;		/* the session it belongs to */
	int state;		/* WAIT_* or LOST */
	int rounds;		/* llm requests made */
	int stored;		/* its message is in the history */
	int compacts;		/* summaries asked for in this turn */
	long long sumupto;	/* seq the summary in flight stands for */
	char reqid[OXI_ID_LEN + 1];	/* the llm.request in flight */
	long long asked;	/* when it went out (oxi_clock_ms) */
	char *replyid;		/* of our msg.draft/msg.out: reply:<msg id> */
	struct oxi_buf prev;	/* text of earlier rounds */
	struct oxi_buf text;	/* text of this round so far */
	size_t drafted;		/* bytes of text in the last draft */
	long long lastdraft;	/* when the last draft went out */
	int dirty;		/* text changed since that draft */
	int cut;		/* the reply reached cfg->replymax */
	struct call *calls;	/* tool calls of this round */
	int ncalls;		/* their number */
	int pending;		/* results still awaited */
	jv taint;		/* origins of its inputs (taint.c) */
	jv sigs;		/* {call signature: times asked} */
	long long deadline;	/* its work ends by then, or 0 */
	long long tokens;	/* tokens of its model answers */
	long long firstfail;	/* when the model first failed for now */
	long long retryat;	/* when it tries again (WAIT_RETRY) */
	long backoff;		/* the last wait, ms */
	int told;		/* the user heard it will be answered later */
	char errcode[32];	/* the model's last temporary failure */
	char errmsg[320];
	int voice;		/* attachments looked at for voice so far */
	struct oxi_buf heard;	/* what they said (media.c) */
	int media;		/* attachments the request in flight shows */
	int nomedia;		/* the model refused them: shown no more */
	jv folded;		/* origins of what the summary in flight
				 * folds (an array), or null */
	char *memory;		/* the memory slot's text, or NULL */
	char memid[OXI_ID_LEN + 1];	/* the recall in flight */
	long long memdue;	/* when the turn stops waiting for it */
	int recalled;		/* its recall went out */
};

struct oxi_loop {
	struct sqlite3 *db;		/* borrowed */
	const struct oxi_loop_cfg *cfg;	/* borrowed */
	struct oxi_loop_io io;
	struct turn *turns;
	int stopping;			/* no more retries (oxi_loop_stop) */
	int failed;			/* a database failure: err says what */
	struct oxi_memory *mem;		/* memory.c, or NULL: no memory */
	char err[512];
};

/* turn.c */
void oxi_turn_free(struct turn *);
/* 1 if t's work is past its deadline (a call waiting for the owner has
 * the time of its ask) */
int oxi_turn_overdue(const struct turn *, long long now);
/* the next round of t: a summary, a request, or the end at the cap */
int oxi_turn_round(struct oxi_loop *, struct turn *);
/* ends t with its text and note (may be NULL) as the msg.out */
int oxi_turn_done(struct oxi_loop *, struct turn *, const char *note);
/* ends t with an error record for its chat; retryable failures may be
 * answered when the message comes again */
int oxi_turn_fail(struct oxi_loop *, struct turn *, const char *code,
    const char *msg, int retryable);
/* ends t now: cancels its request, answers its open calls, keeps its
 * text so far with note (the model is not asked again) */
int oxi_turn_stop(struct oxi_loop *, struct turn *, const char *note);
/* the result of call c of t joins the history; the last asks the model */
int oxi_turn_result(struct oxi_loop *, struct turn *, struct call *,
    const char *content, int iserr);
/* the turn of conversation key that is being worked on, or NULL */
struct turn *oxi_turn_active(struct oxi_loop *, const char *key);

/* out.c: the records the engine writes */
/* records a database failure: -1 from here up to the command */
int oxi_out_dbfail(struct oxi_loop *, const char *what, const char *err);
/* {"v":1,"type":type} with the routing keys of t's msg.in */
jv oxi_out_reply(struct turn *, const char *type);
void oxi_out_typing(struct oxi_loop *, struct turn *);
void oxi_out_status(struct oxi_loop *, struct turn *, const char *id,
    const char *name, jv args);
/* the reply so far: earlier rounds' text and this round's */
jv oxi_out_full(struct turn *);
/* a msg.draft or msg.out of t's reply id with text (consumed) */
void oxi_out_text(struct oxi_loop *, struct turn *, const char *type, jv text);
/* a draft of the text so far, if one is due at now (force: due now) */
void oxi_out_draft(struct oxi_loop *, struct turn *, long long now,
    int force);
/* ms until t's next draft is due, or -1 */
long long oxi_out_draftdue(const struct oxi_loop *, const struct turn *,
    long long now);
/* once stopping: the turns waiting for the owner's answer, and those
 * queued behind them, leave the engine; the next start resumes them */
void oxi_turn_shelve(struct oxi_loop *);
/* a note (format text) answering in: its id kind:<msg id>, so that a
 * note sent again after a restart is the same note ("note", "wait") */
void oxi_out_note(struct oxi_loop *, jv in, const char *kind,
    const char *text);
/* "kind:msgid", allocated: the id of a record derived from a message's */
char *oxi_out_id(const char *kind, const char *msgid);
/* an llm.cancel for request id */
void oxi_out_cancel(struct oxi_loop *, const char *reqid);

/* media.c: the attachments of a message */
/* appends to b the line of a voice message: its text, or why not */
void oxi_media_heard(struct oxi_buf *b, const char *text, const char *why);
/* sends the transcribe of t's next voice message (WAIT_VOICE): 1; 0 when
 * none is left (each that could not be sent has its line in t->heard) */
int oxi_media_listen(struct oxi_loop *, struct turn *);
/* the history message of msg.in in (borrowed): heard, the text and a line
 * per attachment, and the references of the images and PDFs of at most
 * max bytes (0: any) under "media" */
jv oxi_media_user(jv in, const char *heard, size_t max);
/*
 * msgs (consumed) without "media" keys: those of the last keep user
 * messages shown as base64 content parts after the text, within room
 * bytes; *n the parts.  refused: none is, a line saying so instead.
 */
jv oxi_media_parts(jv msgs, int keep, size_t max, size_t room,
    const char *refused, int *n);

/* ctx.c: the request of a round, within the model's context */
/* the model of t's requests: its session's, else cfg's, else NULL */
char *oxi_ctx_model(struct oxi_loop *, struct turn *);
/*
 * The llm.request for t's next round, or, when older turns must be
 * summarised first, the summary request (then *summary is 1 and
 * t->sumupto set).  An invalid jv: with a message when the request
 * cannot be made to fit (the turn fails); without one on a database
 * failure (already recorded).
 */
jv oxi_ctx_request(struct oxi_loop *, struct turn *, int *summary);
/* the estimated tokens of session's window now, and its model's window */
long oxi_ctx_used(struct oxi_loop *, const char *session, const char *model,
    long *window);

/* wrap.c: outside content in markers it cannot forge or close */
/* s wrapped: look-alikes of a marker's '<' and trust attributes in it
 * written "&lt;", the markers' id a keyed digest of it */
jv oxi_wrap_text(const char *s, const char *trust, const char *source);
/* a wrapped s cut to keep bytes of its content, note added, closed */
jv oxi_wrap_cut(const char *s, size_t keep, const char *note);
/* taint (consumed) with the origins of window message m (borrowed) */
jv oxi_wrap_origins(jv m, jv taint);
/* the trailer of a summary that folded outside content, and taint
 * (consumed) with the origins it names */
#define OXI_WRAP_FOLDED "\n\n[outside content folded in: "
jv oxi_wrap_folded(const char *summary, jv taint);
/* win (consumed) with its tool results and external messages wrapped
 * (*wrapped set if any) and their origins in *taint */
jv oxi_wrap_window(jv win, jv *taint, int *wrapped);

/* slash.c: 1 if msg.in in (borrowed) was a command, handled and
 * answered; 0 if it goes to the model; -1 on a database failure */
int oxi_slash(struct oxi_loop *, jv in, const char *key);

/* ask.c: the call c of t is held: ask the owner in the turn's chat */
void oxi_appr_ask(struct oxi_loop *, struct turn *, struct call *,
    char *line);
/* the ask of c ends with choice ("once", "always", "deny", "expired") */
int oxi_appr_decide(struct oxi_loop *, struct turn *, struct call *,
    const char *choice);

/* tripwire.c: the canary of session into out (33 bytes), from the key
 * file path, made if it is not there: 0, or -1 after a warning */
int oxi_loop_canary(const char *path, const char *session, char *out);

#endif
