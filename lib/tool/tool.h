/*
 * tool.h - the tool wing: the workspace, the built-in tools, tool sources,
 * plugins, MCP, the middleware and the shell policy
 */
#ifndef OXI_TOOL_H
#define OXI_TOOL_H

#include "oxi.h"
#include "net/net.h"
#include "sandbox/sandbox.h"

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
