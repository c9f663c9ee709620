/*
 * shell.c - built-in tools: the shell tool, run in the sandbox under
 * the shell policy
 *
 * shell {command, timeout?, cwd?}: the command line is split into words
 * by shpolicy.c (no shell ever reads it), judged by the policy, and the
 * words run with execve(2) in the sandbox of sandbox.c: no network, the
 * workspace its home and only writable directory, cwd a directory in it.
 * The content is the output (stdout and stderr together, cut at the
 * output cap with a marker) and a last line with the exit code; a
 * command that exits non-zero, is killed or times out is an error
 * result.  A command the policy holds runs only when its approval line
 * (argv, binary, cwd, passed environment names) is in the approval
 * store; the error result says which line to add, and where.
 */
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"

#define TIMEOUT_DEFAULT	30
#define TIMEOUT_MAX	600

static int shell(struct oxi_tool_call *);

const struct oxi_tool oxi_tools_shell[] = {
	{ "shell",
	  "Run one command in a sandbox and return its output (stdout and "
	  "stderr together) and exit code. The sandbox has no network; the "
	  "workspace is its home and the only directory it can write. The "
	  "command line is split into words with quotes and backslashes as "
	  "a shell would, but no shell runs it: pipes, ;, &&, ||, "
	  "redirections, $ and backquote substitutions, globs and ~ are "
	  "refused, so run one plain command per call and name files "
	  "explicitly. Plain commands run (ls, cat, head, tail, wc, grep, "
	  "sort, uniq, cut, find, jq, sed, awk without system(), diff, "
	  "date, ...); others (shells, interpreters, wrappers such as env or "
	  "xargs, git, tar, commands that change files) and risky options "
	  "(grep -r, sort -o, find -exec, ...) need the owner's approval.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"command\":{\"type\":\"string\",\"description\":"
	  "\"One command line, e.g. \\\"grep -n TODO notes.txt\\\"\"},"
	  "\"timeout\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":600,"
	  "\"description\":\"Seconds before the command is killed "
	  "(default 30)\"},"
	  "\"cwd\":{\"type\":\"string\",\"description\":"
	  "\"Directory to run in, relative to the workspace (default: the "
	  "workspace)\"}},"
	  "\"required\":[\"command\"],\"additionalProperties\":false}",
	  "command timeout cwd", "shell", 0, 0, NULL, shell },
	{ NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL }
};

/* the path of an open descriptor: 0 or -1 */
static int
fdpath(int fd, char *buf, size_t n)
{
	char link[64];
	ssize_t k;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if ((k = readlink(link, buf, n - 1)) <= 0 || buf[0] != '/')
		return -1;
	buf[k] = '\0';
	return 0;
}

/* sandbox limits from $OXI_SHELL_LIMITS: "cpu=60,mem=512,nproc=64,..." */
static void
limits(struct oxi_sbx *s)
{
	const char *p = oxi_getenv("OXI_SHELL_LIMITS"), *eq;
	size_t k;
	long v;

	for (; p && *p; p += k) {
		p += strspn(p, ", \t");
		k = strcspn(p, ", \t");
		if (!(eq = memchr(p, '=', k)))
			continue;
		v = atol(eq + 1);
		if (v == 0 && eq[1] != '0')
			continue;
		if (v <= 0)
			v = -1;	/* 0 or less: no limit */
		if (eq - p == 3 && strncmp(p, "cpu", 3) == 0)
			s->cpu_s = v;
		else if (eq - p == 3 && strncmp(p, "mem", 3) == 0)
			s->mem_mb = v;
		else if (eq - p == 5 && strncmp(p, "nproc", 5) == 0)
			s->nproc = v;
		else if (eq - p == 6 && strncmp(p, "nofile", 6) == 0)
			s->nofile = v;
		else if (eq - p == 5 && strncmp(p, "fsize", 5) == 0)
			s->fsize_mb = v;
	}
}

static int
held(struct oxi_tool_call *c, const struct oxi_sh *sh, const char *line,
    const char *cwd)
{
	const char *store = oxi_sh_store();

	oxi_tool_fail(c, "needs approval: %s. Nothing was run.", sh->why);
	oxi_buf_printf(c->out, " The owner can allow exactly this command "
	    "(binary %s, in '%s') by adding this line to %s (always) or to "
	    "%s-once (once):\n%s", sh->real, cwd, store ? store :
	    "shell-approved", store ? store : "shell-approved", line);
	return -1;
}

static int
shell(struct oxi_tool_call *c)
{
	const struct oxi_tool_ctx *ctx = c->ctx;
	struct oxi_buf *out = c->out;
	struct oxi_sh sh = OXI_SH_INIT;
	struct oxi_sbx sbx = OXI_SBX_INIT;
	struct oxi_sbx_res res;
	char ws[PATH_MAX], cwd[PATH_MAX], why[512], *line = NULL;
	const char *cmd, *dir = NULL, *rel = ".";
	char *exe0;
	long long timeout = TIMEOUT_DEFAULT;
	size_t len, n, cap;
	int r, fd, ret = -1;

	if (oxi_tool_needstr(c, "command", &cmd, &len) < 0)
		return -1;
	if (oxi_tool_argint(c, "timeout", 1, &timeout) < 0)
		return -1;
	if (timeout > TIMEOUT_MAX)
		return oxi_tool_fail(c, "argument 'timeout' must be at "
		    "most %d seconds", TIMEOUT_MAX);
	if (oxi_tool_argpath(c, "cwd", &dir) < 0)
		return -1;
	if (fdpath(ctx->ws, ws, sizeof ws) < 0)
		return oxi_tool_fail(c, "cannot tell where the workspace "
		    "is");
	snprintf(cwd, sizeof cwd, "%s", ws);
	if (dir) {
		if ((fd = oxi_ws_opendir(ctx->ws, dir, 0)) < 0)
			return oxi_tool_failpath(c, dir, errno);
		r = fdpath(fd, cwd, sizeof cwd);
		close(fd);
		n = strlen(ws);
		if (r < 0 || strncmp(cwd, ws, n) != 0 || (cwd[n] != '/' &&
		    cwd[n] != '\0'))
			return oxi_tool_failpath(c, dir, EXDEV);
		rel = cwd[n] ? cwd + n + 1 : ".";
	}
	if (oxi_sh_parse(&sh, cmd, len) < 0) {
		oxi_tool_fail(c, "refused: %s. Nothing was run.", sh.why);
		goto done;
	}
	switch (oxi_sh_check(&sh)) {
	case OXI_SH_DENY:
		oxi_tool_fail(c, "refused: %s. Nothing was run.", sh.why);
		goto done;
	case OXI_SH_ASK:
		line = oxi_sh_approval(&sh, rel);
		if (!oxi_sh_approved(line, ws)) {
			held(c, &sh, line, rel);
			goto done;
		}
		oxi_debug("shell: approved: %s", line);
		break;
	}

	sbx.workspace = ws;
	sbx.cwd = cwd;
	/* the middleware's deadline is the last word */
	sbx.timeout_ms = oxi_tool_left(c, timeout * 1000);
	if (sbx.timeout_ms > timeout * 1000)
		sbx.timeout_ms = timeout * 1000;
	limits(&sbx);
	/* the words run as they are, from the binary the policy judged */
	exe0 = sh.argv[0];
	sh.argv[0] = sh.exe;
	/* room for the marker and the exit line within maxout */
	cap = ctx->maxout > 512 ? ctx->maxout - 128 : ctx->maxout / 2;
	r = oxi_sbx_run(&sbx, sh.argv, NULL, 0, out, cap + 4, &res, why,
	    sizeof why);
	sh.argv[0] = exe0;
	if (r < 0) {
		oxi_tool_fail(c, "%s", why);
		goto done;
	}
	oxi_tool_cap(out, cap, res.total);
	if (out->len == 0)
		oxi_buf_cats(out, "(no output)");
	if (out->s[out->len - 1] != '\n')
		oxi_buf_putc(out, '\n');
	if (res.timed_out)
		oxi_buf_printf(out, "[killed: the command ran over its timeout "
		    "of %ld s]", (sbx.timeout_ms + 999) / 1000);
	else if (res.code > 128)
		oxi_buf_printf(out, "[killed by signal %d%s%s]", res.code - 128,
		    res.limit[0] ? ": over " : "", res.limit);
	else
		oxi_buf_printf(out, "[exit code %d]", res.code);
	ret = res.timed_out || res.code != 0 ? -1 : 0;
done:
	free(line);
	oxi_sh_free(&sh);
	return ret;
}
