/*
 * oxi-tool - run tool calls inside a workspace directory
 *
 * Reads oxi(7) records on stdin.  Each tool.call {"id","name","args"} is
 * run with the built-in tools (lib/tool/: read_file, write_file,
 * list_dir, edit_file, glob, grep, shell, web_fetch, web_search,
 * http_request), the files confined to the workspace by lib/tool/ws.c, the
 * web behind the address policy of lib/net/ssrf.c, and answered on stdout by
 * exactly one tool.result with the same "id", a "content" string capped
 * at -o bytes, "is_error", and "taint": the call's taint plus the origin
 * of the content ("workspace", "web:<origin>", ...).  Every call goes
 * through lib/tool/mw.c: a time limit, a cache for web_fetch and
 * web_search, the cap, and with -v one log line; the calls that write
 * are held to the disk bounds of lib/tool/disk.c.  A
 * tool.call without the keys it needs is answered with an error result
 * (or an error record when it has no id), warned about and dead-lettered.
 * Other records pass through unchanged; bad lines are warned about and
 * dead-lettered by the library.
 *
 * Calls run at once, each in a child of its own, at most
 * $OXI_TOOL_PARALLEL (default 8) at a time; the calls of one session
 * (their "session", or none) one after the other, in the order read.
 * Results of different sessions come in any order; every other line
 * written waits for the calls read before it (lib/tool/calls.c).
 *
 * Besides the built-in tools: plugins, executables of the tool
 * directories (-P, $OXI_TOOL_PATH) described by "FILE --describe" and
 * run with the arguments on stdin (lib/tool/plugin.c); and the tools of the
 * MCP servers of -M or $OXI_MCP_CONFIG, named server__tool (lib/tool/mcp.c).
 * Both run in the sandbox; their results are tainted "plugin:NAME" and
 * "mcp:SERVER".
 *
 * With -L (--list) it prints the tool definitions as one JSON array, the
 * "tools" of an llm.request, and exits.  With the operand mcp it serves
 * the built-in tools and the plugins to an MCP client on stdin and
 * stdout instead (lib/tool/mcpserve.c), until end of input.  With the
 * operand trust NAME it pins the plugin or MCP server NAME in the trust
 * file (lib/tool/trust.c), without which neither runs.
 *
 * The shell tool, plugins and MCP servers run in the sandbox of
 * lib/sandbox/; where no sandbox works they are refused, unless -U
 * (unsafe mode) lets them run unconfined with a warning per call.
 *
 * It holds no secret but the key of the web_search backend, if any: run
 * it with a scrubbed environment.
 * -d fd: readiness once the workspace is open.  SIGTERM: answer the calls
 * already read, then exit 0.  SIGHUP is ignored (nothing to reload).
 * exit: 0 ok, 1 some records rejected, 100 usage, unusable workspace or
 * bad OXI_TOOL_PARALLEL, 111 I/O error or stdout gone.
 */
#define _GNU_SOURCE

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tool.h"

#define USAGE "oxi-tool [-v] [-U] [-d fd] [-l maxline] [-M mcpconfig] " \
	"[-o maxoutput] [-P tooldirs] [-w workspace]\n" \
	"oxi-tool -L | --list\n" \
	"oxi-tool [-v] [-U] [-l maxline] [-o maxoutput] [-P tooldirs] " \
	"[-w workspace] mcp\n" \
	"oxi-tool [-v] [-M mcpconfig] [-P tooldirs] trust name"

#define MAXOUT_DEFAULT	(64 * 1024)
#define MAXOUT_MAX	(256 * 1024 * 1024)
#define PARALLEL	8	/* calls at once, unless $OXI_TOOL_PARALLEL */
#define PARALLEL_MAX	1024

static struct oxi_tool_ctx ctx = { -1, MAXOUT_DEFAULT };
static struct oxi_stage stage;	/* stdin, status */

static const char *mcpopt, *pathopt;

/* plugins and MCP servers, run in the workspace wsdir (may be NULL) */
static void
extras(const char *wsdir, int mcp)
{
	char why[512];

	(void)oxi_plugin_load(pathopt, wsdir);
	if (mcp && oxi_mcp_load(mcpopt, wsdir, why, sizeof why) < 0)
		oxi_die(OXI_EX_USAGE, "invalid MCP configuration: %s", why);
}

/* plugins and MCP servers run in the workspace if it exists: it is not
 * made */
static void
list(const char *wsopt)
{
	const char *dir = oxi_wsp_path(wsopt);
	char abs[PATH_MAX];
	struct stat st;

	signal(SIGPIPE, SIG_IGN);
	extras(dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    realpath(dir, abs) ? abs : NULL, 1);
	oxi_nd_out(oxi_tool_defs());
	oxi_mcp_stop();
	oxi_fshut(stdout, "stdout");
	exit(OXI_EX_OK);
}

static void
serve(const char *wsdir, size_t maxline)
{
	extras(wsdir, 0);
	if (oxi_mcp_serve(&ctx, 0, 1, maxline) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to serve MCP on stdin and "
		    "stdout");
	exit(OXI_EX_OK);
}

/* oxi-tool trust NAME: pins the plugin or MCP server, and exits */
static void
trust(const char *name)
{
	char why[512], *file = oxi_plugin_find(pathopt, name);
	int r;

	r = oxi_trust(name, file, oxi_mcp_entry(mcpopt, name), why,
	    sizeof why);
	free(file);
	if (r < 0)
		oxi_die(errno == ENOENT ? OXI_EX_USAGE : OXI_EX_TEMP, "%s",
		    why);
	exit(OXI_EX_OK);
}

/* one warning for a workspace of / or the home directory */
static void
wide(const char *ws)
{
	const char *h = getenv("HOME");
	char home[PATH_MAX];

	if (!strcmp(ws, "/") || (h && realpath(h, home) && !strcmp(ws, home)))
		oxi_warn("the workspace is %s: every tool may write all of it "
		    "but the protected configuration (the shell makes nothing "
		    "new at its top; the file tools do)", strcmp(ws, "/") ?
		    "the home directory" : "/");
}

static void
hup(struct oxi_stage *st)
{
	(void)st;
	oxi_debug("SIGHUP: nothing to reload");
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 }
	};
	const char *wsopt = NULL, *dir;
	char wsabs[PATH_MAX];
	size_t maxline = 0;
	long kids;
	int c, lflag = 0, mflag = 0, notif = -1, r;

	oxi_prog = "oxi-tool";
	oxi_std_opts(argc, argv, USAGE);
	while ((c = getopt_long(argc, argv, "+d:Ll:M:o:P:Uvw:", longopts,
	    NULL)) != -1)
		switch (c) {
		case 'd':
			notif = oxi_fdarg(optarg);
			break;
		case 'L':
			lflag = 1;
			break;
		case 'l':
			maxline = oxi_sizearg(optarg, "maximum line length");
			break;
		case 'M':
			mcpopt = optarg;
			break;
		case 'o':
			ctx.maxout = oxi_sizearg(optarg, "maximum output");
			if (ctx.maxout == 0 || ctx.maxout > MAXOUT_MAX)
				oxi_die(OXI_EX_USAGE, "invalid maximum output "
				    "'%s'", optarg);
			break;
		case 'P':
			pathopt = optarg;
			break;
		case 'U':
			oxi_sbx_unsafe = 1;
			break;
		case 'v':
			oxi_verbose++;
			break;
		case 'w':
			wsopt = optarg;
			break;
		default:
			oxi_usage(USAGE);
		}
	if (optind < argc && strcmp(argv[optind], "mcp") == 0 && !lflag) {
		mflag = 1;
		optind++;
	}
	if (optind + 2 == argc && strcmp(argv[optind], "trust") == 0 &&
	    !lflag)
		trust(argv[optind + 1]);
	if (optind != argc)
		oxi_usage(USAGE);
	if (lflag)
		list(wsopt);	/* other options are allowed: -M, -P, -w
				 * count */

	oxi_stage_init(&stage, maxline, 1);
	stage.hup = hup;
	if (oxi_env_int("OXI_TOOL_PARALLEL", PARALLEL, PARALLEL_MAX,
	    &kids) < 0 || kids < 1)
		oxi_die(OXI_EX_USAGE, "bad OXI_TOOL_PARALLEL '%s'",
		    getenv("OXI_TOOL_PARALLEL"));
	if (!(dir = oxi_wsp_path(wsopt)))
		oxi_diesys(oxi_errtemp(errno), "unable to find the workspace");
	if ((ctx.ws = oxi_wsp_open(dir)) < 0)
		oxi_diesys(oxi_errtemp(errno), "unable to open workspace '%s'",
		    dir);
	oxi_debug("workspace '%s', confined by %s", dir,
	    oxi_wsp_beneath == 0 ? "a component walk" : "openat2");
	if (!realpath(dir, wsabs))
		oxi_diesys(oxi_errtemp(errno), "unable to resolve workspace "
		    "'%s'", dir);
	wide(wsabs);
	oxi_shell_mode();	/* its warnings, at start */
	if (mflag)
		serve(wsabs, maxline);
	extras(wsabs, 1);
	r = oxi_tool_stage(&stage, &ctx, (int)kids, notif);
	if (oxi_sig_term)
		oxi_debug("stopping on a signal");
	oxi_mcp_stop();
	return r;
}
