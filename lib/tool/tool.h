/*
 * tool.h - the tool wing's face, what bin/oxi-tool.c uses: the workspace,
 * the context of a call, the middleware's entry point, the definitions,
 * plugins and MCP (client and server).  What tools are made of (struct
 * oxi_tool, struct oxi_tool_call, the argument helpers, the children,
 * the shell policy) is in tool/tooldef.h, for this wing only.
 */
#ifndef OXI_TOOL_H
#define OXI_TOOL_H

#include "oxi.h"
#include "sandbox/sandbox.h"

/* ws.c: file access confined to a workspace directory */
/* the workspace: opt if set, else $OXI_WORKSPACE, else "workspace" in the
 * state directory; a static string, or NULL with errno */
const char *oxi_wsp_path(const char *opt);
/* opens the workspace directory, made (mode 0700) if missing: fd or -1 */
int oxi_wsp_open(const char *dir);
/* 1 when openat2 confines, 0 when the walk does, -1 not yet known;
 * tests set 0 to exercise the walk */
extern int oxi_wsp_beneath;

/* what every call of a tool is run with */
struct oxi_tool_ctx {
	int ws;			/* the workspace directory */
	size_t maxout;		/* cap on a result's content, in bytes */
};

/* registry.c: the definitions, [{"name","description","parameters"},...]:
 * the built-in tools that are on and configured, then each source's */
jv oxi_tool_defs(void);

/* mw.c: what every tool call goes through */
/*
 * Runs tool name (a built-in tool or a source's) with args (consumed)
 * through the middleware: a deadline ($OXI_TOOL_TIMEOUT or the tool's
 * default) with a watchdog, the cache for OXI_TOOL_CACHE tools, the cap
 * of ctx->maxout on every result, and with -v one info line
 * "call 'ID' NAME ok|error MS ms BYTES bytes [cached]".  id may be NULL.
 * Leaves the content, or the error message, in out (reset first), and
 * the origin of the content ("workspace", "web:https://a.org") in taint
 * (len bytes; "" if none).  Returns 0, or -1 for an error result.
 */
int oxi_tool_call(const struct oxi_tool_ctx *, const char *id,
    const char *name, jv args, struct oxi_buf *out, char *taint,
    size_t len);
/* empties the result cache */
void oxi_tool_cache_clear(void);
/* the cached result of a call of name with args (borrowed), as
 * oxi_tool_call leaves it, logged as "cached": 1, or 0 if none */
int oxi_tool_cached(const char *id, const char *name, jv args,
    struct oxi_buf *out, char *taint, size_t len);
/* keeps content[0..len), the successful result of a call of name with
 * args (borrowed), in the cache, if the tool's results are cached */
void oxi_tool_keep(const char *name, jv args, const char *content,
    size_t len, const char *taint);
/* the warning for a call whose child ended without a result (why) */
void oxi_tool_lost(const char *id, const char *name, const char *why);
/* 1 if the calls of name must run in this process (the tools of an MCP
 * server: its connection is ours), 0 if a child may run them; for a tool
 * that runs children in the sandbox, chooses its mechanism first, so
 * that children inherit the choice */
int oxi_tool_here(const char *name);

/* calls.c: the record loop of oxi-tool */
/*
 * Runs the stage st (oxi_stage_init done; st->record unused): each
 * tool.call through oxi_tool_call in a child of its own, at most kids at
 * once, the calls of one session ("session", or none) one after the
 * other in the order read; each answered by one tool.result on stdout.
 * Other records pass through, and the answers to invalid tool.calls are
 * written, after the calls read before them.  Readiness on notif.
 * Returns the exit status once stdin ends or SIGTERM came and every call
 * is answered; dies 111 if stdin or stdout fails.
 */
int oxi_tool_stage(struct oxi_stage *st, const struct oxi_tool_ctx *ctx,
    int kids, int notif);
/* shmode.c: the shell tool's mode from $OXI_SHELL_POLICY: OXI_SHELL_SANDBOX
 * (sh -c in the sandbox; the default), OXI_SHELL_STRICT (the argv policy;
 * forced, with one warning, when no sandbox works in unsafe mode), or -1
 * for an unknown value */
enum { OXI_SHELL_SANDBOX = 0, OXI_SHELL_STRICT = 1 };
int oxi_shell_mode(void);
/* the value of key ("cpu", "mem", ...) in $OXI_SHELL_LIMITS, entries
 * "cpu=60,mem=512,...": -1 if 0 or less (no limit), 0 if absent or bad */
long oxi_shell_limit(const char *key);

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

/* trust.c: "oxi-tool trust NAME" */
/*
 * Pins plugin name of file (NULL: none) and MCP server name of entry
 * (its configuration, consumed; invalid: none) in the trust file of the
 * configuration directory.  0, or -1 with a reason in why (errno ENOENT:
 * neither).
 */
int oxi_trust(const char *name, const char *file, jv entry, char *why,
    size_t len);
/* plugin.c: the resolved file of plugin name in dirs (as
 * oxi_plugin_load), or NULL; caller frees */
char *oxi_plugin_find(const char *dirs, const char *name);
/* mcp.c: the configuration entry of server name (path as oxi_mcp_load),
 * or invalid */
jv oxi_mcp_entry(const char *path, const char *name);

/* mcpserve.c: oxi's tools served to an MCP client over stdio */
/*
 * Answers JSON-RPC requests read from fd in on fd out until in ends or
 * SIGTERM (set up by the caller): initialize, server/discover, ping,
 * tools/list and tools/call, with the tools of oxi_tool_defs().  Lines
 * longer than maxline are refused.  0, or -1 with errno on an I/O error.
 */
int oxi_mcp_serve(const struct oxi_tool_ctx *, int in, int out,
    size_t maxline);

#endif
