/*
 * mcprpc.c - the JSON-RPC stdio transport to one MCP server, for mcp.c
 *
 * Messages are single lines of JSON on the server's stdin and stdout; a
 * request carries the _meta of 2026-07-28 when the server is modern.
 * Whole lines of its stderr become debug lines.  While we wait for an
 * answer, requests the server sends us are answered (ping, or "Method
 * not found"), notifications and late answers dropped; a server that
 * exits, closes its stdout or sends a message over MSG_MAX is marked
 * down (reaped, exit code noted).  Everything waits until a deadline
 * given as a clock_ms, never longer.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"
#include "tool/mcp.h"

#define MSG_MAX		(32 * 1024 * 1024)	/* a message from a server */

static const char modern[] = MCP_MODERN;

static jv
meta(void)
{
	jv m = jv_object(), info = jv_object();

	info = jv_object_set(info, jv_string("name"), jv_string("oxi"));
	info = jv_object_set(info, jv_string("version"),
	    jv_string(OXI_VERSION));
	m = jv_object_set(m, jv_string("io.modelcontextprotocol/"
	    "protocolVersion"), jv_string(modern));
	m = jv_object_set(m, jv_string("io.modelcontextprotocol/clientInfo"),
	    info);
	m = jv_object_set(m, jv_string("io.modelcontextprotocol/"
	    "clientCapabilities"), jv_object());
	return m;
}

/* writes a message (consumed) to the server's stdin before end */
int
mcp_tell(struct server *s, jv msg, long long end)
{
	struct pollfd p;
	jv str = jv_dump_string(msg, 0);
	const char *b;
	size_t len, off = 0;
	ssize_t w;

	str = jv_string_append_str(str, "\n");
	b = jv_string_value(str);
	len = (size_t)jv_string_length_bytes(jv_copy(str));
	while (off < len) {
		w = write(s->c.in, b + off, len - off);
		if (w > 0) {
			off += w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			break;
		p.fd = s->c.in;
		p.events = POLLOUT;
		if (oxi_clock_ms() >= end)
			break;
		(void)poll(&p, 1, (int)(end - oxi_clock_ms()));
	}
	jv_free(str);
	return off == len ? 0 : -1;
}

/* a request's message, with the _meta of 2026-07-28 when modern */
static jv
reqmsg(struct server *s, const char *method, jv params, long id)
{
	jv m = jv_object();

	if (s->modern) {
		if (jv_get_kind(params) != JV_KIND_OBJECT) {
			jv_free(params);
			params = jv_object();
		}
		params = jv_object_set(params, jv_string("_meta"), meta());
	}
	m = jv_object_set(m, jv_string("jsonrpc"), jv_string("2.0"));
	m = jv_object_set(m, jv_string("id"), jv_number(id));
	m = jv_object_set(m, jv_string("method"), jv_string(method));
	if (jv_get_kind(params) != JV_KIND_NULL)
		m = jv_object_set(m, jv_string("params"), params);
	else
		jv_free(params);
	return m;
}

/* logs whole lines of the server's stderr as debug lines */
static void
errlines(struct server *s, int eof)
{
	char *nl;
	size_t n;

	while (s->el.len > 0 && ((nl = memchr(s->el.s, '\n', s->el.len)) ||
	    eof || s->el.len >= 1024)) {
		n = nl ? (size_t)(nl - s->el.s) : s->el.len;
		oxi_debug("mcp '%s': %.*s", s->name, (int)(n < 300 ? n : 300),
		    s->el.s);
		oxi_buf_consume(&s->el, nl ? n + 1 : n);
	}
}

static void
readerr(struct server *s)
{
	char tmp[4096];
	ssize_t r;

	while (s->c.err >= 0) {
		r = read(s->c.err, tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (r == 0) {
			errlines(s, 1);
			close(s->c.err);
			s->c.err = -1;
			break;
		}
		oxi_buf_cat(&s->el, tmp, (size_t)r);
		errlines(s, 0);
	}
}

/* 1 once pid has exited (not reaped) */
int
mcp_gone(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	return waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
	    si.si_pid == pid;
}

/* marks the server down: reaped, with its exit code noted */
void
mcp_down(struct server *s, long ms)
{
	if (s->c.pid <= 0)
		return;
	readerr(s);
	errlines(s, 1);
	s->code = oxi_child_end(&s->c, ms);
	oxi_buf_reset(&s->rd);
	oxi_buf_reset(&s->el);
}

/* answers a request the server sent us: ping, or "not supported" */
static void
serverreq(struct server *s, jv msg, long long end)
{
	jv r = jv_object(), m = oxi_jget(msg, "method");

	r = jv_object_set(r, jv_string("jsonrpc"), jv_string("2.0"));
	r = jv_object_set(r, jv_string("id"), oxi_jget(msg, "id"));
	jv_free(msg);
	if (strcmp(jv_string_value(m), "ping") == 0)
		r = jv_object_set(r, jv_string("result"), jv_object());
	else {
		oxi_debug("mcp '%s': request '%.64s' refused", s->name,
		    jv_string_value(m));
		r = jv_object_set(r, jv_string("error"), jv_object_set(
		    jv_object_set(jv_object(), jv_string("code"),
		    jv_number(-32601)), jv_string("message"),
		    jv_string("Method not found")));
	}
	jv_free(m);
	(void)mcp_tell(s, r, end);
}

/*
 * Takes the next message of the server's stdout that is buffered: 1 (in
 * *msg), 0 when no whole line is there.  Lines that are not JSON
 * objects are logged and skipped.
 */
static int
takemsg(struct server *s, jv *msg)
{
	char *nl;
	size_t n;
	jv m;

	while (s->rd.len > 0 && (nl = memchr(s->rd.s, '\n', s->rd.len))) {
		n = nl - s->rd.s;
		m = oxi_json_parse(s->rd.s, n);
		oxi_buf_consume(&s->rd, n + 1);
		if (jv_get_kind(m) == JV_KIND_OBJECT) {
			*msg = m;
			return 1;
		}
		if (n > 0 && !(n == 1 && s->rd.s[0] == '\r'))
			oxi_debug("mcp '%s': a line that is not a JSON object "
			    "ignored", s->name);
		jv_free(m);
	}
	return 0;
}

/*
 * Sends a request and waits until end for its answer, a JSON-RPC
 * response in *res.  RQ_OK, RQ_TIMEOUT, or RQ_DEAD (the server exited or
 * broke the protocol; it is down then).
 */
int
mcp_request(struct server *s, const char *method, jv params, long long end,
    jv *res)
{
	struct pollfd p[2];
	char tmp[65536];
	long id = s->nextid++;
	ssize_t r;
	int n, kind;
	jv msg, v;

	*res = jv_null();
	if (s->c.pid <= 0) {
		jv_free(params);
		return RQ_DEAD;
	}
	if (mcp_tell(s, reqmsg(s, method, params, id), end) < 0) {
		if (oxi_clock_ms() >= end)
			return RQ_TIMEOUT;
		mcp_down(s, 1000);
		return RQ_DEAD;
	}
	for (;;) {
		while (takemsg(s, &msg)) {
			v = oxi_jget(msg, "method");
			kind = jv_get_kind(v);
			jv_free(v);
			if (kind == JV_KIND_STRING) {
				if (jv_object_has(jv_copy(msg),
				    jv_string("id")))
					serverreq(s, msg, end);
				else
					jv_free(msg);
				continue;
			}
			v = oxi_jget(msg, "id");
			if (jv_get_kind(v) == JV_KIND_NUMBER &&
			    jv_number_value(v) == (double)id) {
				jv_free(v);
				*res = msg;
				return RQ_OK;
			}
			jv_free(v);
			jv_free(msg);	/* a late answer to an older request */
		}
		if (s->rd.len > MSG_MAX) {
			oxi_warn("mcp server '%s' sent a message over %d MiB, "
			    "stopped", s->name, MSG_MAX >> 20);
			mcp_down(s, 0);
			return RQ_DEAD;
		}
		if (oxi_clock_ms() >= end)
			return RQ_TIMEOUT;
		n = 0;
		p[n].fd = s->c.out;
		p[n++].events = POLLIN;
		if (s->c.err >= 0) {
			p[n].fd = s->c.err;
			p[n++].events = POLLIN;
		}
		if (poll(p, n, (int)(end - oxi_clock_ms())) < 0) {
			if (errno == EINTR)
				continue;
			mcp_down(s, 0);
			return RQ_DEAD;
		}
		if (n > 1 && p[1].revents)
			readerr(s);
		if (!p[0].revents)
			continue;
		r = read(s->c.out, tmp, sizeof tmp);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			mcp_down(s, 1000);
			return RQ_DEAD;
		}
		oxi_buf_cat(&s->rd, tmp, (size_t)r);
	}
}

/* the error of a response as one line, or NULL if it has none */
const char *
mcp_rpcerr(jv res, char *buf, size_t len)
{
	jv e = oxi_jget(res, "error"), m, c;

	if (!jv_is_valid(e) || jv_get_kind(e) == JV_KIND_NULL) {
		jv_free(e);
		return NULL;
	}
	m = oxi_jget(e, "message");
	c = oxi_jget(e, "code");
	jv_free(e);
	snprintf(buf, len, "error %d: %.200s", jv_get_kind(c) ==
	    JV_KIND_NUMBER ? (int)jv_number_value(c) : 0,
	    jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "?");
	jv_free(m);
	jv_free(c);
	return buf;
}
