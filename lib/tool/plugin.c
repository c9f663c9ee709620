/*
 * plugin.c - executables in the tool directories, run as tools
 *
 * A plugin is any executable file whose name is a tool name
 * ([A-Za-z0-9_-], at most 64 bytes).  "FILE --describe" prints its
 * definition, {"name","description","parameters"} plus an optional
 * "x-oxi":{"network":true}; for each call the arguments arrive as one
 * line of JSON on its stdin and its stdout is the result, an error
 * result when it exits non-zero.  Every run is a child in the sandbox
 * (child.c), in its own session and process group, with the workspace
 * as its directory, under a timeout that kills the whole group, and
 * only while its file is the one pinned (trust.c), checked at each call.
 */
#define _GNU_SOURCE

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
#include "tool/tooldef.h"

#ifndef OXI_SHAREDIR
#define OXI_SHAREDIR	"/usr/local/share/oxi"
#endif

#define TIMEOUT_MS	30000		/* a call, unless OXI_PLUGIN_TIMEOUT */
#define DESCRIBE_MS	10000		/* --describe, at most */
#define DESCRIBE_MAX	(64 * 1024)	/* its output */

struct plugin {
	char *name;		/* the tool name, the file's name */
	char *path;		/* the file */
	char *dir;		/* its directory, readable in the sandbox */
	char *taint;		/* "plugin:NAME" */
	jv def;			/* {"name","description","parameters"} */
	int net;		/* network granted */
};


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
	jv d = oxi_json_parse(s, len), v, def, x;

	*net = 0;
	if (!jv_is_valid(d)) {
		jv_free(d);
		return jv_invalid_with_msg(jv_string("not JSON"));
	}
	if (jv_get_kind(d) != JV_KIND_OBJECT) {
		jv_free(d);
		return jv_invalid_with_msg(jv_string("not a JSON object"));
	}
	v = oxi_jget(d, "name");
	if (jv_is_valid(v) && (jv_get_kind(v) != JV_KIND_STRING ||
	    strcmp(jv_string_value(v), name) != 0 ||
	    strlen(name) != (size_t)jv_string_length_bytes(jv_copy(v)))) {
		jv_free(v);
		jv_free(d);
		return jv_invalid_with_msg(jv_string("its \"name\" is not "
		    "its file name"));
	}
	jv_free(v);
	def = jv_object_set(jv_object(), jv_string("name"), jv_string(name));
	v = oxi_jget(d, "description");
	if (jv_get_kind(v) != JV_KIND_STRING ||
	    jv_string_length_bytes(jv_copy(v)) == 0) {
		jv_free(v);
		jv_free(d);
		jv_free(def);
		return jv_invalid_with_msg(jv_string("no \"description\""));
	}
	def = jv_object_set(def, jv_string("description"), v);
	v = oxi_jget(d, "parameters");
	if (!jv_is_valid(v)) {
		jv_free(v);
		v = jv_parse("{\"type\":\"object\",\"properties\":{}}");
	}
	if (jv_get_kind(v) != JV_KIND_OBJECT ||
	    !jv_equal(oxi_jget(v, "type"), jv_string("object"))) {
		jv_free(v);
		jv_free(d);
		jv_free(def);
		return jv_invalid_with_msg(jv_string("its \"parameters\" are "
		    "not a JSON Schema of type object"));
	}
	def = jv_object_set(def, jv_string("parameters"), v);
	x = oxi_jget(d, "x-oxi");
	jv_free(d);
	v = oxi_jget(x, "network");
	*net = jv_get_kind(v) == JV_KIND_TRUE;
	jv_free(v);
	jv_free(x);
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

	char *abs, *shown;

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
		else if (!nameok(name)) {
			shown = oxi_tool_showname(path.s);
			oxi_warn("plugin '%s': not a tool name "
			    "([A-Za-z0-9_-], 64 at most), skipped", shown);
			free(shown);
		}
		else if (oxi_tool_find(name))
			oxi_warn("plugin '%s' has the name of a built-in tool, "
			    "skipped", path.s);
		else if (pluginof(name))
			oxi_debug("plugin '%s' hidden by an earlier one",
			    path.s);
		else if (oxi_trust_ok("plugin", name, path.s, jv_null()))
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
prun(void *arg, struct oxi_tool_call *c)
{
	const struct oxi_tool_ctx *ctx = c->ctx;
	struct oxi_buf *out = c->out;
	struct plugin *p = pluginof(c->name);
	const char *ro[2] = { p->dir, NULL };
	struct oxi_child_cfg cfg = { plugwsdir, 0, 0, jv_null(), ro };
	struct oxi_buf err = OXI_BUF_INIT;
	char *argv[2], why[256];
	size_t total;
	long ms;
	int code;
	jv s;

	(void)arg;
	if (jv_get_kind(c->args) != JV_KIND_OBJECT)
		return oxi_tool_fail(c, "arguments must be a JSON object");
	/* pinned at load, and still: each call is a new start */
	if (oxi_trust_start(c, "plugin", p->name, p->path, jv_null()) < 0)
		return -1;
	cfg.net = p->net;
	s = jv_dump_string(jv_copy(c->args), 0);
	s = jv_string_append_str(s, "\n");
	argv[0] = p->path;
	argv[1] = NULL;
	/* the middleware's deadline (OXI_TOOL_TIMEOUT) may be sooner */
	if (oxi_env_ms("OXI_PLUGIN_TIMEOUT", TIMEOUT_MS, &ms) < 0)
		oxi_warn("invalid OXI_PLUGIN_TIMEOUT '%.32s', using %ld s",
		    oxi_getenv("OXI_PLUGIN_TIMEOUT"), (long)TIMEOUT_MS / 1000);
	ms = oxi_tool_left(c, ms) < ms ? oxi_tool_left(c, ms) : ms;
	code = oxi_child_run(&cfg, argv, jv_string_value(s),
	    (size_t)jv_string_length_bytes(jv_copy(s)), ms, ctx->maxout + 4,
	    out, &total, &err, why, sizeof why);
	jv_free(s);
	if (code < 0) {
		oxi_buf_free(&err);
		return oxi_tool_fail(c, "%s", why);
	}
	if (code > 0) {
		oneline(&err);
		if (err.len == 0) {
			oxi_buf_reset(&err);
			oxi_buf_cat(&err, out->s, out->len < 1024 ?
			    out->len : 1024);
			oneline(&err);
		}
		oxi_tool_fail(c, "failed with exit status %d%s%.*s",
		    code, err.len ? ": " : "", (int)(err.len < 1000 ?
		    err.len : 1000), err.s ? err.s : "");
		oxi_buf_free(&err);
		return -1;
	}
	oxi_buf_free(&err);
	oxi_tool_cap(out, ctx->maxout, total);
	oxi_tool_taint(c, "%s", p->taint);
	return 0;
}

static const struct oxi_tool_src source = { NULL, phas, pdefs, prun, 0 };

/* dirs, else $OXI_TOOL_PATH, else the default list (built in d) */
static const char *
tooldirs(const char *dirs, struct oxi_buf *d)
{
	const char *cfg;

	if (!dirs)
		dirs = oxi_getenv("OXI_TOOL_PATH");
	if (!dirs) {
		if ((cfg = oxi_config_dir()))
			oxi_buf_printf(d, "%s/tools:", cfg);
		oxi_buf_cats(d, OXI_SHAREDIR "/tools");
		dirs = d->s;
	}
	return dirs;
}

char *
oxi_plugin_find(const char *dirs, const char *name)
{
	struct oxi_buf d = OXI_BUF_INIT, f = OXI_BUF_INIT;
	struct stat st;
	const char *p;
	char *r = NULL;
	size_t k;

	if (!nameok(name))
		return NULL;
	dirs = tooldirs(dirs, &d);
	for (p = dirs; *p && !r; p += k, p += *p == ':') {
		if ((k = strcspn(p, ":")) == 0)
			continue;
		oxi_buf_reset(&f);
		oxi_buf_printf(&f, "%.*s/%s", (int)k, p, name);
		if (stat(f.s, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(f.s, X_OK) == 0)
			r = realpath(f.s, NULL);
	}
	oxi_buf_free(&d);
	oxi_buf_free(&f);
	return r;
}

int
oxi_plugin_load(const char *dirs, const char *wsdir)
{
	struct oxi_buf d = OXI_BUF_INIT;
	const char *p;
	size_t k;

	free(plugwsdir);
	plugwsdir = wsdir ? xstrdup(wsdir) : NULL;
	dirs = tooldirs(dirs, &d);
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
