/*
 * t-loop-mind.c - the turn engine as a mind, with an in-memory io and a
 * ":memory:" history: slash commands, summaries that keep planted facts,
 * tool results cut after their turn, failed turns not sent again, the
 * round cap and its nudge, repetition, budgets of tokens and time,
 * queue and resume, records that cannot be read, requests that must
 * fit, drafts that do not grow with the square of the reply
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
#include "loopio.h"

static sqlite3 *db;

/* one integer from the database */
static long long
sql(const char *q)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		return -2;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* the whole of record i of a as JSON */
static const char *
whole(jv a, int i)
{
	static char *buf;
	jv r, s;

	if (i < 0)
		i += len(a);
	r = jv_array_get(jv_copy(a), i);
	s = jv_dump_string(r, 0);
	free(buf);
	buf = xstrdup(jv_string_value(s));
	jv_free(s);
	return buf;
}

/* the text of the last msg.out */
static const char *
said(struct cap *c)
{
	int i;

	for (i = len(c->out) - 1; i >= 0; i--)
		if (strcmp(get(c->out, i, "type"), "msg.out") == 0)
			return get(c->out, i, "text");
	return "";
}

static int
error(struct oxi_loop *l, const char *id, const char *code, int retryable)
{
	return oxi_loop_llm(l, rec("{\"v\":1,\"type\":\"error\",\"ref\":\"%s\","
	    "\"code\":\"%s\",\"message\":\"m\",\"retryable\":%s}", id, code,
	    retryable ? "true" : "false"));
}

/* a record of type with key id and a text of any size */
static jv
sized(const char *type, const char *idkey, const char *id, const char *key,
    const char *text)
{
	jv r = oxi_msg_new(type);

	r = jv_object_set(r, jv_string(idkey), jv_string(id));
	return jv_object_set(r, jv_string(key), jv_string(text));
}

/* a call of tool name with args (JSON) as the model's only call */
static int
call(struct oxi_loop *l, const char *id, const char *name, const char *args)
{
	char b[512];

	snprintf(b, sizeof b, "[{\"id\":\"k\",\"name\":\"%s\",\"args\":%s}]",
	    name, args);
	return answer(l, id, NULL, b);
}

int
main(void)
{
	struct cap c;
	struct oxi_loop_io io = { .llm = io_llm, .tool = io_tool,
	    .out = io_out, .arg = &c };
	struct oxi_loop_cfg cfg = { .model = "openai/m", .system = "Be kind.",
	    .maxrounds = 10, .maxhist = 60, .draftms = 0, .toolkeep = 8192 };
	struct oxi_loop *l;
	const char *err;
	char buf[16], rid[64], *big;
	size_t drafted;
	int i, n;

	oxi_prog = "t-loop-mind";
	c.llm = jv_array(), c.tool = jv_array(), c.out = jv_array(), c.down = 0;
	cfg.tools = rec("[{\"name\":\"read_file\",\"description\":\"r\"}]");
	if (!(db = oxi_hist_open(":memory:", &err)))
		return 2;
	l = oxi_loop_new(db, &cfg, &io);

	/* 1. commands, without the model */
	n = len(c.llm);
	msg(l, "h1", "a", "/help");
	ok(len(c.llm) == n && strstr(said(&c), "/new") && strstr(said(&c),
	    "/stop"), "/help lists the commands without a model call");
	is_str(get(c.out, -1, "in_reply_to"), "h1", "answering the command");
	is_str(oxi_hist_state(db, "h1", buf, sizeof buf), "done",
	    "a command is answered once");
	msg(l, "a1", "a", "my cat is Tom");
	is_str(get(c.llm, -1, "session"), "cli:local:a", "the first session "
	    "of a chat is its key");
	answer(l, get(c.llm, -1, "id"), "noted", NULL);
	msg(l, "h2", "a", "  /new  ");
	ok(strstr(said(&c), "new session") != NULL, "/new starts a session");
	msg(l, "a2", "a", "hello again");
	ok(strncmp(get(c.llm, -1, "session"), "cli:local:a#", 12) == 0,
	    "the next message is in the new session");
	ok(strstr(whole(c.llm, -1), "Tom") == NULL, "which does not see the "
	    "old one");
	answer(l, get(c.llm, -1, "id"), "hi", NULL);
	msg(l, "h3", "a", "/sessions");
	ok(strstr(said(&c), "\n1. started") && strstr(said(&c), "\n2. "
	    "started") && strstr(said(&c), "(current)"), "/sessions lists "
	    "both, the old one kept");
	msg(l, "h4", "a", "/model Bad Name");
	ok(strstr(said(&c), "Not a model name") != NULL, "/model refuses a "
	    "bad name");
	msg(l, "h5", "a", "/model anthropic/claude-x,openai/y");
	ok(strstr(said(&c), "now uses anthropic/claude-x,openai/y") != NULL,
	    "/model sets a chain");
	msg(l, "a3", "a", "which model?");
	is_str(get(c.llm, -1, "model"), "anthropic/claude-x,openai/y",
	    "the session's requests use it");
	oxi_loop_llm(l, rec("{\"v\":1,\"type\":\"llm.response\",\"id\":\"%s\","
	    "\"message\":{\"role\":\"assistant\",\"content\":\"this one\"},"
	    "\"usage\":{\"input\":1200,\"output\":34},\"cost_usd\":0.5}",
	    get(c.llm, -1, "id")));
	msg(l, "h6", "a", "/status");
	ok(strstr(said(&c), "Model: anthropic/claude-x,openai/y") &&
	    strstr(said(&c), "of 128,000 tokens") && strstr(said(&c),
	    "1 answer, 1,200 tokens in, 34 out, $0.5000"), "/status: model, "
	    "context of the window (the smaller of a chain) and spend");
	msg(l, "h7", "a", "/cost");
	ok(strstr(said(&c), "This session: 1 answer") != NULL, "/cost");
	msg(l, "h8", "a", "/model default");
	msg(l, "h9", "a", "/stop");
	is_str(said(&c), "Nothing to stop.", "/stop with nothing in flight");
	msg(l, "s1", "a", "write a lot");
	snprintf(rid, sizeof rid, "%s", get(c.llm, -1, "id"));
	is_str(get(c.llm, -1, "model"), "openai/m", "/model default");
	delta(l, rid, "Once upon");
	msg(l, "s2", "a", "/stop");
	is_str(get(c.llm, -1, "type"), "llm.cancel", "/stop cancels the "
	    "request in flight: llm.cancel");
	is_str(get(c.llm, -1, "ref"), rid, "naming it");
	is_str(get(c.out, -2, "text"), "Once upon\n\n[stopped]", "the turn "
	    "ends with its text and a note");
	is_str(get(c.out, -2, "in_reply_to"), "s1", "answering its message");
	is_int(oxi_loop_busy(l), 0, "nothing is left in flight");
	answer(l, rid, "late", NULL);
	is_int(oxi_loop_busy(l), 0, "a late answer is ignored");
	msg(l, "s3", "a", "read x");
	call(l, get(c.llm, -1, "id"), "read_file", "{\"path\":\"x\"}");
	msg(l, "s4", "a", "/stop");
	is_int(oxi_loop_busy(l), 0, "/stop during tool calls");
	ok(sql("SELECT count(*) FROM messages WHERE msg_id='s3' AND "
	    "role='tool' AND content LIKE '[no result%'") == 1, "each open "
	    "call gets a result in the history");

	/* 2. failed turns are not sent again */
	msg(l, "f1", "f", "SECRET-FAIL");
	error(l, get(c.llm, -1, "id"), "bad_request", 0);
	is_str(oxi_hist_state(db, "f1", buf, sizeof buf), "failed",
	    "a permanent failure");
	msg(l, "f2", "f", "next");
	ok(strstr(whole(c.llm, -1), "SECRET-FAIL") == NULL,
	    "its message is not sent again");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);

	/* 2. a large tool result: whole once, cut after its turn */
	big = xmalloc(65537);
	memset(big, 'x', 65536);
	big[65536] = '\0';
	msg(l, "b1", "b", "read big");
	call(l, get(c.llm, -1, "id"), "read_file", "{\"path\":\"big\"}");
	oxi_loop_tool(l, sized("tool.result", "id", get(c.tool, -1, "id"),
	    "content", big));
	ok(strstr(whole(c.llm, -1), big) != NULL, "the model sees a 64 KB "
	    "result whole");
	answer(l, get(c.llm, -1, "id"), "read it", NULL);
	is_int(sql("SELECT length(content) FROM messages WHERE msg_id='b1' "
	    "AND role='tool'"), 8192 + 29, "after the turn the history "
	    "keeps 8192 characters and a note");
	ok(sql("SELECT count(*) FROM messages WHERE msg_id='b1' AND "
	    "content LIKE '%[cut: 57344 more characters]'") == 1, "the note "
	    "says how much");

	/* 2. compaction: older turns summarised, facts kept, summary stored */
	cfg.maxhist = 6;
	msg(l, "c1", "c", "my dog is called Rex");
	answer(l, get(c.llm, -1, "id"), "nice", NULL);
	msg(l, "c2", "c", "I live in Lyon");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);
	msg(l, "c3", "c", "I was born in 1984");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);
	n = len(c.llm);
	msg(l, "c4", "c", "what do you know?");
	ok(len(c.llm) == n + 1 && strstr(whole(c.llm, -1), "\"stream\":false")
	    && strstr(whole(c.llm, -1), "Rex") && strstr(whole(c.llm, -1),
	    "Lyon"), "past -H messages, a summary request of its own with "
	    "the oldest turns");
	ok(strstr(whole(c.llm, -1), "what do you know") == NULL, "the turn's "
	    "own message stays out of it");
	is_int(oxi_loop_busy(l), 1, "the turn waits for it");
	answer(l, get(c.llm, -1, "id"), "User has a dog, Rex; lives in Lyon.",
	    NULL);
	is_int(sql("SELECT count(*) FROM summaries WHERE session='cli:local:c'"
	    " AND content LIKE '%Rex%Lyon%'"), 1, "the summary is stored");
	ok(strstr(whole(c.llm, -1), "A summary of the earlier conversation") &&
	    strstr(whole(c.llm, -1), "dog, Rex"), "and sent with the system "
	    "prompt");
	ok(strstr(whole(c.llm, -1), "my dog is called Rex") == NULL,
	    "in place of the turns it stands for");
	ok(strstr(whole(c.llm, -1), "what do you know?") && strstr(whole(
	    c.llm, -1), "1984"), "the last user message and the recent turn "
	    "kept whole");
	answer(l, get(c.llm, -1, "id"), "Rex, Lyon, 1984", NULL);
	cfg.maxhist = 60;

	/* 3. the round cap, and the nudge at 70% */
	msg(l, "r1", "r", "loop");
	for (i = 0; i < 9; i++) {
		snprintf(buf, sizeof buf, "{\"n\":%d}", i);
		call(l, get(c.llm, -1, "id"), "read_file", buf);
		if (i == 5)
			ok(strstr(whole(c.llm, -1), "wrap up") == NULL,
			    "no nudge at round 6 of 10");
		result(l, get(c.tool, -1, "id"), "r");
		if (i == 5)
			ok(strstr(whole(c.llm, -1), "round 7 of at most 10") !=
			    NULL, "a nudge to wrap up at round 7 of 10");
	}
	n = len(c.llm);
	call(l, get(c.llm, -1, "id"), "read_file", "{\"n\":99}");
	result(l, get(c.tool, -1, "id"), "r");
	ok(len(c.llm) == n && strstr(said(&c), "[stopped: 10 rounds"),
	    "at the cap the turn ends with a note");

	/* 3. the same call three times */
	msg(l, "p1", "p", "repeat");
	for (i = 0; i < 2; i++) {
		call(l, get(c.llm, -1, "id"), "read_file", "{\"path\":\"a\"}");
		result(l, get(c.tool, -1, "id"), "r");
	}
	n = len(c.tool);
	call(l, get(c.llm, -1, "id"), "read_file", "{\"path\":\"a\"}");
	ok(len(c.tool) == n && strstr(said(&c), "same tool call was asked for"
	    " 3 times") && oxi_loop_busy(l) == 0, "the third identical call "
	    "ends the turn with a note");

	/* 3. budgets of tokens and time */
	cfg.turntokens = 100;
	msg(l, "k1", "k", "spend");
	oxi_loop_llm(l, rec("{\"v\":1,\"type\":\"llm.response\",\"id\":\"%s\","
	    "\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":"
	    "[{\"id\":\"x\",\"name\":\"read_file\",\"args\":{}}]},\"usage\":"
	    "{\"input\":90,\"output\":20}}", get(c.llm, -1, "id")));
	ok(strstr(said(&c), "more than 100 tokens") && !oxi_loop_busy(l),
	    "past the turn's tokens it ends with a note");
	cfg.turntokens = 0;
	cfg.turnms = 100;
	msg(l, "k2", "k", "slow");
	snprintf(rid, sizeof rid, "%s", get(c.llm, -1, "id"));
	ok(oxi_loop_timeout(l) > 0 && oxi_loop_timeout(l) <= 100,
	    "the deadline is a timeout");
	usleep(150 * 1000);
	oxi_loop_tick(l);
	ok(strstr(said(&c), "took more than 0 s") && strcmp(get(c.llm, -1,
	    "type"), "llm.cancel") == 0 && !oxi_loop_busy(l), "past its time "
	    "the turn is cancelled and ends with a note");
	cfg.turnms = 0;

	/* 4. queue and resume */
	cfg.retryms = 50, cfg.retrymaxms = 80, cfg.retryage = 400;
	msg(l, "q1", "q", "are you there");
	error(l, get(c.llm, -1, "id"), "network", 1);
	is_str(said(&c), "The model is unreachable; I will answer when it is "
	    "back.", "a temporary failure: the user is told");
	is_int(oxi_loop_busy(l), 1, "and the turn is kept");
	n = len(c.llm);
	oxi_loop_tick(l);
	is_int(len(c.llm), n, "no retry before the backoff");
	usleep(60 * 1000);
	oxi_loop_tick(l);
	is_int(len(c.llm), n + 1, "then the request goes again");
	error(l, get(c.llm, -1, "id"), "rate_limit", 1);
	usleep(90 * 1000);
	oxi_loop_tick(l);
	for (n = i = 0; i < len(c.out); i++)
		n += strstr(whole(c.out, i), "is unreachable") != NULL;
	is_int(n, 1, "the user is told once");
	answer(l, get(c.llm, -1, "id"), "here I am", NULL);
	ok(strcmp(said(&c), "here I am") == 0 && !oxi_loop_busy(l),
	    "answered when the model is back");
	msg(l, "q2", "q", "again");
	for (i = 0; i < 10 && oxi_loop_busy(l); i++) {
		error(l, get(c.llm, -1, "id"), "server", 1);
		usleep(90 * 1000);
		oxi_loop_tick(l);
	}
	ok(strstr(get(c.out, -1, "message"), "giving up") != NULL &&
	    !oxi_loop_busy(l), "past its age the turn fails with an error");
	is_str(oxi_hist_state(db, "q2", buf, sizeof buf), "retry",
	    "marked as a temporary failure");
	n = len(c.llm);
	msg(l, "q2", "q", "again");
	is_int(len(c.llm), n + 1, "so the same id sent again is answered");
	answer(l, get(c.llm, -1, "id"), "back", NULL);
	msg(l, "q3", "q", "stop soon");
	error(l, get(c.llm, -1, "id"), "timeout", 1);
	oxi_loop_stop(l);
	ok(!oxi_loop_busy(l) && strcmp(get(c.out, -1, "code"), "timeout") ==
	    0, "at the end of input a waiting turn ends with its error");
	cfg.retryage = 0;

	/* 8a. a record that cannot be read, a request that must fit */
	msg(l, "x1", "x", "huge reply");
	snprintf(buf, sizeof buf, "%.15s", get(c.llm, -1, "id"));
	oxi_loop_bad(l, OXI_LOOP_LLM, "{\"type\":\"llm.response\",\"id\":\"",
	    30);
	is_int(oxi_loop_busy(l), 1, "a bad line naming no turn changes "
	    "nothing");
	{
		char line[128];

		snprintf(line, sizeof line, "{\"v\":1,\"type\":\"llm.response\","
		    "\"id\":\"%s\",\"message\":{\"content\":\"xxxx",
		    get(c.llm, -1, "id"));
		oxi_loop_bad(l, OXI_LOOP_LLM, line, strlen(line));
	}
	ok(strcmp(get(c.out, -1, "type"), "error") == 0 && strcmp(get(c.out,
	    -1, "code"), "reply_unreadable") == 0 && strcmp(get(c.out, -1,
	    "chat"), "x") == 0 && !oxi_loop_busy(l), "a reply that cannot be "
	    "read ends its turn with an error for the chat");
	msg(l, "x2", "x", "read two");
	answer(l, get(c.llm, -1, "id"), NULL, "[{\"id\":\"a\",\"name\":\"r\","
	    "\"args\":{\"n\":1}},{\"id\":\"b\",\"name\":\"r\",\"args\":{}}]");
	oxi_loop_bad(l, OXI_LOOP_TOOL, get(c.tool, -1, "id"), OXI_ID_LEN);
	result(l, get(c.tool, -2, "id"), "fine");
	ok(strstr(whole(c.llm, -1), "could not be read") &&
	    strstr(whole(c.llm, -1), "fine"), "a tool result that cannot be "
	    "read becomes an error result");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);
	cfg.maxreq = 100000;
	msg(l, "x3", "y", "read many");
	for (i = 0; i < 3; i++) {
		call(l, get(c.llm, -1, "id"), "read_file", i == 0 ? "{}" :
		    i == 1 ? "{\"a\":1}" : "{\"a\":2}");
		big[40000] = '\0';
		oxi_loop_tool(l, sized("tool.result", "id", get(c.tool, -1,
		    "id"), "content", big));
	}
	ok(strlen(whole(c.llm, -1)) < 100000 && strstr(whole(c.llm, -1),
	    "[cut to fit the context"), "tool results are cut so the "
	    "request fits the stage's line limit");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);
	memset(big, 'y', 65536);
	big[65536] = '\0';
	{
		jv in = rec("{\"v\":1,\"type\":\"msg.in\",\"id\":\"x4\","
		    "\"channel\":\"cli\",\"chat\":\"z\",\"text\":\"\"}");

		in = jv_object_set(in, jv_string("text"), jv_string(big));
		in = jv_object_set(in, jv_string("text"), jv_string_concat(
		    jv_string(big), jv_string(big)));
		oxi_loop_msg(l, in);
	}
	ok(strcmp(get(c.out, -1, "code"), "request_too_large") == 0 &&
	    !oxi_loop_busy(l), "a message that cannot fit fails with an "
	    "error the user sees");
	cfg.maxreq = 0;

	/* 8b. drafts and the size of a reply */
	cfg.replymax = 5000;
	msg(l, "d1", "d", "talk");
	snprintf(rid, sizeof rid, "%s", get(c.llm, -1, "id"));
	n = len(c.out);
	for (i = 0; i < 1000; i++)
		delta(l, rid, "0123456789");
	for (drafted = 0, i = n; i < len(c.out); i++)
		drafted += strlen(get(c.out, i, "text"));
	ok(len(c.out) - n < 40 && drafted < 9 * 5000, "1000 deltas: few "
	    "drafts, their bytes linear in the reply");
	ok(strlen(get(c.out, -1, "text")) <= 5000, "no draft past the cap");
	big[9000] = '\0';
	oxi_loop_llm(l, jv_object_set(sized("llm.response", "id", rid, "x",
	    ""), jv_string("message"), jv_object_set(jv_object_set(jv_object(),
	    jv_string("role"), jv_string("assistant")), jv_string("content"),
	    jv_string(big))));
	ok(strlen(said(&c)) < 5100 && strstr(said(&c), "[cut: the reply was "
	    "longer than 5000 bytes]"), "the reply is cut at its cap, "
	    "with a note");
	is_int(sql("SELECT max(length(content)) FROM messages WHERE "
	    "msg_id='d1'"), 5000, "and stored cut");
	cfg.replymax = 0;

	/* 8d. the reply is stored once */
	is_int(sql("SELECT count(*) FROM inbox WHERE reply IS NOT NULL"), 0,
	    "the ledger holds no copy of replies");
	is_int(oxi_hist_prune(db, "9999-01-01T00:00:00.000Z", &err), 0,
	    "pruning everything older than a date");
	ok(sql("SELECT count(*) FROM messages WHERE session = 'cli:local:a'")
	    == 0 && sql("SELECT count(*) FROM messages WHERE session LIKE "
	    "'cli:local:a#%'") > 0, "keeps no message of a session that is "
	    "no longer current...");
	ok(sql("SELECT count(*) FROM messages WHERE session='cli:local:c'") > 0
	    && sql("SELECT count(*) FROM messages WHERE session='cli:local:c'"
	    " AND content LIKE '%Rex%'") == 1, "...but what no summary "
	    "stands for in a current session");

	free(big);
	oxi_loop_free(l);
	oxi_hist_close(db);
	cap_free(&c, cfg.tools);
	plan(tap_n);
	return done();
}
