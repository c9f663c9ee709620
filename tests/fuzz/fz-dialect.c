/*
 * fz-dialect.c - the reply reader of one LLM dialect (llm/openai.c,
 * anthropic.c, gemini.c, ollama.c, responses.c), built once per dialect
 * with -DFZ_DIALECT=oxi_dialect_NAME: the reply is fed whole, cut at
 * three points chosen by the input, and one byte at a time; every feeding
 * must give the same text, result, error code, retry flag and
 * completeness
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/llm.h"
#if defined(__has_include)
#if __has_include("llm/dialect.h")
#include "llm/dialect.h"	/* the contract, once it leaves llm.h */
#endif
#endif
#include "fz.h"

#define OXI_ULID_CHARS	"0123456789ABCDEFGHJKMNPQRSTVWXYZ"

#ifndef FZ_DIALECT
#define FZ_DIALECT	oxi_dialect_openai
#endif

/* ids that oxi makes up (Gemini and Ollama send none): "call_" and a
 * ULID, which differs at each reading: masked */
static void
maskids(char *s)
{
	size_t i;

	while ((s = strstr(s, "call_")) != NULL) {
		s += 5;
		for (i = 0; i < 26 && strchr(OXI_ULID_CHARS, s[i]) &&
		    s[i] != '\0'; i++)
			;
		if (i == 26)
			memset(s, '*', 26);
	}
}

static void
ontext(void *arg, const char *text, size_t len)
{
	struct oxi_buf *b = arg;

	FZ_CHECK(text != NULL || len == 0, "NULL text");
	oxi_buf_cat(b, text, len);
}

/* the reading of d[0..n) in pieces ending at the cuts (ascending), then n */
static void
readreply(const uint8_t *d, size_t n, const size_t *cuts, int ncuts,
    struct oxi_buf *out)
{
	const struct oxi_llm_dialect *dl = &FZ_DIALECT;
	struct oxi_buf text = OXI_BUF_INIT;
	const char *code = NULL;
	size_t off = 0, end;
	void *rd;
	const char *why;
	char *s;
	int i, r = 0, retry = -1, done;
	jv res, msg;

	rd = dl->reader(ontext, &text);
	FZ_CHECK(rd != NULL, "no reader");
	for (i = 0; i <= ncuts && r == 0; i++, off = end) {
		end = i < ncuts ? cuts[i] : n;
		if (end > off)	/* request.c stops the transfer on -1 */
			r = dl->feed(rd, (const char *)d + off, end - off);
	}
	done = dl->complete(rd);
	res = dl->result(rd, &code, &retry);
	oxi_buf_printf(out, "r=%d done=%d text=%zu:", r, done, text.len);
	oxi_buf_cat(out, text.s, text.len);
	if (jv_is_valid(res)) {
		FZ_CHECK(jv_get_kind(res) == JV_KIND_OBJECT,
		    "a result that is not an object");
		res = jv_dump_string(res, JV_PRINT_SORTED);
		/* a result passes our own JSON check, as it goes on the bus */
		s = (char *)jv_string_value(res);
		FZ_CHECK(oxi_json_check(s, strlen(s), &why) == 0,
		    "a result that is not JSON");
		maskids(s);
		oxi_buf_printf(out, " ok %s", s);
		jv_free(res);
	} else {
		msg = jv_invalid_get_msg(res);
		FZ_CHECK(jv_get_kind(msg) == JV_KIND_STRING,
		    "an error without a message");
		FZ_CHECK(code != NULL && *code != '\0', "an error without code");
		oxi_buf_printf(out, " error %s %d %s", code, retry,
		    jv_string_value(msg));
		jv_free(msg);
	}
	dl->free(rd);
	oxi_buf_free(&text);
}

static int
cmpsz(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct oxi_buf whole = OXI_BUF_INIT, part = OXI_BUF_INIT;
	size_t cuts[3], *one, i;

	for (i = 0; i < 3; i++)
		cuts[i] = fz_cut(d, n, (int)i);
	qsort(cuts, 3, sizeof cuts[0], cmpsz);
	readreply(d, n, NULL, 0, &whole);
	readreply(d, n, cuts, 3, &part);
	fz_same(whole.s, whole.len, part.s, part.len, "the reply reads differently when cut");
	if (n <= 2048) {
		oxi_buf_reset(&part);
		one = malloc((n + 1) * sizeof *one);
		for (i = 0; i < n; i++)
			one[i] = i + 1;
		readreply(d, n, one, (int)n, &part);
		free(one);
		fz_same(whole.s, whole.len, part.s, part.len, "the reply reads differently byte by byte");
	}
	oxi_buf_free(&whole);
	oxi_buf_free(&part);
	return 0;
}
