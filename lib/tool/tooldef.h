/*
 * tooldef.h - the tool wing's contract: what a tool is, what one call
 * gives it, the helpers its run() uses, the tables of the families,
 * tool sources, the children of oxi-tool and the shell policy.  Included
 * by lib/tool/ and tests/unit/ only; bin/oxi-tool.c sees tool/tool.h.
 *
 * A tool family is one file exporting one table, oxi_tools_<family>[];
 * registry.c lists the tables.  A tool's run() works inside the
 * workspace (ws.c), writes its content or its error message into
 * call->out, and never prints or exits: any problem, from a wrong
 * argument to a refused path, becomes an error result that the model
 * can read and act on.
 */
#ifndef OXI_TOOLDEF_H
#define OXI_TOOLDEF_H

#include "oxi.h"
#include "tool/tool.h"

/* ws.c */
/*
 * openat(2) of path relative to the workspace fd ws, never resolving
 * outside it (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, or where
 * the kernel lacks openat2 a walk by components that refuses ".." and
 * every symlink).  O_CLOEXEC | O_NOCTTY are added.  -1 with errno: EXDEV
 * for an absolute path or one that leads outside, ELOOP for a symlink
 * the walk refuses.
 */
int oxi_wsp_openat(int ws, const char *path, int flags, mode_t mode);
/* opens directory path under ws, making missing ones when mk: fd or -1 */
int oxi_wsp_opendir(int ws, const char *path, int mk);

#define OXI_TOOL_TAINT	512	/* a taint label's bytes, NUL included */

/* one call, as a tool sees it */
struct oxi_tool_call {
	const struct oxi_tool_ctx *ctx;	/* workspace fd, output cap */
	const char *name;	/* the tool called */
	jv args;		/* borrowed; checked against the tool's keys */
	struct oxi_buf *out;	/* content, or the error message */
	long long deadline;	/* monotonic ms; 0 outside the middleware */
	long limit;		/* the time limit it was given, ms */
	char taint[OXI_TOOL_TAINT];	/* origin of the content, when run()
					 * learns it; "" if not */
};

/* a built-in tool; tables of them end with a NULL name */
struct oxi_tool {
	const char *name;	/* as the model calls it */
	const char *desc;	/* what the model is told it does */
	const char *params;	/* JSON Schema of its arguments */
	const char *keys;	/* its argument names, space-separated */
	const char *taint;	/* static origin of its content, or NULL */
	long timeout_ms;	/* its time limit; 0: ten minutes (shell) */
	int flags;		/* OXI_TOOL_* */
	int (*ready)(void);	/* configured? NULL: always */
	/* runs it: content or an error message in call->out; 0, or -1 for
	 * an error result */
	int (*run)(struct oxi_tool_call *);
};
enum {
	OXI_TOOL_OFF = 1,	/* off unless named in $OXI_TOOLS_ON */
	OXI_TOOL_CACHE = 2,	/* results may be cached (same args, same
				 * answer) */
	OXI_TOOL_SANDBOX = 4	/* runs children in the sandbox: its
				 * mechanism is chosen before a call forks;
				 * a call asking for the network (argument
				 * network) waits for the owner: its
				 * definition says so ("x-oxi") */
};
/* the families: fs.c, find.c, shell.c, web.c, search.c */
extern const struct oxi_tool oxi_tools_fs[], oxi_tools_find[],
    oxi_tools_shell[], oxi_tools_web[], oxi_tools_search[];

/*
 * Tool sources (registry.c): tools that are not built in, such as plugins
 * and the tools of MCP servers.  oxi_tool_defs() appends each source's
 * definitions after the built-in ones; a source gets the calls of a name
 * it has and no enabled built-in tool has.
 */
struct oxi_tool_src {
	void *arg;		/* for the three functions */
	/* 1 if name is one of its tools */
	int (*has)(void *arg, const char *name);
	/* appends its definitions to defs (consumed) and returns it */
	jv (*defs)(void *arg, jv defs);
	/* runs call->name as a tool's run() does (its taint, if any, set
	 * with oxi_tool_taint, error result or not): 0, or -1 */
	int (*run)(void *arg, struct oxi_tool_call *);
	int here;		/* its calls keep state in this process (a
				 * server's connection): never run in a
				 * child of oxi-tool (calls.c) */
};
/* adds a source (kept, not copied): 0, or -1 (ENOSPC) past eight */
int oxi_tool_src_add(const struct oxi_tool_src *);

/* registry.c */
/* the built-in tool called name, on or not, or NULL */
const struct oxi_tool *oxi_tool_find(const char *name);
/* the tool called name: the built-in tool if it is on, else NULL with
 * *src the source that has it, or NULL if none does */
const struct oxi_tool *oxi_tool_lookup(const char *name,
    const struct oxi_tool_src **src);
/* 1 if t is on: not OXI_TOOL_OFF, or turned on by configuration */
int oxi_tool_enabled(const struct oxi_tool *);
/* 1 if name is listed in $OXI_TOOLS_ON (comma or space separated) */
int oxi_tool_on(const char *name);
/*
 * Runs call (out reset first) with t, or else with src, as
 * oxi_tool_lookup found them, without the middleware; neither is the
 * "unknown tool" error.  The arguments of t are checked (an object,
 * its keys only) first.  call->taint ends as the origin of the content:
 * "" for an error result of a built-in tool.  0, or -1 for an error
 * result.
 */
int oxi_tool_dispatch(const struct oxi_tool *t, const struct oxi_tool_src *src,
    struct oxi_tool_call *);

/* args.c: what a tool's run() uses of its call */
/* ms left to the call, at least 1; dflt outside the middleware */
long oxi_tool_left(const struct oxi_tool_call *, long dflt);
/* 1 once the call is past its deadline */
int oxi_tool_expired(const struct oxi_tool_call *);
/* the origin of the content, when the tool learns it as it runs
 * ("web:https://a.org"); cut to OXI_TOOL_TAINT - 1 bytes */
void oxi_tool_taint(struct oxi_tool_call *, const char *fmt, ...)
    OXI_PRINTF(2, 3);
/* "tool: message" in call->out (reset first); returns -1 */
int oxi_tool_fail(struct oxi_tool_call *, const char *fmt, ...)
    OXI_PRINTF(2, 3);
/* an error about path from errno e ("is outside the workspace", ...) */
int oxi_tool_failpath(struct oxi_tool_call *, const char *path, int e);
/* the arguments may hold only the space-separated keys: 0, or -1 */
int oxi_tool_keys(struct oxi_tool_call *, const char *keys);
/* each argument helper returns 1 found, 0 absent or null, -1 wrong (the
 * message in call->out); what it gives is borrowed from call->args */
/* a string argument */
int oxi_tool_argstr(struct oxi_tool_call *, const char *key, const char **s,
    size_t *len);
/* a string argument that must be there: 1, or -1 */
int oxi_tool_needstr(struct oxi_tool_call *, const char *key,
    const char **s, size_t *len);
/* a path argument: a non-empty string without NUL */
int oxi_tool_argpath(struct oxi_tool_call *, const char *key, const char **s);
/* an integer argument >= min */
int oxi_tool_argint(struct oxi_tool_call *, const char *key, long long min,
    long long *v);
/* a boolean argument */
int oxi_tool_argbool(struct oxi_tool_call *, const char *key, int *v);
/* cuts out to max bytes on a UTF-8 boundary and appends
 * "\n[output truncated: N of TOTAL bytes shown]"; nothing if it fits */
void oxi_tool_cap(struct oxi_buf *out, size_t max, size_t total);
/* appends name[0..n) as shown to a model or a terminal: \\ \n \t \r,
 * \xHH for other controls and bytes not UTF-8, \uHHHH for the code
 * points that move or hide text (C1, bidirectional, zero width) */
void oxi_tool_catname(struct oxi_buf *, const char *name, size_t n);
/* the same, a new string (free it) */
char *oxi_tool_showname(const char *name);

/* glob.c: the glob patterns of the file tools, without backtracking */
/* pat split at "/" (runs of ** made one, a final ** followed by *): the
 * number of segments in *sv, NULL-ended, freed by oxi_tool_glob_free */
int oxi_tool_glob_split(const char *pat, char ***sv);
void oxi_tool_glob_free(char **sv, int n);
/* name matches the segment seg: 1 or 0 */
int oxi_tool_glob_name(const char *seg, const char *name);
/* the states set[0..n] of a walk down sv[0..n): at the start, then
 * after one more name (*file set when name, not a directory, ends the
 * pattern); 1 while a state is left */
int oxi_tool_glob_start(char **sv, int n, char *set);
int oxi_tool_glob_step(char **sv, int n, const char *set, char *next,
    const char *name, int dir, int *file);
/* path segments pv[0..pn), the last a file, match sv[0..n): 1 or 0 */
int oxi_tool_glob_path(char **sv, int n, char **pv, int pn);

/* child.c: the children of oxi-tool, plugins and MCP servers */
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
/*
 * 1 if line is in the store, or in its one-shot companion (the store's
 * name plus "-once", whose matching line is then removed), else 0.
 * A store inside the workspace ws (absolute, may be NULL) is ignored.
 */
int oxi_sh_approved(const char *line, const char *ws);
void oxi_sh_free(struct oxi_sh *);

/* trust.c: plugins and MCP servers run only when pinned */
/* 1 if kind ("plugin" or "mcp") name is pinned with the SHA-256 of file
 * (a plugin) or of the command and configuration of entry (a server;
 * consumed; jv_null() for a plugin), else 0 with one warning */
int oxi_trust_ok(const char *kind, const char *name, const char *file,
    jv entry);
/* oxi_trust_ok again at a later start (a plugin's call, a server's
 * restart): 0, or -1 with the refusal, saying how to trust again, as c's
 * error result */
int oxi_trust_start(struct oxi_tool_call *c, const char *kind,
    const char *name, const char *file, jv entry);

/* protect.c: paths no tool writes (configuration, state, stores, ~/.ssh,
 * start-up files), resolved; NULL-terminated, static */
const char *const *oxi_protect_list(void);
/* 1 if the resolved path real is protected; one holding wsreal is not */
int oxi_protected(const char *real, const char *wsreal);
/* 1 if base in directory dfd of workspace ws is protected (or cannot be
 * judged), after the kernel's resolution */
int oxi_protected_at(int ws, int dfd, const char *base);
/* 1 if path in ws, resolved as far as it exists, is protected */
int oxi_protected_path(int ws, const char *path);
/* wsreal carved around the protected paths strictly inside it: ro gets
 * the closed directories (the workspace, and each down to the parent of
 * one) and the protected paths, rw every other entry of a closed
 * directory (no link); static lists, shortest first, empty when nothing
 * is protected inside; 0, or -1 when too many entries */
int oxi_protect_carve(const char *wsreal, const char *const **ro,
    const char *const **rw);
/* sets s->ro to extra and the carve's ro, and s->rw to its rw when the
 * workspace is carved (else NULL): the ro array, which the caller frees;
 * NULL with a reason in why when it cannot be carved */
const char **oxi_protect_sbx(struct oxi_sbx *s, const char *const *extra,
    char *why, size_t n);

#endif
