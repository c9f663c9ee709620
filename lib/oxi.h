/*
 * oxi.h - liboxi, the internal library of the oxi toolkit
 *
 * One header, one section per module.  Conventions:
 *
 * - The library never exits and never prints, except err.c (diagnostics)
 *   and the x* wrappers (die 111 on ENOMEM).  Functions return 0 / -1 with
 *   errno, NULL, or an invalid jv carrying a message.
 * - jv ownership follows jq: a callee consumes every jv argument, and a
 *   returned jv is owned by the caller.  Functions whose name ends in
 *   "_peek" are the exception: they borrow their jv argument and return a
 *   pointer that lives as long as that argument does.
 */
#ifndef OXI_H
#define OXI_H

#include <sys/types.h>

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <jv.h>

#define OXI_VERSION	"0.1.0"

#if defined(__GNUC__)
#define OXI_NORETURN	__attribute__((noreturn))
#define OXI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define OXI_NORETURN
#define OXI_PRINTF(a, b)
#endif

/* exit codes: skarnet/qmail scheme, see oxi(7) */
enum {
	OXI_EX_OK = 0,		/* success, clean EOF, drained on SIGTERM */
	OXI_EX_FALSE = 1,	/* finished, but some records were rejected */
	OXI_EX_USAGE = 100,	/* usage, config, auth: permanent */
	OXI_EX_TEMP = 111,	/* I/O, memory, network, peer gone: retry */
	OXI_EX_NOEXEC = 126,	/* child found but could not be run */
	OXI_EX_NOENT = 127	/* child not found */
};

#define OXI_MAXLINE_DEFAULT	(1024 * 1024)	/* record size cap */

/* err.c: diagnostics, one line each, "prog: level: message" */
extern const char *oxi_prog;	/* set by main() first thing */
extern int oxi_verbose;		/* -v: oxi_debug prints when > 0 */
OXI_NORETURN void oxi_die(int, const char *, ...) OXI_PRINTF(2, 3);
OXI_NORETURN void oxi_diesys(int, const char *, ...) OXI_PRINTF(2, 3);
void oxi_warn(const char *, ...) OXI_PRINTF(1, 2);
void oxi_warnsys(const char *, ...) OXI_PRINTF(1, 2);
void oxi_info(const char *, ...) OXI_PRINTF(1, 2);
void oxi_debug(const char *, ...) OXI_PRINTF(1, 2);
/* 111 if errno e is a temporary condition, else 100 (qmail error_temp) */
int oxi_errtemp(int e);
/*
 * Handles -h, --help and --version in argv[1] before getopt: prints the
 * usage text (which may hold several lines, each a synopsis) and a pointer
 * to the man page to stdout, and exits 0.  Returns otherwise.
 */
void oxi_std_opts(int, char **, const char *usage);
/* prints "usage: <usage>" to stderr and exits 100 */
OXI_NORETURN void oxi_usage(const char *usage);

/* x.c: allocation that dies with 111 */
void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xrealloc(void *, size_t);
char *xstrdup(const char *);
char *xstrndup(const char *, size_t);

/* buf.c: growable byte buffer, always NUL-terminated when s != NULL */
struct oxi_buf {
	char *s;		/* bytes, NUL-terminated, or NULL */
	size_t len;		/* bytes used, without the NUL */
	size_t cap;		/* bytes allocated */
};
#define OXI_BUF_INIT	{ NULL, 0, 0 }
void oxi_buf_grow(struct oxi_buf *, size_t extra);
void oxi_buf_cat(struct oxi_buf *, const void *, size_t);
void oxi_buf_cats(struct oxi_buf *, const char *);
void oxi_buf_putc(struct oxi_buf *, int);
void oxi_buf_printf(struct oxi_buf *, const char *, ...) OXI_PRINTF(2, 3);
void oxi_buf_reset(struct oxi_buf *);	/* len = 0, keeps memory */
void oxi_buf_free(struct oxi_buf *);
/* drops the first n bytes */
void oxi_buf_consume(struct oxi_buf *, size_t n);

/* io.c: file descriptors */
/* write all n bytes, retrying on EINTR/EAGAIN; 0 or -1 with errno */
int oxi_writeall(int fd, const void *, size_t n);
int oxi_fd_cloexec(int fd);
int oxi_fd_nonblock(int fd, int on);
/* parses a file descriptor number for -d and friends; dies 100 if bad */
int oxi_fdarg(const char *);
/* parses a non-negative size with optional k/m suffix; dies 100 if bad */
size_t oxi_sizearg(const char *, const char *what);
/* reads a whole file up to max bytes into b (appends); 0 or -1 */
int oxi_readfile(const char *path, struct oxi_buf *b, size_t max);
/* flushes and checks a stdio stream at exit; dies 111 on error */
void oxi_fshut(FILE *, const char *name);
/* mkdir -p with mode; 0 or -1 */
int oxi_mkdirp(const char *path, mode_t mode);
/*
 * Directories, each made on first use (mode 0700): state is $OXI_HOME,
 * else $XDG_STATE_HOME/oxi, else $HOME/.local/state/oxi; config is
 * $OXI_CONFIG_DIR, else $XDG_CONFIG_HOME/oxi, else $HOME/.config/oxi.
 * The returned strings are static.  NULL with errno if no home is known.
 */
const char *oxi_state_dir(void);
const char *oxi_config_dir(void);
/* getenv that treats "" as unset */
const char *oxi_getenv(const char *);

/* notify (io.c): s6 readiness */
/* writes "\n" to fd and closes it; does nothing for fd < 0 */
void oxi_notify(int fd);

/* sig.c: signals as flags plus a self-pipe for poll loops */
extern volatile sig_atomic_t oxi_sig_term;	/* SIGTERM or SIGINT seen */
extern volatile sig_atomic_t oxi_sig_hup;	/* SIGHUP seen */
extern volatile sig_atomic_t oxi_sig_chld;	/* SIGCHLD seen */
enum {
	OXI_SIG_TERM = 1,	/* catch SIGTERM and SIGINT */
	OXI_SIG_HUP = 2,	/* catch SIGHUP */
	OXI_SIG_CHLD = 4,	/* catch SIGCHLD */
	OXI_SIG_NOPIPE = 8	/* ignore SIGPIPE: EPIPE instead */
};
/*
 * Installs handlers (without SA_RESTART, so blocking reads return EINTR)
 * and the self-pipe.  Returns the read end of the self-pipe, readable
 * whenever a caught signal arrived, or -1.
 */
int oxi_sig_setup(int flags);
/* empties the self-pipe */
void oxi_sig_drain(void);

/* nd.c: NDJSON records */
struct oxi_nd {
	int fd;			/* where records are read from */
	const char *name;	/* source for diagnostics: "stdin" */
	size_t max;		/* line cap in bytes, newline excluded */
	struct oxi_buf buf;	/* bytes read but not yet consumed */
	size_t off;		/* start of unconsumed bytes in buf */
	size_t scan;		/* bytes after off already searched for \n */
	unsigned long lineno;	/* number of the last line taken */
	int eof;		/* read(2) returned 0 */
	int skipping;		/* dropping the rest of an over-long line */
	size_t skipped;		/* bytes of that line so far */
	char *line;		/* last good record's text, in buf */
	size_t linelen;		/* its length, without newline */
};
enum {
	OXI_ND_EOF = 0,		/* end of input: no record */
	OXI_ND_OK = 1,		/* a record */
	OXI_ND_BAD = -1,	/* a bad line: warned and dead-lettered */
	OXI_ND_AGAIN = -2,	/* no complete line buffered (oxi_nd_take) */
	OXI_ND_ERR = -3		/* read error, errno set (EINTR included) */
};
void oxi_nd_init(struct oxi_nd *, int fd, const char *name);
void oxi_nd_free(struct oxi_nd *);
/* one read(2) into the buffer: >0 bytes, 0 end of file, -1 errno */
ssize_t oxi_nd_fill(struct oxi_nd *);
/*
 * Takes the next buffered line without reading.  A good record (a JSON
 * object with a string "type") is stored in *out and OXI_ND_OK returned;
 * in->line/linelen then hold its exact text until the next call, for
 * stages that pass lines on untouched.  Blank lines are skipped.  A bad
 * line (invalid JSON, not an object, no type, longer than max, an
 * unterminated last line) gives one warning and a dead letter, and
 * returns OXI_ND_BAD.  OXI_ND_AGAIN: need more input; OXI_ND_EOF: input
 * ended and everything was taken.
 */
int oxi_nd_take(struct oxi_nd *, jv *out);
/* blocking: fill and take until a result other than AGAIN */
int oxi_nd_next(struct oxi_nd *, jv *out);
/*
 * Writes rec (consumed) compactly plus "\n" with one write(2) call:
 * atomic on pipes up to PIPE_BUF.  0 or -1 with errno.
 */
int oxi_nd_write(int fd, jv rec);
/* writes line[0..len) plus "\n" with one write(2) */
int oxi_nd_write_raw(int fd, const char *line, size_t len);
/* like oxi_nd_write on stdout; dies 111 if downstream is gone */
void oxi_nd_out(jv rec);
/*
 * Appends a dead-letter record for a bad line: to $OXI_DEADLETTER if set,
 * else deadletter.ndjson in the state directory.  Never fails loudly:
 * a failure to write it is one more warning.
 */
void oxi_deadletter(const char *source, unsigned long lineno,
    const char *reason, const char *data, size_t len);
/*
 * If set, every dead letter's data passes through this filter first: it
 * writes a cleaned copy of data[0..len) into out (reset by the caller)
 * and returns non-zero, or returns 0 to keep the data as it is.  Stages
 * that know secrets use it so that a broken line never carries one to
 * the dead-letter file.
 */
extern int (*oxi_deadletter_filter)(const char *data, size_t len,
    struct oxi_buf *out);

/* msg.c: records of protocol v1 */
/* {"v":1,"type":type} */
jv oxi_msg_new(const char *type);
/* borrowed string value of key, or NULL if absent or not a string */
const char *oxi_msg_peek(jv rec, const char *key);
/* the "type" of rec, or "" */
const char *oxi_msg_type_peek(jv rec);
/*
 * Checks rec against the required keys of its type (see oxi(7)).
 * Borrows rec.  0, or -1 with a static reason in *why.
 */
int oxi_msg_check(jv rec, const char **why);
/* {"type":"error","v":1,"ref":ref,"code":code,"message":msg,"retryable":r} */
jv oxi_msg_error(const char *ref, const char *code, const char *msg,
    int retryable);
/* a string or a number as a string, for platform ids; consumes v */
jv oxi_msg_idstr(jv v);

/*
 * jv.c: small accessors for JSON values.  The exception to the rule at
 * the top (a callee consumes its jv arguments unless its name ends in
 * "_peek"): these only look at their jv argument, so they borrow it, and
 * a jv they return is the caller's.
 */
/* obj[key] as a new reference; invalid if obj is not an object */
jv oxi_jget(jv obj, const char *key);
/* 1 if v is of kind k */
int oxi_jis(jv v, jv_kind k);
/* 1 if v is the string s */
int oxi_jstr_is(jv v, const char *s);
/* 1 if v is a string holding word */
int oxi_jstr_has(jv v, const char *word);
/* the number obj[key], or dflt if that is not a number */
double oxi_jnum(jv obj, const char *key, double dflt);
/* an invalid jv with the message fmt (cut to 199 bytes) */
jv oxi_jbad(const char *fmt, ...) OXI_PRINTF(1, 2);

/* id.c: ids and times */
#define OXI_ID_LEN	26
/* a new ULID: 26 characters, sortable by time, unique in the process */
void oxi_id_new(char out[OXI_ID_LEN + 1]);
/* RFC 3339 UTC with milliseconds, e.g. 2026-11-22T10:00:00.123Z */
void oxi_time_now(char out[32]);
/* monotonic milliseconds */
long long oxi_clock_ms(void);

/* spawn.c: children and coprocesses */
/*
 * Runs argv with its stdin and stdout on new pipes whose other ends are
 * returned in *tochild and *fromchild (close-on-exec; either pointer may
 * be NULL to leave that fd as ours).  The child gets a new process group
 * when pgrp is set.  Returns the pid or -1 with errno.
 */
pid_t oxi_spawn(char *const argv[], int *tochild, int *fromchild, int pgrp);
/* the execline mapping of a wait status to an exit code */
int oxi_wait_code(int status);
/* waitpid with EINTR retry; returns the exit code as above, or -1 */
int oxi_wait(pid_t);

struct oxi_coproc {
	pid_t pid;		/* the child, or -1 */
	int in;			/* its stdin, our write end (non-blocking), or -1 */
	struct oxi_buf outq;	/* bytes queued for its stdin */
	struct oxi_nd out;	/* its stdout, read as records */
	char *cmd;		/* the shell command line it runs */
	const char *name;	/* for diagnostics */
};
/* starts "/bin/sh -c 'exec CMD'" as a coprocess: 0 or -1 */
int oxi_coproc_start(struct oxi_coproc *, const char *name, const char *cmd);
/*
 * Queues a record (consumed) for the child's stdin and writes what it can
 * without blocking; poll for POLLOUT on c->in while c->outq.len > 0 and
 * call oxi_coproc_flush.  0 or -1 (EPIPE when the child is gone).
 */
int oxi_coproc_send(struct oxi_coproc *, jv rec);
int oxi_coproc_flush(struct oxi_coproc *);
/* closes its stdin, waits, and returns its exit code */
int oxi_coproc_stop(struct oxi_coproc *);

/* db.c: SQLite */
struct sqlite3;
/*
 * Opens (creating) a database with WAL, a busy timeout and foreign keys,
 * then applies the migrations past PRAGMA user_version, each in its own
 * transaction; migrations is a NULL-terminated array of SQL scripts.
 * NULL on failure with a message in *err (static or sqlite's; do not
 * free) and errno set so oxi_errtemp() tells temporary from permanent.
 */
struct sqlite3 *oxi_db_open(const char *path, const char *const *migrations,
    const char **err);
/* runs SQL without results: 0 or -1 (message in *err as above) */
int oxi_db_exec(struct sqlite3 *, const char *sql, const char **err);

/* sse.c: Server-Sent Events parser (WHATWG HTML, "event stream") */
/*
 * Called once per dispatched event: type is "message" unless an event:
 * field set it; data is NUL-terminated with its last newline removed.
 * Return non-zero to stop parsing (oxi_sse_feed then returns -1).
 */
typedef int (*oxi_sse_fn)(void *arg, const char *type, const char *data,
    size_t len);
struct oxi_sse {
	oxi_sse_fn fn;		/* event callback */
	void *arg;		/* its argument */
	struct oxi_buf line;	/* the line being assembled */
	struct oxi_buf data;	/* data of the event being assembled */
	struct oxi_buf event;	/* its type, empty for "message" */
	struct oxi_buf lastid;	/* last event id seen */
	long retry;		/* reconnection time from retry:, or -1 */
	size_t max;		/* cap on a line and on an event's data */
	int cr;			/* last byte was CR: skip a following LF */
	int bom;		/* 0 before the first byte, 1 after */
	int over;		/* the cap was exceeded */
};
void oxi_sse_init(struct oxi_sse *, oxi_sse_fn, void *arg);
/* feeds bytes split anywhere: 0, or -1 if the callback stopped or a
 * line went over max (then sse->over is set) */
int oxi_sse_feed(struct oxi_sse *, const char *, size_t);
void oxi_sse_free(struct oxi_sse *);

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

/* guard.c: sender allowlist and secret redaction (oxi-guard) */
struct oxi_allow_ent {
	char *channel;		/* channel name, or NULL for any channel */
	char *from;		/* sender id, or NULL for any sender */
};
struct oxi_allow {
	struct oxi_allow_ent *v;	/* entries */
	size_t n;		/* entries used */
	size_t cap;		/* entries allocated */
	size_t nbad;		/* invalid entries skipped */
	char bad[64];		/* the first of them, cut short, for a warning */
};
#define OXI_ALLOW_INIT	{ NULL, 0, 0, 0, "" }
/*
 * Adds the entries of s[0..len), separated by commas or white space.  An
 * entry is "*" (everyone), "CHANNEL:*", "CHANNEL:FROM", "*:FROM" or a bare
 * "FROM" (any channel); the first colon separates channel from sender.
 * With comments set, a word starting with '#' comments out the rest of
 * its line.  Invalid entries are counted in nbad and skipped.
 */
void oxi_allow_parse(struct oxi_allow *, const char *s, size_t len,
    int comments);
/* adds the entries of a file (with comments): 0, or -1 with errno */
int oxi_allow_load(struct oxi_allow *, const char *path);
/* 1 if some entry admits sender from (may be NULL) on channel, else 0 */
int oxi_allow_ok(const struct oxi_allow *, const char *channel,
    const char *from);
void oxi_allow_free(struct oxi_allow *);

#define OXI_SECRET_MIN	8	/* shorter values would redact words */
struct oxi_secret {
	char *s;		/* the value, NUL-terminated */
	size_t len;		/* its length */
};
struct oxi_secrets {
	struct oxi_secret *v;	/* values, longest first, no duplicates */
	size_t n;		/* values used */
	size_t cap;		/* values allocated */
	unsigned char first[256];	/* first bytes of the values */
};
#define OXI_SECRETS_INIT	{ NULL, 0, 0, { 0 } }
/* zeroes n bytes in a way the compiler cannot drop */
void oxi_secrets_wipe(void *, size_t n);
/* adds a copy of s[0..len): 0, or 1 if shorter than OXI_SECRET_MIN */
int oxi_secrets_add(struct oxi_secrets *, const char *s, size_t len);
/*
 * Adds each line of a file (a final CR dropped, blank lines skipped) and
 * wipes the bytes read.  Values too short are counted in *nshort, the
 * first one's line number in *firstshort.  0, or -1 with errno.
 */
int oxi_secrets_load(struct oxi_secrets *, const char *path,
    size_t *nshort, unsigned long *firstshort);
/* wipes and frees every value; the set is empty and usable again */
void oxi_secrets_free(struct oxi_secrets *);
/*
 * Writes s[0..len) into out (reset first) with each occurrence of a
 * value replaced by "[REDACTED]", longest value first.  Returns the
 * number of replacements; out is untouched beyond the reset if 0.
 */
size_t oxi_redact(const struct oxi_secrets *, const char *s, size_t len,
    struct oxi_buf *out);
/*
 * For text still being written (drafts): the length to keep so that the
 * kept text does not end with the start of a value, which the next draft
 * might complete.
 */
size_t oxi_redact_hold(const struct oxi_secrets *, const char *s,
    size_t len);
/* the largest n <= max (n = len if len <= max) that keeps s[0..n)
 * from ending inside a UTF-8 sequence */
size_t oxi_guard_cut(const char *s, size_t len, size_t max);

/* ws.c: file access confined to a workspace directory */
/* the workspace: opt if set, else $OXI_WORKSPACE, else "workspace" in the
 * state directory; a static string, or NULL with errno */
const char *oxi_ws_path(const char *opt);
/* opens the workspace directory, made (mode 0700) if missing: fd or -1 */
int oxi_ws_open(const char *dir);
/*
 * openat(2) of path relative to the workspace fd ws, never resolving
 * outside it (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, or where
 * the kernel lacks openat2 a walk by components that refuses ".." and
 * every symlink).  O_CLOEXEC | O_NOCTTY are added.  -1 with errno: EXDEV
 * for an absolute path or one that leads outside, ELOOP for a symlink
 * the walk refuses.
 */
int oxi_ws_openat(int ws, const char *path, int flags, mode_t mode);
/* opens directory path under ws, making missing ones when mk: fd or -1 */
int oxi_ws_opendir(int ws, const char *path, int mk);
/* 1 when openat2 confines, 0 when the walk does, -1 not yet known;
 * tests set 0 to exercise the walk */
extern int oxi_ws_beneath;

/* tool.c: the built-in tools of oxi-tool */
struct oxi_tool_ctx {
	int ws;			/* the workspace directory */
	size_t maxout;		/* cap on a result's content, in bytes */
};
/* a built-in tool; tables of them end with a NULL name */
struct oxi_tool {
	const char *name;	/* as the model calls it */
	const char *desc;	/* what the model is told it does */
	const char *params;	/* JSON Schema of its arguments */
	const char *keys;	/* its argument names, space-separated */
	const char *taint;	/* origin of what it returns, or NULL */
	/* runs it: content or an error message in out; 0, or -1 for an
	 * error result (message in out); args is borrowed */
	int (*run)(const struct oxi_tool_ctx *, jv args, struct oxi_buf *out);
	int flags;		/* OXI_TOOL_* */
};
enum {
	OXI_TOOL_OFF = 1,	/* off unless named in $OXI_TOOLS_ON */
	OXI_TOOL_CACHE = 2	/* results may be cached (same args, same answer) */
};
/* the tables, one per module: tool.c, tool_find.c, tool_shell.c,
 * tool_web.c */
extern const struct oxi_tool oxi_tools_fs[], oxi_tools_find[],
    oxi_tools_shell[], oxi_tools_web[];
/* the built-in tool called name, or NULL */
const struct oxi_tool *oxi_tool_find(const char *name);
/* 1 if t is on: not OXI_TOOL_OFF, or turned on by configuration */
int oxi_tool_enabled(const struct oxi_tool *);
/* 1 if name is listed in $OXI_TOOLS_ON (comma or space separated) */
int oxi_tool_on(const char *name);
/* the definitions: [{"name","description","parameters"},...] */
jv oxi_tool_defs(void);
/*
 * Runs tool name with args (consumed) and leaves its content, or its error
 * message, in out (reset first, content capped at ctx->maxout).  Returns 0,
 * or -1 for an error result.  *taint is the origin of the content on
 * success ("workspace"), else NULL.
 */
int oxi_tool_run(const struct oxi_tool_ctx *, const char *name, jv args,
    struct oxi_buf *out, const char **taint);
/* cuts out to max bytes on a UTF-8 boundary and appends
 * "\n[output truncated: N of TOTAL bytes shown]"; nothing if it fits */
void oxi_tool_cap(struct oxi_buf *out, size_t max, size_t total);
/* helpers for tool code: each puts "tool: message" in out and returns -1
 * on a wrong argument */
int oxi_tool_fail(struct oxi_buf *out, const char *tool, const char *fmt,
    ...) OXI_PRINTF(3, 4);
/* an error about path from errno e ("is outside the workspace", ...) */
int oxi_tool_failpath(struct oxi_buf *out, const char *tool,
    const char *path, int e);
/* args may hold only the space-separated keys: 0, or -1 */
int oxi_tool_keys(jv args, const char *keys, struct oxi_buf *out,
    const char *tool);
/* a string argument, borrowed from args: 1 found, 0 absent or null,
 * -1 wrong */
int oxi_tool_argstr(jv args, const char *key, const char **s, size_t *len,
    struct oxi_buf *out, const char *tool);
/* a path argument: a non-empty string without NUL: 1, 0, -1 */
int oxi_tool_argpath(jv args, const char *key, const char **s,
    struct oxi_buf *out, const char *tool);
/* an integer argument >= min: 1, 0, -1 */
int oxi_tool_argint(jv args, const char *key, long long min,
    long long *val, struct oxi_buf *out, const char *tool);

/* http.c: HTTP over libcurl, several transfers in flight on one loop */
struct pollfd;
struct oxi_http_loop;		/* transfers sharing a curl multi handle */
enum {
	OXI_HTTP_OK,		/* a complete 2xx reply */
	OXI_HTTP_STATUS,	/* a complete reply with another status */
	OXI_HTTP_TIMEOUT,	/* connect, idle or total time ran out */
	OXI_HTTP_NET,		/* resolve, connect, TLS, reset */
	OXI_HTTP_CUT,		/* the reply stopped short */
	OXI_HTTP_BIG,		/* the body went over the cap */
	OXI_HTTP_ABORT,		/* the data callback stopped the transfer */
	OXI_HTTP_CONFIG		/* a bad URL or scheme */
};
struct oxi_http_res {
	int kind;		/* OXI_HTTP_* */
	long status;		/* HTTP status, 0 if none arrived */
	int temp;		/* retrying may help: network, 408, 429, 5xx */
	long retry_after;	/* seconds from a Retry-After header, or -1 */
	char err[256];		/* one line; never holds a header value */
	struct oxi_buf body;	/* start of a non-2xx body (64 KiB at most) */
};
/* body bytes of a 2xx reply as they arrive; non-zero stops the transfer */
typedef int (*oxi_http_data_fn)(void *arg, const char *p, size_t n);
/* called once per transfer when it ends; res lives during the call only */
typedef void (*oxi_http_done_fn)(void *arg, struct oxi_http_res *res);
struct oxi_http_req {
	const char *url;	/* http:// or https:// only */
	const char *const *headers;	/* "Name: value", NULL-terminated */
	const char *body;	/* POST body, or NULL for a GET */
	size_t bodylen;		/* its length */
	long connect_ms;	/* connect timeout; 0: 10 s */
	long idle_ms;		/* longest silence; 0: 60 s */
	long total_ms;		/* whole transfer; 0: 600 s */
	size_t max;		/* body cap in bytes; 0: 64 MiB */
	oxi_http_data_fn data;	/* body bytes, or NULL to drop them */
	oxi_http_done_fn done;	/* the end, or NULL */
	void *arg;		/* for both */
};
/* a new loop (libcurl is initialised on first use); NULL on failure */
struct oxi_http_loop *oxi_http_loop_new(void);
/* drops whatever is in flight (no done calls) and frees the loop */
void oxi_http_loop_free(struct oxi_http_loop *);
/*
 * Starts a transfer.  Everything in req is copied; header values are
 * wiped from our memory when it ends, and never logged.  Returns 0 (done
 * will be called once, from a later oxi_http_poll), or -1 with a message
 * in err.
 */
int oxi_http_start(struct oxi_http_loop *, const struct oxi_http_req *,
    char *err, size_t errlen);
/* transfers in flight */
int oxi_http_running(const struct oxi_http_loop *);
/*
 * Waits up to timeout ms (-1: until something happens) for network
 * activity or for one of the nfds extra descriptors (their revents are
 * set), moves the transfers on and calls done for each that ended.
 * Returns 0, or -1 if libcurl failed.
 */
int oxi_http_poll(struct oxi_http_loop *, struct pollfd *fds, int nfds,
    int timeout);
/* 1 if a reply with this status is worth retrying: 408, 429, 5xx */
int oxi_http_temp(long status);

/* llm_openai.c: the OpenAI Chat Completions dialect */
struct oxi_openai;		/* a reply being read */
/*
 * The Chat Completions request body for an llm.request (borrowed) and
 * a model name without its provider prefix; an invalid jv with a message
 * if the request is malformed.
 */
jv oxi_openai_body(jv req, const char *model);
/* a reply reader; delta (may be NULL) gets each text fragment */
struct oxi_openai *oxi_openai_new(void (*delta)(void *, const char *,
    size_t), void *arg);
/*
 * Feeds reply bytes, split anywhere: an event stream or one JSON
 * completion.  0, or -1 once the reply is known to have failed.
 */
int oxi_openai_feed(struct oxi_openai *, const char *, size_t);
/*
 * At the end of the reply: {"message","stop","usage"} as in llm.response,
 * or an invalid jv with a message, with *code and *retry set for the
 * error record ("truncated", "provider", "bad_tool_args", ...).
 */
jv oxi_openai_result(struct oxi_openai *, const char **code, int *retry);
/* 1 once "data: [DONE]" came and nothing failed before it */
int oxi_openai_done(const struct oxi_openai *);
void oxi_openai_free(struct oxi_openai *);
/* the message in an error body ({"error":{"message":…}} and kin), or
 * an invalid jv */
jv oxi_openai_errmsg(const char *body, size_t len);

/*
 * llm.c: model providers, wire dialects, and llm.request records in flight
 *
 * A dialect is one wire protocol.  oxi_llm_start() resolves the model's
 * provider (oxi_llm_resolve), has the provider's dialect build the body
 * and the URL, sends it, and feeds the reply bytes, split anywhere, to the
 * dialect's reader; at the end the reader's result becomes an llm.response
 * or an error record.  A reader's result is {"message","stop","usage"}:
 * message as in llm.response (with "thinking" blocks when the provider
 * sent some, see oxi(7)), stop one of end, tool_use, length, refusal, and
 * usage {"input","output","cache_read","cache_write","reasoning"} where
 * input counts every prompt token (cache reads and writes included) and
 * output every generated token (reasoning included).  Or it is an invalid
 * jv with a one-line message, and *code / *retry for the error record.
 */
struct oxi_llm_target;
/* a text fragment of the answer as it arrives */
typedef void (*oxi_llm_text_fn)(void *arg, const char *text, size_t len);
struct oxi_llm_dialect {
	const char *name;	/* "openai", "anthropic", ... */
	const char *auth;	/* key header, "Authorization: Bearer %s" */
	const char *const *hdrs;	/* fixed header lines, or NULL */
	const char *accept;	/* Accept header line of a streamed reply */
	/* the request body for an llm.request (borrowed); an invalid jv
	 * with a message if the request cannot be expressed */
	jv (*body)(jv req, const struct oxi_llm_target *);
	/* appends the endpoint to url (holding the base URL) */
	void (*url)(struct oxi_buf *url, const struct oxi_llm_target *,
	    int stream);
	/* a reply reader; text (may be NULL) gets the answer's text */
	void *(*reader)(oxi_llm_text_fn text, void *arg);
	/* reply bytes split anywhere: 0, or -1 once the reply failed */
	int (*feed)(void *rd, const char *, size_t);
	/* at the end: the result as above (the reader keeps working) */
	jv (*result)(void *rd, const char **code, int *retry);
	/* 1 once the terminal event came and nothing failed before it */
	int (*complete)(const void *rd);
	void (*free)(void *rd);
};
/* the dialects: llm_openai.c (Chat Completions), llm_anthropic.c,
 * llm_gemini.c, llm_ollama.c, llm_responses.c */
extern const struct oxi_llm_dialect oxi_dialect_openai, oxi_dialect_anthropic,
    oxi_dialect_gemini, oxi_dialect_ollama, oxi_dialect_responses;

struct oxi_llm_provider {
	const char *name;	/* prefix of model names: "openai" */
	const char *base;	/* default base URL */
	const char *keyenv;	/* variable holding the API key, or NULL */
	int needkey;		/* the default base requires the key */
	const struct oxi_llm_dialect *dialect;	/* its wire protocol */
	const char *baseenv;	/* a second base URL variable, or NULL */
};
/* the providers, ending with a NULL name */
extern const struct oxi_llm_provider oxi_llm_providers[];
/* a provider and model resolved from "provider/model" and the environment */
struct oxi_llm_target {
	const struct oxi_llm_provider *p;	/* the provider */
	const char *model;	/* the name after "provider/", borrowed */
	const char *key;	/* API key from the environment, or NULL */
	struct oxi_buf base;	/* base URL without a trailing '/' */
	char **hdrs;		/* extra "Name: value" lines, NULL-ended */
	int ptools;		/* OXI_<PROVIDER>_TOOLS=prompt */
};
/*
 * Resolves name (borrowed: t->model points into it): 0, or -1 with a
 * one-line reason in why and *nokey set when only the key is missing.
 * Reads OXI_<PROVIDER>_BASE_URL, the key variable, OXI_<PROVIDER>_HEADERS
 * and OXI_<PROVIDER>_TOOLS (PROVIDER upper case, '-' as '_').
 */
int oxi_llm_resolve(const char *name, struct oxi_llm_target *t, char *why,
    size_t len, int *nokey);
/* wipes the header values and frees t's memory */
void oxi_llm_target_free(struct oxi_llm_target *);
/* text of request id as it arrives */
typedef void (*oxi_llm_delta_fn)(void *arg, const char *id,
    const char *text, size_t len);
/* the end of request id: rec is an llm.response or an error (consumed) */
typedef void (*oxi_llm_done_fn)(void *arg, const char *id, jv rec);
struct oxi_llm_cfg {
	const char *model;	/* default "provider/model", or NULL */
	long connect_ms;	/* timeouts, 0 for http.c's defaults */
	long idle_ms;
	long total_ms;
	oxi_llm_delta_fn delta;	/* may be NULL */
	oxi_llm_done_fn done;	/* required */
	void *arg;		/* for both */
};
enum {
	OXI_LLM_STARTED = 0,	/* in flight: done will be called once */
	OXI_LLM_BAD = -1,	/* the record is malformed */
	OXI_LLM_FAIL = -2	/* not started: model, provider, key */
};
/*
 * Checks a "provider/model" name and the provider's key, starting
 * nothing: 0, or -1 with a one-line reason in why.
 */
int oxi_llm_check(const char *model, char *why, size_t len);
/*
 * Starts the llm.request rec (borrowed).  Returns OXI_LLM_STARTED, or
 * OXI_LLM_BAD / OXI_LLM_FAIL with an error record for the caller in *err.
 * cfg must live until done is called.
 */
int oxi_llm_start(struct oxi_http_loop *, const struct oxi_llm_cfg *,
    jv rec, jv *err);
/*
 * Makes a provider's message fit for an error record: one line, at most
 * 300 bytes, with key (if any) and anything like an API key masked.
 */
void oxi_llm_scrub(struct oxi_buf *out, const char *msg, size_t len,
    const char *key);
/*
 * A request in flight, as llm.c and embed.c keep it for its callbacks
 * and error records.
 */
struct oxi_llm_job {
	char *id;			/* request id */
	char *model;			/* "provider/model" as requested */
	char *key;			/* API key, to mask, or NULL */
	const char *prov;		/* provider name, for messages */
	const struct oxi_llm_cfg *cfg;	/* callbacks */
};
/*
 * Resolves the model of request rec (borrowed): its "model", else cfg's.
 * 0 with *model (borrowed from rec or cfg) and *t set, or -1 with an
 * error record in *err.
 */
int oxi_llm_job_target(jv rec, const struct oxi_llm_cfg *,
    struct oxi_llm_target *t, const char **model, jv *err);
/* copies id, model, and t's key and provider name; keeps cfg */
void oxi_llm_job_init(struct oxi_llm_job *, const char *id,
    const char *model, const struct oxi_llm_target *t,
    const struct oxi_llm_cfg *);
/* wipes the key and frees the copies (not the struct) */
void oxi_llm_job_free(struct oxi_llm_job *);
/*
 * An error record about the job: "provider: msg" with msg[0..len)
 * scrubbed, its "model", and "retry_after" when retry_after >= 0.
 */
jv oxi_llm_job_error(const struct oxi_llm_job *, const char *code,
    const char *msg, size_t len, int retry, long retry_after);
/* the error record of a transfer that ended without a 2xx reply */
jv oxi_llm_job_httperr(const struct oxi_llm_job *,
    const struct oxi_http_res *);
/*
 * Starts req (url, headers, data, done and arg set by the caller) with
 * the JSON text s (borrowed) as its body and the job's timeouts.
 * OXI_LLM_STARTED, or OXI_LLM_FAIL with an error record in *err.
 */
int oxi_llm_job_post(const struct oxi_llm_job *, struct oxi_http_loop *,
    struct oxi_http_req *req, jv s, jv *err);

/*
 * llm_reply.c: a reply as the dialects assemble it.  A thinking block is
 * the provider's own block, item or part, tagged "dialect": name, kept in
 * the message's "thinking" array and sent back (untagged) only to the
 * same dialect.
 */
struct oxi_llm_call {
	long index;		/* the wire's index or position */
	struct oxi_buf id;	/* call id, made up if empty */
	struct oxi_buf name;	/* tool name */
	struct oxi_buf args;	/* arguments, a JSON text */
	jv extra;		/* more keys for the call ("signature"), or null */
};
struct oxi_llm_reply {
	struct oxi_buf text;	/* the answer's text so far */
	struct oxi_llm_call *calls;	/* tool calls, in order */
	size_t ncalls;		/* calls used */
	size_t capcalls;	/* calls allocated */
	jv thinking;		/* thinking blocks, an array */
	double input, output, cache_read, cache_write, reasoning; /* usage */
	const char *stop;	/* "end" "tool_use" "length" "refusal", or NULL */
	int ended;		/* the terminal event came */
	int failed;		/* the reply failed: code, retry, err */
	const char *code;	/* error code for the error record */
	int retry;		/* the error is temporary */
	struct oxi_buf err;	/* its message */
	oxi_llm_text_fn delta;	/* text callback, or NULL */
	void *arg;		/* its argument */
};
void oxi_llm_reply_init(struct oxi_llm_reply *, oxi_llm_text_fn, void *);
void oxi_llm_reply_free(struct oxi_llm_reply *);
/* appends answer text and passes it to the callback */
void oxi_llm_reply_text(struct oxi_llm_reply *, const char *, size_t);
/* a new tool call / the last one with this index, or NULL */
struct oxi_llm_call *oxi_llm_reply_call(struct oxi_llm_reply *, long index);
struct oxi_llm_call *oxi_llm_reply_find(struct oxi_llm_reply *, long index);
/* the first failure sticks */
void oxi_llm_reply_fail(struct oxi_llm_reply *, const char *code, int retry,
    const char *fmt, ...) OXI_PRINTF(4, 5);
/* fails with a provider's error object or string (consumed), its code and
 * retryability from its type, code or status */
void oxi_llm_reply_perror(struct oxi_llm_reply *, jv err);
/* appends a thinking block (consumed), tagged with the dialect */
void oxi_llm_reply_think(struct oxi_llm_reply *, const char *dialect, jv);
/* the normalised usage object */
jv oxi_llm_reply_usage(const struct oxi_llm_reply *);
/* the result as a dialect's result() returns it */
jv oxi_llm_reply_result(struct oxi_llm_reply *, const char **code,
    int *retry);
/* the thinking blocks of message msg (borrowed) for dialect, untagged */
jv oxi_llm_thinking(jv msg, const char *dialect);
/*
 * A reply that is one JSON document or an event stream, told apart by
 * its first byte that is not white space (the readers of
 * llm_anthropic.c, llm_gemini.c and llm_responses.c keep one).
 */
enum { OXI_LLM_UNSEEN, OXI_LLM_SSE, OXI_LLM_JSON };
struct oxi_llm_wire {
	struct oxi_sse sse;	/* event stream parser */
	int mode;		/* OXI_LLM_UNSEEN, _SSE or _JSON */
	int eof;		/* the reply ended: flushing the last event */
	struct oxi_buf json;	/* a JSON reply, whole */
};
/* an empty wire whose events go to fn with arg */
void oxi_llm_wire_init(struct oxi_llm_wire *, oxi_sse_fn fn, void *arg);
void oxi_llm_wire_free(struct oxi_llm_wire *);
/*
 * Decides *mode, once, at the first byte of *p[0..*n) that is not white
 * space, skipping the white space before it: OXI_LLM_JSON if that byte
 * is one of json ("{" or "{["), else OXI_LLM_SSE.  Returns *mode, or 0
 * when no byte is left (*n is 0).
 */
int oxi_llm_sniff(int *mode, const char *json, const char **p, size_t *n);
/*
 * Reply bytes split anywhere, json as for oxi_llm_sniff: a JSON reply is
 * kept in w->json, an event stream goes to w->sse.  0, or -1 once r has
 * failed (an event over the size cap fails it as "bad_reply").
 */
int oxi_llm_wire_feed(struct oxi_llm_wire *, struct oxi_llm_reply *r,
    const char *json, const char *p, size_t n);
/* fails r for an event whose data is not JSON: "truncated" when the
 * stream ended inside it, else "bad_reply" */
void oxi_llm_wire_badevent(const struct oxi_llm_wire *,
    struct oxi_llm_reply *r);
/*
 * At the end of the reply, after its JSON (if any) was read: dispatches
 * the event the stream ended without its blank line (w->eof set first),
 * and fails r as "truncated" if no byte came.
 */
void oxi_llm_wire_end(struct oxi_llm_wire *, struct oxi_llm_reply *r);
/* pieces of request bodies: a jv argument is consumed, as the rule at
 * the top says, unless it is marked borrowed */
/* {"type":type,"text":text}, or {"text":text} when type is NULL */
jv oxi_llm_textpart(const char *type, jv text);
/* appends the text of message content c (borrowed): a string, or the
 * strings and "text" of the parts of an array */
void oxi_llm_content_cat(struct oxi_buf *, jv c);
/* the "args" of tool call tc (borrowed) as an object: a JSON text is
 * parsed, anything but an object becomes {} */
jv oxi_llm_call_args(jv tc);
/* a tool definition: t's "function" if that is an object (OpenAI's
 * shape), else t */
jv oxi_llm_tool_fn(jv t);
/* a tool's parameter schema v, or {"type":"object","properties":{}}
 * when v is not an object */
jv oxi_llm_params(jv v);
/*
 * o with the "name" and "description" of tool t (borrowed), tools[i] of
 * the request; an invalid jv with a message if t has no name
 */
jv oxi_llm_tool_head(jv o, jv t, int i);
/* the "messages" of request req (borrowed), a non-empty array; else an
 * invalid jv with a message */
jv oxi_llm_messages(jv req);
/* 0 if request req (borrowed) has "stream": false, else 1 */
int oxi_llm_stream(jv req);
/*
 * Appends {"role":role,key:items} to msgs, or items to the key array of
 * the last message if it has that role, so that consecutive messages of
 * one role merge.  Empty items add nothing.
 */
jv oxi_llm_push(jv msgs, const char *role, const char *key, jv items);

/*
 * llm_ptools.c: prompt-guided tools, for models without native tool
 * calling.  The request is rewritten: the tools are described in the
 * system prompt with the instruction to answer with
 * <tool_call>{"name":…,"arguments":{…}}</tool_call> blocks, earlier calls
 * become such blocks in assistant text, and tool results user text.  The
 * reader wraps the dialect's own: the blocks are cut out of the text
 * (text that may start one is held back until it is known) and become
 * tool calls.
 */
struct oxi_ptools;
/* the rewritten request (req borrowed), or an invalid jv with a message */
jv oxi_ptools_request(jv req);
struct oxi_ptools *oxi_ptools_new(const struct oxi_llm_dialect *,
    oxi_llm_text_fn, void *arg);
int oxi_ptools_feed(struct oxi_ptools *, const char *, size_t);
jv oxi_ptools_result(struct oxi_ptools *, const char **code, int *retry);
int oxi_ptools_complete(const struct oxi_ptools *);
void oxi_ptools_free(struct oxi_ptools *);

/* channel/: chat platforms; oxi-recv and oxi-send run one by name */
struct oxi_chan_opts {
	int notif;		/* -d: readiness fd, or -1 */
	size_t max;		/* -l: cap on an input line or record */
	const char *chat;	/* -c: chat id, or NULL for the default */
	const char *user;	/* -u: user name, or NULL for the default */
	int drafts;		/* -D: render drafts even off a terminal */
	int rcptfd;		/* -r: where receipts go, or -1 */
};
/*
 * A channel's receiver or sender: runs until end of input or SIGTERM.
 * Returns 0, or 1 if some input was rejected (each warned about and
 * dead-lettered), or -1 with errno set and *what saying what failed
 * ("unable to write to stdout"), for main() to die with.
 */
typedef int (*oxi_chan_fn)(const struct oxi_chan_opts *, const char **what);
/* the direction of a channel's function */
enum { OXI_CHAN_RECV, OXI_CHAN_SEND };
/* o with the defaults: no fds, maxline $OXI_MAXLINE or 1 MiB (dies 100
 * if $OXI_MAXLINE is bad) */
void oxi_chan_opts_init(struct oxi_chan_opts *o);
/*
 * The receiver (dir OXI_CHAN_RECV) or sender (OXI_CHAN_SEND) of the
 * channel called name.  Like oxi_fdarg, dies 100 if there is none:
 * "unknown channel 'name' (known: cli, ...)".
 */
oxi_chan_fn oxi_chan_find(const char *name, int dir);
/*
 * main() of oxi-recv and oxi-send after the options: runs the receiver
 * or sender of channel name with o and returns what it returns.  Dies
 * 100 on a bad maxline or an unknown channel, 111 ("unable to ...")
 * when the channel fails.
 */
int oxi_chan_run(const char *name, int dir, const struct oxi_chan_opts *o);
/* warns "source:line: why, record dead-lettered" about the record just
 * taken from in, and dead-letters its line */
void oxi_chan_reject(struct oxi_nd *in, const char *why);
/*
 * Writes {"v":1,"type":"receipt","ref":ref,"channel":channel,
 * "platform_id":pid,"ok":ok} to fd, with "error":error when error is
 * not NULL and pid null when NULL.  0 or -1 with errno.
 */
int oxi_chan_receipt(int fd, const char *channel, const char *ref,
    const char *pid, int ok, const char *error);
/*
 * Appends s[0..len) to b, safe to show on a terminal: C0 controls but
 * \n and \t in caret notation (ESC is "^["), DEL as "^?", C1 controls
 * as "^[" and their 7-bit form (CSI is "^[["), CR dropped.  s is UTF-8.
 */
void oxi_term_clean(struct oxi_buf *b, const char *s, size_t len);
/* channel/cli.c: the terminal, plain lines in and text out */
int oxi_cli_recv(const struct oxi_chan_opts *, const char **what);
int oxi_cli_send(const struct oxi_chan_opts *, const char **what);

/*
 * Tool sources (tool.c): tools that are not built in, such as plugins
 * and the tools of MCP servers.  oxi_tool_defs() appends each source's
 * definitions after the built-in ones; oxi_tool_run() hands a source the
 * calls of a name it has and no enabled built-in tool has.
 */
struct oxi_tool_src {
	void *arg;		/* for the three functions */
	/* 1 if name is one of its tools */
	int (*has)(void *arg, const char *name);
	/* appends its definitions to defs (consumed) and returns it */
	jv (*defs)(void *arg, jv defs);
	/* runs name as oxi_tool_run does (args borrowed): 0, or -1 for an
	 * error result; *taint must live until the next call */
	int (*run)(void *arg, const struct oxi_tool_ctx *, const char *name,
	    jv args, struct oxi_buf *out, const char **taint);
};
/* adds a source (kept, not copied): 0, or -1 (ENOSPC) past eight */
int oxi_tool_src_add(const struct oxi_tool_src *);

/* plugin.c: executables in the tool directories, run as tools */
/*
 * Describes each executable of dirs (colon-separated; NULL for
 * $OXI_TOOL_PATH, else $OXI_CONFIG_DIR/tools and OXI_SHAREDIR/tools) by
 * running "FILE --describe" in the sandbox, warns about each one skipped
 * (no valid description, a bad name, the name of a built-in tool), and
 * adds those described as a tool source.  wsdir is the workspace path,
 * the only place a plugin may write.  Returns the number of plugins.
 */
int oxi_plugin_load(const char *dirs, const char *wsdir);
/* a child of oxi-tool: a plugin or an MCP server */
struct oxi_child {
	pid_t pid;		/* leader of its own session, or -1 */
	int in, out, err;	/* our (non-blocking) ends of its stdin,
				 * stdout and stderr, or -1 */
};
struct oxi_child_cfg {
	const char *wsdir;	/* the workspace (absolute), or NULL */
	int net;		/* network allowed */
	int server;		/* long-lived: no CPU or memory rlimit */
	jv env;			/* {"NAME":"value"} added to the scrubbed
				 * environment, or null; borrowed */
	const char *const *ro;	/* more paths it may read, or NULL */
};
/* starts argv in the sandbox (oxi_sbx_spawn): 0, or -1 with a
 * one-line reason in why */
int oxi_child_start(struct oxi_child *, char *const argv[],
    const struct oxi_child_cfg *, char *why, size_t len);
/* closes our ends, gives it ms to exit, kills its process group and
 * reaps it: its exit code (oxi_wait_code), or -1 */
int oxi_child_end(struct oxi_child *, long ms);
/*
 * Runs argv to its end with input on its stdin, keeping the first keep
 * bytes of its stdout in out (*total counts them all) and the start of
 * its stderr in err.  Returns its exit code; -1 (not started, reason in
 * why) or -2 (killed: timed out after ms, or too much output).
 */
int oxi_child_run(const struct oxi_child_cfg *, char *const argv[],
    const char *input, size_t inlen, long ms, size_t keep,
    struct oxi_buf *out, size_t *total, struct oxi_buf *err, char *why,
    size_t len);

/* mcp.c: MCP servers over stdio, their tools named server__tool */
/*
 * Reads the configuration (path, or $OXI_MCP_CONFIG, else mcp.json in
 * the configuration directory, which may be missing), starts each server
 * in the sandbox, agrees a protocol revision, lists its tools and adds
 * them as a tool source; a server that fails is warned about and left
 * out.  Returns the number of servers up, or -1 with a one-line reason
 * in why for a configuration that cannot be used.
 */
int oxi_mcp_load(const char *path, const char *wsdir, char *why,
    size_t len);
/* stops every server: closes its stdin, then SIGTERM, then SIGKILL */
void oxi_mcp_stop(void);

/* mcpserve.c: oxi's tools served to an MCP client over stdio */
/*
 * Answers JSON-RPC requests read from fd in on fd out until in ends or
 * SIGTERM (set up by the caller): initialize, server/discover, ping,
 * tools/list and tools/call, with the tools of oxi_tool_defs().  Lines
 * longer than maxline are refused.  0, or -1 with errno on an I/O error.
 */
int oxi_mcp_serve(const struct oxi_tool_ctx *, int in, int out,
    size_t maxline);

/*
 * sandbox.c: commands run confined, for the shell tool, plugins and MCP
 * servers.  The mechanism is chosen once per process: bubblewrap when
 * a probe of it works, else Landlock + seccomp + whatever namespaces
 * the kernel grants, else none, and then nothing runs unless unsafe mode
 * is on (-U or OXI_SANDBOX=unsafe), which runs unconfined with a warning
 * per call.  $OXI_SANDBOX picks: auto (default), bwrap, landlock, unsafe,
 * or none-available (a test switch: no mechanism works).  In every mode
 * the child gets a new session and process group, the rlimits, the
 * scrubbed environment, stdin/stdout/stderr as asked, no other fd.
 */
struct oxi_sbx {
	const char *workspace;	/* absolute, bound read-write, or NULL */
	const char *cwd;	/* absolute start directory; NULL: workspace */
	int net;		/* 1: the network is granted */
	long cpu_s;		/* RLIMIT_CPU seconds; 0: 60, -1: none */
	long mem_mb;		/* RLIMIT_AS MiB; 0: 512, -1: none */
	long nproc;		/* processes inside; 0: 64, -1: none */
	long nofile;		/* RLIMIT_NOFILE; 0: 32, -1: none */
	long fsize_mb;		/* RLIMIT_FSIZE MiB; 0: 64, -1: none */
	long timeout_ms;	/* wall clock of oxi_sbx_run; 0: 30 s */
	const char *const *env;	/* extra "NAME=value", NULL-terminated */
	const char *const *ro;	/* extra read-only paths (plugin dirs) */
};
#define OXI_SBX_INIT	{ NULL, NULL, 0, 0, 0, 0, 0, 0, 0, NULL, NULL }
struct oxi_sbx_res {
	int code;		/* exit code as oxi_wait_code; 137 if killed */
	int timed_out;		/* killed by the wall clock */
	size_t total;		/* output bytes made; out holds cap at most */
};
extern int oxi_sbx_unsafe;	/* -U: run unconfined when nothing works */
/* "bwrap", "landlock", "unsafe" (none, unsafe mode on) or "none" */
const char *oxi_sbx_mechanism(void);
/*
 * Starts argv (argv[0] absolute, or looked up in the sandbox's PATH
 * /usr/local/bin:/usr/bin:/bin) in the sandbox.  Each of in, out, err
 * gets our end of a new pipe (close-on-exec) to the child's stdin,
 * stdout, stderr; NULL gives /dev/null, except err NULL keeps our stderr,
 * and err == out sends stderr into the stdout pipe.  The child leads its
 * own process group.  Returns its pid, or -1 with a one-line reason in
 * why (no mechanism works and unsafe mode is off, fork failed, ...).
 * The timeout of sbx is not enforced here: oxi_sbx_kill the child.
 */
pid_t oxi_sbx_spawn(const struct oxi_sbx *, char *const argv[], int *in,
    int *out, int *err, char *why, size_t n);
/* waits for a child of oxi_sbx_spawn; its exit code, or -1 */
int oxi_sbx_wait(pid_t);
/* SIGKILL to the child and everything it started, waits until none is
 * left, reaps it: its exit code (137), or -1 */
int oxi_sbx_kill(pid_t);
/* the caller reaped pid itself (waitpid): frees what the library kept */
void oxi_sbx_reaped(pid_t);
/*
 * Runs argv to completion with in[0..inlen) on its stdin (NULL: none),
 * stdout and stderr together into out (appended, at most cap bytes; the
 * rest is read and counted in res->total), killed with everything it
 * started after sbx->timeout_ms.  0 with res filled, or -1 with a
 * reason in why if it could not start.
 */
int oxi_sbx_run(const struct oxi_sbx *, char *const argv[], const char *in,
    size_t inlen, struct oxi_buf *out, size_t cap, struct oxi_sbx_res *res,
    char *why, size_t n);

/* ssrf.c: URLs, the address policy of the web tools, guarded HTTP */
struct sockaddr;
struct sockaddr_storage;
struct oxi_url {
	char scheme[8];		/* "http" or "https" */
	char host[256];		/* lower case, no trailing dot; an address
				 * literal in canonical form, IPv6 bare */
	int port;		/* given, or the scheme's */
	int literal;		/* 4 or 6 for an address literal, else 0 */
	char *path;		/* path and query from "/", no fragment */
	char *url;		/* the canonical URL built from the above */
	char origin[300];	/* scheme://host[:port] */
};
/*
 * Parses an absolute http or https URL the strict way: no user info
 * ("http://a@b"), no backslash, percent or non-ASCII byte in the host,
 * a host that ends in a number must be an IPv4 address in any of the
 * inet_aton(3) forms (2130706433, 0177.0.0.1, 0x7f.1), which is
 * normalised to dotted quad.  Spaces and non-ASCII bytes of the path are
 * percent-encoded, the fragment dropped.  0, or -1 with a reason in why.
 * Free with oxi_url_free.
 */
int oxi_url_parse(struct oxi_url *, const char *s, char *why, size_t len);
void oxi_url_free(struct oxi_url *);
/* an IPv4 address in an inet_aton form (1 to 4 parts, each decimal,
 * octal or hex) in host order: 1, or 0 if s is not one */
int oxi_ssrf_aton(const char *s, unsigned long *out);
/*
 * The policy: 0 if the address is public, else -1 with the kind of
 * address in why ("a loopback address").  v4 is in host order; v6 is 16
 * bytes; IPv4-mapped and NAT64 64:ff9b::/96 are judged by the IPv4
 * address they hold.
 */
int oxi_ssrf_v4(unsigned long v4, char *why, size_t len);
int oxi_ssrf_v6(const unsigned char *v6, char *why, size_t len);
int oxi_ssrf_addr(const struct sockaddr *, char *why, size_t len);
/*
 * The test switch $OXI_SSRF_ALLOW: 1 if address sa with port is listed
 * there ("127.0.0.1:PORT" entries only), 0 if not, -1 if the variable
 * holds anything else.
 */
int oxi_ssrf_allowed(const struct sockaddr *sa, int port);
/* the resolver, replaceable by tests: up to max addresses of host into
 * out (port 0), returning how many, or -1 with a reason in why */
extern int (*oxi_ssrf_resolve)(const char *host,
    struct sockaddr_storage *out, int max, char *why, size_t len);
/*
 * Resolves u once and checks every address: 0 with the first one (and
 * u's port) in *pin, the address to connect to, or -1 with why.
 */
int oxi_ssrf_pin(const struct oxi_url *, struct sockaddr_storage *pin,
    char *why, size_t len);
/* an HTTP request of a tool, made with its own curl handle, blocking */
struct oxi_web_req {
	const char *method;	/* NULL: GET, or POST with a body */
	const char *url;	/* absolute http or https URL */
	const char *const *headers;	/* "Name: value", NULL-terminated */
	const char *body;	/* request body, or NULL */
	size_t bodylen;		/* its length */
	size_t max;		/* body bytes kept; more cut the transfer */
	long total_ms;		/* for the request and its redirects */
	int redirects;		/* how many to follow, each checked again */
	int guard;		/* apply the address policy and pin */
};
struct oxi_web_res {
	long status;		/* HTTP status of the last reply */
	struct oxi_buf url;	/* the URL that gave the last reply */
	struct oxi_buf origin;	/* its origin, scheme://host[:port] */
	struct oxi_buf head;	/* its headers, "Name: value\n" each */
	struct oxi_buf ctype;	/* its Content-Type, or empty */
	struct oxi_buf body;	/* its body, max bytes at most */
	int cut;		/* the body went over max and was cut */
	int redirected;		/* redirects followed */
	char err[256];		/* one line, on failure */
};
/*
 * Makes the request: redirects (301, 302, 303, 307, 308) are followed
 * by hand, each target parsed and (guard) resolved, checked and pinned
 * again; caller headers are dropped when the origin changes.  No proxy
 * from the environment is used.  0 with any reply in res, or -1 with
 * res->err (a refused address, a timeout, a network error).  Free res
 * with oxi_web_res_free, whatever the outcome.
 */
int oxi_web_request(const struct oxi_web_req *, struct oxi_web_res *);
void oxi_web_res_free(struct oxi_web_res *);

/* html.c: HTML as readable text */
/*
 * Appends the text of an HTML document to out: script, style, nav,
 * header, footer, aside, form and other non-content elements dropped,
 * headings as "#" lines, paragraphs and blocks separated by blank lines,
 * list items as "- " or "N. ", table cells separated by " | ", pre
 * blocks kept as they are, entities decoded, white space collapsed,
 * links as "text [N]" followed by a "Links:" list of their URLs,
 * resolved against base (may be NULL).  Invalid UTF-8 becomes U+FFFD.
 * *title (may be NULL) gets a copy of the title (free it), or NULL.
 */
void oxi_html_text(const char *html, size_t len, const char *base,
    struct oxi_buf *out, char **title);
/* appends s with character references decoded (&amp; &#233; &#x1F600;) */
void oxi_html_unescape(struct oxi_buf *out, const char *s, size_t len);

/* toolmw.c: what every tool call goes through */
enum {
	OXI_TOOL_SETUP = 4	/* listed only when configured (oxi_tool_ready) */
};
/*
 * Runs tool name with args (consumed) through the middleware: a deadline
 * (oxi_tool_timeout) with a watchdog, the cache for OXI_TOOL_CACHE tools,
 * the cap of ctx->maxout on every result, and with -v one info line
 * "call 'ID' NAME ok|error MS ms BYTES bytes [cached]".  id may be NULL.
 * Returns as oxi_tool_run, which calls it with a NULL id.
 */
int oxi_tool_call(const struct oxi_tool_ctx *, const char *id,
    const char *name, jv args, struct oxi_buf *out, const char **taint);
/* runs a tool without the middleware (tool.c) */
int oxi_tool_dispatch(const struct oxi_tool_ctx *, const char *name,
    jv args, struct oxi_buf *out, const char **taint);
/* the time limit of tool name in ms: $OXI_TOOL_TIMEOUT or its default */
long oxi_tool_timeout(const char *name);
/* ms left for the call running now, at least 1; dflt outside a call */
long oxi_tool_left(long dflt);
/* 1 once the call running now is past its deadline */
int oxi_tool_expired(void);
/* a tool that knows its taint only when it runs ("web:https://a.org")
 * sets it here; NULL clears it.  The copy lives until the next call. */
void oxi_tool_settaint(const char *);
/* the taint set by the running tool, or dflt */
const char *oxi_tool_gettaint(const char *dflt);
/* 1 if t is on and, for OXI_TOOL_SETUP tools, configured */
int oxi_tool_ready(const struct oxi_tool *);
/* empties the result cache */
void oxi_tool_cache_clear(void);

/* tool_web.c: the web tools */
/* the search backend configured: "brave", "searxng", "tavily", or NULL */
const char *oxi_websearch_backend(void);

/*
 * llm_ctl.c: staying up around oxi_llm_start and oxi_embed_start:
 * retries with backoff, circuit breakers per provider, failover chains
 * ("anthropic/x,openai/y"), usage and cost on every answer, budgets, and
 * record and replay.  See oxi-llm(1).
 */
struct oxi_breaker {
	int state;		/* OXI_BRK_CLOSED, _OPEN or _HALF */
	int fails;		/* failures in a row */
	int probing;		/* half-open: the probe is in flight */
	long long until;	/* open: monotonic ms when a probe may go */
};
enum { OXI_BRK_CLOSED, OXI_BRK_OPEN, OXI_BRK_HALF };
/* 0: refuse (open, or a probe in flight); 1: go; 2: go as the probe */
int oxi_breaker_allow(struct oxi_breaker *, long long now);
/* notes an outcome: ok closes; a failure counts, and opens it for cool
 * ms at max failures in a row or when the probe failed (max 0: never) */
void oxi_breaker_note(struct oxi_breaker *, int ok, int max, long cool,
    long long now);
/* ms to wait before retry n (1 for the first): base doubled n-1 times,
 * at most cap, jittered by rnd within its upper half; never less than
 * retry_after ms (< 0: none) */
long oxi_llm_backoff(int n, long base, long cap, long retry_after,
    unsigned long rnd);
/* splits a chain "a/x, b/y" at commas, blanks trimmed and empty parts
 * dropped: the count, and a NULL-ended array in *out */
int oxi_llm_chain(const char *, char ***out);
void oxi_llm_chain_free(char **, int n);

struct oxi_llmctl;
struct oxi_llmctl_cfg {
	const char *model;	/* default model or chain, or NULL */
	long connect_ms;	/* timeouts, 0 for http.c's defaults */
	long idle_ms;
	long total_ms;
	int retries;		/* retries per model after the first try */
	long base_ms;		/* first backoff */
	long cap_ms;		/* longest backoff (Retry-After may be more) */
	long window_ms;		/* no wait ends later than this after the
				 * call started */
	int brk_max;		/* failures in a row that open a breaker;
				 * 0: no breakers */
	long brk_ms;		/* how long it stays open */
	double budget[3];	/* USD caps per UTC day, UTC month and
				 * session; < 0: none */
	const char *ledger;	/* spend database; NULL: $OXI_HOME/llm.db */
	const char *record;	/* file to append exchanges to, or NULL */
	const char *replay;	/* file to answer from, or NULL */
	oxi_llm_delta_fn delta;	/* may be NULL */
	oxi_llm_done_fn done;	/* required */
	void *arg;		/* for both */
};
/* the defaults: 2 retries, 0.5 s, 8 s, 60 s, breakers at 5 for 30 s */
void oxi_llmctl_defaults(struct oxi_llmctl_cfg *);
/* loads prices, the replay file, opens the recording: NULL with why */
struct oxi_llmctl *oxi_llmctl_new(struct oxi_http_loop *,
    const struct oxi_llmctl_cfg *, char *why, size_t len);
void oxi_llmctl_free(struct oxi_llmctl *);
/*
 * Starts an llm.request or embed.request (borrowed) as oxi_llm_start
 * does: OXI_LLM_STARTED (done will be called once, perhaps already
 * called for a replayed answer), or OXI_LLM_BAD / OXI_LLM_FAIL with an
 * error record in *err ("budget", "replay_miss", "circuit_open", ...).
 */
int oxi_llmctl_start(struct oxi_llmctl *, jv rec, jv *err);
/* calls in flight or waiting for a retry */
int oxi_llmctl_running(const struct oxi_llmctl *);
/* ms until a retry is due (a poll timeout), or -1 */
int oxi_llmctl_timeout(const struct oxi_llmctl *);
/* starts the retries that are due; call after each oxi_http_poll */
void oxi_llmctl_tick(struct oxi_llmctl *);
/* SIGTERM: no more attempts; calls waiting end with their last error */
void oxi_llmctl_drain(struct oxi_llmctl *);
/* opens a connection to the base URL of each model of the chain (GET
 * .../models); the number of warm-up transfers running */
int oxi_llmctl_warm(struct oxi_llmctl *, const char *models);
int oxi_llmctl_warming(const struct oxi_llmctl *);
const struct oxi_prices *oxi_llmctl_prices(const struct oxi_llmctl *);

/* llm_cost.c: prices of models, and the spend ledger */
struct oxi_price {
	double input;		/* USD per million input tokens */
	double output;		/* per million output tokens */
	double cache_read;	/* per million tokens read from a cache */
	double cache_write;	/* per million tokens written to a cache */
};
struct oxi_prices;
/* the data directory: $OXI_SHARE_DIR, else ../share/oxi beside the
 * executable if it exists, else OXI_SHAREDIR; a static string */
const char *oxi_share_dir(void);
/* $OXI_PRICES, else the shipped prices.json with the configuration
 * directory's prices.json over it; NULL with why for a bad file */
struct oxi_prices *oxi_prices_load(char *why, size_t len);
struct oxi_prices *oxi_prices_new(void);
/* adds the entries of a JSON text, replacing those of the same key */
int oxi_prices_add(struct oxi_prices *, const char *text, size_t len,
    char *why, size_t wlen);
/* the entry of model: its own, else the longest glob matching it */
const struct oxi_price *oxi_prices_find(const struct oxi_prices *,
    const char *model);
/* key i of the table, or NULL past the end */
const char *oxi_prices_key(const struct oxi_prices *, size_t i);
/* the cost in USD of usage (consumed) for model, or null if unpriced;
 * "input" counts cache reads and writes, priced apart */
jv oxi_prices_cost(const struct oxi_prices *, const char *model, jv usage);
void oxi_prices_free(struct oxi_prices *);
struct oxi_ledger;
struct oxi_ledger *oxi_ledger_open(const char *path, const char **err);
/* books an answer's usage (consumed) and cost: 0, or -1 with *err */
int oxi_ledger_add(struct oxi_ledger *, const char *session,
    const char *id, const char *model, jv usage, double cost,
    const char **err);
/* USD spent this UTC day, this UTC month, and in session (0 if NULL) */
int oxi_ledger_spent(struct oxi_ledger *, const char *session,
    double out[3], const char **err);
void oxi_ledger_close(struct oxi_ledger *);

/* llm_replay.c: recorded answers (oxi-llm --record) played back */
#define OXI_REPLAY_KEYLEN	16
struct oxi_replay;
/* the key of a request: a hash of its type, model, messages, tools and
 * input, with sorted keys; hex in out */
void oxi_replay_key(jv req, const char *model,
    char out[OXI_REPLAY_KEYLEN + 1]);
struct oxi_replay *oxi_replay_load(const char *path, char *why,
    size_t len);
/* answers recorded */
size_t oxi_replay_count(const struct oxi_replay *);
/* the records answering the next request with this key (deltas, then
 * the final record), or an invalid jv */
jv oxi_replay_find(struct oxi_replay *, const char *key);
void oxi_replay_free(struct oxi_replay *);

/* embed.c: embed.request records, as oxi_llm_start does llm.request */
/* 0, or -1 with a static reason */
int oxi_embed_check(jv rec, const char **why);
int oxi_embed_start(struct oxi_http_loop *, const struct oxi_llm_cfg *,
    jv rec, jv *err);

/*
 * shpolicy.c: the shell tool's command line and its policy.  A command
 * line is split into words as sh would split it, with quotes and
 * backslashes, but nothing a shell would do beyond that (pipes, lists,
 * redirections, substitutions, expansions, globs, comments) is accepted.
 * The policy then looks at the words: the command is found in the
 * system directories only, by its plain ASCII name, and its arguments are
 * read as its own option parser would read them.
 */
enum {
	OXI_SH_ALLOW = 0,	/* runs */
	OXI_SH_ASK = 1,		/* held: runs once approved, exactly */
	OXI_SH_DENY = 2		/* refused; no approval makes it run */
};
struct oxi_sh {
	char **argv;		/* the words, NULL-terminated; argv[0] the name */
	int argc;		/* words */
	char *exe;		/* where argv[0] was found: /usr/bin/ls */
	char *real;		/* that path with every link resolved */
	int verdict;		/* OXI_SH_* */
	char why[320];		/* one line: why ASK or DENY */
};
#define OXI_SH_INIT	{ NULL, 0, NULL, NULL, OXI_SH_ALLOW, "" }
/* splits line into sh->argv: 0, or -1 (verdict DENY, reason in why) */
int oxi_sh_parse(struct oxi_sh *, const char *line, size_t len);
/*
 * Applies the policy to sh->argv: finds exe and real, and may rewrite
 * the words (sed gets --sandbox).  The mode is $OXI_SHELL_POLICY,
 * "allowlist" (the default: what is not known safe is held) or
 * "denylist" (what is not known risky runs); $OXI_SHELL_ALLOW and
 * $OXI_SHELL_DENY add names.  Returns the verdict (also in sh).
 */
int oxi_sh_check(struct oxi_sh *);
/*
 * The approval line of a checked command run in cwd (relative to the
 * workspace, "." for its top): compact JSON with sorted keys,
 * {"argv":[...],"bin":real,"cwd":cwd,"env":[names passed by
 * $OXI_SANDBOX_ENV]}.  Caller frees.
 */
char *oxi_sh_approval(const struct oxi_sh *, const char *cwd);
/* the approval store: $OXI_SHELL_APPROVED, else shell-approved in the
 * configuration directory; static, or NULL */
const char *oxi_sh_store(void);
/*
 * 1 if line is in the store, or in its one-shot companion (the store's
 * name plus "-once", whose matching line is then removed), else 0.
 * A store inside the workspace ws (absolute, may be NULL) is ignored.
 */
int oxi_sh_approved(const char *line, const char *ws);
void oxi_sh_free(struct oxi_sh *);

#endif
