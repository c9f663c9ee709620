/*
 * child.c - the children of oxi-tool: plugins and MCP servers, each in
 * the sandbox (sandbox.h)
 *
 * A child runs in its own session and process group, with a scrubbed
 * environment plus what its configuration adds, the workspace as its
 * directory and only writable place, and non-blocking pipes for its
 * stdin, stdout and stderr.  oxi_child_run runs one to its end under a
 * timeout that kills the whole group (plugin.c), as does the disk it
 * takes once over the limit of one call (disk.c, sampled every
 * OXI_DISK_MS); oxi_child_start and oxi_child_end keep a server up
 * across calls (mcp.c).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"
#include "tool/disk.h"

#define ERR_MAX		2048		/* stderr kept for an error result */
#define OUT_HARD	(64 * 1024 * 1024)	/* stdout read at most */
#define GRACE_MS	500		/* for what a child left running */

/* "NAME=value" for each string of the object env, NULL-terminated */
static char **
envlist(jv env)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char **v;
	size_t n = 0;
	int it;
	jv k, val;

	v = xcalloc((jv_get_kind(env) == JV_KIND_OBJECT ?
	    jv_object_length(jv_copy(env)) : 0) + 1, sizeof *v);
	if (jv_get_kind(env) == JV_KIND_OBJECT)
		for (it = jv_object_iter(env); jv_object_iter_valid(env, it);
		    it = jv_object_iter_next(env, it)) {
			k = jv_object_iter_key(env, it);
			val = jv_object_iter_value(env, it);
			if (jv_get_kind(val) == JV_KIND_STRING) {
				oxi_buf_reset(&b);
				oxi_buf_printf(&b, "%s=%s", jv_string_value(k),
				    jv_string_value(val));
				v[n++] = xstrdup(b.s);
			}
			jv_free(k);
			jv_free(val);
		}
	oxi_buf_free(&b);
	return v;
}

static void
freelist(char **v)
{
	size_t i;

	for (i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

int
oxi_child_start(struct oxi_child *c, char *const argv[],
    const struct oxi_child_cfg *cfg, char *why, size_t len)
{
	struct oxi_sbx sb = OXI_SBX_INIT;
	char **env = envlist(cfg->env);

	c->in = c->out = c->err = -1;
	sb.workspace = cfg->wsdir;
	sb.net = cfg->net;
	sb.env = (const char *const *)env;
	if (!oxi_protect_sbx(&sb, cfg->ro, why, len)) {
		c->pid = -1;
		freelist(env);
		return -1;
	}
	if (cfg->server) {
		sb.cpu_s = -1;	/* a server lives as long as we do */
		sb.mem_mb = -1;	/* and may be a JIT reserving gigabytes */
		sb.nofile = 256;
	}
	c->pid = oxi_sbx_spawn(&sb, argv, &c->in, &c->out, &c->err, why,
	    len);
	free((void *)sb.ro);
	freelist(env);
	if (c->pid < 0)
		return -1;
	oxi_fd_nonblock(c->in, 1);
	oxi_fd_nonblock(c->out, 1);
	oxi_fd_nonblock(c->err, 1);
	return 0;
}

/* 1 once pid has exited (not reaped), 0 if it runs, -1 if unknown */
static int
exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == EINTR ? 0 : -1;
	return si.si_pid == pid;
}

int
oxi_child_end(struct oxi_child *c, long ms)
{
	long long end = oxi_clock_ms() + (ms > 0 ? ms : 0);
	int code;

	if (c->in >= 0)
		close(c->in);
	if (c->out >= 0)
		close(c->out);
	if (c->err >= 0)
		close(c->err);
	c->in = c->out = c->err = -1;
	if (c->pid <= 0)
		return -1;
	while (exited(c->pid) == 0 && oxi_clock_ms() < end)
		poll(NULL, 0, 10);
	/* whatever it left running goes too; then it is reaped */
	code = oxi_sbx_kill(c->pid);
	c->pid = -1;
	return code;
}

/* non-blocking reads of fd into b, keeping at most keep bytes of it:
 * bytes read, 0 at end of file, -1 when nothing is there or on error */
static ssize_t
drain(int fd, struct oxi_buf *b, size_t keep, size_t *total)
{
	char tmp[16384];
	ssize_t r, sum = 0;

	for (;;) {
		r = read(fd, tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 ? 0 : sum > 0 ? sum : -1;
		if (b->len < keep)
			oxi_buf_cat(b, tmp, (size_t)r < keep - b->len ?
			    (size_t)r : keep - b->len);
		*total += r;
		sum += r;
	}
}

int
oxi_child_run(const struct oxi_child_cfg *cfg, char *const argv[],
    const char *input, size_t inlen, long ms, size_t keep,
    struct oxi_buf *out, size_t *total, struct oxi_buf *err, char *why,
    size_t len)
{
	struct oxi_child c;
	struct oxi_disk disk;
	struct pollfd p[3];
	long long end, now, wake, grace = 0, sample = 0;
	char dwhy[160];
	size_t off = 0, etotal = 0;
	ssize_t w;
	int n, i, code, late = 0, ws = -1;

	*total = 0;
	if (cfg->wsdir && !cfg->server)
		ws = open(cfg->wsdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	oxi_disk_start(&disk, ws);
	if (oxi_child_start(&c, argv, cfg, why, len) < 0) {
		if (ws >= 0)
			close(ws);
		return -1;
	}
	end = oxi_clock_ms() + ms;
	if (inlen == 0) {
		close(c.in);
		c.in = -1;
	}
	while (c.in >= 0 || c.out >= 0 || c.err >= 0) {
		n = 0;
		if (c.in >= 0) {
			p[n].fd = c.in;
			p[n++].events = POLLOUT;
		}
		if (c.out >= 0) {
			p[n].fd = c.out;
			p[n++].events = POLLIN;
		}
		if (c.err >= 0) {
			p[n].fd = c.err;
			p[n++].events = POLLIN;
		}
		now = oxi_clock_ms();
		if (now >= end || *total > OUT_HARD) {
			late = 1;
			break;
		}
		if (now >= sample) {
			sample = now + OXI_DISK_MS;
			if (oxi_disk_over(&disk)) {
				late = 1;
				break;
			}
		}
		/* once it has ended, what it left behind holding the pipes
		 * open gets GRACE_MS */
		if (!grace && exited(c.pid) == 1)
			grace = now + GRACE_MS;
		if (grace && now >= grace)
			break;
		wake = grace ? grace : now + OXI_DISK_MS;
		if (poll(p, n, (int)((wake < end ? wake : end) - now)) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(why, len, "unable to poll: %s",
			    strerror(errno));
			oxi_child_end(&c, 0);
			if (ws >= 0)
				close(ws);
			return -1;
		}
		for (i = 0; i < n; i++) {
			if (!p[i].revents)
				continue;
			if (p[i].fd == c.in) {
				w = write(c.in, input + off, inlen - off);
				if (w > 0)
					off += w;
				if ((w < 0 && errno != EAGAIN &&
				    errno != EINTR) || off == inlen) {
					close(c.in);
					c.in = -1;
				}
			} else if (p[i].fd == c.out) {
				if (drain(c.out, out, keep, total) == 0) {
					close(c.out);
					c.out = -1;
				}
			} else if (drain(c.err, err, ERR_MAX, &etotal) == 0) {
				close(c.err);
				c.err = -1;
			}
		}
	}
	if (c.out >= 0)
		(void)drain(c.out, out, keep, total);
	if (c.err >= 0)
		(void)drain(c.err, err, ERR_MAX, &etotal);
	if (ws >= 0)
		close(ws);
	if (late) {
		oxi_child_end(&c, 0);
		if (disk.over)
			snprintf(why, len, "%s, killed", oxi_disk_why(&disk,
			    dwhy, sizeof dwhy));
		else if (*total > OUT_HARD)
			snprintf(why, len, "wrote more than %d MiB, killed",
			    OUT_HARD >> 20);
		else
			snprintf(why, len, "timed out after %ld ms, killed",
			    ms);
		return -2;
	}
	/* both pipes closed: give it what is left of the time to exit */
	code = oxi_child_end(&c, end - oxi_clock_ms());
	if (code < 0) {
		snprintf(why, len, "unable to wait: %s", strerror(errno));
		return -1;
	}
	return code;
}
