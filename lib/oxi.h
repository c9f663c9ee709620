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

/* opt.c: options and settings */
/*
 * Handles -h, --help and --version in argv[1] before getopt: prints the
 * usage text (which may hold several lines, each a synopsis) and a pointer
 * to the man page to stdout, and exits 0.  Returns otherwise.
 */
void oxi_std_opts(int, char **, const char *usage);
/* prints "usage: <usage>" to stderr and exits 100 */
OXI_NORETURN void oxi_usage(const char *usage);
/* parses a file descriptor number for -d and friends; dies 100 if bad */
int oxi_fdarg(const char *);
/* parses a non-negative size with optional k/m suffix; dies 100 if bad */
size_t oxi_sizearg(const char *, const char *what);
/* $name in seconds (decimal, fractions allowed, > 0, <= 86400) as
 * milliseconds in *ms; dflt if unset or empty.  0, or -1 (and *ms = dflt)
 * if the value is bad: the caller chooses to die or to warn. */
int oxi_env_ms(const char *name, long dflt, long *ms);
/* $name as a decimal count from 0 to max in *v; dflt if unset or empty.
 * 0, or -1 (and *v = dflt) if the value is bad */
int oxi_env_int(const char *name, long dflt, long max, long *v);

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
#define OXI_BUF_INIT	{ .s = NULL, .len = 0, .cap = 0 }
void oxi_buf_grow(struct oxi_buf *, size_t extra);
void oxi_buf_cat(struct oxi_buf *, const void *, size_t);
void oxi_buf_cats(struct oxi_buf *, const char *);
void oxi_buf_putc(struct oxi_buf *, int);
void oxi_buf_printf(struct oxi_buf *, const char *, ...) OXI_PRINTF(2, 3);
void oxi_buf_reset(struct oxi_buf *);	/* len = 0, keeps memory */
void oxi_buf_free(struct oxi_buf *);
void oxi_buf_consume(struct oxi_buf *, size_t n);	/* drops n bytes */

/* io.c: file descriptors */
/* write all n bytes, retrying on EINTR/EAGAIN; 0 or -1 with errno */
int oxi_writeall(int fd, const void *, size_t n);
int oxi_fd_cloexec(int fd);
int oxi_fd_nonblock(int fd, int on);
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
/* the approval store: $OXI_SHELL_APPROVED or shell-approved in the config
 * dir; guard: $OXI_GUARD_APPROVED or guard-approved; static, or NULL */
const char *oxi_approved_path(int guard);
/* getenv that treats "" as unset */
const char *oxi_getenv(const char *);

void oxi_notify(int fd);	/* s6 readiness: "\n" to fd >= 0, closed */

/* sig.c: signals as flags plus a self-pipe for poll loops */
extern volatile sig_atomic_t oxi_sig_term;	/* SIGTERM or SIGINT seen */
extern volatile sig_atomic_t oxi_sig_hup;	/* SIGHUP seen */
extern volatile sig_atomic_t oxi_sig_chld;	/* SIGCHLD seen */
enum {
	OXI_SIG_TERM = 1,	/* catch SIGTERM, and SIGINT if not ignored */
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
	struct oxi_ho *ho;	/* the hand-off: oxi_nd_peek, or NULL */
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
/* the record just taken (in->line), byte for byte, to stdout; dies 111
 * if downstream is gone */
void oxi_nd_pass(const struct oxi_nd *);
/*
 * The hand-off, peek, commit, consume (oxi(7)): from now on in->fd is
 * read without taking its bytes off it (tee(2) on a pipe or FIFO, both
 * grown to hold a record; MSG_PEEK on a socket; nothing changes on a
 * file).  oxi_nd_consume takes the bytes of the records taken so far off
 * the input: call it once they are committed or answered, and before
 * waiting for input again.  0, or -1 with errno.
 */
int oxi_nd_peek(struct oxi_nd *);
int oxi_nd_consume(struct oxi_nd *);
/* a stage.up record to stdout if it is a named FIFO: peers resend */
void oxi_nd_hello(void);
/*
 * A good record of the wrong shape, the one just taken: warns
 * "source:N: why, record dead-lettered" and writes its dead letter
 * (through oxi_deadletter_filter).  The caller sets its exit status.
 */
void oxi_nd_reject(struct oxi_nd *, const char *why);
/*
 * Appends a dead-letter record for a bad line: to $OXI_DEADLETTER if set,
 * else deadletter.ndjson in the state directory.  Never fails loudly:
 * a failure to write it is one more warning.
 */
void oxi_deadletter(const char *source, unsigned long lineno,
    const char *reason, const char *data, size_t len);
/*
 * If set, every dead letter's data passes through it first: it writes a
 * cleaned copy of data[0..len) into out and returns non-zero, or returns
 * 0 to keep the data: so that no dead letter carries a secret.
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
/* {"v":1,"type":type} with the routing keys "channel", "account", "chat"
 * and "thread" of in (borrowed) that in has, for a record answering it */
jv oxi_msg_reply(jv in, const char *type);
/* writes {"v":1,"type":"receipt","ref","channel","in_reply_to":inreply,
 * "platform_id":pid,"ok"} to fd, "error" if error is not NULL, and pid or
 * inreply null when NULL.  0 or -1 with errno. */
int oxi_msg_receipt(int fd, const char *channel, const char *ref,
    const char *inreply, const char *pid, int ok, const char *error);

/* json.c: accessors for JSON values; the exception to the rule at the
 * top, they borrow their jv argument (a jv they return is the caller's) */
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
/*
 * 0 if s[0..n) is exactly one JSON text (RFC 8259: one value, blanks
 * around it, nesting at most OXI_JSON_DEPTH), else -1 with *why, a static
 * phrase that never quotes the text.  libjq 1.6 leaks on some invalid
 * texts (two values with no separator: {"a" "b"}), so every text from
 * outside is checked here before jq sees it.
 */
#define OXI_JSON_DEPTH	256
int oxi_json_check(const char *s, size_t n, const char **why);
/* jv_parse_sized behind oxi_json_check: the value, or an invalid jv
 * whose message says why (without quoting the text) */
jv oxi_json_parse(const char *s, size_t n);
/* appends v (borrowed) to b as jv_dump_string(v, 0) writes it, faster */
void oxi_json_dump(struct oxi_buf *b, jv v);

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
/* a child's stdin, stdout and stderr as pipes (close-on-exec), for
 * oxi_spawn and the sandbox; MERGE: stderr into the stdout pipe */
enum { OXI_PIPE_IN = 1, OXI_PIPE_OUT = 2, OXI_PIPE_ERR = 4,
	OXI_PIPE_MERGE = 8 };
struct oxi_pipes { int in[2], out[2], err[2], flags; };	/* -1: no pipe */
int oxi_pipes_open(struct oxi_pipes *, int flags);	/* 0, or -1: none */
int oxi_pipes_dup(const struct oxi_pipes *, const int nul[3]);	/* child */
void oxi_pipes_parent(struct oxi_pipes *, int *in, int *out, int *err);
void oxi_pipes_close(struct oxi_pipes *);
pid_t oxi_fork(int all);	/* signals blocked across; child: defaults */
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
#define OXI_COPROC_INIT	{ .pid = -1, .in = -1, .outq = OXI_BUF_INIT }
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

/* mem.c: memory that held secrets, and UTF-8 */
/* zeroes n bytes of p in a way the compiler cannot drop */
void oxi_wipe(void *p, size_t n);
#define OXI_UTF8_NONUL	1	/* a NUL byte makes the text invalid */
#define OXI_UTF8_TAIL	2	/* it may end inside a sequence (text cut) */
/* the length (1 to 4) of the well-formed UTF-8 sequence at s[0..n), or
 * 0: an overlong, a surrogate, past U+10FFFF, a stray or missing
 * continuation byte, or n == 0.  A NUL is a sequence of one byte. */
size_t oxi_utf8_seq(const char *s, size_t n);
/* 1 if s[0..n) is well-formed UTF-8 under flags (OXI_UTF8_*), else 0 */
int oxi_utf8_valid(const char *s, size_t n, int flags);
/* the largest m <= max (len itself when len <= max) such that s[0..m)
 * does not end inside a UTF-8 sequence */
size_t oxi_utf8_cut(const char *s, size_t len, size_t max);

/* stage.c: the record loop of a filter stage */
struct oxi_stage {
	struct oxi_nd in;	/* stdin as records */
	int status;		/* OXI_EX_OK, or OXI_EX_FALSE once a record
				 * was rejected */
	void (*record)(struct oxi_stage *, jv rec);	/* consumes rec */
	void (*hup)(struct oxi_stage *);	/* SIGHUP: reload, or NULL to
						 * ignore */
	void *arg;		/* for the callbacks */
};
/*
 * stdin, maxline (0: $OXI_MAXLINE or 1 MiB), TERM and HUP caught, SIGPIPE
 * ignored if nopipe; dies 111 if the signals cannot be set up.  Set
 * record (and hup, arg) afterwards.
 */
void oxi_stage_init(struct oxi_stage *, size_t maxline, int nopipe);
/*
 * Readiness on notif, then records until EOF or SIGTERM (what was read
 * is finished; oxi_sig_term tells which): the exit status.  Dies 111 if
 * stdin cannot be read.
 */
int oxi_stage_run(struct oxi_stage *, int notif);
/* the record just taken, byte for byte, to stdout; dies 111 if stdout is
 * gone */
void oxi_stage_pass(const struct oxi_stage *);
/* "stdin:N: why, record dead-lettered", the dead letter, status 1 */
void oxi_stage_reject(struct oxi_stage *, const char *why);

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

#endif
