/*
 * t-loop-approve.c - approvals in the chat through the turn engine, with
 * an in-memory io, a ":memory:" history and approval stores in a
 * temporary directory: once, always, deny, expiry, a non-owner, an
 * answer naming another ask, an answer after a restart, "last", and
 * paths written "~" for the model
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "oxi.h"
#include "loop/loop.h"
#include "tap.h"
#define LOOPIO_NOFEED
#include "loopio.h"

static char *
dumpall(jv v)
{
	jv s = jv_dump_string(jv_copy(v), 0);
	char *r = xstrdup(jv_string_value(s));

	jv_free(s);
	return r;
}

static jv
rec(const char *s)
{
	return oxi_json_parse(s, strlen(s));
}

/* a msg.in from who in chat */
static void
msg(struct oxi_loop *l, const char *id, const char *chat, const char *who)
{
	char b[512];

	snprintf(b, sizeof b, "{\"v\":1,\"type\":\"msg.in\",\"id\":\"%s\","
	    "\"channel\":\"cli\",\"chat\":\"%s\",\"from\":\"%s\","
	    "\"text\":\"clean up\"}", id, chat, who);
	oxi_loop_msg(l, rec(b));
}

/* the model asks for shell with cmd */
static void
callshell(struct cap *c, struct oxi_loop *l, const char *cmd)
{
	char b[512];

	snprintf(b, sizeof b, "{\"v\":1,\"type\":\"llm.response\",\"id\":"
	    "\"%s\",\"message\":{\"role\":\"assistant\",\"content\":null,"
	    "\"tool_calls\":[{\"id\":\"k1\",\"name\":\"shell\",\"args\":"
	    "{\"command\":\"%s\"}}]},\"stop\":\"tool_use\"}",
	    get(c->llm, -1, "id"), cmd);
	oxi_loop_llm(l, rec(b));
}

/* oxi-tool's held result for the last call, for argv command */
static void
held(struct cap *c, struct oxi_loop *l, const char *cmd)
{
	jv r = oxi_msg_new("tool.result"), a;
	char *line;

	a = JV_ARRAY(jv_string("/bin/sh"), jv_string("-c"), jv_string(cmd));
	a = jv_object_set(jv_object(), jv_string("argv"), a);
	a = jv_object_set(a, jv_string("bin"), jv_string("/usr/bin/dash"));
	a = jv_object_set(a, jv_string("cwd"), jv_string("."));
	a = jv_object_set(a, jv_string("env"), jv_array());
	a = jv_object_set(a, jv_string("network"), jv_true());
	line = dumpall(a);
	jv_free(a);
	r = jv_object_set(r, jv_string("id"), jv_string(get(c->tool, -1,
	    "id")));
	r = jv_object_set(r, jv_string("content"), jv_string_fmt(
	    "shell: needs approval: it asks for the network, outside the "
	    "sandbox. Nothing was run. The owner can allow exactly this "
	    "command by adding this line to /secret/store (always) or to "
	    "/secret/store-once (once):\n%s", line));
	r = jv_object_set(r, jv_string("is_error"), jv_true());
	free(line);
	oxi_loop_tool(l, r);
}

static void
result(struct cap *c, struct oxi_loop *l, const char *content)
{
	jv r = oxi_msg_new("tool.result");

	r = jv_object_set(r, jv_string("id"), jv_string(get(c->tool, -1,
	    "id")));
	r = jv_object_set(r, jv_string("content"), jv_string(content));
	oxi_loop_tool(l, r);
}

/* an approval.answer */
static void
ans(struct oxi_loop *l, const char *ref, const char *choice,
    const char *chat, const char *who)
{
	char b[512];

	snprintf(b, sizeof b, "{\"v\":1,\"type\":\"approval.answer\","
	    "\"ref\":\"%s\",\"choice\":\"%s\",\"channel\":\"cli\","
	    "\"chat\":\"%s\",\"from\":\"%s\"}", ref, choice, chat, who);
	oxi_loop_answer(l, rec(b));
}

/* the content of the last tool message of the last llm.request */
static const char *
toolmsg(struct cap *c)
{
	static char buf[65536];
	jv r = jv_array_get(jv_copy(c->llm), len(c->llm) - 1), m, x;
	const char *s;
	int n;

	m = jv_object_get(r, jv_string("messages"));
	n = len(m);
	x = jv_array_get(m, n - 1);
	s = oxi_msg_peek(x, "content");
	snprintf(buf, sizeof buf, "%s", s ? unwrap(s) : "(none)");
	jv_free(x);
	return buf;
}

/* the content of file path, "" if none */
static const char *
slurp(const char *path)
{
	static struct oxi_buf b = OXI_BUF_INIT;

	oxi_buf_reset(&b);
	oxi_buf_cats(&b, "");
	(void)oxi_readfile(path, &b, 1 << 20);
	return b.s ? b.s : "";
}

int
main(void)
{
	struct cap c;
	struct oxi_loop_io io = { .llm = io_llm, .tool = io_tool,
	    .out = io_out, .arg = &c };
	struct oxi_loop_cfg cfg = { .system = "s", .maxrounds = 8,
	    .maxhist = 60, .draftms = 0 };
	struct oxi_loop *l, *l2;
	char dir[] = "/tmp/t-loop-approve.XXXXXX", store[128], once[128];
	char askid[64], callid[64], *all;
	const char *err;
	sqlite3 *db;
	int nllm, ntool, nout;
	jv s;

	oxi_prog = "t-loop-approve";
	c.llm = jv_array(), c.tool = jv_array(), c.out = jv_array(), c.down = 0;
	cfg.tools = jv_array();
	if (!mkdtemp(dir) || !(db = oxi_hist_open(":memory:", &err)))
		return 2;
	snprintf(store, sizeof store, "%s/approved", dir);
	snprintf(once, sizeof once, "%s/approved-once", dir);
	setenv("OXI_SHELL_APPROVED", store, 1);
	setenv("HOME", "/home/tester", 1);
	l = oxi_loop_new(db, &cfg, &io);

	/* a held call becomes an approval.ask; the turn waits */
	msg(l, "m1", "c1", "alice");
	callshell(&c, l, "curl example.org");
	snprintf(callid, sizeof callid, "%s", get(c.tool, -1, "id"));
	nllm = len(c.llm);
	held(&c, l, "curl example.org");
	is_str(get(c.out, -1, "type"), "approval.ask", "a held call is asked");
	snprintf(askid, sizeof askid, "%s", get(c.out, -1, "id"));
	is_str(get(c.out, -1, "ref"), callid, "the ask names the tool call");
	is_str(get(c.out, -1, "chat"), "c1", "in the session's chat");
	is_str(get(c.out, -1, "text"), "Run 'curl example.org' in the "
	    "workspace, with the network?", "the action in plain words");
	ok(get(c.out, -1, "expires") && strlen(get(c.out, -1, "expires")) ==
	    20, "with an expiry in RFC 3339");
	all = dumpall(c.out);
	ok(strstr(all, "\"choices\":[\"once\",\"always\",\"deny\"]") &&
	    !strstr(all, "/secret/store"), "the choices, and no store path");
	free(all);
	is_int(len(c.llm), nllm, "the model is not asked meanwhile");
	is_int(oxi_loop_busy(l), 1, "the turn waits");

	/* other sessions go on */
	msg(l, "m9", "c9", "carol");
	is_int(len(c.llm), nllm + 1, "another session goes on");
	s = jv_array_get(jv_copy(c.llm), len(c.llm) - 1);
	oxi_loop_llm(l, jv_object_set(rec("{\"v\":1,\"type\":"
	    "\"llm.response\",\"message\":{\"content\":\"hi\"}}"),
	    jv_string("id"), jv_string(oxi_msg_peek(s, "id"))));
	jv_free(s);
	nllm = len(c.llm);

	/* answers that do not count */
	ntool = len(c.tool);
	ans(l, askid, "once", "c1", "mallory");
	is_int(len(c.tool), ntool, "an answer from a non-owner is ignored");
	ans(l, "01JZZZZZZZZZZZZZZZZZZZZZZZ", "once", "c1", "alice");
	is_int(len(c.tool), ntool, "an answer naming another ask is ignored");
	ans(l, askid, "once", "c9", "alice");
	is_int(len(c.tool), ntool, "an answer from another chat is ignored");
	ans(l, askid, "sure", "c1", "alice");
	is_int(len(c.tool), ntool, "an unknown choice is ignored");
	oxi_loop_answer(l, rec("{\"v\":1,\"type\":\"approval.answer\","
	    "\"ref\":\"last\",\"choice\":\"once\",\"channel\":\"cli\","
	    "\"chat\":\"c1\",\"from\":\"alice\",\"trust\":\"user\"}"));
	is_int(len(c.tool), ntool, "an answer whose trust is not owner is "
	    "ignored");
	is_str(slurp(once), "", "nothing is written for them");

	/* once */
	ans(l, askid, "once", "c1", "alice");
	is_int(len(c.tool), ntool + 1, "once: the call is sent again");
	is_str(get(c.tool, -1, "id"), callid, "the same call");
	ok(strstr(slurp(once), "\"argv\":[\"/bin/sh\",\"-c\",\"curl "
	    "example.org\"]") && strstr(slurp(once), "\"network\":true"),
	    "the approval line is in the one-shot store");
	is_str(slurp(store), "", "and not in the store");
	is_int(len(c.llm), nllm, "without asking the model");
	ans(l, askid, "once", "c1", "alice");
	is_int(len(c.tool), ntool + 1, "a second answer to it is ignored");
	result(&c, l, "fetched /home/tester/.config/oxi/x and /home/testerx");
	is_int(len(c.llm), nllm + 1, "its result goes to the model");
	is_str(toolmsg(&c), "fetched ~/.config/oxi/x and /home/testerx",
	    "the home directory is written ~ for the model");
	oxi_loop_llm(l, jv_object_set(rec("{\"v\":1,\"type\":"
	    "\"llm.response\",\"message\":{\"content\":\"done\"}}"),
	    jv_string("id"), jv_string(get(c.llm, -1, "id"))));
	is_int(oxi_loop_busy(l), 0, "the turn ends");

	/* always, answered as "last" (what oxi-recv cli sends) */
	msg(l, "m2", "c1", "alice");
	callshell(&c, l, "make");
	held(&c, l, "make");
	ans(l, "last", "always", "c1", "alice");
	ok(strstr(slurp(store), "\"make\"") != NULL,
	    "always: the line is in the store");
	result(&c, l, "made");
	is_str(toolmsg(&c), "made", "and the call ran");
	oxi_loop_llm(l, jv_object_set(rec("{\"v\":1,\"type\":"
	    "\"llm.response\",\"message\":{\"content\":\"ok\"}}"),
	    jv_string("id"), jv_string(get(c.llm, -1, "id"))));

	/* deny */
	msg(l, "m3", "c1", "alice");
	callshell(&c, l, "rm -rf old");
	ntool = len(c.tool);
	held(&c, l, "rm -rf old");
	ans(l, "last", "deny", "c1", "alice");
	is_int(len(c.tool), ntool, "deny: nothing is sent again");
	is_str(toolmsg(&c), "the owner declined; nothing was run",
	    "the model learns only that the owner declined");
	ok(!strstr(slurp(once), "rm -rf"), "and nothing is stored");
	oxi_loop_llm(l, jv_object_set(rec("{\"v\":1,\"type\":"
	    "\"llm.response\",\"message\":{\"content\":\"ok\"}}"),
	    jv_string("id"), jv_string(get(c.llm, -1, "id"))));

	/* held again after an approval: the model learns no way round */
	msg(l, "m5", "c1", "alice");
	callshell(&c, l, "tar x");
	held(&c, l, "tar x");
	ans(l, "last", "once", "c1", "alice");
	nout = len(c.out);
	held(&c, l, "tar x");
	ok(len(c.out) > nout && strcmp(get(c.out, -1, "type"),
	    "approval.ask") != 0, "held again: no second ask");
	is_str(toolmsg(&c), "the approval did not take effect; nothing was "
	    "run", "and the model is told only that");
	oxi_loop_llm(l, jv_object_set(rec("{\"v\":1,\"type\":"
	    "\"llm.response\",\"message\":{\"content\":\"ok\"}}"),
	    jv_string("id"), jv_string(get(c.llm, -1, "id"))));

	/* expiry: silence is a denial */
	cfg.approvalms = 1;
	msg(l, "m4", "c1", "alice");
	callshell(&c, l, "git push");
	held(&c, l, "git push");
	snprintf(askid, sizeof askid, "%s", get(c.out, -1, "id"));
	ok(oxi_loop_timeout(l) >= 0, "a pending ask sets a timeout");
	usleep(20000);
	ntool = len(c.tool);
	ans(l, askid, "once", "c1", "alice");
	is_int(len(c.tool), ntool, "an answer after the expiry runs nothing");
	is_str(toolmsg(&c), "the approval expired; nothing was run",
	    "and the model learns it expired");
	ok(!strstr(slurp(once), "git push"), "nothing is stored");
	oxi_loop_llm(l, jv_object_set(rec("{\"v\":1,\"type\":"
	    "\"llm.response\",\"message\":{\"content\":\"ok\"}}"),
	    jv_string("id"), jv_string(get(c.llm, -1, "id"))));
	msg(l, "m6", "c1", "alice");
	callshell(&c, l, "git pull");
	held(&c, l, "git pull");
	usleep(20000);
	ok(oxi_loop_tick(l) == 0 && strcmp(toolmsg(&c), "the approval "
	    "expired; nothing was run") == 0, "silence expires on the tick");
	oxi_loop_llm(l, jv_object_set(rec("{\"v\":1,\"type\":"
	    "\"llm.response\",\"message\":{\"content\":\"ok\"}}"),
	    jv_string("id"), jv_string(get(c.llm, -1, "id"))));
	cfg.approvalms = 0;

	/* after a restart: the ask is gone, its answer is a denial */
	msg(l, "m7", "c1", "alice");
	callshell(&c, l, "wget x");
	held(&c, l, "wget x");
	snprintf(askid, sizeof askid, "%s", get(c.out, -1, "id"));
	l2 = oxi_loop_new(db, &cfg, &io);
	ntool = len(c.tool);
	ans(l2, askid, "once", "c1", "alice");
	ans(l2, "last", "once", "c1", "alice");
	ok(len(c.tool) == ntool && !strstr(slurp(once), "wget"),
	    "after a restart an answer runs and stores nothing");
	oxi_loop_free(l2);

	oxi_loop_free(l);
	oxi_hist_close(db);
	unlink(store);
	unlink(once);
	rmdir(dir);
	cap_free(&c, cfg.tools);
	plan(tap_n);
	return done();
}
