/*
 * mcpserve.c - oxi's tools served to an MCP client over stdio
 *
 * One JSON-RPC 2.0 message a line each way.  Both eras are answered:
 * initialize (2025-11-25 or 2025-06-18, whichever the client offers, else
 * 2025-11-25) and server/discover (2026-07-28); a request whose _meta
 * names 2026-07-28 gets "resultType":"complete" in its result, one that
 * names another revision the UnsupportedProtocolVersion error (-32022).
 * Requests are answered in order, one at a time: ping, tools/list (every
 * tool in one page) and tools/call (the content as one text item, and
 * isError).  Notifications and responses are ignored.  Errors: -32700 a
 * line that is not JSON (or is too long), -32600 not a request, -32601
 * an unknown method, -32602 wrong params or an unknown tool.
 */
#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"

#define MODERN	"2026-07-28"
#define PVKEY	"io.modelcontextprotocol/protocolVersion"


static const char *const versions[] = { "2025-11-25", "2025-06-18", NULL };

static jv
info(void)
{
	jv i = jv_object();

	i = jv_object_set(i, jv_string("name"), jv_string("oxi-tool"));
	return jv_object_set(i, jv_string("version"), jv_string(OXI_VERSION));
}

static int
answer(int fd, jv id, jv result, int modern)
{
	jv m = jv_object();

	if (modern)
		result = jv_object_set(result, jv_string("resultType"),
		    jv_string("complete"));
	m = jv_object_set(m, jv_string("jsonrpc"), jv_string("2.0"));
	m = jv_object_set(m, jv_string("id"), id);
	m = jv_object_set(m, jv_string("result"), result);
	return oxi_nd_write(fd, m);
}

static int
fail(int fd, jv id, int code, const char *msg, jv data)
{
	jv m = jv_object(), e = jv_object();

	e = jv_object_set(e, jv_string("code"), jv_number(code));
	e = jv_object_set(e, jv_string("message"), jv_string(msg));
	if (jv_is_valid(data))
		e = jv_object_set(e, jv_string("data"), data);
	else
		jv_free(data);
	m = jv_object_set(m, jv_string("jsonrpc"), jv_string("2.0"));
	m = jv_object_set(m, jv_string("id"), id);
	m = jv_object_set(m, jv_string("error"), e);
	return oxi_nd_write(fd, m);
}

static int
initialize(int fd, jv id, jv params)
{
	const char *v = jv_get_kind(params) == JV_KIND_OBJECT ?
	    oxi_msg_peek(params, "protocolVersion") : NULL;
	const char *use = versions[0];
	jv r = jv_object();
	int i;

	if (!v) {
		jv_free(r);
		return fail(fd, id, -32602, "initialize needs a string "
		    "protocolVersion", jv_invalid());
	}
	for (i = 0; versions[i]; i++)
		if (strcmp(v, versions[i]) == 0)
			use = versions[i];
	oxi_debug("mcp: initialize, client offers '%.20s', answering %s", v,
	    use);
	r = jv_object_set(r, jv_string("protocolVersion"), jv_string(use));
	r = jv_object_set(r, jv_string("capabilities"), jv_parse(
	    "{\"tools\":{\"listChanged\":false}}"));
	r = jv_object_set(r, jv_string("serverInfo"), info());
	return answer(fd, id, r, 0);
}

static int
discover(int fd, jv id)
{
	jv r = jv_object();

	r = jv_object_set(r, jv_string("supportedVersions"),
	    jv_array_append(jv_array(), jv_string(MODERN)));
	r = jv_object_set(r, jv_string("capabilities"),
	    jv_parse("{\"tools\":{}}"));
	r = jv_object_set(r, jv_string("_meta"), jv_object_set(jv_object(),
	    jv_string("io.modelcontextprotocol/serverInfo"), info()));
	r = jv_object_set(r, jv_string("ttlMs"), jv_number(3600000));
	r = jv_object_set(r, jv_string("cacheScope"), jv_string("public"));
	return answer(fd, id, r, 1);
}

static int
list(int fd, jv id, jv defs, int modern)
{
	jv a = jv_array(), d, t;
	int i, n = jv_array_length(jv_copy(defs));

	for (i = 0; i < n; i++) {
		d = jv_array_get(jv_copy(defs), i);
		t = jv_object();
		t = jv_object_set(t, jv_string("name"),
		    oxi_jget(d, "name"));
		t = jv_object_set(t, jv_string("description"),
		    oxi_jget(d, "description"));
		t = jv_object_set(t, jv_string("inputSchema"),
		    oxi_jget(d, "parameters"));
		jv_free(d);
		a = jv_array_append(a, t);
	}
	return answer(fd, id, jv_object_set(jv_object(), jv_string("tools"),
	    a), modern);
}

/* 1 if defs has a tool called name */
static int
known(jv defs, const char *name)
{
	int i, n = jv_array_length(jv_copy(defs)), r = 0;
	jv d;

	for (i = 0; i < n && !r; i++) {
		d = jv_array_get(jv_copy(defs), i);
		r = strcmp(oxi_msg_peek(d, "name"), name) == 0;
		jv_free(d);
	}
	return r;
}

static int
call(const struct oxi_tool_ctx *ctx, int fd, jv id, jv params, jv defs,
    int modern, struct oxi_buf *out)
{
	const char *name;
	char taint[OXI_TOOL_TAINT];
	char msg[160];
	long long t0;
	jv args, r;
	int e;

	name = jv_get_kind(params) == JV_KIND_OBJECT ?
	    oxi_msg_peek(params, "name") : NULL;
	if (!name)
		return fail(fd, id, -32602, "tools/call needs a string name",
		    jv_invalid());
	if (!known(defs, name)) {
		snprintf(msg, sizeof msg, "Unknown tool: %.100s", name);
		return fail(fd, id, -32602, msg, jv_invalid());
	}
	args = oxi_jget(params, "arguments");
	if (!jv_is_valid(args) || jv_get_kind(args) == JV_KIND_NULL) {
		jv_free(args);
		args = jv_object();
	}
	if (jv_get_kind(args) != JV_KIND_OBJECT) {
		jv_free(args);
		return fail(fd, id, -32602, "tools/call arguments must be an "
		    "object", jv_invalid());
	}
	t0 = oxi_clock_ms();
	/* through the middleware: time limit, cache, cap, log line */
	e = oxi_tool_call(ctx, NULL, name, args, out, taint, sizeof taint) < 0;
	oxi_debug("mcp: call %.64s %s %lld ms", name, e ? "error" : "ok",
	    oxi_clock_ms() - t0);
	r = jv_object_set(jv_object(), jv_string("type"), jv_string("text"));
	r = jv_object_set(r, jv_string("text"), jv_string_sized(out->s ?
	    out->s : "", (int)out->len));
	r = jv_object_set(jv_object(), jv_string("content"),
	    jv_array_append(jv_array(), r));
	r = jv_object_set(r, jv_string("isError"), jv_bool(e));
	return answer(fd, id, r, modern);
}

/* handles one line: 0, or -1 if the answer could not be written */
static int
handle(const struct oxi_tool_ctx *ctx, int fd, const char *line,
    size_t len, jv defs, struct oxi_buf *out)
{
	jv m = oxi_json_parse(line, len), id, params, pv, meta;
	const char *method;
	int r, modern = 0;

	if (!jv_is_valid(m)) {
		jv_free(m);
		return fail(fd, jv_null(), -32700, "Parse error",
		    jv_invalid());
	}
	if (jv_get_kind(m) != JV_KIND_OBJECT) {
		jv_free(m);
		return fail(fd, jv_null(), -32600, "Invalid Request: not an "
		    "object (batches are not supported)", jv_invalid());
	}
	id = oxi_jget(m, "id");
	if (jv_is_valid(id) && jv_get_kind(id) != JV_KIND_STRING &&
	    jv_get_kind(id) != JV_KIND_NUMBER) {
		jv_free(id);
		jv_free(m);
		return fail(fd, jv_null(), -32600, "Invalid Request: bad id",
		    jv_invalid());
	}
	method = oxi_msg_peek(m, "method");
	if (!method) {
		r = 0;
		if (jv_object_has(jv_copy(m), jv_string("result")) ||
		    jv_object_has(jv_copy(m), jv_string("error")))
			jv_free(id);	/* a response: we asked nothing */
		else
			r = fail(fd, jv_is_valid(id) ? id : jv_null(), -32600,
			    "Invalid Request: no method", jv_invalid());
		jv_free(m);
		return r;
	}
	if (!jv_is_valid(id)) {	/* a notification */
		oxi_debug("mcp: notification '%.64s' ignored", method);
		jv_free(id);
		jv_free(m);
		return 0;
	}
	params = oxi_jget(m, "params");
	meta = oxi_jget(params, "_meta");
	pv = oxi_jget(meta, PVKEY);
	jv_free(meta);
	if (jv_get_kind(pv) == JV_KIND_STRING) {
		if (strcmp(jv_string_value(pv), MODERN) != 0) {
			jv_free(pv);
			jv_free(params);
			jv_free(m);
			return fail(fd, id, -32022, "Unsupported protocol "
			    "version", jv_parse("{\"supported\":[\"" MODERN
			    "\"]}"));
		}
		modern = 1;
	}
	jv_free(pv);
	if (strcmp(method, "initialize") == 0)
		r = initialize(fd, id, params);
	else if (strcmp(method, "server/discover") == 0)
		r = discover(fd, id);
	else if (strcmp(method, "ping") == 0)
		r = answer(fd, id, jv_object(), modern);
	else if (strcmp(method, "tools/list") == 0)
		r = list(fd, id, defs, modern);
	else if (strcmp(method, "tools/call") == 0)
		r = call(ctx, fd, id, params, defs, modern, out);
	else {
		oxi_debug("mcp: method '%.64s' not found", method);
		r = fail(fd, id, -32601, "Method not found", jv_invalid());
	}
	jv_free(params);
	jv_free(m);
	return r;
}

int
oxi_mcp_serve(const struct oxi_tool_ctx *ctx, int in, int out,
    size_t maxline)
{
	struct oxi_buf b = OXI_BUF_INIT, res = OXI_BUF_INIT;
	char tmp[65536], *nl;
	size_t scan = 0, n;
	ssize_t r;
	int skipping = 0, ret = 0, eof = 0;
	jv defs = oxi_tool_defs();

	if (maxline == 0)
		maxline = OXI_MAXLINE_DEFAULT;
	while (!eof || b.len > 0) {
		if (!eof && !(nl = memchr(b.s ? b.s + scan : "", '\n',
		    b.len - scan))) {
			scan = b.len;
			if (b.len > maxline) {
				if (!skipping && fail(out, jv_null(), -32700,
				    "Parse error: line too long",
				    jv_invalid()) < 0)
					goto ioerr;
				skipping = 1;
				oxi_buf_reset(&b);
				scan = 0;
			}
			if (oxi_sig_term)
				break;
			r = read(in, tmp, sizeof tmp);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				goto ioerr;
			}
			if (r == 0)
				eof = 1;
			else
				oxi_buf_cat(&b, tmp, (size_t)r);
			continue;
		}
		/* a whole line, or the unterminated last one */
		nl = memchr(b.s, '\n', b.len);
		n = nl ? (size_t)(nl - b.s) : b.len;
		if (skipping)
			skipping = 0;
		else if (n > maxline) {
			if (fail(out, jv_null(), -32700, "Parse error: line "
			    "too long", jv_invalid()) < 0)
				goto ioerr;
		} else if (n > 0 && !(n == 1 && b.s[0] == '\r') &&
		    handle(ctx, out, b.s, n, defs, &res) < 0)
			goto ioerr;
		oxi_buf_consume(&b, nl ? n + 1 : n);
		scan = 0;
	}
	goto done;
ioerr:
	ret = -1;
done:
	jv_free(defs);
	oxi_buf_free(&b);
	oxi_buf_free(&res);
	return ret;
}
