/* t-loop.c - the turn engine with an in-memory io and a ":memory:" history */
#define _GNU_SOURCE

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "oxi.h"
#include "loop/loop.h"
#include "tap.h"
#include "loopio.h"

/* the records of type in a, as "key,key,..." of their values of key */
static const char *
list(jv a, const char *type, const char *key)
{
	static struct oxi_buf b = OXI_BUF_INIT;
	int i;

	oxi_buf_reset(&b);
	oxi_buf_cats(&b, "");
	for (i = 0; i < len(a); i++)
		if (strcmp(get(a, i, "type"), type) == 0)
			oxi_buf_printf(&b, "%s%s", b.len ? "," : "",
			    get(a, i, key) ? get(a, i, key) : "-");
	return b.s;
}

/* a tool.result for call id with a taint (JSON text) */
static int
tainted(struct oxi_loop *l, const char *id, const char *taint)
{
	return oxi_loop_tool(l, rec("{\"v\":1,\"type\":\"tool.result\",\"id\":"
	    "\"%s\",\"content\":\"x\",\"taint\":%s}", id, taint));
}

/* the key of a[i] (i < 0 counts from the end) as compact JSON */
static const char *
dump(jv a, int i, const char *key)
{
	static char buf[4096];
	jv r, v;

	if (i < 0)
		i += len(a);
	r = jv_array_get(jv_copy(a), i);
	v = jv_dump_string(jv_object_get(r, jv_string(key)), 0);
	snprintf(buf, sizeof buf, "%s", jv_string_value(v));
	jv_free(v);
	return buf;
}

/* oxi_loop_status_text of name and args (JSON text) */
static const char *
status(const char *name, const char *args)
{
	static char buf[1024];
	jv a = oxi_json_parse(args, strlen(args)),
	    t = oxi_loop_status_text(name, a);

	snprintf(buf, sizeof buf, "%s", jv_string_value(t));
	jv_free(t);
	jv_free(a);
	return buf;
}

/* the messages of the last llm.request from the from-th on, as
 * "role:content|..." */
static const char *
history(jv reqs, int from)
{
	static struct oxi_buf b = OXI_BUF_INIT;
	jv r = jv_array_get(jv_copy(reqs), len(reqs) - 1), m, x;
	int i;

	oxi_buf_reset(&b);
	oxi_buf_cats(&b, "");
	m = jv_object_get(r, jv_string("messages"));
	for (i = from; i < len(m); i++) {
		x = jv_array_get(jv_copy(m), i);
		oxi_buf_printf(&b, "%s%s:%s", i > from ? "|" : "",
		    oxi_msg_peek(x, "role"), oxi_msg_peek(x, "content") ?
		    unwrap(oxi_msg_peek(x, "content")) : (oxi_msg_peek(x,
		    "tool_call_id") ? "" : "-"));
		jv_free(x);
	}
	jv_free(m);
	return b.s;
}

int
main(void)
{
	struct cap c;
	struct oxi_loop_io io = { .llm = io_llm, .tool = io_tool,
	    .out = io_out, .arg = &c };
	struct oxi_loop_cfg cfg = { .model = "openai/m", .system = "Be kind.",
	    .maxrounds = 8, .maxhist = 60, .draftms = 0 };
	struct oxi_loop *l;
	const char *err, *id;
	char buf[16], calls[512], rid[64], t1[OXI_ID_LEN + 1], t2[OXI_ID_LEN + 1];
	sqlite3 *db;
	jv tools;
	int n;

	oxi_prog = "t-loop";
	c.llm = jv_array(), c.tool = jv_array(), c.out = jv_array(), c.down = 0;
	cfg.tools = rec("[{\"name\":\"read_file\",\"description\":\"r\"}]");
	if (!(db = oxi_hist_open(":memory:", &err)))
		return 2;
	l = oxi_loop_new(db, &cfg, &io);

	/* a plain answer */
	ok(msg(l, "m1", "a", "hello") == 0 && len(c.llm) == 1,
	    "a message sends one llm.request");
	is_str(get(c.llm, 0, "model"), "openai/m", "with the model");
	is_str(history(c.llm, 1), "user:hello", "and the message as history");
	is_str(history(c.llm, 0), "system:Be kind.|user:hello",
	    "the system prompt leads the messages");
	is_str(get(c.llm, 0, "session"), "cli:local:a", "the session key");
	ok(strstr(jv_string_value(tools = jv_dump_string(jv_copy(c.llm), 0)),
	    "\"tools\":[{\"name\":\"read_file\"") != NULL,
	    "the tools go along");
	jv_free(tools);
	is_str(list(c.out, "typing", "chat"), "a", "typing for the chat");
	is_int(oxi_loop_busy(l), 1, "one turn in flight");
	snprintf(rid, sizeof rid, "%s", get(c.llm, 0, "id"));
	delta(l, rid, "hel");
	answer(l, rid, "hello back", NULL);
	is_str(list(c.out, "msg.out", "text"), "hello back", "a msg.out");
	is_str(list(c.out, "msg.out", "in_reply_to"), "m1", "in reply to m1");
	id = get(c.out, -1, "id");
	is_str(id, "reply:m1", "its id derives from the message's");
	is_str(list(c.out, "msg.draft", "id"), id, "the draft has that id");
	is_str(get(c.out, -1, "channel"), "cli", "routing: channel");
	is_int(oxi_loop_busy(l), 0, "the turn has ended");
	is_str(oxi_hist_state(db, "m1", buf, sizeof buf), "done",
	    "the ledger says done");

	/* the ledger: an answered id is not answered again */
	n = len(c.llm);
	ok(msg(l, "m1", "a", "hello") == 0 && len(c.llm) == n &&
	    oxi_loop_busy(l) == 0, "an answered message id is skipped");
	msg(l, "m2", "z", "once");
	msg(l, "m2", "z", "once");
	is_int(len(c.llm), n + 1, "so is a duplicate of one in flight");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);

	/* a tool round */
	msg(l, "t1", "b", "read x");
	snprintf(rid, sizeof rid, "%s", get(c.llm, -1, "id"));
	answer(l, rid, NULL, "[{\"id\":\"c1\",\"name\":\"read_file\","
	    "\"args\":{\"path\":\"x\"}}]");
	is_int(len(c.tool), 1, "the model's call becomes a tool.call");
	is_str(get(c.tool, 0, "name"), "read_file", "named as the model said");
	is_str(get(c.tool, 0, "session"), "cli:local:b", "with the session");
	is_str(get(c.out, -1, "type"), "status", "a status record per call");
	is_str(get(c.out, -1, "text"), "read_file x", "saying the tool and "
	    "its argument");
	is_str(get(c.out, -1, "in_reply_to"), "t1", "in reply to the message");
	is_str(get(c.out, -1, "ref"), get(c.tool, 0, "id"), "naming the call");
	ok(strcmp(get(c.out, -1, "channel"), "cli") == 0 && strcmp(get(c.out,
	    -1, "chat"), "b") == 0 && get(c.out, -1, "id") && strlen(get(c.out,
	    -1, "id")) == OXI_ID_LEN, "to its chat, with an id of its own");
	is_str(get(c.out, -2, "type"), "typing", "after a typing record");
	n = len(c.llm);
	result(l, get(c.tool, 0, "id"), "DATA");
	is_int(len(c.llm), n + 1, "the result asks the model again");
	is_str(history(c.llm, 1), "user:read x|assistant:-|tool:DATA",
	    "with the call and its result in the history");
	answer(l, get(c.llm, -1, "id"), "done", NULL);
	is_str(get(c.out, -1, "text"), "done", "then the answer goes out");

	/* several calls in one round */
	msg(l, "f1", "c", "fan");
	n = len(c.tool);
	snprintf(calls, sizeof calls, "[%s,%s,%s]",
	    "{\"id\":\"k1\",\"name\":\"a\",\"args\":{}}",
	    "{\"id\":\"k2\",\"name\":\"b\",\"args\":{}}",
	    "{\"id\":\"k3\",\"name\":\"c\",\"args\":{}}");
	answer(l, get(c.llm, -1, "id"), NULL, calls);
	is_int(len(c.tool) - n, 3, "three calls fan out at once");
	ok(strcmp(get(c.tool, n, "id"), get(c.tool, n + 1, "id")) != 0 &&
	    strcmp(get(c.tool, n + 1, "id"), get(c.tool, n + 2, "id")) != 0,
	    "each with its own id");
	snprintf(t1, sizeof t1, "%s", get(c.tool, n + 2, "id"));
	snprintf(t2, sizeof t2, "%s", get(c.tool, n, "id"));
	id = get(c.tool, n + 1, "id");
	n = len(c.llm);
	result(l, t1, "C");
	oxi_loop_tool(l, rec("{\"v\":1,\"type\":\"error\",\"ref\":\"%s\","
	    "\"message\":\"no such tool\"}", id));
	is_int(len(c.llm), n, "two results of three: the model waits");
	result(l, t2, "A");
	result(l, t2, "again");
	is_int(len(c.llm), n + 1, "the third result asks the model");
	is_str(history(c.llm, 1), "user:fan|assistant:-|tool:C|tool:no such tool"
	    "|tool:A", "with the three results");
	answer(l, get(c.llm, -1, "id"), "fanned", NULL);
	is_int(oxi_loop_busy(l), 0, "and the turn ends");

	/* drafts are throttled to draftms */
	cfg.draftms = 300;
	msg(l, "d1", "d", "draft");
	snprintf(rid, sizeof rid, "%s", get(c.llm, -1, "id"));
	is_int(oxi_loop_timeout(l), -1, "no draft pending before any text");
	delta(l, rid, "one");
	is_str(get(c.out, -1, "text"), "one", "the first delta drafts at once");
	n = len(c.out);
	delta(l, rid, " two");
	oxi_loop_tick(l);
	is_int(len(c.out), n, "the next waits for the interval");
	ok(oxi_loop_timeout(l) > 0 && oxi_loop_timeout(l) <= 300,
	    "the timeout says when it is due");
	usleep(350 * 1000);
	is_int(oxi_loop_timeout(l), 0, "due after the interval");
	oxi_loop_tick(l);
	ok(len(c.out) == n + 1 && strcmp(get(c.out, -1, "type"), "msg.draft")
	    == 0, "the tick sends it");
	is_str(get(c.out, -1, "text"), "one two", "with the whole text");
	is_int(oxi_loop_timeout(l), -1, "and nothing is pending");
	answer(l, rid, "one two", NULL);
	cfg.draftms = 0;

	/* one session in order, two sessions at once */
	n = len(c.llm);
	msg(l, "o1", "s", "first");
	msg(l, "o2", "p", "other");
	msg(l, "o3", "s", "second");
	is_int(len(c.llm) - n, 2, "two sessions, two requests");
	is_int(oxi_loop_busy(l), 3, "three turns held");
	snprintf(rid, sizeof rid, "%s", get(c.llm, n, "id"));
	answer(l, get(c.llm, n + 1, "id"), "to other", NULL);
	is_str(get(c.out, -1, "in_reply_to"), "o2",
	    "the other session answers first");
	is_int(len(c.llm) - n, 2, "the second message of s still waits");
	answer(l, rid, "to first", NULL);
	is_int(len(c.llm) - n, 3, "until the first is answered");
	is_str(history(c.llm, 1), "user:first|assistant:to first|user:second",
	    "and it sees that exchange");
	answer(l, get(c.llm, -1, "id"), "to second", NULL);
	is_str(list(c.out, "msg.out", "in_reply_to"), "m1,m2,t1,f1,d1,o2,o1,o3",
	    "every message answered once, in order per session");

	/* lost stages end their turns with an error */
	n = len(c.llm);
	msg(l, "L1", "l", "lost");
	msg(l, "L2", "l", "next");
	is_int(oxi_loop_lost(l, OXI_LOOP_LLM), 0, "the llm stage is lost");
	is_str(list(c.out, "error", "ref"), "L1", "an error record for L1");
	is_str(get(c.out, -2, "code"), "llm_exited", "saying why");
	is_str(get(c.out, -2, "chat"), "l", "to its chat");
	is_str(oxi_hist_state(db, "L1", buf, sizeof buf), "retry",
	    "the ledger says retry: a temporary failure, answered if it "
	    "comes again");
	is_int(len(c.llm) - n, 2, "the next turn of the session starts");
	answer(l, get(c.llm, -1, "id"), NULL,
	    "[{\"id\":\"w\",\"name\":\"x\",\"args\":{}}]");
	oxi_loop_lost(l, OXI_LOOP_TOOL);
	is_str(get(c.out, -1, "code"), "tool_exited", "a lost tool stage too");
	is_int(oxi_loop_busy(l), 0, "no turn is left hanging");

	/* an llm error record, and a stage that is down */
	msg(l, "e1", "e", "fail");
	oxi_loop_llm(l, rec("{\"v\":1,\"type\":\"error\",\"ref\":\"%s\","
	    "\"code\":\"http_500\",\"message\":\"upstream\",\"retryable\":true}",
	    get(c.llm, -1, "id")));
	is_str(get(c.out, -1, "code"), "http_500", "an llm error reaches the chat");
	is_str(get(c.out, -1, "ref"), "e1", "as an error for its message");
	ok(strstr(list(c.out, "msg.out", "in_reply_to"), "e1") == NULL,
	    "and no msg.out");
	c.down = 1;
	msg(l, "u1", "u", "down");
	is_str(get(c.out, -1, "code"), "llm_unavailable", "a stage that is down");
	c.down = 0;

	/* status lines: one line, bounded, no control characters, no secrets */
	is_str(status("shell", "{\"command\":\"ls | wc -l\",\"network\":true}"),
	    "shell ls | wc -l network=true", "the first string, then key=value");
	is_str(status("read_file", "{\"path\":\"notes.txt\"}"),
	    "read_file notes.txt", "read_file notes.txt");
	is_str(status("x", "{\"n\":3,\"p\":\"q\",\"o\":{\"a\":\"b\"},"
	    "\"l\":[1,2],\"z\":null}"), "x n=3 p=q o={...} l=[...] z=null",
	    "a first argument that is not a string; objects and arrays hidden");
	is_str(status("web_fetch", "{\"url\":\"https://a.org\",\"api_key\":"
	    "\"sk-123\",\"Auth_Token\":\"t0k\",\"PASSWORD\":\"hunter2\"}"),
	    "web_fetch https://a.org api_key=*** Auth_Token=*** PASSWORD=***",
	    "secret-looking keys redacted");
	is_str(status("f", "{\"client_secret\":\"s\",\"headers\":"
	    "{\"Authorization\":\"B\"},\"cookie\":\"c\"}"),
	    "f client_secret=*** headers={...} cookie=***",
	    "and nothing inside an object is shown");
	is_str(status("login", "{\"password\":\"hunter2\",\"user\":\"bob\"}"),
	    "login password=*** user=bob", "even as the first argument");
	is_str(status("shell", "{\"command\":\"a\\u001b[31mb\\n\\r\\tc"
	    "\\u202ed\\u200be\\u0085f\\u007fg\"}"), "shell a [31mb c d e f g",
	    "control, C1, zero-width and bidi characters become one space");
	is_str(status("t\x1b]0;x\x07", "[1]"), "t ]0;x",
	    "the name is cleaned too, and args that are not an object ignored");
	{
		char big[2048], *p = big;
		const char *t;
		int i;

		p += sprintf(p, "{\"text\":\"");
		for (i = 0; i < 300; i++)
			p += sprintf(p, "\\u00e9");
		sprintf(p, "\"}");
		t = status("write", big);
		ok(strlen(t) <= 80 && strlen(t) >= 70 && oxi_utf8_valid(t,
		    strlen(t), OXI_UTF8_NONUL) && strcmp(t + strlen(t) - 3,
		    "\342\200\246") == 0, "a long line is cut on a UTF-8 "
		    "boundary at 80 bytes, with an ellipsis");
	}

	/* taint: kept for the turn, sent on every later tool.call */
	msg(l, "T1", "t", "fetch");
	answer(l, get(c.llm, -1, "id"), NULL, "[{\"id\":\"q1\","
	    "\"name\":\"web_fetch\",\"args\":{\"url\":\"https://a.org\"}}]");
	is_str(dump(c.tool, -1, "taint"), "[\"user:cli\"]",
	    "the first tool.call carries the message's origin");
	tainted(l, get(c.tool, -1, "id"), "[\"user:cli\",\"web:https://a.org\"]");
	answer(l, get(c.llm, -1, "id"), NULL, "[{\"id\":\"q2\","
	    "\"name\":\"shell\",\"args\":{\"command\":\"ls\"}},{\"id\":"
	    "\"q3\",\"name\":\"read_file\",\"args\":{\"path\":\"a\"}}]");
	is_str(dump(c.tool, -2, "taint"), "[\"user:cli\",\"web:https://a.org\"]",
	    "a result tainted web:https://a.org taints the next tool.call");
	is_str(dump(c.tool, -1, "taint"), "[\"user:cli\",\"web:https://a.org\"]",
	    "and every call of that round");
	snprintf(t1, sizeof t1, "%s", get(c.tool, -1, "id"));
	tainted(l, get(c.tool, -2, "id"), "\"shell\"");
	tainted(l, t1, "[\"workspace\",1,null,\"\",\"shell\"]");
	answer(l, get(c.llm, -1, "id"), NULL, "[{\"id\":\"q4\","
	    "\"name\":\"x\",\"args\":{}}]");
	is_str(dump(c.tool, -1, "taint"), "[\"user:cli\",\"web:https://a.org\","
	    "\"shell\",\"workspace\"]",
	    "a union in order of first appearance; a string counts, "
	    "non-strings do not");
	oxi_loop_tool(l, rec("{\"v\":1,\"type\":\"tool.result\",\"id\":"
	    "\"%s\",\"content\":\"x\",\"taint\":[%s]}", get(c.tool, -1,
	    "id"), "\"web:https://0.org\",\"web:https://1.org\","
	    "\"web:https://2.org\",\"web:https://3.org\",\"web:https://4.org\","
	    "\"web:https://5.org\",\"web:https://6.org\",\"web:https://7.org\","
	    "\"web:https://8.org\",\"web:https://9.org\",\"web:https://10.org\","
	    "\"web:https://11.org\",\"web:https://12.org\",\"web:https://13.org\","
	    "\"web:https://14.org\",\"web:https://15.org\",\"web:https://16.org\","
	    "\"web:https://17.org\",\"web:https://18.org\",\"web:https://19.org\","
	    "\"web:https://20.org\",\"web:https://21.org\",\"web:https://22.org\","
	    "\"web:https://23.org\",\"web:https://24.org\",\"web:https://25.org\","
	    "\"web:https://26.org\",\"web:https://27.org\",\"web:https://28.org\","
	    "\"web:https://29.org\",\"web:https://30.org\",\"mcp:evil\","
	    "\"plugin:p\",\"mcp:other\""));
	answer(l, get(c.llm, -1, "id"), NULL, "[{\"id\":\"q5\","
	    "\"name\":\"x\",\"args\":{}}]");
	ok(strstr(dump(c.tool, -1, "taint"), "\"web:https://27.org\",\"web\","
	    "\"mcp\",\"plugin\"]") != NULL, "past 32 origins, each new kind "
	    "is still kept, as its kind alone");
	result(l, get(c.tool, -1, "id"), "r");
	answer(l, get(c.llm, -1, "id"), "fetched", NULL);
	is_int(oxi_loop_busy(l), 0, "the tainted turn ends");
	oxi_loop_msg(l, rec("{\"v\":1,\"type\":\"msg.in\",\"id\":\"T2\","
	    "\"channel\":\"telegram\",\"chat\":\"t\",\"text\":\"again\","
	    "\"trust\":\"user\"}"));
	answer(l, get(c.llm, -1, "id"), NULL, "[{\"id\":\"q6\","
	    "\"name\":\"x\",\"args\":{}}]");
	is_str(dump(c.tool, -1, "taint"), "[\"user:telegram\"]",
	    "a new turn starts clean, with its own origin");
	result(l, get(c.tool, -1, "id"), "r");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);

	/* a database failure: -1, a message, and nothing more */
	sqlite3_exec(db, "DROP TABLE inbox", NULL, NULL, NULL);
	is_int(msg(l, "x1", "x", "db"), -1, "a database failure returns -1");
	ok(oxi_loop_err(l) && strstr(oxi_loop_err(l),
	    "unable to record a message in '") && strstr(oxi_loop_err(l),
	    "no such table"), "oxi_loop_err says what failed");
	is_int(oxi_loop_tick(l), -1, "and the engine stays failed");

	oxi_loop_free(l);
	oxi_hist_close(db);
	cap_free(&c, cfg.tools);
	plan(tap_n);
	return done();
}
