/*
 * mcp.c - MCP servers over stdio, their tools named server__tool
 *
 * The configuration, $OXI_MCP_CONFIG or mcp.json in the configuration
 * directory:
 *
 *	{"servers":{"NAME":{"command":"...","args":["..."],
 *	    "env":{"K":"v"},"sandbox":{"network":false},"timeout_ms":60000,
 *	    "disabled":false}}}
 *
 * ("mcpServers" is read as "servers", as other clients write it.)  Each
 * server is a child in the sandbox (child.c), in the workspace, with a
 * scrubbed environment plus its "env", speaking newline-delimited
 * JSON-RPC on its stdin and stdout; its stderr goes to our debug lines.
 *
 * The revision is agreed as the 2026-07-28 stdio transport says: first
 * server/discover with the _meta of 2026-07-28; a DiscoverResult listing
 * that revision makes the server stateless (every request carries the
 * _meta, every result a resultType); an UnsupportedProtocolVersion error
 * (-32022) names the revisions to pick from; any other error, or no
 * answer in time, means a server of the initialize era: initialize
 * offering 2025-11-25 (2025-06-18 accepted too), then
 * notifications/initialized.  Then tools/list, page after page.
 *
 * Calls are made one at a time and wait at most timeout_ms.  A server
 * that does not answer in time is stopped; one that exits is reaped;
 * either way the call gets an error result and the server is started
 * again on its next call: at once the first time, then after 1, 2, 4 ...
 * 60 s while it keeps failing.  Every start is checked as the first was:
 * its entry in the configuration file must still be the one loaded, and
 * its command and that entry still pinned (trust.c); if not, the call is
 * refused and nothing runs.
 *
 * This file is the client: the revision agreement, tools/list, the tool
 * source and the configuration.  The JSON-RPC transport to one server
 * (its messages, its stdout and stderr, a request and its answer) is
 * mcprpc.c; what the two share is the private mcp.h.
 */
#define _GNU_SOURCE

#include <sys/types.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"
#include "tool/mcp.h"

#define TIMEOUT_MS	60000		/* a request, unless timeout_ms */
#define DISCOVER_MS	5000		/* server/discover, at most */
#define PAGES_MAX	100		/* of tools/list */
#define BACKOFF_MAX	60000		/* between restarts */

/* the stateless revision, and those of the initialize era we speak */

static const char modern[] = MCP_MODERN;
static const char *const legacy[] = { "2025-11-25", "2025-06-18", NULL };

struct mtool {
	char *name;		/* server__tool, sanitised */
	char *orig;		/* the server's name for it */
	struct server *srv;	/* its server */
	jv def;			/* {"name","description","parameters"} */
};

static struct server *srvs;
static size_t nsrvs;
static struct mtool *tools;
static size_t ntools;
static char *mcpwsdir;
static char *mcppath;		/* the configuration file loaded */

static void
sanitise(char *s)
{
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", *s))
			*s = '_';
}

/* warns of a tool name that is empty or holds a NUL; nm borrowed */
static void
badname(const char *srv, jv nm)
{
	struct oxi_buf b = OXI_BUF_INIT;

	oxi_tool_catname(&b, jv_string_value(nm),
	    jv_string_length_bytes(jv_copy(nm)));
	oxi_warn("mcp server '%s': tool '%s' %s, left out", srv, b.s,
	    b.len ? "has a NUL byte in its name" : "has an empty name");
	oxi_buf_free(&b);
}

/* the revision to use from a list of them: modern, a legacy one, or NULL */
static const char *
pick(jv list)
{
	const char *r = NULL;
	int i, j, n;
	jv v;

	if (jv_get_kind(list) != JV_KIND_ARRAY) {
		jv_free(list);
		return NULL;
	}
	n = jv_array_length(jv_copy(list));
	for (i = 0; i < n && r != modern; i++) {
		v = jv_array_get(jv_copy(list), i);
		if (jv_get_kind(v) == JV_KIND_STRING) {
			if (strcmp(jv_string_value(v), modern) == 0)
				r = modern;
			for (j = 0; !r && legacy[j]; j++)
				if (strcmp(jv_string_value(v), legacy[j]) == 0)
					r = legacy[j];
		}
		jv_free(v);
	}
	jv_free(list);
	return r;
}

/* the initialize handshake offering version: 0 or -1 */
static int
initialize(struct server *s, const char *version, long long end, char *why,
    size_t len)
{
	jv p = jv_object(), info = jv_object(), res, v;
	const char *got;
	char eb[256];
	int r, i;

	info = jv_object_set(info, jv_string("name"), jv_string("oxi"));
	info = jv_object_set(info, jv_string("version"),
	    jv_string(OXI_VERSION));
	p = jv_object_set(p, jv_string("protocolVersion"), jv_string(version));
	p = jv_object_set(p, jv_string("capabilities"), jv_object());
	p = jv_object_set(p, jv_string("clientInfo"), info);
	s->modern = 0;
	if ((r = mcp_request(s, "initialize", p, end, &res)) != RQ_OK) {
		snprintf(why, len, "initialize: %s", r == RQ_TIMEOUT ?
		    "no answer in time" : "the server exited");
		return -1;
	}
	if (mcp_rpcerr(res, eb, sizeof eb)) {
		snprintf(why, len, "initialize: %.200s", eb);
		jv_free(res);
		return -1;
	}
	p = oxi_jget(res, "result");
	jv_free(res);
	v = oxi_jget(p, "protocolVersion");
	jv_free(p);
	got = jv_get_kind(v) == JV_KIND_STRING ? jv_string_value(v) : "";
	for (i = 0; legacy[i]; i++)
		if (strcmp(got, legacy[i]) == 0)
			break;
	if (!legacy[i]) {
		snprintf(why, len, "initialize: revision '%.20s' not "
		    "supported", got);
		jv_free(v);
		return -1;
	}
	snprintf(s->version, sizeof s->version, "%s", legacy[i]);
	jv_free(v);
	v = jv_object();
	v = jv_object_set(v, jv_string("jsonrpc"), jv_string("2.0"));
	v = jv_object_set(v, jv_string("method"),
	    jv_string("notifications/initialized"));
	if (mcp_tell(s, v, end) < 0) {
		snprintf(why, len, "the server exited");
		return -1;
	}
	return 0;
}

/* starts the server and agrees a revision: 0, or -1 (it is down) */
static int
start(struct server *s, char *why, size_t len)
{
	struct oxi_child_cfg cfg = { mcpwsdir, s->net, 1, s->env,
	    (const char *const *)s->ro };
	long long t0 = oxi_clock_ms(), end;
	const char *v = NULL;
	char eb[256];
	int r;
	jv res, e;

	if (oxi_child_start(&s->c, s->argv, &cfg, why, len) < 0)
		return -1;
	oxi_buf_reset(&s->rd);
	oxi_buf_reset(&s->el);
	s->modern = 1;
	end = t0 + (s->timeout < DISCOVER_MS ? s->timeout : DISCOVER_MS);
	r = mcp_request(s, "server/discover", jv_object(), end, &res);
	if (r == RQ_DEAD) {
		snprintf(why, len, "exited at start (status %d)", s->code);
		return -1;
	}
	if (r == RQ_OK) {
		if (!mcp_rpcerr(res, eb, sizeof eb)) {
			e = oxi_jget(res, "result");
			v = pick(oxi_jget(e, "supportedVersions"));
			jv_free(e);
		} else {
			e = oxi_jget(res, "error");
			if (jv_equal(oxi_jget(e, "code"),
			    jv_number(-32022))) {
				jv data = oxi_jget(e, "data");

				jv_free(e);
				e = data;
				v = pick(oxi_jget(e, "supported"));
				if (!v)
					v = pick(oxi_jget(e,
					    "supportedVersions"));
				if (!v) {
					snprintf(why, len, "no protocol "
					    "revision in common");
					jv_free(e);
					jv_free(res);
					mcp_down(s, 0);
					return -1;
				}
			}
			jv_free(e);
		}
		jv_free(res);
	}
	end = oxi_clock_ms() + s->timeout;
	if (v == modern) {
		s->modern = 1;
		snprintf(s->version, sizeof s->version, "%s", modern);
	} else if (initialize(s, v ? v : legacy[0], end, why, len) < 0) {
		mcp_down(s, 0);
		return -1;
	}
	oxi_debug("mcp '%s': revision %s, up in %lld ms", s->name, s->version,
	    oxi_clock_ms() - t0);
	return 0;
}

/* the text of a tools/call result's content items, one after another */
static void
content(jv res, struct oxi_buf *out)
{
	jv c = oxi_jget(res, "content"), it, r;
	const char *type, *s;
	int i, n;

	n = jv_get_kind(c) == JV_KIND_ARRAY ? jv_array_length(jv_copy(c)) : 0;
	for (i = 0; i < n; i++) {
		it = jv_array_get(jv_copy(c), i);
		if (i > 0)
			oxi_buf_putc(out, '\n');
		type = jv_get_kind(it) == JV_KIND_OBJECT ?
		    oxi_msg_peek(it, "type") : NULL;
		if (!type)
			type = "?";
		if (strcmp(type, "text") == 0)
			oxi_buf_cats(out, (s = oxi_msg_peek(it, "text")) ?
			    s : "");
		else if (strcmp(type, "image") == 0 ||
		    strcmp(type, "audio") == 0) {
			s = oxi_msg_peek(it, "data");
			oxi_buf_printf(out, "[%s: %s, %zu bytes]", type,
			    oxi_msg_peek(it, "mimeType") ?
			    oxi_msg_peek(it, "mimeType") : "?",
			    s ? strlen(s) / 4 * 3 : 0);
		} else if (strcmp(type, "resource_link") == 0)
			oxi_buf_printf(out, "[resource link: %s]",
			    (s = oxi_msg_peek(it, "uri")) ? s : "?");
		else if (strcmp(type, "resource") == 0) {
			r = oxi_jget(it, "resource");
			if (jv_get_kind(r) == JV_KIND_OBJECT &&
			    (s = oxi_msg_peek(r, "text")))
				oxi_buf_cats(out, s);
			else
				oxi_buf_printf(out, "[resource: %s]",
				    jv_get_kind(r) == JV_KIND_OBJECT &&
				    (s = oxi_msg_peek(r, "uri")) ? s : "?");
			jv_free(r);
		} else
			oxi_buf_printf(out, "[%.32s content]", type);
		jv_free(it);
	}
	jv_free(c);
	if (n == 0) {
		c = oxi_jget(res, "structuredContent");
		if (jv_is_valid(c) && jv_get_kind(c) != JV_KIND_NULL) {
			c = jv_dump_string(c, 0);
			oxi_buf_cats(out, jv_string_value(c));
		}
		jv_free(c);
	}
}

/* tools/list, page after page: the number of tools added */
static int
listtools(struct server *s)
{
	jv res, cur = jv_null(), list, t, nm, def, schema, desc;
	char eb[256], *name;
	int r, i, n, page, added = 0;
	size_t k;

	for (page = 0; page < PAGES_MAX; page++) {
		jv p = jv_object();

		if (jv_get_kind(cur) == JV_KIND_STRING)
			p = jv_object_set(p, jv_string("cursor"), cur);
		else
			jv_free(cur);
		cur = jv_null();
		r = mcp_request(s, "tools/list", p, oxi_clock_ms() + s->timeout,
		    &res);
		if (r != RQ_OK) {
			oxi_warn("mcp server '%s': tools/list: %s", s->name,
			    r == RQ_TIMEOUT ? "no answer in time" :
			    "the server exited");
			break;
		}
		if (mcp_rpcerr(res, eb, sizeof eb)) {
			oxi_warn("mcp server '%s': tools/list: %s", s->name,
			    eb);
			jv_free(res);
			break;
		}
		t = oxi_jget(res, "result");
		jv_free(res);
		res = t;
		list = oxi_jget(res, "tools");
		n = jv_get_kind(list) == JV_KIND_ARRAY ?
		    jv_array_length(jv_copy(list)) : 0;
		for (i = 0; i < n; i++) {
			t = jv_array_get(jv_copy(list), i);
			nm = oxi_jget(t, "name");
			if (jv_get_kind(nm) != JV_KIND_STRING) {
				jv_free(nm);
				jv_free(t);
				continue;
			}
			/* a name cut at a NUL would call another tool */
			if (jv_string_length_bytes(jv_copy(nm)) == 0 ||
			    strlen(jv_string_value(nm)) != (size_t)
			    jv_string_length_bytes(jv_copy(nm))) {
				badname(s->name, nm);
				jv_free(nm);
				jv_free(t);
				continue;
			}
			name = xmalloc(strlen(s->name) + 2 +
			    jv_string_length_bytes(jv_copy(nm)) + 1);
			sprintf(name, "%s__%s", s->name, jv_string_value(nm));
			sanitise(name);
			if (strlen(name) > 64)
				name[64] = '\0';
			for (k = 0; k < ntools; k++)
				if (strcmp(tools[k].name, name) == 0)
					break;
			if (k < ntools || oxi_tool_find(name)) {
				oxi_warn("mcp server '%s': tool '%s' has the "
				    "name of another, left out", s->name, name);
				free(name);
				jv_free(nm);
				jv_free(t);
				continue;
			}
			desc = oxi_jget(t, "description");
			if (jv_get_kind(desc) != JV_KIND_STRING) {
				jv_free(desc);
				desc = oxi_jget(t, "title");
			}
			if (jv_get_kind(desc) != JV_KIND_STRING) {
				jv_free(desc);
				desc = jv_copy(nm);
			}
			schema = oxi_jget(t, "inputSchema");
			jv_free(t);
			if (jv_get_kind(schema) != JV_KIND_OBJECT) {
				jv_free(schema);
				schema = jv_parse("{\"type\":\"object\","
				    "\"properties\":{}}");
			}
			def = jv_object_set(jv_object(), jv_string("name"),
			    jv_string(name));
			def = jv_object_set(def, jv_string("description"),
			    desc);
			def = jv_object_set(def, jv_string("parameters"),
			    schema);
			tools = xrealloc(tools, (ntools + 1) * sizeof *tools);
			tools[ntools].name = name;
			tools[ntools].orig = xstrdup(jv_string_value(nm));
			tools[ntools].srv = s;
			tools[ntools++].def = def;
			added++;
			jv_free(nm);
		}
		jv_free(list);
		cur = oxi_jget(res, "nextCursor");
		jv_free(res);
		if (jv_get_kind(cur) != JV_KIND_STRING ||
		    jv_string_length_bytes(jv_copy(cur)) == 0)
			break;
	}
	if (page == PAGES_MAX)
		oxi_warn("mcp server '%s': more than %d pages of tools, the "
		    "rest left out", s->name, PAGES_MAX);
	jv_free(cur);
	return added;
}

static struct mtool *
toolof(const char *name)
{
	size_t i;

	for (i = 0; i < ntools; i++)
		if (strcmp(tools[i].name, name) == 0)
			return &tools[i];
	return NULL;
}

static int
mhas(void *arg, const char *name)
{
	(void)arg;
	return toolof(name) != NULL;
}

static jv
mdefs(void *arg, jv defs)
{
	size_t i;

	(void)arg;
	for (i = 0; i < ntools; i++)
		defs = jv_array_append(defs, jv_copy(tools[i].def));
	return defs;
}

/* after a failure: the next start waits 0, then 1, 2, 4 ... 60 s */
static void
failed(struct server *s)
{
	long ms = 0;

	if (s->fails > 0)
		ms = s->fails > 7 ? BACKOFF_MAX : 1000L << (s->fails - 1);
	if (ms > BACKOFF_MAX)
		ms = BACKOFF_MAX;
	s->fails++;
	s->retry = oxi_clock_ms() + ms;
}

/*
 * Before a restart: 0 if s may start, its entry in the configuration
 * file still the one loaded and pinned; else -1, the refusal in c.
 */
static int
pinned(struct server *s, struct oxi_tool_call *c)
{
	if (!jv_equal(oxi_mcp_entry(mcppath, s->key), jv_copy(s->ent))) {
		oxi_warn("mcp server '%s': its configuration changed since "
		    "the start, not started again", s->key);
		return oxi_tool_fail(c, "refused: the configuration of mcp "
		    "server '%s' changed since oxi-tool started: run "
		    "'oxi-tool trust %s' and start oxi-tool again. Nothing "
		    "was run.", s->key, s->key);
	}
	return oxi_trust_start(c, "mcp", s->key, NULL, jv_copy(s->ent));
}

static int
mrun(void *arg, struct oxi_tool_call *c)
{
	struct mtool *t = toolof(c->name);
	struct server *s = t->srv;
	char why[256];
	long long now;
	long ms;
	int r, iserr;
	jv p, res, v;

	(void)arg;
	if (jv_get_kind(c->args) != JV_KIND_OBJECT)
		return oxi_tool_fail(c, "arguments must be a JSON object");
	if (s->c.pid > 0 && mcp_gone(s->c.pid)) {
		oxi_debug("mcp '%s': exited while idle", s->name);
		mcp_down(s, 0);	/* it died between calls: start it now */
	}
	if (s->c.pid <= 0) {
		now = oxi_clock_ms();
		if (now < s->retry)
			return oxi_tool_fail(c, "MCP server '%s' is "
			    "down; it restarts in %lld s", s->name,
			    (s->retry - now + 999) / 1000);
		if (pinned(s, c) < 0)
			return -1;
		oxi_debug("mcp '%s': starting again", s->name);
		if (start(s, why, sizeof why) < 0) {
			failed(s);
			return oxi_tool_fail(c, "MCP server '%s' "
			    "failed to start: %s", s->name, why);
		}
	}
	p = jv_object_set(jv_object(), jv_string("name"),
	    jv_string(t->orig));
	p = jv_object_set(p, jv_string("arguments"), jv_copy(c->args));
	/* the middleware's deadline (OXI_TOOL_TIMEOUT) may be sooner */
	ms = oxi_tool_left(c, s->timeout) < s->timeout ?
	    oxi_tool_left(c, s->timeout) : s->timeout;
	r = mcp_request(s, "tools/call", p, oxi_clock_ms() + ms, &res);
	if (r == RQ_TIMEOUT) {
		mcp_down(s, 0);
		failed(s);
		return oxi_tool_fail(c, "no answer from MCP server "
		    "'%s' in %ld ms; it was stopped and restarts on a later "
		    "call", s->name, ms);
	}
	if (r == RQ_DEAD) {
		failed(s);
		return oxi_tool_fail(c, "MCP server '%s' exited "
		    "during the call (status %d); it restarts on a later "
		    "call", s->name, s->code);
	}
	if (mcp_rpcerr(res, why, sizeof why)) {
		jv_free(res);
		return oxi_tool_fail(c, "%s", why);
	}
	s->fails = 0;
	v = oxi_jget(res, "result");
	jv_free(res);
	res = v;
	v = oxi_jget(res, "resultType");
	if (s->modern && jv_get_kind(v) == JV_KIND_STRING &&
	    strcmp(jv_string_value(v), "complete") != 0) {
		jv_free(v);
		jv_free(res);
		return oxi_tool_fail(c, "the server asked for more "
		    "input, which oxi cannot give");
	}
	jv_free(v);
	v = oxi_jget(res, "isError");
	iserr = jv_get_kind(v) == JV_KIND_TRUE;
	jv_free(v);
	content(res, c->out);
	jv_free(res);
	oxi_tool_cap(c->out, c->ctx->maxout, c->out->len);
	oxi_tool_taint(c, "%s", s->taint);
	return iserr ? -1 : 0;
}

static const struct oxi_tool_src source = { NULL, mhas, mdefs, mrun, 1 };

/*
 * The paths a server may read besides the system's: those of ro
 * (consumed; absolute), and the directory of its command if that names
 * one.  0, or -1 with why.
 */
static int
readable(struct server *s, jv ro, char *why, size_t len)
{
	char *d, *slash;
	int i, n = 0;
	jv v;

	if (jv_is_valid(ro) && jv_get_kind(ro) != JV_KIND_NULL &&
	    jv_get_kind(ro) != JV_KIND_ARRAY) {
		jv_free(ro);
		snprintf(why, len, "server '%s': \"sandbox\".\"ro\" is not "
		    "an array", s->name);
		return -1;
	}
	if (jv_get_kind(ro) == JV_KIND_ARRAY)
		n = jv_array_length(jv_copy(ro));
	s->ro = xcalloc(n + 2, sizeof *s->ro);
	for (i = 0; i < n; i++) {
		v = jv_array_get(jv_copy(ro), i);
		if (jv_get_kind(v) != JV_KIND_STRING ||
		    jv_string_value(v)[0] != '/') {
			jv_free(v);
			jv_free(ro);
			snprintf(why, len, "server '%s': \"sandbox\".\"ro\" "
			    "holds something not an absolute path", s->name);
			return -1;
		}
		s->ro[i] = xstrdup(jv_string_value(v));
		jv_free(v);
	}
	jv_free(ro);
	if ((slash = strrchr(s->argv[0], '/'))) {
		d = xstrndup(s->argv[0], slash - s->argv[0] + 1);
		if (!(s->ro[n] = realpath(d, NULL)))
			s->ro[n] = NULL;
		free(d);
	}
	return 0;
}

/* fills s from its configuration (consumed): 0, or -1 with why */
static int
config(struct server *s, const char *name, jv c, char *why, size_t len)
{
	jv cmd, args, v, sb;
	int i, n;

	memset(s, 0, sizeof *s);
	s->c.pid = -1;
	s->c.in = s->c.out = s->c.err = -1;
	s->env = jv_null();
	s->name = xstrdup(name);
	sanitise(s->name);
	if (strlen(s->name) > 32)
		s->name[32] = '\0';
	if (jv_get_kind(c) != JV_KIND_OBJECT) {
		snprintf(why, len, "server '%s' is not an object", name);
		goto bad;
	}
	cmd = oxi_jget(c, "command");
	if (jv_get_kind(cmd) != JV_KIND_STRING ||
	    jv_string_length_bytes(jv_copy(cmd)) == 0) {
		jv_free(cmd);
		v = oxi_jget(c, "url");
		snprintf(why, len, "server '%s' %s", name, jv_is_valid(v) &&
		    jv_get_kind(v) != JV_KIND_NULL ? "has a \"url\": only "
		    "stdio servers are supported" : "has no \"command\"");
		jv_free(v);
		goto bad;
	}
	args = oxi_jget(c, "args");
	if (jv_get_kind(args) == JV_KIND_NULL || !jv_is_valid(args)) {
		jv_free(args);
		args = jv_array();
	}
	if (jv_get_kind(args) != JV_KIND_ARRAY) {
		jv_free(args);
		jv_free(cmd);
		snprintf(why, len, "server '%s': \"args\" is not an array",
		    name);
		goto bad;
	}
	n = jv_array_length(jv_copy(args));
	s->argv = xcalloc(n + 2, sizeof *s->argv);
	/* the sandbox runs it from the workspace: a relative path is ours */
	if (!strchr(jv_string_value(cmd), '/') || jv_string_value(cmd)[0] ==
	    '/' || !(s->argv[0] = realpath(jv_string_value(cmd), NULL)))
		s->argv[0] = xstrdup(jv_string_value(cmd));
	jv_free(cmd);
	for (i = 0; i < n; i++) {
		v = jv_array_get(jv_copy(args), i);
		if (jv_get_kind(v) != JV_KIND_STRING) {
			jv_free(v);
			jv_free(args);
			snprintf(why, len, "server '%s': \"args\" holds a "
			    "non-string", name);
			goto bad;
		}
		s->argv[i + 1] = xstrdup(jv_string_value(v));
		jv_free(v);
	}
	jv_free(args);
	s->env = oxi_jget(c, "env");
	if (!jv_is_valid(s->env) || jv_get_kind(s->env) == JV_KIND_NULL) {
		jv_free(s->env);
		s->env = jv_null();
	} else if (jv_get_kind(s->env) != JV_KIND_OBJECT) {
		snprintf(why, len, "server '%s': \"env\" is not an object",
		    name);
		goto bad;
	}
	sb = oxi_jget(c, "sandbox");
	v = oxi_jget(sb, "network");
	s->net = jv_get_kind(v) == JV_KIND_TRUE;
	jv_free(v);
	v = oxi_jget(sb, "ro");
	jv_free(sb);
	if (readable(s, v, why, len) < 0)
		goto bad;
	s->timeout = TIMEOUT_MS;
	v = oxi_jget(c, "timeout_ms");
	if (jv_get_kind(v) == JV_KIND_NUMBER) {
		if (jv_number_value(v) < 1 || jv_number_value(v) > 3600000) {
			jv_free(v);
			snprintf(why, len, "server '%s': \"timeout_ms\" out of "
			    "range (1 to 3600000)", name);
			goto bad;
		}
		s->timeout = (long)jv_number_value(v);
	}
	jv_free(v);
	s->nextid = 1;
	jv_free(c);
	return 0;
bad:
	jv_free(c);
	return -1;
}

/* frees what config filled in s */
static void
unconfig(struct server *s)
{
	char **v;

	for (v = s->argv; v && *v; v++)
		free(*v);
	for (v = s->ro; v && *v; v++)
		free(*v);
	free(s->argv);
	free(s->ro);
	free(s->name);
	jv_free(s->env);
	memset(s, 0, sizeof *s);
}

jv
oxi_mcp_entry(const char *path, const char *name)
{
	struct oxi_buf b = OXI_BUF_INIT, p = OXI_BUF_INIT;
	const char *dir;
	jv cfg, list, v;

	if (!path)
		path = oxi_getenv("OXI_MCP_CONFIG");
	if (!path && (dir = oxi_config_dir())) {
		oxi_buf_printf(&p, "%s/mcp.json", dir);
		path = p.s;
	}
	if (!path || !*path || oxi_readfile(path, &b, 4 << 20) < 0) {
		oxi_buf_free(&p);
		return jv_invalid();
	}
	oxi_buf_free(&p);
	cfg = oxi_json_parse(b.s ? b.s : "", b.len);
	oxi_buf_free(&b);
	list = oxi_jget(cfg, "servers");
	if (!jv_is_valid(list) || jv_get_kind(list) == JV_KIND_NULL) {
		jv_free(list);
		list = oxi_jget(cfg, "mcpServers");
	}
	jv_free(cfg);
	v = oxi_jget(list, name);
	jv_free(list);
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return jv_invalid();
	}
	return v;
}

int
oxi_mcp_load(const char *path, const char *wsdir, char *why, size_t len)
{
	struct oxi_buf b = OXI_BUF_INIT, p = OXI_BUF_INIT;
	const char *dir, *key;
	char sw[256];
	size_t i, j;
	int it, up = 0, n, explicit = 1;
	jv cfg, list, v, k, ent;

	free(mcpwsdir);
	mcpwsdir = wsdir ? xstrdup(wsdir) : NULL;
	if (path && !*path)
		return 0;	/* -M '': none */
	if (!path)
		path = oxi_getenv("OXI_MCP_CONFIG");
	if (!path) {
		explicit = 0;
		if (!(dir = oxi_config_dir()))
			return 0;
		oxi_buf_printf(&p, "%s/mcp.json", dir);
		path = p.s;
	}
	if (oxi_readfile(path, &b, 4 << 20) < 0) {
		if (errno == ENOENT && !explicit) {
			oxi_buf_free(&p);
			return 0;
		}
		snprintf(why, len, "unable to read '%s': %s", path,
		    strerror(errno));
		goto bad;
	}
	free(mcppath);
	mcppath = xstrdup(path);	/* read again at each restart */
	cfg = oxi_json_parse(b.s ? b.s : "", b.len);
	oxi_buf_free(&b);
	if (jv_get_kind(cfg) != JV_KIND_OBJECT) {
		snprintf(why, len, "'%s': not a JSON object", path);
		jv_free(cfg);
		goto bad;
	}
	list = oxi_jget(cfg, "servers");
	if (!jv_is_valid(list) || jv_get_kind(list) == JV_KIND_NULL) {
		jv_free(list);
		list = oxi_jget(cfg, "mcpServers");
	}
	jv_free(cfg);
	if (!jv_is_valid(list) || jv_get_kind(list) == JV_KIND_NULL) {
		jv_free(list);
		list = jv_object();
	}
	if (jv_get_kind(list) != JV_KIND_OBJECT) {
		snprintf(why, len, "'%s': \"servers\" is not an object", path);
		jv_free(list);
		goto bad;
	}
	n = jv_object_length(jv_copy(list));
	srvs = xcalloc(n > 0 ? n : 1, sizeof *srvs);
	for (it = jv_object_iter(list); jv_object_iter_valid(list, it);
	    it = jv_object_iter_next(list, it)) {
		k = jv_object_iter_key(list, it);
		key = jv_string_value(k);
		v = jv_object_iter_value(list, it);
		if (jv_get_kind(v) == JV_KIND_OBJECT && jv_equal(
		    oxi_jget(v, "disabled"),
		    jv_true())) {
			jv_free(v);
			jv_free(k);
			continue;
		}
		ent = jv_copy(v);
		if (config(&srvs[nsrvs], key, v, sw, sizeof sw) < 0) {
			jv_free(ent);
			snprintf(why, len, "'%s': %s", path, sw);
			jv_free(k);
			jv_free(list);
			goto bad;
		}
		for (i = 0; i < nsrvs; i++)
			if (strcmp(srvs[i].name, srvs[nsrvs].name) == 0) {
				snprintf(why, len, "'%s': two servers named "
				    "'%s'", path, srvs[i].name);
				jv_free(ent);
				jv_free(k);
				jv_free(list);
				goto bad;
			}
		/* a valid entry runs only if pinned */
		if (!oxi_trust_ok("mcp", key, NULL, jv_copy(ent))) {
			jv_free(ent);
			unconfig(&srvs[nsrvs]);
			jv_free(k);
			continue;
		}
		srvs[nsrvs].key = xstrdup(key);
		srvs[nsrvs].ent = ent;
		srvs[nsrvs].taint = xmalloc(strlen(srvs[nsrvs].name) + 5);
		sprintf(srvs[nsrvs].taint, "mcp:%s", srvs[nsrvs].name);
		nsrvs++;
		jv_free(k);
	}
	jv_free(list);
	oxi_buf_free(&p);
	for (i = 0; i < nsrvs; i++) {
		if (start(&srvs[i], sw, sizeof sw) < 0) {
			oxi_warn("mcp server '%s': %s; its tools are left out",
			    srvs[i].name, sw);
			continue;
		}
		j = listtools(&srvs[i]);
		oxi_debug("mcp '%s': %zu tools", srvs[i].name, j);
		up++;
	}
	if (ntools > 0 && oxi_tool_src_add(&source) < 0)
		oxi_warn("too many tool sources, MCP tools left out");
	return up;
bad:
	oxi_buf_free(&p);
	return -1;
}

/* waits up to ms for every server to exit: 1 if all did */
static int
waitall(long ms)
{
	long long end = oxi_clock_ms() + ms;
	size_t i;
	int all;

	for (;;) {
		all = 1;
		for (i = 0; i < nsrvs; i++)
			if (srvs[i].c.pid > 0 && !mcp_gone(srvs[i].c.pid))
				all = 0;
		if (all || oxi_clock_ms() >= end)
			return all;
		poll(NULL, 0, 10);
	}
}

void
oxi_mcp_stop(void)
{
	size_t i;

	for (i = 0; i < nsrvs; i++)
		if (srvs[i].c.pid > 0 && srvs[i].c.in >= 0) {
			close(srvs[i].c.in);
			srvs[i].c.in = -1;
		}
	if (!waitall(2000)) {
		for (i = 0; i < nsrvs; i++)
			if (srvs[i].c.pid > 0 && !mcp_gone(srvs[i].c.pid))
				(void)kill(-srvs[i].c.pid, SIGTERM);
		(void)waitall(2000);
	}
	for (i = 0; i < nsrvs; i++)
		mcp_down(&srvs[i], 0);
}
