/*
 * plugin.c - executables in the tool directories, run as tools, and the
 * children of oxi-tool (plugins, MCP servers) in the sandbox
 *
 * A plugin is any executable file whose name is a tool name
 * ([A-Za-z0-9_-], at most 64 bytes).  "FILE --describe" prints its
 * definition, {"name","description","parameters"} plus an optional
 * "x-oxi":{"network":true}; for each call the arguments arrive as one
 * line of JSON on its stdin and its stdout is the result, an error
 * result when it exits non-zero.  Every run is a child in the sandbox,
 * in its own session and process group, with the workspace as its
 * directory, under a timeout that kills the whole group.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tool.h"

#ifndef OXI_SHAREDIR
#define OXI_SHAREDIR	"/usr/local/share/oxi"
#endif

#define TIMEOUT_MS	30000		/* a call, unless OXI_PLUGIN_TIMEOUT */
#define DESCRIBE_MS	10000		/* --describe, at most */
#define DESCRIBE_MAX	(64 * 1024)	/* its output */
#define ERR_MAX		2048		/* stderr kept for an error result */
#define OUT_HARD	(64 * 1024 * 1024)	/* stdout read at most */
#define GRACE_MS	500		/* for what a plugin left running */

struct plugin {
	char *name;		/* the tool name, the file's name */
	char *path;		/* the file */
	char *dir;		/* its directory, readable in the sandbox */
	char *taint;		/* "plugin:NAME" */
	jv def;			/* {"name","description","parameters"} */
	int net;		/* network granted */
};


/* o[key] with o consumed; invalid if o is not an object or lacks key */
static jv
get(jv o, const char *key)
{
	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		return jv_invalid();
	}
	return jv_object_get(o, jv_string(key));
}

static struct plugin *plugins;
static size_t nplugins;
static char *plugwsdir;		/* the workspace they run in */

static int
nameok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 64 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

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
	sb.ro = cfg->ro;
	if (cfg->server) {
		sb.cpu_s = -1;	/* a server lives as long as we do */
		sb.mem_mb = -1;	/* and may be a JIT reserving gigabytes */
		sb.nofile = 256;
	}
	c->pid = oxi_sbx_spawn(&sb, argv, &c->in, &c->out, &c->err, why,
	    len);
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
	struct pollfd p[3];
	long long end, now, wake, grace = 0;
	size_t off = 0, etotal = 0;
	ssize_t w;
	int n, i, code, late = 0;

	*total = 0;
	if (oxi_child_start(&c, argv, cfg, why, len) < 0)
		return -1;
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
		/* once it has ended, what it left behind holding the pipes
		 * open gets GRACE_MS */
		if (!grace && exited(c.pid) == 1)
			grace = now + GRACE_MS;
		if (grace && now >= grace)
			break;
		wake = grace ? grace : now + 100;
		if (poll(p, n, (int)((wake < end ? wake : end) - now)) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(why, len, "unable to poll: %s",
			    strerror(errno));
			oxi_child_end(&c, 0);
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
	if (late) {
		oxi_child_end(&c, 0);
		if (*total > OUT_HARD)
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

/* a timeout in milliseconds from a variable in seconds, or def */
static long
envms(const char *var, long def)
{
	const char *v = oxi_getenv(var);
	char *e;
	double d;

	if (!v)
		return def;
	d = strtod(v, &e);
	if (*e || !(d > 0) || d > 86400) {
		oxi_warn("invalid %s '%.32s', using %ld s", var, v, def / 1000);
		return def;
	}
	return (long)(d * 1000);
}

/* 1 if name is listed in $OXI_PLUGINS_NET (comma or space separated) */
static int
netgranted(const char *name)
{
	const char *p = oxi_getenv("OXI_PLUGINS_NET");
	size_t n = strlen(name), k;

	for (; p && *p; p += k) {
		p += strspn(p, ", \t");
		k = strcspn(p, ", \t");
		if (k == n && strncmp(p, name, n) == 0)
			return 1;
	}
	return 0;
}

static struct plugin *
pluginof(const char *name)
{
	size_t i;

	for (i = 0; i < nplugins; i++)
		if (strcmp(plugins[i].name, name) == 0)
			return &plugins[i];
	return NULL;
}

/* the definition printed by --describe, checked; invalid with a reason */
static jv
checkdef(const char *name, const char *s, size_t len, int *net)
{
	jv d = oxi_json_parse(s, len), v, def;

	*net = 0;
	if (!jv_is_valid(d)) {
		jv_free(d);
		return jv_invalid_with_msg(jv_string("not JSON"));
	}
	if (jv_get_kind(d) != JV_KIND_OBJECT) {
		jv_free(d);
		return jv_invalid_with_msg(jv_string("not a JSON object"));
	}
	v = get(jv_copy(d), "name");
	if (jv_is_valid(v) && (jv_get_kind(v) != JV_KIND_STRING ||
	    strcmp(jv_string_value(v), name) != 0)) {
		jv_free(v);
		jv_free(d);
		return jv_invalid_with_msg(jv_string("its \"name\" is not "
		    "its file name"));
	}
	jv_free(v);
	def = jv_object_set(jv_object(), jv_string("name"), jv_string(name));
	v = get(jv_copy(d), "description");
	if (jv_get_kind(v) != JV_KIND_STRING ||
	    jv_string_length_bytes(jv_copy(v)) == 0) {
		jv_free(v);
		jv_free(d);
		jv_free(def);
		return jv_invalid_with_msg(jv_string("no \"description\""));
	}
	def = jv_object_set(def, jv_string("description"), v);
	v = get(jv_copy(d), "parameters");
	if (!jv_is_valid(v)) {
		jv_free(v);
		v = jv_parse("{\"type\":\"object\",\"properties\":{}}");
	}
	if (jv_get_kind(v) != JV_KIND_OBJECT || !jv_equal(get(
	    jv_copy(v), "type"), jv_string("object"))) {
		jv_free(v);
		jv_free(d);
		jv_free(def);
		return jv_invalid_with_msg(jv_string("its \"parameters\" are "
		    "not a JSON Schema of type object"));
	}
	def = jv_object_set(def, jv_string("parameters"), v);
	v = get(get(d, "x-oxi"), "network");
	*net = jv_get_kind(v) == JV_KIND_TRUE;
	jv_free(v);
	return def;
}

/* runs path --describe and adds the plugin, or warns why not */
static void
describe(const char *dir, const char *name, const char *path, long ms)
{
	const char *ro[2] = { dir, NULL };
	struct oxi_child_cfg cfg = { plugwsdir, 0, 0, jv_null(), ro };
	struct oxi_buf out = OXI_BUF_INIT, err = OXI_BUF_INIT;
	char *argv[3], why[256];
	struct plugin *p;
	size_t total;
	int code, net;
	jv def;

	argv[0] = (char *)path;
	argv[1] = "--describe";
	argv[2] = NULL;
	code = oxi_child_run(&cfg, argv, NULL, 0, ms, DESCRIBE_MAX, &out,
	    &total, &err, why, sizeof why);
	if (code != 0) {
		if (code > 0)
			snprintf(why, sizeof why, "exit status %d", code);
		oxi_warn("plugin '%s': --describe failed (%s), skipped",
		    path, why);
		goto done;
	}
	if (total > DESCRIBE_MAX) {
		oxi_warn("plugin '%s': --describe printed more than %d KiB, "
		    "skipped", path, DESCRIBE_MAX >> 10);
		goto done;
	}
	def = checkdef(name, out.s ? out.s : "", out.len, &net);
	if (!jv_is_valid(def)) {
		def = jv_invalid_get_msg(def);
		oxi_warn("plugin '%s': invalid --describe output (%s), "
		    "skipped", path, jv_string_value(def));
		jv_free(def);
		goto done;
	}
	if (net && !netgranted(name)) {
		oxi_warn("plugin '%s' asks for the network, not granted "
		    "(not in OXI_PLUGINS_NET)", name);
		net = 0;
	}
	plugins = xrealloc(plugins, (nplugins + 1) * sizeof *plugins);
	p = &plugins[nplugins++];
	p->name = xstrdup(name);
	p->path = xstrdup(path);
	p->dir = xstrdup(dir);
	p->taint = xmalloc(strlen(name) + 8);
	sprintf(p->taint, "plugin:%s", name);
	p->def = def;
	p->net = net;
	oxi_debug("plugin '%s' from '%s'%s", name, dir,
	    net ? ", with network" : "");
done:
	oxi_buf_free(&out);
	oxi_buf_free(&err);
}

static void
loaddir(const char *dir, long ms)
{
	struct dirent **ents;
	struct oxi_buf path = OXI_BUF_INIT;
	struct stat st;
	int i, n;

	char *abs;

	if ((n = scandir(dir, &ents, NULL, alphasort)) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			oxi_warnsys("unable to read tool directory '%s'", dir);
		return;
	}
	if (!(abs = realpath(dir, NULL)))
		abs = xstrdup(dir);
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		oxi_buf_reset(&path);
		oxi_buf_printf(&path, "%s/%s", abs, name);
		if (name[0] == '.' || stat(path.s, &st) < 0 ||
		    !S_ISREG(st.st_mode) || access(path.s, X_OK) < 0)
			;	/* not a plugin */
		else if (!nameok(name))
			oxi_warn("plugin '%s': not a tool name "
			    "([A-Za-z0-9_-], 64 at most), skipped", path.s);
		else if (oxi_tool_find(name))
			oxi_warn("plugin '%s' has the name of a built-in tool, "
			    "skipped", path.s);
		else if (pluginof(name))
			oxi_debug("plugin '%s' hidden by an earlier one",
			    path.s);
		else
			describe(abs, name, path.s, ms);
		free(ents[i]);
	}
	free(ents);
	free(abs);
	oxi_buf_free(&path);
}

static int
phas(void *arg, const char *name)
{
	(void)arg;
	return pluginof(name) != NULL;
}

static jv
pdefs(void *arg, jv defs)
{
	size_t i;

	(void)arg;
	for (i = 0; i < nplugins; i++)
		defs = jv_array_append(defs, jv_copy(plugins[i].def));
	return defs;
}

/* one line of text: control characters (but tab) as spaces, trimmed */
static void
oneline(struct oxi_buf *b)
{
	size_t i;

	for (i = 0; i < b->len; i++)
		if ((unsigned char)b->s[i] < 0x20 && b->s[i] != '\t')
			b->s[i] = ' ';
	while (b->len > 0 && b->s[b->len - 1] == ' ')
		b->s[--b->len] = '\0';
}

static int
prun(void *arg, const struct oxi_tool_ctx *ctx, const char *name, jv args,
    struct oxi_buf *out, const char **taint)
{
	struct plugin *p = pluginof(name);
	const char *ro[2] = { p->dir, NULL };
	struct oxi_child_cfg cfg = { plugwsdir, 0, 0, jv_null(), ro };
	struct oxi_buf err = OXI_BUF_INIT;
	char *argv[2], why[256];
	size_t total;
	long ms;
	int code;
	jv s;

	(void)arg;
	*taint = NULL;
	if (jv_get_kind(args) != JV_KIND_OBJECT)
		return oxi_tool_fail(out, name,
		    "arguments must be a JSON object");
	cfg.net = p->net;
	s = jv_dump_string(jv_copy(args), 0);
	s = jv_string_append_str(s, "\n");
	argv[0] = p->path;
	argv[1] = NULL;
	/* the middleware's deadline (OXI_TOOL_TIMEOUT) may be sooner */
	ms = envms("OXI_PLUGIN_TIMEOUT", TIMEOUT_MS);
	ms = oxi_tool_left(ms) < ms ? oxi_tool_left(ms) : ms;
	code = oxi_child_run(&cfg, argv, jv_string_value(s),
	    (size_t)jv_string_length_bytes(jv_copy(s)), ms, ctx->maxout + 4,
	    out, &total, &err, why, sizeof why);
	jv_free(s);
	if (code < 0) {
		oxi_buf_free(&err);
		return oxi_tool_fail(out, name, "%s", why);
	}
	if (code > 0) {
		oneline(&err);
		if (err.len == 0) {
			oxi_buf_reset(&err);
			oxi_buf_cat(&err, out->s, out->len < 1024 ?
			    out->len : 1024);
			oneline(&err);
		}
		oxi_tool_fail(out, name, "failed with exit status %d%s%.*s",
		    code, err.len ? ": " : "", (int)(err.len < 1000 ?
		    err.len : 1000), err.s ? err.s : "");
		oxi_buf_free(&err);
		return -1;
	}
	oxi_buf_free(&err);
	oxi_tool_cap(out, ctx->maxout, total);
	*taint = p->taint;
	return 0;
}

static const struct oxi_tool_src source = { NULL, phas, pdefs, prun };

int
oxi_plugin_load(const char *dirs, const char *wsdir)
{
	struct oxi_buf d = OXI_BUF_INIT;
	const char *p, *cfg;
	size_t k;

	free(plugwsdir);
	plugwsdir = wsdir ? xstrdup(wsdir) : NULL;
	if (!dirs)
		dirs = oxi_getenv("OXI_TOOL_PATH");
	if (!dirs) {
		if ((cfg = oxi_config_dir()))
			oxi_buf_printf(&d, "%s/tools:", cfg);
		oxi_buf_cats(&d, OXI_SHAREDIR "/tools");
		dirs = d.s;
	}
	for (p = dirs; *p; p += k, p += *p == ':') {
		char *dir;

		k = strcspn(p, ":");
		if (k == 0)
			continue;
		dir = xstrndup(p, k);
		loaddir(dir, DESCRIBE_MS);
		free(dir);
	}
	oxi_buf_free(&d);
	if (nplugins > 0 && oxi_tool_src_add(&source) < 0)
		oxi_warn("too many tool sources, plugins left out");
	return (int)nplugins;
}
