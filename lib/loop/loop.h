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

/*
 * The settings of the engine.  A zero turns a limit off unless it says
 * otherwise; bin/oxi-loop.c sets the documented defaults (oxi-loop(1)).
 */
struct oxi_loop_cfg {
	const char *model;		/* or NULL: the llm stage's default */
	const char *system;		/* the system prompt */
	jv tools;			/* tool definitions, an array (borrowed) */
	int maxrounds;			/* llm requests per turn, >= 1 */
	int maxhist;			/* messages in the window before older
					 * turns are summarised, >= 1 */
	int draftms;			/* least ms between two drafts of a turn */
	long approvalms;		/* life of an approval.ask; 0: 5 min */
	size_t maxreq;			/* bytes of an llm.request; 0: 1 MiB */
	long ctxtokens;			/* the model's window; 0: by model */
	long toolkeep;			/* characters of a tool result kept in
					 * the history after its turn */
	size_t replymax;		/* bytes of a reply's text */
	long turnms;			/* time of a turn's work */
	long turntokens;		/* tokens of a turn's model answers */
	long retryms;			/* first wait after a failure; doubles */
	long retrymaxms;		/* longest wait between two tries */
	long retryage;			/* ms a turn is retried for; 0: a
					 * temporary failure is final */
	size_t imagemax;		/* bytes of an image or PDF shown to
					 * the model; 0: any */
	int histimages;			/* the latest user messages whose
					 * images a request shows; 0: none */
	const char *canarykey;		/* oxi(7) CANARY; NULL: no canary */
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
/* the stage started again at up (its stage.up's oxi_clock_ms, or 0): what
 * went out before asks again (a new id: a late answer to the old one is
 * ignored), tool calls without a result go out again.  0, or -1 */
int oxi_loop_restarted(struct oxi_loop *, int stage, long long up);
/* after a restart: the messages the inbox holds as "working" (taken off
 * the input, not yet answered) start again, in order of arrival; 0/-1 */
int oxi_loop_resume(struct oxi_loop *);
/*
 * An approval.answer (consumed): counts only for a pending ask of the
 * answer's channel and chat ("ref" its id, or "last": the latest there),
 * from the owner (oxi-loop(1), APPROVALS); others are ignored with an
 * info line.  0, or -1 on a database failure.
 */
int oxi_loop_answer(struct oxi_loop *, jv answer);
/*
 * The line of a record from stage (OXI_LOOP_LLM or OXI_LOOP_TOOL) that
 * could not be read (too long, not JSON): its first n bytes, borrowed.
 * The turn whose id it carries ends with an error the user sees (a
 * reply too large) or gets its tool call failed.  0, or -1 on a
 * database failure.
 */
int oxi_loop_bad(struct oxi_loop *, int stage, const char *line, size_t n);
/* ms until a draft, an ask expiry, a retry or a turn's deadline is due
 * (0: now), or -1 if none */
int oxi_loop_timeout(const struct oxi_loop *);
/* sends the drafts that are due, ends the asks that expired and the
 * turns past their time, retries what waited: 0, or -1 if the engine
 * has failed */
int oxi_loop_tick(struct oxi_loop *);
/*
 * Input has ended or SIGTERM came: no one will wait for a later answer.
 * Turns waiting to retry end now with their last error, and a temporary
 * failure from now on is final (the message is answered again when it
 * comes again).  0, or -1 on a database failure.
 */
int oxi_loop_stop(struct oxi_loop *);
int oxi_loop_busy(const struct oxi_loop *);	/* turns in flight, queued */
/* after a -1: "unable to WHAT in 'DB': WHY"; else NULL */
const char *oxi_loop_err(const struct oxi_loop *);
/* frees the engine and its turns (not db, not cfg) */
void oxi_loop_free(struct oxi_loop *);

/*
 * peer.c: a stage oxi-loop drives: a coprocess started from a shell
 * command, or a FIFO pair "fifo:REQUESTS,REPLIES" run by a supervisor
 */
struct oxi_peer {
	struct oxi_coproc c;	/* the coprocess, or the FIFOs (pid -1) */
	const char *name;	/* "llm", "tool" */
	int stage;		/* OXI_LOOP_LLM or OXI_LOOP_TOOL */
	const char *spec;	/* the command or fifo:... (borrowed) */
	int fifo;		/* spec is a FIFO pair */
	int up;			/* started, or opened */
	size_t maxline;		/* cap on a record it writes */
};
void oxi_peer_init(struct oxi_peer *, const char *name, int stage,
    const char *spec, size_t maxline);
/* ensure starts or opens it (0, or -1 warned; dies on a bad FIFO); send
 * queues rec (consumed), started if need be; flush writes the queue
 * (POLLOUT on c.in) and drain hands what it wrote to the engine (POLLIN
 * on c.out.fd): a coprocess gone is reaped and its turns fail, and -1
 * means the engine failed; stop ends the coprocess or closes the FIFOs */
int oxi_peer_ensure(struct oxi_peer *);
int oxi_peer_send(struct oxi_peer *, jv rec);
int oxi_peer_flush(struct oxi_peer *, struct oxi_loop *);
int oxi_peer_drain(struct oxi_peer *, struct oxi_loop *);
void oxi_peer_stop(struct oxi_peer *);

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

/*
 * ctx.c: the context of a session
 */
/* the context window of model in tokens, from the table of oxi-loop(1),
 * CONTEXT; 128000 for a model it does not know or NULL */
long oxi_loop_window(const char *model);
/* the estimated tokens of a message, or of an array of them (borrowed) */
long oxi_loop_tokens(jv m);

/*
 * hist.c and sess.c: the history database (SQLite).  Functions returning
 * int give 0, or -1 with *err, sqlite's message.
 */
struct sqlite3_stmt;
/* opens and migrates the history database; NULL with *err as oxi_db_open */
struct sqlite3 *oxi_hist_open(const char *path, const char **err);
void oxi_hist_close(struct sqlite3 *);	/* and the statements it keeps */
/* prepares sql in *st: the caller's, to finalize or oxi_hist_run */
int oxi_hist_prep(struct sqlite3 *, const char *sql,
    struct sqlite3_stmt **st, const char **err);
/* binds s, or NULL, to parameter i */
void oxi_hist_bind(struct sqlite3_stmt *, int i, const char *s);
/* steps st once and finalizes it (resets it if it is kept: hist.h) */
int oxi_hist_run(struct sqlite3 *, struct sqlite3_stmt *st, const char **err);
/* appends message m (consumed): {"role","content","tool_calls","tool_call_id"} */
int oxi_hist_add(struct sqlite3 *, const char *session, const char *msgid,
    jv m, const char **err);
/* the messages of a session after seq after that are not dropped, oldest
 * first, starting at a user message, each with "_seq" (its seq) and
 * "_msg" (its message id); an invalid jv with a message on error */
jv oxi_hist_window(struct sqlite3 *, const char *session, long long after);
/* the inbox state of msgid copied into buf ("working", "done", "failed",
 * "retry"), or NULL if unknown */
const char *oxi_hist_state(struct sqlite3 *, const char *msgid, char *buf,
    size_t n);
/* records the state of msgid */
int oxi_hist_mark(struct sqlite3 *, const char *msgid, const char *session,
    const char *state, const char **err);
/* deletes the messages stored for msgid (to redo an interrupted turn) */
/* keeps msgid's record text while "working" (oxi_loop_resume) */
int oxi_hist_keep(struct sqlite3 *, const char *msgid, const char *rec,
    const char **err);
/* the texts kept of the "working" messages, in order of arrival: an
 * array of strings, or an invalid jv with a message */
jv oxi_hist_working(struct sqlite3 *);
/* the outbox (ledger.c): a transaction's output until the next one,
 * written again at start.  add a line (no newline); load into b; clear */
int oxi_hist_outbox_add(struct sqlite3 *, const char *line, size_t n,
    const char **err);
int oxi_hist_outbox_load(struct sqlite3 *, struct oxi_buf *b,
    const char **err);
int oxi_hist_outbox_clear(struct sqlite3 *, const char **err);
int oxi_hist_forget(struct sqlite3 *, const char *msgid, const char **err);
/* marks the messages of msgid dropped: a failed turn, never sent again */
int oxi_hist_drop(struct sqlite3 *, const char *msgid, const char **err);
/* cuts the tool results of msgid to keep characters and a note */
int oxi_hist_cut(struct sqlite3 *, const char *msgid, long keep,
    const char **err);
/* the current session of conversation key in *id (free it), created if
 * there is none or fresh is set */
int oxi_hist_session(struct sqlite3 *, const char *key, int fresh,
    char **id, const char **err);
/* the sessions of key, oldest first: [{n,id,ts,model,messages}] */
jv oxi_hist_sessions(struct sqlite3 *, const char *key);
/* the model a session chose (free it), or NULL */
char *oxi_hist_model(struct sqlite3 *, const char *session);
/* sets it; NULL: the default again */
int oxi_hist_setmodel(struct sqlite3 *, const char *session,
    const char *model, const char **err);
/* the latest summary of a session (a string, or null) and in *upto the
 * seq of the last message it stands for */
jv oxi_hist_summary(struct sqlite3 *, const char *session, long long *upto);
/* stores a summary of the messages of session up to seq upto */
int oxi_hist_summarise(struct sqlite3 *, const char *session, long long upto,
    const char *text, const char **err);
/* books the usage of one model answer (cost < 0: unknown) */
int oxi_hist_usage(struct sqlite3 *, const char *session, long long input,
    long long output, double cost, const char **err);
struct oxi_hist_spend {
	long long answers, input, output, priced;	/* priced: with a cost */
	double cost;
};
/* the usage of session (NULL: all) since an RFC 3339 time: 0 or -1 */
int oxi_hist_spent(struct sqlite3 *, const char *session, const char *since,
    struct oxi_hist_spend *);
/* deletes what is older than before (RFC 3339) and no longer needed:
 * inbox rows, usage, dropped messages, sessions no longer current, and
 * messages of current ones that a summary stands for */
int oxi_hist_prune(struct sqlite3 *, const char *before, const char **err);
/* prunes as oxi_hist_prune the oldest quarter of the messages at a time
 * while the pages in use take more than max bytes (at most four times):
 * 0 or -1 */
int oxi_hist_prune_size(struct sqlite3 *, long long max, const char **err);

#endif
