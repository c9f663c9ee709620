/*
 * t-openai.c - the OpenAI Chat Completions dialect: request bodies, reply
 * reading, and conformance with the recorded streams in
 * ../shared/wire/openai-chat (fed whole, split at every byte offset, and
 * one byte at a time), plus the provider table and message scrubbing
 *
 * usage: t-openai [shared-dir]   (default $SHARED, else ../shared from
 * the top of the tree; the conformance part is skipped without it)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/dialect.h"
#include "llm/job.h"
#include "tap.h"

/* expected results, from reading the recorded files */
static const struct conf {
	const char *file;	/* under wire/openai-chat */
	const char *want;	/* the dialect's result(), as JSON */
} confs[] = {
	{ "openai-python_content_logprobs.sse",
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"Foo!\","
	  "\"tool_calls\":[]},\"stop\":\"end\",\"usage\":{\"input\":9,"
	  "\"output\":2,\"cache_read\":0,\"cache_write\":0,\"reasoning\":0}}" },
	{ "openai-python_finish_length_max_tokens.sse",
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"{\\\"\","
	  "\"tool_calls\":[]},\"stop\":\"length\",\"usage\":{\"input\":79,"
	  "\"output\":1,\"cache_read\":0,\"cache_write\":0,\"reasoning\":0}}" },
	{ "openai-python_parallel_tool_calls_two_functions.sse",
	  "{\"message\":{\"role\":\"assistant\",\"content\":null,"
	  "\"tool_calls\":[{\"id\":\"call_JMW1whyEaYG438VE1OIflxA2\","
	  "\"name\":\"GetWeatherArgs\",\"args\":{\"city\":\"Edinburgh\","
	  "\"country\":\"GB\",\"units\":\"c\"}},"
	  "{\"id\":\"call_DNYTawLBoN8fj3KN6qU9N1Ou\","
	  "\"name\":\"get_stock_price\",\"args\":{\"ticker\":\"AAPL\","
	  "\"exchange\":\"NASDAQ\"}}]},\"stop\":\"tool_use\","
	  "\"usage\":{\"input\":149,\"output\":60,\"cache_read\":0,"
	  "\"cache_write\":0,\"reasoning\":0}}" },
	{ "openai-python_plain_text.sse",
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"I'm unable to"
	  " provide real-time weather updates. To get the current weather in"
	  " San Francisco, I recommend checking a reliable weather website or"
	  " a weather app.\",\"tool_calls\":[]},\"stop\":\"end\","
	  "\"usage\":{\"input\":14,\"output\":30,\"cache_read\":0,"
	  "\"cache_write\":0,\"reasoning\":0}}" },
	{ "openai-python_refusal.sse",
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"I'm sorry, I"
	  " can't assist with that request.\",\"tool_calls\":[]},"
	  "\"stop\":\"refusal\",\"usage\":{\"input\":79,\"output\":11,"
	  "\"cache_read\":0,\"cache_write\":0,\"reasoning\":0}}" },
	{ "openai-python_single_tool_call.sse",
	  "{\"message\":{\"role\":\"assistant\",\"content\":null,"
	  "\"tool_calls\":[{\"id\":\"call_c91SqDXlYFuETYv8mUHzz6pp\","
	  "\"name\":\"GetWeatherArgs\",\"args\":{\"city\":\"Edinburgh\","
	  "\"country\":\"UK\",\"units\":\"c\"}}]},\"stop\":\"tool_use\","
	  "\"usage\":{\"input\":76,\"output\":24,\"cache_read\":0,"
	  "\"cache_write\":0,\"reasoning\":0}}" },
	{ "openai-python_strict_tool_call.sse",
	  "{\"message\":{\"role\":\"assistant\",\"content\":null,"
	  "\"tool_calls\":[{\"id\":\"call_CTf1nWJLqSeRgDqaCG27xZ74\","
	  "\"name\":\"get_weather\",\"args\":{\"city\":\"San Francisco\","
	  "\"state\":\"CA\"}}]},\"stop\":\"tool_use\",\"usage\":{\"input\":48,"
	  "\"output\":19,\"cache_read\":0,\"cache_write\":0,"
	  "\"reasoning\":0}}" },
};
#define NCONF	(sizeof confs / sizeof confs[0])

static void
ondelta(void *arg, const char *p, size_t n)
{
	oxi_buf_cat(arg, p, n);
}

/* the dialect under test, driven through its table */
static const struct oxi_llm_dialect *const dia = &oxi_dialect_openai;

/* sorted compact JSON of a valid result, or "error CODE RETRY: MSG" */
static char *
outcome(void *o)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const char *code;
	int retry;
	jv r, s;

	r = dia->result(o, &code, &retry);
	if (jv_is_valid(r)) {
		s = jv_dump_string(r, JV_PRINT_SORTED);
		oxi_buf_cats(&b, jv_string_value(s));
	} else {
		s = jv_invalid_get_msg(r);
		oxi_buf_printf(&b, "error %s %d: %s", code, retry,
		    jv_string_value(s));
	}
	jv_free(s);
	return b.s;
}

/* feeds s whole (step 0 and split 0), split in two, or step bytes at a time */
static char *
run(const char *s, size_t len, size_t split, size_t step,
    struct oxi_buf *deltas)
{
	void *o = dia->reader(deltas ? ondelta : NULL, deltas);
	size_t off, k;
	char *r;

	if (step) {
		for (off = 0; off < len; off += k) {
			k = len - off < step ? len - off : step;
			dia->feed(o, s + off, k);
		}
	} else {
		dia->feed(o, s, split);
		dia->feed(o, s + split, len - split);
	}
	r = outcome(o);
	dia->free(o);
	return r;
}

static char *
norm(const char *json)
{
	jv v = jv_parse(json), s;
	char *r;

	if (!jv_is_valid(v)) {
		jv_free(v);
		return xstrdup("(bad expectation)");
	}
	s = jv_dump_string(v, JV_PRINT_SORTED);
	r = xstrdup(jv_string_value(s));
	jv_free(s);
	return r;
}

/* a stream given as a C string: whole, at every split, byte by byte */
static void
stream(const char *name, const char *s, const char *want)
{
	size_t len = strlen(s), i;
	char *w = want[0] == '{' ? norm(want) : xstrdup(want), *got;
	int bad = 0;

	got = run(s, len, len, 0, NULL);
	is_str(got, w, "%s", name);
	free(got);
	for (i = 0; i <= len; i++) {
		got = run(s, len, i, 0, NULL);
		bad += strcmp(got, w) != 0;
		free(got);
	}
	got = run(s, len, 0, 1, NULL);
	bad += strcmp(got, w) != 0;
	free(got);
	ok(bad == 0, "%s: the same split anywhere", name);
	free(w);
}

static void
conformance(const char *dir)
{
	struct oxi_buf f = OXI_BUF_INIT, path = OXI_BUF_INIT, d = OXI_BUF_INIT;
	char *got, *want;
	size_t i, k;
	int bad, known, extra = 0;
	DIR *dp;
	jv v;
	struct dirent *de;

	for (i = 0; i < NCONF; i++) {
		oxi_buf_reset(&path);
		oxi_buf_printf(&path, "%s/wire/openai-chat/%s", dir,
		    confs[i].file);
		oxi_buf_reset(&f);
		if (oxi_readfile(path.s, &f, 1 << 20) < 0) {
			ok(0, "%s: readable", confs[i].file);
			ok(0, "%s: split", confs[i].file);
			ok(0, "%s: byte by byte", confs[i].file);
			continue;
		}
		want = norm(confs[i].want);
		oxi_buf_reset(&d);
		got = run(f.s, f.len, f.len, 0, &d);
		/* the deltas add up to the content */
		v = jv_string(d.len ? "\"content\":\"" : "\"content\":null,");
		ok(strcmp(got, want) == 0 && (d.len == 0 ||
		    strstr(want, d.s)) && strstr(want, jv_string_value(v)),
		    "%s: whole, deltas make the content", confs[i].file);
		if (strcmp(got, want) != 0)
			printf("#   got %s\n#   expected %s\n", got, want);
		jv_free(v);
		free(got);
		bad = 0;
		for (k = 0; k <= f.len; k++) {
			got = run(f.s, f.len, k, 0, NULL);
			if (strcmp(got, want) != 0 && bad++ == 0)
				printf("# split at %zu: %s\n", k, got);
			free(got);
		}
		ok(bad == 0, "%s: split at every offset", confs[i].file);
		got = run(f.s, f.len, 0, 1, NULL);
		is_str(got, want, "%s: one byte at a time", confs[i].file);
		free(got);
		free(want);
	}
	/* every recorded file has an expectation here */
	oxi_buf_reset(&path);
	oxi_buf_printf(&path, "%s/wire/openai-chat", dir);
	if ((dp = opendir(path.s))) {
		while ((de = readdir(dp)))
			if (strstr(de->d_name, ".sse")) {
				for (known = 0, i = 0; i < NCONF; i++)
					known |= !strcmp(de->d_name,
					    confs[i].file);
				if (!known) {
					printf("# no expectation for %s\n",
					    de->d_name);
					extra++;
				}
			}
		closedir(dp);
	}
	ok(dp && extra == 0, "every recorded stream is checked");
	oxi_buf_free(&f);
	oxi_buf_free(&path);
	oxi_buf_free(&d);
}

#define CHUNK(delta, fin) "data: {\"choices\":[{\"index\":0,\"delta\":" \
	delta ",\"finish_reason\":" fin "}]}\n\n"

static void
body(const char *name, const char *req, const char *want)
{
	struct oxi_llm_target t;
	jv r, b, s;
	char *w = want[0] == '{' ? norm(want) : xstrdup(want);

	memset(&t, 0, sizeof t);
	t.model = "m";
	r = jv_parse(req);
	b = dia->body(r, &t);
	jv_free(r);
	if (jv_is_valid(b)) {
		s = jv_dump_string(b, JV_PRINT_SORTED);
	} else {
		r = jv_invalid_get_msg(b);
		s = jv_string_fmt("invalid: %s", jv_string_value(r));
		jv_free(r);
	}
	is_str(jv_string_value(s), w, "body: %s", name);
	jv_free(s);
	free(w);
}

int
main(int argc, char **argv)
{
	const char *shared = argc > 1 ? argv[1] : oxi_getenv("SHARED");
	struct oxi_buf top = OXI_BUF_INIT, b = OXI_BUF_INIT;
	char why[256];
	const char *slash;
	DIR *dp;
	size_t i;
	jv v;

	if (!shared) {
		slash = strrchr(argv[0], '/');
		if (slash)
			oxi_buf_cat(&top, argv[0], slash - argv[0]);
		else
			oxi_buf_cats(&top, ".");
		oxi_buf_cats(&top, "/../../../shared");
		shared = top.s;
	}
	plan((int)NCONF * 3 + 1 + 2 * 9 + 6 + 4 + 6);

	if ((dp = opendir(shared))) {
		closedir(dp);
		conformance(shared);
	} else
		for (i = 0; i < NCONF * 3 + 1; i++)
			printf("ok %d # SKIP no shared directory '%s'\n",
			    ++tap_n, shared);

	stream("index 0 reused for two calls (Ollama)",
	    CHUNK("{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":"
	    "{\"name\":\"f\",\"arguments\":\"{\\\"x\\\":\"}}]}", "null")
	    CHUNK("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
	    "\"1}\"}}]}", "null")
	    CHUNK("{\"tool_calls\":[{\"index\":0,\"id\":\"b\",\"function\":"
	    "{\"name\":\"g\",\"arguments\":\"{}\"}}]}", "null")
	    CHUNK("{}", "\"tool_calls\"") "data: [DONE]\n\n",
	    "{\"message\":{\"role\":\"assistant\",\"content\":null,"
	    "\"tool_calls\":[{\"id\":\"a\",\"name\":\"f\",\"args\":{\"x\":1}},"
	    "{\"id\":\"b\",\"name\":\"g\",\"args\":{}}]},\"stop\":\"tool_use\","
	    "\"usage\":{\"input\":0,\"output\":0,\"cache_read\":0,"
	    "\"cache_write\":0,\"reasoning\":0}}");
	stream("truncated stream",
	    CHUNK("{\"content\":\"Hel\"}", "null")
	    CHUNK("{\"content\":\"lo\"}", "null"),
	    "error truncated 1: the reply stream ended early");
	stream("error object in a 200 stream",
	    CHUNK("{\"content\":\"Hel\"}", "null")
	    "data: {\"error\":{\"message\":\"overloaded now\","
	    "\"type\":\"server_error\"}}\n\n",
	    "error server 1: overloaded now");
	stream("unparsable tool arguments",
	    CHUNK("{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":"
	    "{\"name\":\"f\",\"arguments\":\"{\\\"x\\\":\"}}]}", "null")
	    CHUNK("{}", "\"tool_calls\"") "data: [DONE]\n\n",
	    "error bad_tool_args 0: tool call 1 (f): arguments are not a"
	    " JSON object");
	stream("content_filter, CRLF, comments, usage with cached tokens",
	    ": keep-alive\r\n\r\n"
	    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},"
	    "\"finish_reason\":\"content_filter\"}]}\r\n\r\n"
	    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,"
	    "\"completion_tokens\":1,\"prompt_tokens_details\":"
	    "{\"cached_tokens\":3}}}\r\n\r\ndata: [DONE]\r\n\r\n",
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"x\","
	    "\"tool_calls\":[]},\"stop\":\"refusal\",\"usage\":{\"input\":5,"
	    "\"output\":1,\"cache_read\":3,\"cache_write\":0,"
	    "\"reasoning\":0}}");
	stream("[DONE] without finish_reason",
	    CHUNK("{\"content\":\"ok\"}", "null") "data: [DONE]\n\n",
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"ok\","
	    "\"tool_calls\":[]},\"stop\":\"end\",\"usage\":{\"input\":0,"
	    "\"output\":0,\"cache_read\":0,\"cache_write\":0,"
	    "\"reasoning\":0}}");
	stream("a JSON completion (stream false)",
	    "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
	    "\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":"
	    "\"function\",\"function\":{\"name\":\"f\",\"arguments\":"
	    "\"{\\\"a\\\":[1]}\"}}]},\"finish_reason\":\"tool_calls\"}],"
	    "\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2}}",
	    "{\"message\":{\"role\":\"assistant\",\"content\":null,"
	    "\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\","
	    "\"args\":{\"a\":[1]}}]},"
	    "\"stop\":\"tool_use\",\"usage\":{\"input\":7,\"output\":2,"
	    "\"cache_read\":0,\"cache_write\":0,\"reasoning\":0}}");
	stream("invalid JSON in the stream",
	    "data: {\"choices\":[\n\n", "error bad_reply 1: invalid JSON in"
	    " the reply stream");
	stream("empty reply", "", "error truncated 1: the reply was empty");

	body("messages and tools translated",
	    "{\"type\":\"llm.request\",\"id\":\"1\",\"max_tokens\":9,"
	    "\"messages\":[{\"role\":\"system\",\"content\":\"s\"},"
	    "{\"role\":\"user\",\"content\":\"u\"},{\"role\":\"assistant\","
	    "\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\","
	    "\"args\":{\"p\":\"x\"}}]},{\"role\":\"tool\",\"tool_call_id\":"
	    "\"c1\",\"content\":\"r\"}],\"tools\":[{\"name\":\"f\","
	    "\"description\":\"d\",\"parameters\":{\"type\":\"object\"}}]}",
	    "{\"model\":\"m\",\"max_tokens\":9,\"stream\":true,"
	    "\"stream_options\":{\"include_usage\":true},\"messages\":["
	    "{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"user\","
	    "\"content\":\"u\"},{\"role\":\"assistant\",\"content\":null,"
	    "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":"
	    "{\"name\":\"f\",\"arguments\":\"{\\\"p\\\":\\\"x\\\"}\"}}]},"
	    "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"r\"}],"
	    "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\","
	    "\"description\":\"d\",\"parameters\":{\"type\":\"object\"}}}]}");
	body("stream false, empty tool_calls dropped",
	    "{\"stream\":false,\"messages\":[{\"role\":\"assistant\","
	    "\"content\":\"a\",\"tool_calls\":[]}]}",
	    "{\"model\":\"m\",\"stream\":false,\"messages\":[{\"role\":"
	    "\"assistant\",\"content\":\"a\"}]}");
	body("no messages", "{\"messages\":[]}",
	    "invalid: \"messages\" must be a non-empty array");
	body("a message without role", "{\"messages\":[{\"content\":\"x\"}]}",
	    "invalid: messages[0] has no \"role\"");
	body("a tool message without tool_call_id",
	    "{\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}",
	    "invalid: messages[0]: a tool message needs \"tool_call_id\"");
	body("an unknown role", "{\"messages\":[{\"role\":\"robot\"}]}",
	    "invalid: messages[0] has an unknown role 'robot'");

	v = oxi_llm_errmsg("{\"error\":{\"message\":\"bad key\"}}", 31);
	is_str(jv_is_valid(v) ? jv_string_value(v) : NULL, "bad key",
	    "errmsg: OpenAI error object");
	jv_free(v);
	v = oxi_llm_errmsg("{\"error\":\"model not found\"}", 27);
	is_str(jv_is_valid(v) ? jv_string_value(v) : NULL, "model not found",
	    "errmsg: Ollama error string");
	jv_free(v);
	v = oxi_llm_errmsg("<html>", 6);
	ok(!jv_is_valid(v), "errmsg: not JSON");
	jv_free(v);
	oxi_llm_scrub(&b, "Incorrect key sk-test-SECRETSECRET1234 or"
	    " abcdefgh\nsee\x1b[0m", 58, "abcdefgh");
	is_str(b.s, "Incorrect key sk-[REDACTED] or [REDACTED] see [0m",
	    "scrub: keys masked, one line");

	unsetenv("OPENAI_API_KEY");
	unsetenv("OXI_OPENAI_BASE_URL");
	ok(oxi_llm_check("openai/gpt-4o-mini", why, sizeof why) < 0 &&
	    strstr(why, "OPENAI_API_KEY"), "no key: the message names it");
	setenv("OXI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1", 1);
	ok(oxi_llm_check("openai/gpt-4o-mini", why, sizeof why) == 0,
	    "another base URL: no key needed");
	ok(oxi_llm_check("ollama/llama3.2", why, sizeof why) == 0,
	    "ollama needs no key");
	ok(oxi_llm_check("nope/x", why, sizeof why) < 0 &&
	    strstr(why, "unknown provider 'nope'"), "unknown provider");
	ok(oxi_llm_check("gpt-4o", why, sizeof why) < 0 &&
	    strstr(why, "provider/model"), "no provider prefix");
	ok(oxi_llm_check("openrouter/anthropic/claude", why, sizeof why) < 0 &&
	    strstr(why, "OPENROUTER_API_KEY"), "openrouter: model with a slash,"
	    " key named");

	oxi_buf_free(&top);
	oxi_buf_free(&b);
	return done();
}
