/*
 * shell.c - built-in tools: the shell tool, run in the sandbox
 *
 * shell {command, timeout?, cwd?, network?}.  In the default mode
 * (OXI_SHELL_POLICY=sandbox, shmode.c) the line runs as /bin/sh -c LINE
 * in the sandbox of sandbox.c, which is the boundary: no network, the
 * workspace its home and only writable directory, cwd a directory in
 * it, the rlimits and a timeout that kills the group; nothing is held.
 * In the strict mode the line is split into words by shpolicy.c (no
 * shell ever reads it), judged by the policy, and the words run with
 * execve(2) in the same sandbox.  The disk it takes is bounded by
 * disk.c: refused while the workspace is over its bound or its disk
 * under the reserve, killed (by the sandbox's watch) once over the limit of one
 * call.  The content is the output (stdout and stderr together, cut at
 * the output cap with a marker) and a last line with the exit code or
 * what killed it, then a note if the workspace went over its bound; a
 * command that exits non-zero, is killed or times out is an error
 * result.  What leaves the sandbox ("network": true) and
 * a command the strict policy holds run only when their approval line
 * (argv, binary, cwd, passed environment names, and "network":true) is
 * in the approval store; the error result says which line to add, and
 * where.
 */
#define _GNU_SOURCE

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
#include "tool/disk.h"

#define TIMEOUT_DEFAULT	30
#define TIMEOUT_MAX	600

static int shell(struct oxi_tool_call *);

const struct oxi_tool oxi_tools_shell[] = {
	{ "shell",
	  "Run a command line with /bin/sh -c in a sandbox and return its "
	  "output (stdout and stderr together) and exit code. Pipes, "
	  "redirections, globs, &&, ||, $(...), $((...)), loops and "
	  "everything else of sh work, with no approval: the sandbox is the "
	  "boundary. The workspace is the home and the only directory it "
	  "can write; the system is read-only; there is no network unless "
	  "the call sets network to true, which waits for the owner's "
	  "approval. If the owner chose the strict policy, no shell runs: "
	  "one plain command per call, and the result says what is refused "
	  "or held.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"command\":{\"type\":\"string\",\"description\":"
	  "\"A command line for sh, e.g. \\\"grep -n TODO *.txt | wc -l\\\"\"},"
	  "\"timeout\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":600,"
	  "\"description\":\"Seconds before the command is killed "
	  "(default 30)\"},"
	  "\"cwd\":{\"type\":\"string\",\"description\":"
	  "\"Directory to run in, relative to the workspace (default: the "
	  "workspace)\"},"
	  "\"network\":{\"type\":\"boolean\",\"description\":"
	  "\"true to run with the network: held until the owner approves "
	  "(default false)\"}},"
	  "\"required\":[\"command\"],\"additionalProperties\":false}",
	  "command timeout cwd network", "shell", 0, OXI_TOOL_SANDBOX, NULL,
	  shell },
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
	s->cpu_s = oxi_shell_limit("cpu");
	s->mem_mb = oxi_shell_limit("mem");
	s->nproc = oxi_shell_limit("nproc");
	s->nofile = oxi_shell_limit("nofile");
	s->fsize_mb = oxi_shell_limit("fsize");
}

static int
held(struct oxi_tool_call *c, const struct oxi_sh *sh, const char *line,
    const char *cwd, int net)
{
	const char *store = oxi_approved_path(0);

	if (sh->verdict == OXI_SH_ASK)
		oxi_tool_fail(c, "needs approval: %s%s. Nothing was run.",
		    sh->why, net ? ", and it asks for the network" : "");
	else
		oxi_tool_fail(c, "needs approval: it asks for the network, "
		    "outside the sandbox. Nothing was run.");
	oxi_buf_printf(c->out, " The owner can allow exactly this command "
	    "(binary %s, in '%s'%s) by adding this line to %s (always) or to "
	    "%s-once (once):\n%s", sh->real, cwd, net ? ", with the network" :
	    "", store ? store : "shell-approved", store ? store :
	    "shell-approved", line);
	return -1;
}

/* the approval line of sh in cwd, with "network":true when net */
static char *
approval(const struct oxi_sh *sh, const char *cwd, int net)
{
	char *line = oxi_sh_approval(sh, cwd), *l;
	size_t n = strlen(line);

	if (!net || n == 0 || line[n - 1] != '}')
		return line;
	/* the keys are sorted: "network" comes after "env", the last */
	l = xmalloc(n + sizeof ",\"network\":true");
	memcpy(l, line, n - 1);
	memcpy(l + n - 1, ",\"network\":true}", sizeof ",\"network\":true}");
	free(line);
	return l;
}

/* sh as the words /bin/sh -c line: 0, or -1 (refused, reason in why) */
static int
shline(struct oxi_sh *sh, const char *line, size_t len)
{
	char *real;

	if (strspn(line, " \t\n") == len) {
		snprintf(sh->why, sizeof sh->why, "the command is empty");
		return -1;
	}
	if (strlen(line) != len) {
		snprintf(sh->why, sizeof sh->why, "the command holds a NUL "
		    "byte");
		return -1;
	}
	sh->argv = xcalloc(4, sizeof *sh->argv);
	sh->argv[0] = xstrdup("/bin/sh");
	sh->argv[1] = xstrdup("-c");
	sh->argv[2] = xstrdup(line);
	sh->argc = 3;
	sh->exe = xstrdup("/bin/sh");
	sh->real = (real = realpath("/bin/sh", NULL)) ? real :
	    xstrdup("/bin/sh");
	sh->verdict = OXI_SH_ALLOW;
	return 0;
}

static int
shell(struct oxi_tool_call *c)
{
	const struct oxi_tool_ctx *ctx = c->ctx;
	struct oxi_buf *out = c->out;
	struct oxi_sh sh = OXI_SH_INIT;
	struct oxi_sbx sbx = OXI_SBX_INIT;
	struct oxi_sbx_res res;
	struct oxi_disk disk;
	struct oxi_buf tail = OXI_BUF_INIT;
	char ws[PATH_MAX], cwd[PATH_MAX], why[512], *line = NULL;
	const char *cmd, *dir = NULL, *rel = ".", *mode;
	char *exe0;
	const char **ro = NULL;
	long long timeout = TIMEOUT_DEFAULT;
	size_t len, n, cap;
	int r, fd, net = 0, strict, ret = -1;

	if (oxi_tool_needstr(c, "command", &cmd, &len) < 0)
		return -1;
	if (oxi_tool_argint(c, "timeout", 1, &timeout) < 0)
		return -1;
	if (timeout > TIMEOUT_MAX)
		return oxi_tool_fail(c, "argument 'timeout' must be at "
		    "most %d seconds", TIMEOUT_MAX);
	if (oxi_tool_argpath(c, "cwd", &dir) < 0)
		return -1;
	if (oxi_tool_argbool(c, "network", &net) < 0)
		return -1;
	if ((strict = oxi_shell_mode()) < 0) {
		mode = oxi_getenv("OXI_SHELL_POLICY");
		return oxi_tool_fail(c, "refused: unknown OXI_SHELL_POLICY "
		    "'%.32s' (sandbox, strict, allowlist or denylist). "
		    "Nothing was run.", mode ? mode : "");
	}
	if (fdpath(ctx->ws, ws, sizeof ws) < 0)
		return oxi_tool_fail(c, "cannot tell where the workspace "
		    "is");
	snprintf(cwd, sizeof cwd, "%s", ws);
	if (dir) {
		if ((fd = oxi_wsp_opendir(ctx->ws, dir, 0)) < 0)
			return oxi_tool_failpath(c, dir, errno);
		r = fdpath(fd, cwd, sizeof cwd);
		close(fd);
		n = strlen(ws);
		if (r < 0 || strncmp(cwd, ws, n) != 0 || (cwd[n] != '/' &&
		    cwd[n] != '\0'))
			return oxi_tool_failpath(c, dir, EXDEV);
		rel = cwd[n] ? cwd + n + 1 : ".";
	}
	if (strict == OXI_SHELL_SANDBOX) {
		if (shline(&sh, cmd, len) < 0) {
			oxi_tool_fail(c, "refused: %s. Nothing was run.",
			    sh.why);
			goto done;
		}
	} else if (oxi_sh_parse(&sh, cmd, len) < 0 ||
	    oxi_sh_check(&sh) == OXI_SH_DENY) {
		oxi_tool_fail(c, "refused: %s. Nothing was run.", sh.why);
		goto done;
	}
	/* what the strict policy holds, and what leaves the sandbox */
	if (sh.verdict == OXI_SH_ASK || net) {
		line = approval(&sh, rel, net);
		if (!oxi_sh_approved(line, ws)) {
			held(c, &sh, line, rel, net);
			goto done;
		}
		oxi_debug("shell: approved: %s", line);
	}
	if (oxi_disk_begin(c, &disk, -1) < 0)
		goto done;

	sbx.workspace = ws;
	sbx.cwd = cwd;
	sbx.net = net;
	if (!(ro = oxi_protect_sbx(&sbx, NULL, why, sizeof why))) {
		oxi_tool_fail(c, "%s. Nothing was run.", why);
		goto done;
	}
	/* the middleware's deadline is the last word */
	sbx.timeout_ms = oxi_tool_left(c, timeout * 1000);
	if (sbx.timeout_ms > timeout * 1000)
		sbx.timeout_ms = timeout * 1000;
	limits(&sbx);
	/* the words run as they are, from the binary the policy judged */
	exe0 = sh.argv[0];
	sh.argv[0] = sh.exe;
	sbx.watch = oxi_disk_watch;
	sbx.watcharg = &disk;
	r = oxi_sbx_run(&sbx, sh.argv, NULL, 0, out, ctx->maxout + 4, &res,
	    why, sizeof why);
	sh.argv[0] = exe0;
	if (r < 0) {
		oxi_tool_fail(c, "%s", why);
		goto done;
	}
	if (res.watched)
		oxi_buf_printf(&tail, "[killed: %s]", oxi_disk_why(&disk, why,
		    sizeof why));
	else if (res.timed_out)
		oxi_buf_printf(&tail, "[killed: the command ran over its "
		    "timeout of %ld s]", (sbx.timeout_ms + 999) / 1000);
	else if (res.code > 128)
		oxi_buf_printf(&tail, "[killed by signal %d%s%s]",
		    res.code - 128, res.limit[0] ? ": over " : "", res.limit);
	else
		oxi_buf_printf(&tail, "[exit code %d]", res.code);
	oxi_disk_end(&disk, &tail);
	/* room within maxout for the marker and the last lines */
	cap = 96 + tail.len;
	cap = ctx->maxout > 4 * cap ? ctx->maxout - cap : ctx->maxout / 2;
	oxi_tool_cap(out, cap, res.total);
	if (out->len == 0)
		oxi_buf_cats(out, "(no output)");
	if (out->s[out->len - 1] != '\n')
		oxi_buf_putc(out, '\n');
	oxi_buf_cat(out, tail.s, tail.len);
	ret = res.timed_out || res.code != 0 ? -1 : 0;
	/* what a command with the network printed may come from anywhere */
	if (net)
		oxi_tool_taint(c, "shell:network");
done:
	oxi_buf_free(&tail);
	free(ro);
	free(line);
	oxi_sh_free(&sh);
	return ret;
}
