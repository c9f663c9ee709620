/*
 * loopio.h - the in-memory io of the turn engine's unit tests (t-loop.c,
 * t-loop-approve.c, t-loop-mind.c): each record the engine sends is kept
 * in order; and the records a test feeds it (t-loop.c, t-loop-mind.c)
 */
#ifndef LOOPIO_H
#define LOOPIO_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct cap {			/* what the engine sent, in order */
	jv llm, tool, out;	/* arrays of records */
	int down;		/* the stages refuse records */
};

/* frees what c captured and the tool definitions a test gave the engine */
static inline void
cap_free(struct cap *c, jv tools)
{
	jv_free(tools);
	jv_free(c->llm);
	jv_free(c->tool);
	jv_free(c->out);
}

static inline int
io_llm(void *arg, jv req)
{
	struct cap *c = arg;

	if (c->down) {
		jv_free(req);
		return -1;
	}
	c->llm = jv_array_append(c->llm, req);
	return 0;
}

static inline int
io_tool(void *arg, jv call)
{
	struct cap *c = arg;

	if (c->down) {
		jv_free(call);
		return -1;
	}
	c->tool = jv_array_append(c->tool, call);
	return 0;
}

static inline void
io_out(void *arg, jv rec)
{
	struct cap *c = arg;

	c->out = jv_array_append(c->out, rec);
}

static inline int
len(jv a)
{
	return jv_array_length(jv_copy(a));
}

/* the string rec[i][key] of array a (i < 0 counts from the end); it lives
 * as long as a holds the record */
static inline const char *
get(jv a, int i, const char *key)
{
	jv r;
	const char *s;

	if (i < 0)
		i += len(a);
	if (i < 0 || i >= len(a))
		return NULL;
	r = jv_array_get(jv_copy(a), i);
	s = oxi_msg_peek(r, key);
	jv_free(r);
	return s;
}

/*
 * s without the markers of a wrapped tool result (loop/wrap.c), or s
 * itself; NULL stays NULL.  The header and the closing line must match.
 */
static inline const char *
unwrap(const char *s)
{
	static char buf[65536];
	const char *body, *end, *id;
	size_t n;

	if (!s || strncmp(s, "<external_content ", 18) != 0 ||
	    !(id = strstr(s, " id=\"")) || !(body = strstr(s, "\">\n")))
		return s;
	body += 3;
	n = strlen(s);
	for (end = s + n; end > body && strncmp(end, "\n</external_content"
	    " id=\"", 24) != 0; end--)
		;
	if (end == body && strncmp(end, "\n</external_content", 20) != 0)
		return s;
	/* the ids agree */
	if (strncmp(id + 5, end + 24, 32) != 0)
		return s;
	snprintf(buf, sizeof buf, "%.*s", (int)(end - body), body);
	return buf;
}

#ifndef LOOPIO_NOFEED	/* t-loop-approve.c has feeders of its own */
/* a record from printf-style JSON */
static inline jv
rec(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return oxi_json_parse(buf, strlen(buf));
}

static inline int
msg(struct oxi_loop *l, const char *id, const char *chat, const char *text)
{
	return oxi_loop_msg(l, rec("{\"v\":1,\"type\":\"msg.in\",\"id\":\"%s\","
	    "\"channel\":\"cli\",\"account\":\"local\",\"chat\":\"%s\","
	    "\"text\":\"%s\"}", id, chat, text));
}

/* the model answers request id with text (or with calls, a JSON array) */
static inline int
answer(struct oxi_loop *l, const char *id, const char *text, const char *calls)
{
	if (calls)
		return oxi_loop_llm(l, rec("{\"v\":1,\"type\":\"llm.response\","
		    "\"id\":\"%s\",\"message\":{\"role\":\"assistant\","
		    "\"content\":null,\"tool_calls\":%s},\"stop\":\"tool_use\"}",
		    id, calls));
	return oxi_loop_llm(l, rec("{\"v\":1,\"type\":\"llm.response\",\"id\":"
	    "\"%s\",\"message\":{\"role\":\"assistant\",\"content\":\"%s\"},"
	    "\"stop\":\"end\"}", id, text));
}

static inline int
delta(struct oxi_loop *l, const char *id, const char *text)
{
	return oxi_loop_llm(l, rec("{\"v\":1,\"type\":\"llm.delta\",\"id\":"
	    "\"%s\",\"text\":\"%s\"}", id, text));
}

static inline int
result(struct oxi_loop *l, const char *id, const char *content)
{
	return oxi_loop_tool(l, rec("{\"v\":1,\"type\":\"tool.result\",\"id\":"
	    "\"%s\",\"content\":\"%s\"}", id, content));
}

#endif

#endif
