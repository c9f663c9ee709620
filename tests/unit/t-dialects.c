/*
 * t-dialects.c - the wire dialects of llm.c other than Chat Completions
 * (Anthropic Messages, Responses, Gemini, Ollama) and prompt-guided
 * tools: request bodies, reply reading, and conformance with the
 * recorded streams in ../shared/wire/{anthropic,openai-responses,gemini}
 * fed whole, split at every byte offset, and one byte at a time
 *
 * usage: t-dialects [shared-dir]   (default $SHARED, else ../shared from
 * the top of the tree; the conformance part is skipped without it)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "tap.h"

#define U(i, o, r, w, t) "\"usage\":{\"input\":" #i ",\"output\":" #o \
	",\"cache_read\":" #r ",\"cache_write\":" #w ",\"reasoning\":" #t "}"
#define U0	U(0, 0, 0, 0, 0)

/* expected results, from reading the recorded files */
static const struct conf {
	const char *dir;	/* under wire/ */
	const char *file;
	const struct oxi_llm_dialect *d;
	const char *want;	/* result() as JSON, or "error CODE RETRY: M" */
} confs[] = {
	{ "anthropic", "anthropic-sdk-python_basic_response.sse",
	  &oxi_dialect_anthropic,
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"Hello there!\","
	  "\"tool_calls\":[]},\"stop\":\"end\"," U(11, 6, 0, 0, 0) "}" },
	{ "anthropic",
	  "anthropic-sdk-python_incomplete_partial_json_response.sse",
	  &oxi_dialect_anthropic,
	  "error bad_tool_args 0: tool call 1 (make_file): arguments are not"
	  " a JSON object (reply cut at the token limit)" },
	{ "anthropic", "anthropic-sdk-python_midstream_overloaded_error.sse",
	  &oxi_dialect_anthropic, "error server 1: Overloaded" },
	{ "anthropic", "anthropic-sdk-python_refusal_response.sse",
	  &oxi_dialect_anthropic,
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"\","
	  "\"tool_calls\":[]},\"stop\":\"refusal\"," U(20, 0, 0, 0, 0) "}" },
	{ "anthropic", "anthropic-sdk-python_tool_use_response.sse",
	  &oxi_dialect_anthropic,
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"I'll check the"
	  " current weather in Paris for you.\",\"tool_calls\":[{\"id\":"
	  "\"toolu_01NRLabsLyVHZPKxbKvkfSMn\",\"name\":\"get_weather\","
	  "\"args\":{\"location\":\"Paris\"}}]},\"stop\":\"tool_use\","
	  U(377, 65, 0, 0, 0) "}" },
};
#define NCONF	(sizeof confs / sizeof confs[0])

static void
ondelta(void *arg, const char *p, size_t n)
{
	oxi_buf_cat(arg, p, n);
}

/* sorted compact JSON of a valid result, or "error CODE RETRY: MSG" */
static char *
outcome(const struct oxi_llm_dialect *d, void *rd)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const char *code;
	int retry;
	jv r, s;

	r = d->result(rd, &code, &retry);
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

/* feeds s whole (step 0, split len), split in two, or step bytes at a
 * time */
static char *
run(const struct oxi_llm_dialect *d, const char *s, size_t len,
    size_t split, size_t step, struct oxi_buf *deltas)
{
	void *rd = d->reader(deltas ? ondelta : NULL, deltas);
	size_t off, k;
	char *r;

	if (step) {
		for (off = 0; off < len; off += k) {
			k = len - off < step ? len - off : step;
			d->feed(rd, s + off, k);
		}
	} else {
		d->feed(rd, s, split);
		d->feed(rd, s + split, len - split);
	}
	r = outcome(d, rd);
	d->free(rd);
	return r;
}

static char *
norm(const char *json)
{
	jv v, s;
	char *r;

	if (json[0] != '{')
		return xstrdup(json);
	v = jv_parse(json);
	if (!jv_is_valid(v)) {
		jv_free(v);
		return xstrdup("(bad expectation)");
	}
	s = jv_dump_string(v, JV_PRINT_SORTED);
	r = xstrdup(jv_string_value(s));
	jv_free(s);
	return r;
}

/* whole (deltas adding up to the content), at every split, byte by byte:
 * three checks */
static void
stream(const struct oxi_llm_dialect *d, const char *name, const char *s,
    size_t len, const char *want)
{
	struct oxi_buf dl = OXI_BUF_INIT;
	char *w = norm(want), *got;
	size_t k;
	int bad = 0;
	jv v, c;

	got = run(d, s, len, len, 0, &dl);
	/* the deltas add up to the content of a good reply */
	c = jv_null();
	if (got[0] == '{') {
		v = jv_parse(got);
		c = jv_object_get(jv_object_get(v, jv_string("message")),
		    jv_string("content"));
	}
	ok(strcmp(got, w) == 0 && (got[0] != '{' ||
	    (jv_get_kind(c) == JV_KIND_STRING ? strcmp(dl.s ? dl.s : "",
	    jv_string_value(c)) == 0 : dl.len == 0)),
	    "%s: whole, deltas make the content", name);
	if (strcmp(got, w) != 0)
		printf("#   got %s\n#   expected %s\n", got, w);
	jv_free(c);
	free(got);
	for (k = 0; k <= len; k++) {
		got = run(d, s, len, k, 0, NULL);
		if (strcmp(got, w) != 0 && bad++ == 0)
			printf("# split at %zu: %s\n", k, got);
		free(got);
	}
	ok(bad == 0, "%s: split at every offset", name);
	got = run(d, s, len, 0, 1, NULL);
	is_str(got, w, "%s: one byte at a time", name);
	free(got);
	free(w);
	oxi_buf_free(&dl);
}

static void
sstream(const struct oxi_llm_dialect *d, const char *name, const char *s,
    const char *want)
{
	stream(d, name, s, strlen(s), want);
}

static int
conformance(const char *dir)
{
	static const char *const dirs[] = {
		"anthropic", NULL
	};
	struct oxi_buf f = OXI_BUF_INIT, path = OXI_BUF_INIT;
	size_t i;
	int k, extra = 0, known;
	DIR *dp;
	struct dirent *de;

	for (i = 0; i < NCONF; i++) {
		oxi_buf_reset(&path);
		oxi_buf_printf(&path, "%s/wire/%s/%s", dir, confs[i].dir,
		    confs[i].file);
		oxi_buf_reset(&f);
		if (oxi_readfile(path.s, &f, 1 << 20) < 0) {
			ok(0, "%s: readable", confs[i].file);
			ok(0, "%s: split", confs[i].file);
			ok(0, "%s: byte by byte", confs[i].file);
			continue;
		}
		stream(confs[i].d, confs[i].file, f.s, f.len, confs[i].want);
	}
	/* every recorded stream has an expectation here */
	for (k = 0; dirs[k]; k++) {
		oxi_buf_reset(&path);
		oxi_buf_printf(&path, "%s/wire/%s", dir, dirs[k]);
		if (!(dp = opendir(path.s))) {
			extra++;
			continue;
		}
		while ((de = readdir(dp))) {
			if (de->d_name[0] == '.' || strstr(de->d_name,
			    "_body.json"))
				continue;
			for (known = 0, i = 0; i < NCONF; i++)
				known |= !strcmp(de->d_name, confs[i].file);
			if (!known) {
				printf("# no expectation for %s\n",
				    de->d_name);
				extra++;
			}
		}
		closedir(dp);
	}
	ok(extra == 0, "every recorded stream is checked");
	oxi_buf_free(&f);
	oxi_buf_free(&path);
	return 0;
}

/* the body a dialect makes for a request, sorted, or "invalid: MSG" */
static void
body(const struct oxi_llm_dialect *d, const char *name, const char *req,
    const char *want)
{
	struct oxi_llm_target t;
	char *w = norm(want);
	jv r, b, s;

	memset(&t, 0, sizeof t);
	t.model = "m";
	r = jv_parse(req);
	b = d->body(r, &t);
	jv_free(r);
	if (jv_is_valid(b)) {
		s = jv_dump_string(b, JV_PRINT_SORTED);
	} else {
		r = jv_invalid_get_msg(b);
		s = jv_string_fmt("invalid: %s", jv_string_value(r));
		jv_free(r);
	}
	is_str(jv_string_value(s), w, "%s body: %s", d->name, name);
	jv_free(s);
	free(w);
}

#define EV(type, json) "event: " type "\ndata: {\"type\":\"" type "\"" \
	json "}\n\n"
#define A_START EV("message_start", ",\"message\":{\"id\":\"m\",\"role\":" \
	"\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":5," \
	"\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":7," \
	"\"output_tokens\":1}}")
#define A_BSTART(i, blk) EV("content_block_start", ",\"index\":" #i \
	",\"content_block\":" blk)
#define A_DELTA(i, d) EV("content_block_delta", ",\"index\":" #i \
	",\"delta\":" d)
#define A_BSTOP(i) EV("content_block_stop", ",\"index\":" #i)
#define A_END(reason) EV("message_delta", ",\"delta\":{\"stop_reason\":" \
	"\"" reason "\"},\"usage\":{\"output_tokens\":42}") \
	EV("message_stop", "")

static void
anthropic(void)
{
	const struct oxi_llm_dialect *d = &oxi_dialect_anthropic;

	sstream(d, "anthropic thinking, redacted thinking, two tool calls",
	    A_START
	    A_BSTART(0, "{\"type\":\"thinking\",\"thinking\":\"\"}")
	    A_DELTA(0, "{\"type\":\"thinking_delta\",\"thinking\":\"Let me"
	    " \"}")
	    A_DELTA(0, "{\"type\":\"thinking_delta\",\"thinking\":\"see.\"}")
	    A_DELTA(0, "{\"type\":\"signature_delta\",\"signature\":"
	    "\"EqQBCg==\"}")
	    A_BSTOP(0)
	    A_BSTART(1, "{\"type\":\"redacted_thinking\",\"data\":\"xyz\"}")
	    A_BSTOP(1)
	    EV("ping", "")
	    A_BSTART(2, "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":"
	    "\"list_dir\",\"input\":{}}")
	    A_DELTA(2, "{\"type\":\"input_json_delta\",\"partial_json\":"
	    "\"{\\\"pa\"}")
	    A_DELTA(2, "{\"type\":\"input_json_delta\",\"partial_json\":"
	    "\"th\\\": \\\".\\\"}\"}")
	    A_BSTOP(2)
	    A_BSTART(3, "{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":"
	    "\"read_file\",\"input\":{}}")
	    A_DELTA(3, "{\"type\":\"input_json_delta\",\"partial_json\":"
	    "\"{\\\"path\\\": \\\"a.txt\\\"}\"}")
	    A_BSTOP(3)
	    EV("some_future_event", ",\"x\":1")
	    A_END("tool_use"),
	    "{\"message\":{\"role\":\"assistant\",\"content\":null,"
	    "\"tool_calls\":[{\"id\":\"t1\",\"name\":\"list_dir\",\"args\":"
	    "{\"path\":\".\"}},{\"id\":\"t2\",\"name\":\"read_file\",\"args\":"
	    "{\"path\":\"a.txt\"}}],\"thinking\":[{\"type\":\"thinking\","
	    "\"thinking\":\"Let me see.\",\"signature\":\"EqQBCg==\","
	    "\"dialect\":\"anthropic\"},{\"type\":\"redacted_thinking\","
	    "\"data\":\"xyz\",\"dialect\":\"anthropic\"}]},"
	    "\"stop\":\"tool_use\"," U(112, 42, 100, 7, 0) "}");
	sstream(d, "anthropic truncated stream (no message_stop)",
	    A_START A_BSTART(0, "{\"type\":\"text\",\"text\":\"\"}")
	    A_DELTA(0, "{\"type\":\"text_delta\",\"text\":\"Hel\"}"),
	    "error truncated 1: the reply stream ended early");
	sstream(d, "anthropic max_tokens is a length stop",
	    A_START A_BSTART(0, "{\"type\":\"text\",\"text\":\"\"}")
	    A_DELTA(0, "{\"type\":\"text_delta\",\"text\":\"Hel\"}")
	    A_BSTOP(0) A_END("max_tokens"),
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"Hel\","
	    "\"tool_calls\":[]},\"stop\":\"length\"," U(112, 42, 100, 7, 0)
	    "}");
	sstream(d, "anthropic rate limit error event",
	    A_START "event: error\ndata: {\"type\":\"error\",\"error\":"
	    "{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}\n\n",
	    "error rate_limit 1: slow down");
	sstream(d, "anthropic invalid JSON in the stream",
	    A_START "event: content_block_start\ndata: {\"type\n\n",
	    "error bad_reply 1: invalid JSON in the reply stream");
	sstream(d, "anthropic whole message (stream false)",
	    "{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\","
	    "\"content\":[{\"type\":\"thinking\",\"thinking\":\"hm\","
	    "\"signature\":\"s1\"},{\"type\":\"text\",\"text\":\"Sure.\"},"
	    "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":"
	    "{\"a\":[1]}}],\"stop_reason\":\"tool_use\",\"usage\":"
	    "{\"input_tokens\":3,\"output_tokens\":4}}",
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"Sure.\","
	    "\"tool_calls\":[{\"id\":\"t1\",\"name\":\"f\",\"args\":{\"a\":"
	    "[1]}}],\"thinking\":[{\"type\":\"thinking\",\"thinking\":\"hm\","
	    "\"signature\":\"s1\",\"dialect\":\"anthropic\"}]},"
	    "\"stop\":\"tool_use\"," U(3, 4, 0, 0, 0) "}");
	sstream(d, "anthropic error body in a 200 reply",
	    "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
	    "\"message\":\"Overloaded\"}}", "error server 1: Overloaded");
	sstream(d, "anthropic empty reply", "",
	    "error truncated 1: the reply was empty");

	body(d, "system, tools, thinking replayed, tool results merged",
	    "{\"max_tokens\":100,\"thinking\":{\"budget_tokens\":1024},"
	    "\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
	    "{\"role\":\"user\",\"content\":\"go\"},{\"role\":\"assistant\","
	    "\"content\":null,\"thinking\":[{\"type\":\"thinking\","
	    "\"thinking\":\"hm\",\"signature\":\"s1\",\"dialect\":"
	    "\"anthropic\"},{\"type\":\"reasoning\",\"id\":\"rs\","
	    "\"dialect\":\"responses\"}],\"tool_calls\":[{\"id\":\"t1\","
	    "\"name\":\"f\",\"args\":{\"p\":1}},{\"id\":\"t2\",\"name\":\"g\","
	    "\"args\":{}}]},{\"role\":\"tool\",\"tool_call_id\":\"t1\","
	    "\"content\":\"one\"},{\"role\":\"tool\",\"tool_call_id\":\"t2\","
	    "\"content\":\"two\",\"is_error\":true}],\"tools\":[{\"name\":"
	    "\"f\",\"description\":\"F\",\"parameters\":{\"type\":"
	    "\"object\"}},{\"name\":\"g\"}]}",
	    "{\"model\":\"m\",\"max_tokens\":5120,\"stream\":true,"
	    "\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":1024},"
	    "\"system\":[{\"type\":\"text\",\"text\":\"be brief\","
	    "\"cache_control\":{\"type\":\"ephemeral\"}}],"
	    "\"tools\":[{\"name\":\"f\",\"description\":\"F\","
	    "\"input_schema\":{\"type\":\"object\"}},{\"name\":\"g\","
	    "\"input_schema\":{\"type\":\"object\",\"properties\":{}},"
	    "\"cache_control\":{\"type\":\"ephemeral\"}}],"
	    "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\","
	    "\"text\":\"go\"}]},{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"thinking\",\"thinking\":\"hm\",\"signature\":\"s1\"},"
	    "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":"
	    "{\"p\":1}},{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"g\","
	    "\"input\":{}}]},{\"role\":\"user\",\"content\":[{\"type\":"
	    "\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"one\"},"
	    "{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":"
	    "\"two\",\"is_error\":true}]}]}");
	body(d, "defaults: max_tokens 4096, stop sequences, no stream",
	    "{\"stream\":false,\"stop\":\"END\",\"temperature\":0.5,"
	    "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
	    "{\"model\":\"m\",\"max_tokens\":4096,\"stream\":false,"
	    "\"stop_sequences\":[\"END\"],\"temperature\":0.5,\"messages\":["
	    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":"
	    "\"hi\"}]}]}");
	body(d, "a tool message without tool_call_id",
	    "{\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}",
	    "invalid: messages[0]: a tool message needs \"tool_call_id\"");
	body(d, "only a system message",
	    "{\"messages\":[{\"role\":\"system\",\"content\":\"x\"}]}",
	    "invalid: no user or assistant message to send");
}

int
main(int argc, char **argv)
{
	const char *shared = argc > 1 ? argv[1] : oxi_getenv("SHARED");
	struct oxi_buf top = OXI_BUF_INIT;
	const char *slash;
	DIR *dp;
	size_t i;

	if (!shared) {
		slash = strrchr(argv[0], '/');
		if (slash)
			oxi_buf_cat(&top, argv[0], slash - argv[0]);
		else
			oxi_buf_cats(&top, ".");
		oxi_buf_cats(&top, "/../../../shared");
		shared = top.s;
	}
	plan((int)NCONF * 3 + 1 + 8 * 3 + 4);

	if ((dp = opendir(shared))) {
		closedir(dp);
		conformance(shared);
	} else
		for (i = 0; i < NCONF * 3 + 1; i++)
			printf("ok %d # SKIP no shared directory '%s'\n",
			    ++tap_n, shared);
	anthropic();
	oxi_buf_free(&top);
	return done();
}
