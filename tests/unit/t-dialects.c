/*
 * t-dialects.c - the wire dialects of lib/llm/ other than Chat Completions
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
#include "llm/dialect.h"
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
	{ "gemini", "googleai_streaming-failure-prompt-blocked-safety.txt",
	  &oxi_dialect_gemini,
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"\","
	  "\"tool_calls\":[]},\"stop\":\"refusal\"," U0 "}" },
	{ "gemini", "googleai_streaming-success-basic-reply-short.txt",
	  &oxi_dialect_gemini,
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"The capital"
	  " of Wyoming is **Cheyenne**.\\n\",\"tool_calls\":[]},"
	  "\"stop\":\"end\"," U(7, 10, 0, 0, 0) "}" },
	{ "gemini", "googleai_streaming-success-empty-parts.txt",
	  &oxi_dialect_gemini,
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"Here's a"
	  " cute cartoon kitten playing with a ball of yarn for you! \","
	  "\"tool_calls\":[]},\"stop\":\"end\"," U(16, 1307, 0, 0, 0) "}" },
	{ "gemini", "googleai_streaming-success-thinking-function-call-"
	  "thought-summary-signature.txt", &oxi_dialect_gemini, NULL },
	{ "gemini", "vertexai_streaming-failure-error-mid-stream.txt",
	  &oxi_dialect_gemini,
	  "error server 1: The operation was cancelled." },
	{ "gemini", "vertexai_streaming-failure-finish-reason-safety.txt",
	  &oxi_dialect_gemini,
	  "{\"message\":{\"role\":\"assistant\",\"content\":"
	  "\"<redacted>\",\"tool_calls\":[]},\"stop\":\"refusal\","
	  U(10, 66, 0, 0, 0) "}" },
	{ "gemini", "vertexai_streaming-failure-invalid-json.txt",
	  &oxi_dialect_gemini,
	  "error bad_reply 0: a reply chunk is not a Gemini response" },
	{ "gemini", "vertexai_streaming-success-function-call-short.txt",
	  &oxi_dialect_gemini,
	  "{\"message\":{\"role\":\"assistant\",\"content\":null,"
	  "\"tool_calls\":[{\"id\":\"call_*\",\"name\":"
	  "\"getTemperature\",\"args\":{\"city\":\"San Jose\"}}]},"
	  "\"stop\":\"tool_use\"," U0 "}" },
	{ "gemini", "vertexai_streaming-success-utf8.txt", &oxi_dialect_gemini,
	  "{\"message\":{\"role\":\"assistant\",\"content\":"
	  "\"\\u79cb\\u98ce\\u745f\\u745f\\uff0c\\u53f6\\u843d\\u7eb7"
	  "\\u7eb7\\uff0c\\n\\u897f\\u98ce\\u6b8b\\u7167\\uff0c\\u5bd2"
	  "\\u971c\\u6e10\\u6d53\\u3002\\n\\u67ab\\u53f6\\u7ea2\\u4e86"
	  "\\uff0c\\u83ca\\u82b1\\u9ec4\\u4e86\\uff0c\\n\\u79cb\\u96e8"
	  "\\u7ef5\\u7ef5\\uff0c\\u79cb\\u610f\\u6d53\\u6d53\\u3002\\n\\n"
	  "\\u79cb\\u591c\\u6f2b\\u6f2b\\uff0c\\u601d\\u7eea\\u4e07\\u5343"
	  "\\uff0c\\n\\u660e\\u6708\\u5f53\\u7a7a\\uff0c\\u661f\\u661f"
	  "\\u7728\\u773c\\u3002\\n\\u601d\\u5ff5\\u8fdc\\u65b9\\u7684"
	  "\\u4eb2\\u4eba\\uff0c\\n\\u795d\\u613f\\u4ed6\\u4eec\\u5e78"
	  "\\u798f\\u5b89\\u5eb7\\u3002\\n\\n\\u79cb\\u5929\\u662f\\u6536"
	  "\\u83b7\\u7684\\u5b63\\u8282\\uff0c\\n\\u4eba\\u4eec\\u5fd9"
	  "\\u7740\\u6536\\u5272\\u5e84\\u7a3c\\uff0c\\n\\u4e3a\\u4e00"
	  "\\u5e74\\u7684\\u8f9b\\u52b3\\u753b\\u4e0a\\u5706\\u6ee1\\u7684"
	  "\\u53e5\\u53f7\\u3002\\n\\u79cb\\u5929\\u4e5f\\u662f\\u56e2"
	  "\\u5706\\u7684\\u5b63\\u8282\\uff0c\\n\\u4e00\\u5bb6\\u4eba"
	  "\\u56f4\\u5750\\u5728\\u4e00\\u8d77\\uff0c\\n\\u5206\\u4eab"
	  "\\u4e30\\u6536\\u7684\\u559c\\u60a6\\uff0c\\u5171\\u5ea6\\u7f8e"
	  "\\u597d\\u65f6\\u5149\\u3002\\n\\n\\u79cb\\u5929\\u662f\\u4e00"
	  "\\u4e2a\\u7f8e\\u4e3d\\u7684\\u5b63\\u8282\\uff0c\\n\\u5b83"
	  "\\u6709\\u7740\\u72ec\\u7279\\u7684\\u97f5\\u5473\\uff0c\\n"
	  "\\u8ba9\\u4eba\\u6c89\\u9189\\u5176\\u4e2d\\uff0c\\u6d41\\u8fde"
	  "\\u5fd8\\u8fd4\\u3002\\n\\u8ba9\\u6211\\u4eec\\u4e00\\u8d77"
	  "\\u6b23\\u8d4f\\u79cb\\u5929\\u7684\\u7f8e\\u666f\\uff0c\\n"
	  "\\u611f\\u53d7\\u79cb\\u5929\\u7684\\u6c14\\u606f\\uff0c\\u9886"
	  "\\u609f\\u79cb\\u5929\\u7684\\u54f2\\u7406\\u3002\""
	  ",\"tool_calls\":[]},\"stop\":\"end\"," U0 "}" },
	{ "openai-responses", "swiftagent_Text_helloWorldResponse.sse",
	  &oxi_dialect_responses,
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"Hello,"
	  " World!\",\"tool_calls\":[],\"thinking\":[{\"id\":"
	  "\"rs_68d7eff985648196883d78673232885e07152cb8c6ac9072\","
	  "\"type\":\"reasoning\",\"encrypted_content\":\"encrypted-3\","
	  "\"summary\":[],\"dialect\":\"responses\"}]},\"stop\":\"end\","
	  U(12, 10, 0, 0, 0) "}" },
	{ "openai-responses", "swiftagent_ToolCalls_response1.sse",
	  &oxi_dialect_responses, NULL },
	{ "openai-responses", "swiftagent_ToolCalls_response2.sse",
	  &oxi_dialect_responses,
	  "{\"message\":{\"role\":\"assistant\",\"content\":\"Current"
	  " weather in New York City, USA: Sunny.\",\"tool_calls\":[]},"
	  "\"stop\":\"end\"," U(114, 15, 0, 0, 0) "}" },
	{ "openai-responses", "swiftagent_insufficientQuota_failed.sse",
	  &oxi_dialect_responses,
	  "error provider 0: You exceeded your current quota, please check"
	  " your plan and billing details. For more information on this"
	  " error, read the docs: https://platform.openai.com/docs/guides/"
	  "error-codes/api-errors." },
};
#define NCONF	(sizeof confs / sizeof confs[0])

static void
ondelta(void *arg, const char *p, size_t n)
{
	oxi_buf_cat(arg, p, n);
}

/* call ids made up by the reader ("call_" and a ULID) become "call_*" */
static void
madeup(char *s)
{
	char *p = s, *q;
	size_t n;

	while ((p = strstr(p, "\"call_"))) {
		p += 6;
		for (n = 0; n < OXI_ID_LEN && p[n] && strchr(
		    "0123456789ABCDEFGHJKMNPQRSTVWXYZ", p[n]); n++)
			;
		if (n == OXI_ID_LEN && p[n] == '"') {
			*p = '*';
			for (q = p + 1; (*q = q[OXI_ID_LEN - 1]); q++)
				;
		}
	}
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
		madeup(b.s);
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
static char *
stream(const struct oxi_llm_dialect *d, const char *name, const char *s,
    size_t len, const char *want)
{
	struct oxi_buf dl = OXI_BUF_INIT;
	char *w = want ? norm(want) : run(d, s, len, len, 0, NULL), *got;
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
	oxi_buf_free(&dl);
	return w;
}

static void
sstream(const struct oxi_llm_dialect *d, const char *name, const char *s,
    const char *want)
{
	free(stream(d, name, s, strlen(s), want));
}

/* the value of a path in JSON text, as compact JSON (static) */
static const char *
at(const char *json, const char *path)
{
	static char out[4096];
	const char *p = path, *e;
	jv v = jv_parse(json), s;
	char key[64];

	while (*p && jv_is_valid(v)) {
		e = p + strcspn(p, ".");
		snprintf(key, sizeof key, "%.*s", (int)(e - p), p);
		if (jv_get_kind(v) == JV_KIND_ARRAY)
			v = jv_array_get(v, atoi(key));
		else if (jv_get_kind(v) == JV_KIND_OBJECT)
			v = jv_object_get(v, jv_string(key));
		else {
			jv_free(v);
			v = jv_invalid();
		}
		p = *e ? e + 1 : e;
	}
	if (!jv_is_valid(v)) {
		jv_free(v);
		return "(none)";
	}
	s = jv_dump_string(v, 0);
	snprintf(out, sizeof out, "%s", jv_string_value(s));
	jv_free(s);
	return out;
}

/* the files too long to spell out: some of their fields (NCHECKS) */
#define NCHECKS	7
static void
checks(const char *file, const char *got)
{
	if (strstr(file, "thought-summary-signature")) {
		is_str(at(got, "message.tool_calls"), "[{\"args\":{},"
		    "\"id\":\"call_*\",\"name\":\"now\",\"signature\":"
		    "\"CiIBVKhc7vB+vaaq6rA/KC79Ts7iXagIOA4EBOyBFDpl+pxPCmcBVKhc"
		    "7gYyIw6X0IsswYK3hRIlOqJqLuw/CA777RLwVhbkj5IXXM6JPdtsso69K"
		    "/H8aVi6ThxLZkLoQYapEKm4jpotk9HFJ1LnyOFHeQcKdXia2iBBNjb6LT"
		    "ZU/+Pib0zJbWnttT57Ct8BAVSoXO6n/xiy62ll0Bb/4DRtdUMN6l5WhI/y"
		    "NCH0nVn5o7XWCT9ltApMM3MB2VEkId1U1lMu5d78n0juWxqYh7RvjqN3w"
		    "CT1KMHeC9Yx6slplr27i/J9qzruq/X6y0ZbUvrv607cWrff53jfgJ7qvS"
		    "HopN9ZD/kuwUn2lzXhvgIBHvAcLIEwHUcfsIYX5WPonf2aST1Ti1ui2dW"
		    "w8eQpogiSIytX0L734L9nT0zj3VGlWJIxgeOA4IDH4ZjhWeU73K0P1YUj"
		    "rla+RWQ7WAmga27KOtO1Zw3faShHT7esSAryAQFUqFzuPbTNs0g+Gt+7+k"
		    "Id/JtIdDKmBmZXIzHotCMUEj82J+3CQbaIjD15XVB8wBQjqwYSsWjWq01"
		    "jMWqfbs10IS9WBhOeUewFfvqfoZUNxUcZkm314D9wt2eVFvkO4pIRDJs7"
		    "oV7w0v7M3TaiovtI6hNz087wCtRy0cEF/0narcw1l1pFNSHxAK8Y9rbAVb"
		    "rsNFglkI/oC0eOPbBn1K/F+dPnOiKgFaMg1v858aMx1rafr665kbrT3H/H"
		    "cBMRrS9urjtYPXoseBpakOG+X/F6RUp9pHgMyuxCFxAstL2dCJ2UDX4Lw"
		    "ZvvR+uQUkZ94smaCvABAVSoXO5wl+s/MoiArjmga1WCjBvsIAsE0Zqmw02"
		    "g8ID8BfyjTXIHqZ6Z1cklDFg/MxYs/oQVW2fW0D6z0Nqg+38JcSpjl6e6P"
		    "9oHF891mUuPKhP8HsWD+ZvQy6Wuh4IkeSwooBTHRoo2wIIqXLwseNPHCXg"
		    "1M+9jE9feqdGWefq1jI3c5tc2yr5777IEQ/5BwrAMlL3Gsrq1pDptbuBOi"
		    "4ZPWDhiaZmbdn1Zoh1CXZZNyqu9CH/hpFkzAtoN87vfYELHVQoV2wyzM+8"
		    "JEDGoPvkvw27VuKsQEahGHHuAtMjf5kxA7Qyqd8kXMlLleEs0\"}]",
		    "%s: the call, with its thought signature", file);
		ok(strncmp(at(got, "message.thinking.0.text"),
		    "\"**Calculating the Days**\\n\\nI've determined",
		    44) == 0 && strstr(at(got, "message.thinking.0.text"),
		    "\\n\\n\\n**Determining the Approach**\\n\\nI'm") &&
		    !strcmp(at(got, "message.thinking.0.thought"), "true") &&
		    !strcmp(at(got, "message.thinking.0.dialect"),
		    "\"gemini\"") &&
		    !strcmp(at(got, "message.thinking.1"), "(none)"),
		    "%s: the thought summary, one part", file);
		is_str(at(got, "usage"), "{\"cache_read\":0,\"cache_write\":0,"
		    "\"input\":38,\"output\":174,\"reasoning\":168}",
		    "%s: usage, thoughts are output and reasoning", file);
	} else if (strstr(file, "ToolCalls_response1")) {
		is_str(at(got, "message.tool_calls"), "[{\"args\":"
		    "{\"location\":\"New York City, USA\"},\"id\":"
		    "\"call_5dp5Uj0Loqn1YcyIpqSq6sLX\",\"name\":"
		    "\"get_weather\"}]",
		    "%s: the call, arguments as at .done", file);
		ok(strncmp(at(got, "message.thinking.0.encrypted_content"),
		    "\"gAAAAABo2TBAHIAEhoF6BMeLdaTLFV8HVEe_XWvYaavDRXgA5", 50)
		    == 0 && !strcmp(at(got, "message.thinking.0.id"),
		    "\"rs_68d9303e94ac819ead3d9e066f405eae"
		    "03aa6e5a972b3b23\"") &&
		    !strcmp(at(got, "message.thinking.1"), "(none)") &&
		    !strcmp(at(got, "message.content"), "null"),
		    "%s: the final reasoning item kept, encrypted", file);
		is_str(at(got, "stop"), "\"tool_use\"", "%s: stop tool_use",
		    file);
		is_str(at(got, "usage"), "{\"cache_read\":0,\"cache_write\":0,"
		    "\"input\":75,\"output\":155,\"reasoning\":128}",
		    "%s: usage with reasoning tokens", file);
	}
}

static int
conformance(const char *dir)
{
	static const char *const dirs[] = {
		"anthropic", "gemini", "openai-responses", NULL
	};
	struct oxi_buf f = OXI_BUF_INIT, path = OXI_BUF_INIT;
	char *w;
	size_t i;
	jv v;
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
		w = stream(confs[i].d, confs[i].file, f.s, f.len,
		    confs[i].want);
		if (!confs[i].want)
			checks(confs[i].file, w);
		free(w);
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
	/* an error body of a 401: its message, for the error record */
	oxi_buf_reset(&path);
	oxi_buf_printf(&path, "%s/wire/openai-responses/"
	    "swiftagent_missingAPIKey_401_body.json", dir);
	oxi_buf_reset(&f);
	v = oxi_readfile(path.s, &f, 1 << 20) == 0 ?
	    oxi_llm_errmsg(f.s, f.len) : jv_invalid();
	is_str(jv_is_valid(v) ? jv_string_value(v) : "(none)",
	    "Incorrect API key provided: ''. You can find your API key at"
	    " https://platform.openai.com/account/api-keys.",
	    "missingAPIKey_401_body.json: the message of the error body");
	jv_free(v);
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

#define G(parts, rest) "data: {\"candidates\":[{\"content\":{\"role\":" \
	"\"model\",\"parts\":[" parts "]}" rest "}]}\n\n"
#define G_USAGE "data: {\"usageMetadata\":{\"promptTokenCount\":9," \
	"\"cachedContentTokenCount\":4,\"candidatesTokenCount\":3}}\n\n"

static void
gemini(void)
{
	const struct oxi_llm_dialect *d = &oxi_dialect_gemini;

	sstream(d, "gemini two parallel calls, a text signature",
	    G("{\"text\":\"On it.\",\"thoughtSignature\":\"T1\"}", "")
	    G("{\"functionCall\":{\"name\":\"list_dir\",\"args\":"
	    "{\"path\":\".\"}},\"thoughtSignature\":\"S1\"},"
	    "{\"functionCall\":{\"id\":\"fc2\",\"name\":\"read_file\","
	    "\"args\":{\"path\":\"a.txt\"}}}", ",\"finishReason\":\"STOP\"")
	    G_USAGE,
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"On it.\","
	    "\"tool_calls\":[{\"id\":\"call_*\",\"name\":\"list_dir\","
	    "\"args\":{\"path\":\".\"},\"signature\":\"S1\"},{\"id\":"
	    "\"fc2\",\"name\":\"read_file\",\"args\":{\"path\":"
	    "\"a.txt\"}}],\"thinking\":[{\"text\":\"\",\"thoughtSignature\":"
	    "\"T1\",\"dialect\":\"gemini\"}]},\"stop\":\"tool_use\","
	    U(9, 3, 4, 0, 0) "}");
	sstream(d, "gemini MAX_TOKENS is a length stop",
	    G("{\"text\":\"Hel\"}", ",\"finishReason\":\"MAX_TOKENS\""),
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"Hel\","
	    "\"tool_calls\":[]},\"stop\":\"length\"," U0 "}");
	sstream(d, "gemini truncated stream (no finishReason)",
	    G("{\"text\":\"Hel\"}", "") G("{\"text\":\"lo\"}", ""),
	    "error truncated 1: the reply stream ended early");
	sstream(d, "gemini malformed function call",
	    G("{\"text\":\"\"}", ",\"finishReason\":"
	    "\"MALFORMED_FUNCTION_CALL\""),
	    "error bad_tool_args 0: the model made a bad tool call"
	    " (MALFORMED_FUNCTION_CALL)");
	sstream(d, "gemini error event with a status",
	    G("{\"text\":\"Hel\"}", "")
	    "data: {\"error\":{\"code\":429,\"message\":\"quota\","
	    "\"status\":\"RESOURCE_EXHAUSTED\"}}\n\n",
	    "error rate_limit 1: quota");
	sstream(d, "gemini whole reply as an array (no alt=sse)",
	    "[{\"candidates\":[{\"content\":{\"parts\":[{\"text\":"
	    "\"Hi\"}]}}]},{\"candidates\":[{\"content\":{\"parts\":"
	    "[{\"text\":\"!\"}]},\"finishReason\":\"STOP\"}]}]",
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"Hi!\","
	    "\"tool_calls\":[]},\"stop\":\"end\"," U0 "}");
	sstream(d, "gemini a bare error body in a 200 reply",
	    "{\"error\":{\"code\":500,\"message\":\"internal\","
	    "\"status\":\"INTERNAL\"}}", "error server 1: internal");

	body(d, "system, signatures sent back, results named and merged",
	    "{\"max_tokens\":50,\"thinking\":{\"budget_tokens\":512},"
	    "\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
	    "{\"role\":\"user\",\"content\":\"go\"},{\"role\":\"assistant\","
	    "\"content\":\"On it.\",\"thinking\":[{\"text\":\"\","
	    "\"thoughtSignature\":\"T1\",\"dialect\":\"gemini\"},{\"text\":"
	    "\"hm\",\"thought\":true,\"dialect\":\"gemini\"},{\"type\":"
	    "\"thinking\",\"dialect\":\"anthropic\"}],\"tool_calls\":[{\"id\":"
	    "\"c1\",\"name\":\"f\",\"args\":{\"p\":1},\"signature\":\"S1\"},"
	    "{\"id\":\"c2\",\"name\":\"g\",\"args\":{}}]},{\"role\":\"tool\","
	    "\"tool_call_id\":\"c1\",\"content\":\"one\"},{\"role\":\"tool\","
	    "\"tool_call_id\":\"c2\",\"content\":\"two\",\"is_error\":true}],"
	    "\"tools\":[{\"name\":\"f\",\"description\":\"F\",\"parameters\":"
	    "{\"type\":\"object\",\"additionalProperties\":false,"
	    "\"properties\":{\"p\":{\"type\":\"integer\"}}}},{\"name\":"
	    "\"g\"}]}",
	    "{\"systemInstruction\":{\"parts\":[{\"text\":\"be brief\"}]},"
	    "\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"go\"}]},"
	    "{\"role\":\"model\",\"parts\":[{\"text\":\"\","
	    "\"thoughtSignature\":\"T1\"},{\"text\":\"On it.\"},"
	    "{\"functionCall\":{\"name\":\"f\",\"args\":{\"p\":1}},"
	    "\"thoughtSignature\":\"S1\"},{\"functionCall\":{\"name\":\"g\","
	    "\"args\":{}}}]},{\"role\":\"user\",\"parts\":["
	    "{\"functionResponse\":{\"name\":\"f\",\"response\":{\"output\":"
	    "\"one\"}}},{\"functionResponse\":{\"name\":\"g\",\"response\":"
	    "{\"error\":\"two\"}}}]}],\"tools\":[{\"functionDeclarations\":["
	    "{\"name\":\"f\",\"description\":\"F\",\"parameters\":{\"type\":"
	    "\"object\",\"properties\":{\"p\":{\"type\":\"integer\"}}}},"
	    "{\"name\":\"g\"}]}],\"generationConfig\":{\"maxOutputTokens\":50,"
	    "\"thinkingConfig\":{\"includeThoughts\":true,\"thinkingBudget\":"
	    "512}}}");
	body(d, "a tool result for no known call",
	    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"},"
	    "{\"role\":\"tool\",\"tool_call_id\":\"zz\",\"content\":\"x\"}]}",
	    "invalid: messages[1]: a tool message needs the \"tool_call_id\""
	    " of an earlier call");
}

#define R(type, json) "event: " type "\ndata: {\"type\":\"" type "\"" \
	json "}\n\n"
#define R_FC(i, id, name) R("response.output_item.added", \
	",\"output_index\":" #i ",\"item\":{\"type\":\"function_call\"," \
	"\"id\":\"fc" #i "\",\"call_id\":\"" id "\",\"name\":\"" name \
	"\",\"arguments\":\"\"}")
#define R_ARGS(i, d) R("response.function_call_arguments.delta", \
	",\"output_index\":" #i ",\"delta\":\"" d "\"")
#define R_DONE(status, extra) R("response." status, ",\"response\":" \
	"{\"status\":\"" status "\",\"usage\":{\"input_tokens\":20," \
	"\"input_tokens_details\":{\"cached_tokens\":8},\"output_tokens\":" \
	"6,\"output_tokens_details\":{\"reasoning_tokens\":2}}" extra "}")

static void
responses(void)
{
	const struct oxi_llm_dialect *d = &oxi_dialect_responses;

	sstream(d, "responses two parallel calls, arguments in deltas",
	    R_FC(0, "c1", "list_dir") R_ARGS(0, "{\\\"path\\\":")
	    R_ARGS(0, " \\\".\\\"}") R_FC(1, "c2", "read_file")
	    R_ARGS(1, "{\\\"path\\\": \\\"a.txt\\\"}")
	    R("response.function_call_arguments.done", ",\"output_index\":1,"
	    "\"arguments\":\"{\\\"path\\\": \\\"a.txt\\\"}\"")
	    R_DONE("completed", ""),
	    "{\"message\":{\"role\":\"assistant\",\"content\":null,"
	    "\"tool_calls\":[{\"id\":\"c1\",\"name\":\"list_dir\",\"args\":"
	    "{\"path\":\".\"}},{\"id\":\"c2\",\"name\":\"read_file\","
	    "\"args\":{\"path\":\"a.txt\"}}]},\"stop\":\"tool_use\","
	    U(20, 6, 8, 0, 2) "}");
	sstream(d, "responses refusal",
	    R("response.refusal.delta", ",\"delta\":\"No.\"")
	    R_DONE("completed", ""),
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"No.\","
	    "\"tool_calls\":[]},\"stop\":\"refusal\"," U(20, 6, 8, 0, 2)
	    "}");
	sstream(d, "responses incomplete at max_output_tokens",
	    R("response.output_text.delta", ",\"delta\":\"Hel\"")
	    R_DONE("incomplete", ",\"incomplete_details\":{\"reason\":"
	    "\"max_output_tokens\"}"),
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"Hel\","
	    "\"tool_calls\":[]},\"stop\":\"length\"," U(20, 6, 8, 0, 2)
	    "}");
	sstream(d, "responses truncated stream (no terminal event)",
	    R("response.output_text.delta", ",\"delta\":\"Hel\""),
	    "error truncated 1: the reply stream ended early");
	sstream(d, "responses failed with a server error",
	    R("response.output_text.delta", ",\"delta\":\"Hel\"")
	    R("response.failed", ",\"response\":{\"status\":\"failed\","
	    "\"error\":{\"code\":\"server_error\",\"message\":\"oops\"}}"),
	    "error server 1: oops");
	sstream(d, "responses whole response (stream false)",
	    "{\"object\":\"response\",\"status\":\"completed\",\"output\":["
	    "{\"type\":\"reasoning\",\"id\":\"rs1\",\"summary\":[],"
	    "\"encrypted_content\":\"E\"},{\"type\":\"message\",\"role\":"
	    "\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":"
	    "\"Hi\"}]},{\"type\":\"function_call\",\"call_id\":\"c1\","
	    "\"name\":\"f\",\"arguments\":\"{}\"}],\"usage\":"
	    "{\"input_tokens\":3,\"output_tokens\":4}}",
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"Hi\","
	    "\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\",\"args\":{}}],"
	    "\"thinking\":[{\"type\":\"reasoning\",\"id\":\"rs1\","
	    "\"summary\":[],\"encrypted_content\":\"E\",\"dialect\":"
	    "\"responses\"}]},\"stop\":\"tool_use\"," U(3, 4, 0, 0, 0) "}");

	body(d, "instructions, reasoning sent back, calls and outputs",
	    "{\"max_tokens\":99,\"thinking\":{\"effort\":\"low\"},"
	    "\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
	    "{\"role\":\"user\",\"content\":\"go\"},{\"role\":\"assistant\","
	    "\"content\":null,\"thinking\":[{\"type\":\"reasoning\",\"id\":"
	    "\"rs1\",\"summary\":[],\"encrypted_content\":\"E\",\"dialect\":"
	    "\"responses\"},{\"type\":\"reasoning\",\"id\":\"rs0\","
	    "\"dialect\":\"responses\"},{\"type\":\"thinking\",\"dialect\":"
	    "\"anthropic\"}],\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\","
	    "\"args\":{\"p\":1}}]},{\"role\":\"tool\",\"tool_call_id\":"
	    "\"c1\",\"content\":\"one\"}],\"tools\":[{\"name\":\"f\","
	    "\"description\":\"F\",\"parameters\":{\"type\":\"object\"}}]}",
	    "{\"model\":\"m\",\"instructions\":\"be brief\",\"input\":["
	    "{\"role\":\"user\",\"content\":\"go\"},{\"type\":\"reasoning\","
	    "\"id\":\"rs1\",\"summary\":[],\"encrypted_content\":\"E\"},"
	    "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"f\","
	    "\"arguments\":\"{\\\"p\\\":1}\"},{\"type\":"
	    "\"function_call_output\",\"call_id\":\"c1\",\"output\":\"one\"}],"
	    "\"tools\":[{\"type\":\"function\",\"name\":\"f\",\"description\":"
	    "\"F\",\"parameters\":{\"type\":\"object\"}}],\"store\":false,"
	    "\"include\":[\"reasoning.encrypted_content\"],\"reasoning\":"
	    "{\"effort\":\"low\"},\"max_output_tokens\":99,\"stream\":true}");
	body(d, "an include of the request's own",
	    "{\"include\":[],\"stream\":false,\"messages\":[{\"role\":"
	    "\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]}",
	    "{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":"
	    "[{\"type\":\"input_text\",\"text\":\"hi\"}]}],\"store\":false,"
	    "\"include\":[],\"stream\":false}");
}

#define O(msg, rest) "{\"model\":\"m\",\"message\":{\"role\":" \
	"\"assistant\"," msg "}," rest "}\n"
#define O_DONE(reason) "{\"model\":\"m\",\"message\":{\"role\":" \
	"\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":" \
	"\"" reason "\",\"prompt_eval_count\":26,\"eval_count\":7}\n"

static void
ollama(void)
{
	const struct oxi_llm_dialect *d = &oxi_dialect_ollama;

	sstream(d, "ollama thinking, text, two tool calls as objects",
	    O("\"content\":\"\",\"thinking\":\"Let me \"", "\"done\":false")
	    O("\"content\":\"\",\"thinking\":\"look.\"", "\"done\":false")
	    O("\"content\":\"Sure\"", "\"done\":false")
	    O("\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":"
	    "\"list_dir\",\"arguments\":{\"path\":\".\"}}},{\"id\":\"k2\","
	    "\"function\":{\"index\":1,\"name\":\"read_file\",\"arguments\":"
	    "{\"path\":\"a.txt\"}}}]", "\"done\":false")
	    O_DONE("stop"),
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"Sure\","
	    "\"tool_calls\":[{\"id\":\"call_*\",\"name\":\"list_dir\","
	    "\"args\":{\"path\":\".\"}},{\"id\":\"k2\",\"name\":"
	    "\"read_file\",\"args\":{\"path\":\"a.txt\"}}],\"thinking\":["
	    "{\"type\":\"thinking\",\"thinking\":\"Let me look.\","
	    "\"dialect\":\"ollama\"}]},\"stop\":\"tool_use\","
	    U(26, 7, 0, 0, 0) "}");
	sstream(d, "ollama length stop",
	    O("\"content\":\"Hel\"", "\"done\":false") O_DONE("length"),
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"Hel\","
	    "\"tool_calls\":[]},\"stop\":\"length\"," U(26, 7, 0, 0, 0) "}");
	sstream(d, "ollama truncated stream (no done)",
	    O("\"content\":\"Hel\"", "\"done\":false")
	    O("\"content\":\"lo\"", "\"done\":false"),
	    "error truncated 1: the reply stream ended early");
	sstream(d, "ollama cut inside a line",
	    O("\"content\":\"Hel\"", "\"done\":false") "{\"model\":\"m\",",
	    "error truncated 1: the reply ended inside a line");
	sstream(d, "ollama error line in a 200 stream",
	    O("\"content\":\"Hel\"", "\"done\":false")
	    "{\"error\":\"an error was encountered while running the"
	    " model\"}\n",
	    "error provider 0: an error was encountered while running the"
	    " model");
	sstream(d, "ollama one object (stream false), no final newline",
	    "{\"model\":\"m\",\"message\":{\"role\":\"assistant\","
	    "\"content\":\"Hi!\"},\"done\":true,\"done_reason\":\"stop\","
	    "\"prompt_eval_count\":3,\"eval_count\":2}",
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"Hi!\","
	    "\"tool_calls\":[]},\"stop\":\"end\"," U(3, 2, 0, 0, 0) "}");

	body(d, "tool names, object arguments, options, think",
	    "{\"max_tokens\":64,\"temperature\":0,\"thinking\":true,"
	    "\"options\":{\"num_ctx\":8192},\"messages\":[{\"role\":"
	    "\"system\",\"content\":\"s\"},{\"role\":\"user\",\"content\":"
	    "\"go\"},{\"role\":\"assistant\",\"content\":null,\"thinking\":"
	    "[{\"type\":\"thinking\",\"thinking\":\"hm\",\"dialect\":"
	    "\"ollama\"}],\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\","
	    "\"args\":{\"p\":1}}]},{\"role\":\"tool\",\"tool_call_id\":"
	    "\"c1\",\"content\":\"one\"}],\"tools\":[{\"name\":\"f\","
	    "\"parameters\":{\"type\":\"object\"}}]}",
	    "{\"model\":\"m\",\"messages\":[{\"role\":\"system\","
	    "\"content\":\"s\"},{\"role\":\"user\",\"content\":\"go\"},"
	    "{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"hm\","
	    "\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":"
	    "{\"p\":1}}}]},{\"role\":\"tool\",\"content\":\"one\","
	    "\"tool_name\":\"f\"}],\"tools\":[{\"type\":\"function\","
	    "\"function\":{\"name\":\"f\",\"parameters\":{\"type\":"
	    "\"object\"}}}],\"options\":{\"num_ctx\":8192,\"num_predict\":64,"
	    "\"temperature\":0},\"think\":true,\"stream\":true}");
}

/* prompt-guided tools over Chat Completions, as a dialect */
static void *
pt_reader(oxi_llm_text_fn text, void *arg)
{
	return oxi_ptools_new(&oxi_dialect_openai, text, arg);
}

static int
pt_feed(void *rd, const char *p, size_t n)
{
	return oxi_ptools_feed(rd, p, n);
}

static jv
pt_result(void *rd, const char **code, int *retry)
{
	return oxi_ptools_result(rd, code, retry);
}

static int
pt_complete(const void *rd)
{
	return oxi_ptools_complete(rd);
}

static void
pt_free(void *rd)
{
	oxi_ptools_free(rd);
}

static const struct oxi_llm_dialect pt = {
	.name = "ptools",
	.reader = pt_reader, .feed = pt_feed, .result = pt_result,
	.complete = pt_complete, .free = pt_free,
};

#define C(text) "data: {\"choices\":[{\"index\":0,\"delta\":" \
	"{\"content\":\"" text "\"},\"finish_reason\":null}]}\n\n"
#define C_END "data: {\"choices\":[{\"index\":0,\"delta\":{}," \
	"\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
#define MSG(content, calls, stop) "{\"message\":{\"role\":\"assistant\"," \
	"\"content\":" content ",\"tool_calls\":[" calls "]},\"stop\":\"" \
	stop "\"," U0 "}"
#define CALL(name, args) "{\"id\":\"call_*\",\"name\":\"" name "\"," \
	"\"args\":" args "}"

static void
ptools(void)
{
	jv r, b, s;

	sstream(&pt, "ptools a block cut out of the text, tag split",
	    C("I'll look.\\n<tool") C("_call>{\\\"name\\\": \\\"read_")
	    C("file\\\", \\\"arguments\\\": {\\\"path\\\": \\\"a\\\"}}")
	    C("</tool_c") C("all>") C_END,
	    MSG("\"I'll look.\\n\"", CALL("read_file", "{\"path\":\"a\"}"),
	    "tool_use"));
	sstream(&pt, "ptools two blocks, a code fence, args as a string",
	    C("<tool_call>\\n```json\\n{\\\"name\\\":\\\"f\\\","
	    "\\\"arguments\\\":{}}\\n```\\n</tool_call>\\n")
	    C("<tool_call>{\\\"name\\\":\\\"g\\\",\\\"arguments\\\":"
	    "\\\"{\\\\\\\"x\\\\\\\":1}\\\"}</tool_call>") C_END,
	    MSG("\"\\n\"", CALL("f", "{}") "," CALL("g", "{\"x\":1}"),
	    "tool_use"));
	sstream(&pt, "ptools text that only looks like a tag",
	    C("a <tool") C("ing> and <tool_c") C("x>") C_END,
	    MSG("\"a <tooling> and <tool_cx>\"", "", "end"));
	sstream(&pt, "ptools an unfinished block that parses",
	    C("<tool_call>{\\\"name\\\":\\\"f\\\",\\\"arguments\\\":"
	    "{\\\"a\\\":2}}") C_END,
	    MSG("null", CALL("f", "{\"a\":2}"), "tool_use"));
	sstream(&pt, "ptools an unfinished block that does not parse",
	    C("ok <tool_call>{\\\"name\\\":\\\"f\\\",") C_END,
	    "error bad_tool_args 0: an unfinished <tool_call> block");
	sstream(&pt, "ptools a block that is not a call",
	    C("<tool_call>read a.txt</tool_call>") C_END,
	    "error bad_tool_args 0: <tool_call> block 1 is not {\"name\": ...,"
	    " \"arguments\": {...}}");

	r = jv_parse("{\"type\":\"llm.request\",\"tool_mode\":\"prompt\","
	    "\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
	    "{\"role\":\"user\",\"content\":\"go\"},{\"role\":"
	    "\"assistant\",\"content\":\"On it.\",\"tool_calls\":[{\"id\":"
	    "\"c1\",\"name\":\"f\",\"args\":{\"p\":1}},{\"id\":\"c2\","
	    "\"name\":\"g\",\"args\":{}}]},{\"role\":\"tool\","
	    "\"tool_call_id\":\"c1\",\"content\":\"one\"},{\"role\":"
	    "\"tool\",\"tool_call_id\":\"c2\",\"content\":\"two\"}],"
	    "\"tools\":[{\"name\":\"f\",\"description\":\"Does F.\","
	    "\"parameters\":{\"type\":\"object\"}}]}");
	b = oxi_ptools_request(r);
	jv_free(r);
	s = jv_dump_string(jv_object_get(jv_copy(b), jv_string("messages")), 0);
	ok(strstr(jv_string_value(s), "[{\"role\":\"system\",\"content\":"
	    "\"Be brief.\\n\\n# Tools\\n\\nYou can call tools.") &&
	    strstr(jv_string_value(s), "\\n## f\\nDoes F.\\nParameters (JSON"
	    " Schema): {\\\"type\\\":\\\"object\\\"}\\n\"},"),
	    "ptools request: the tools described in the system prompt");
	ok(strstr(jv_string_value(s), "{\"role\":\"assistant\",\"content\":"
	    "\"On it.\\n<tool_call>{\\\"name\\\":\\\"f\\\","
	    "\\\"arguments\\\":{\\\"p\\\":1}}</tool_call>\\n<tool_call>"
	    "{\\\"name\\\":\\\"g\\\",\\\"arguments\\\":{}}</tool_call>\"},"
	    "{\"role\":\"user\",\"content\":\"<tool_result name=\\\"f\\\">"
	    "\\none\\n</tool_result>\\n<tool_result name=\\\"g\\\">\\ntwo"
	    "\\n</tool_result>\"}]") != NULL,
	    "ptools request: calls as blocks, results merged as user text");
	if (!strstr(jv_string_value(s), "tool_result name"))
		printf("# %s\n", jv_string_value(s));
	jv_free(s);
	ok(!jv_object_has(jv_copy(b), jv_string("tools")) &&
	    !jv_object_has(jv_copy(b), jv_string("tool_mode")),
	    "ptools request: no tools, no tool_mode");
	jv_free(b);
}

/*
 * Fuzzing found provider numbers converted to integers out of range:
 * an index, output_index or error code that is not an integer in
 * [0, INT_MAX] is no index (or no status) at all.  The same texts are
 * seeds under tests/fuzz/seeds/.
 */
#define OOR_ANTHROPIC A_START \
	A_BSTART(1e300, "{\"type\":\"text\",\"text\":\"hi\"}") \
	A_DELTA(1e300, "{\"type\":\"text_delta\",\"text\":\" there\"}") \
	A_BSTOP(1e300) A_END("end_turn")
#define OOR_OPENAI "data: {\"choices\":[{\"index\":0,\"delta\":" \
	"{\"tool_calls\":[{\"index\":4294967296,\"id\":\"c1\"," \
	"\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}," \
	"\"finish_reason\":null}]}\n\n" \
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":" \
	"[{\"index\":-1e300,\"function\":{\"arguments\":\"\"}}]}," \
	"\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"
#define OOR_OPENAI_ERR "data: {\"error\":{\"code\":1e300," \
	"\"message\":\"boom\"}}\n\n"
#define OOR_RESPONSES R_FC(1e300, "c1", "f") R_ARGS(1e300, "{}") \
	R_DONE("completed", "")
#define OOR_EMBED "{\"data\":[{\"index\":4294967296,\"embedding\":[1]}]}"
static void
outofrange(void)
{
	jv r, tokens = jv_null(), v;

	sstream(&oxi_dialect_anthropic, "anthropic index 1e300", OOR_ANTHROPIC,
	    "{\"message\":{\"role\":\"assistant\",\"content\":\"hi there\","
	    "\"tool_calls\":[]},\"stop\":\"end\"," U(112, 42, 100, 7, 0)
	    "}");
	sstream(&oxi_dialect_openai, "openai tool call index 2^32, -1e300",
	    OOR_OPENAI, "{\"message\":{\"role\":\"assistant\",\"content\":null,"
	    "\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\",\"args\":{}}]},"
	    "\"stop\":\"tool_use\"," U0 "}");
	sstream(&oxi_dialect_openai, "openai error code 1e300", OOR_OPENAI_ERR,
	    "error provider 0: boom");
	sstream(&oxi_dialect_responses, "responses output_index 1e300",
	    OOR_RESPONSES,
	    "{\"message\":{\"role\":\"assistant\",\"content\":null,"
	    "\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\",\"args\":{}}]},"
	    "\"stop\":\"tool_use\"," U(20, 6, 8, 0, 2) "}");
	r = oxi_json_parse(OOR_EMBED, strlen(OOR_EMBED));
	v = oxi_llm_embed_openai.vectors(r, 1, &tokens);
	ok(!jv_is_valid(v), "embeddings index 2^32: a bad reply");
	jv_free(v);
	jv_free(r);
	jv_free(tokens);
}

/* the URL a dialect makes from base "B" */
static void
urlis(const struct oxi_llm_dialect *d, const char *model, int stream,
    const char *want)
{
	struct oxi_llm_target t;
	struct oxi_buf u = OXI_BUF_INIT;

	memset(&t, 0, sizeof t);
	t.model = model;
	oxi_buf_cats(&u, "B");
	if (d->path)
		oxi_buf_cats(&u, d->path);
	else
		d->url(&u, &t, stream);
	is_str(u.s, want, "%s url: %s%s", d->name, model,
	    stream ? "" : ", not streamed");
	oxi_buf_free(&u);
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
	plan((int)NCONF * 3 + 2 + NCHECKS + 8 * 3 + 4 + 7 * 3 + 2 +
	    6 * 3 + 2 + 6 * 3 + 1 + 6 + 6 * 3 + 3 + 4 * 3 + 1);

	if ((dp = opendir(shared))) {
		closedir(dp);
		conformance(shared);
	} else
		for (i = 0; i < NCONF * 3 + 2 + NCHECKS; i++)
			printf("ok %d # SKIP no shared directory '%s'\n",
			    ++tap_n, shared);
	anthropic();
	gemini();
	responses();
	ollama();
	ptools();
	outofrange();
	urlis(&oxi_dialect_ollama, "llama3.2", 1, "B/api/chat");
	urlis(&oxi_dialect_responses, "o3", 1, "B/responses");
	urlis(&oxi_dialect_anthropic, "claude-x", 1, "B/messages");
	urlis(&oxi_dialect_gemini, "gemini-2.5-flash", 1,
	    "B/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
	urlis(&oxi_dialect_gemini, "models/gemini-2.5-flash", 0,
	    "B/models/gemini-2.5-flash:generateContent");
	urlis(&oxi_dialect_gemini, "a b?c", 1,
	    "B/models/a%20b%3Fc:streamGenerateContent?alt=sse");
	oxi_buf_free(&top);
	return done();
}
