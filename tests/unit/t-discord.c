/*
 * t-discord.c - the Discord channel's pure parts: the Ed25519 check of
 * HTTP interactions against every vector of ../shared/wire/discord/
 * discord_ed25519_vectors.json (RFC 8032 and Discord-style), with
 * mutations of each valid one refused; the Gateway's payloads read and
 * written, what a close code means; the model's Markdown as Discord's,
 * cut in parts that fit
 *
 * usage: t-discord [shared-dir]   (default $SHARED, else ../shared from
 * the top of the tree; the vectors are skipped without it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"
#include "channel/tgmd.h"
#include "tap.h"

#define NMUT	6	/* mutations tried on each valid vector */

static char *
slurp(const char *path, size_t *len)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		oxi_buf_cat(&b, buf, n);
	fclose(f);
	*len = b.len;
	return b.s;
}

static const char *
s(jv o, const char *k)
{
	const char *v = oxi_msg_peek(o, k);

	return v ? v : "";
}

/* the message of an RFC 8032 vector is hex: as bytes */
static char *
unhex(const char *h, size_t *n)
{
	size_t i, l = strlen(h) / 2;
	char *m = xmalloc(l + 1);
	unsigned x;

	for (i = 0; i < l; i++) {
		sscanf(h + 2 * i, "%2x", &x);
		m[i] = (char)x;
	}
	*n = l;
	return m;
}

/* a valid vector changed in one way each: all refused */
static void
mutations(const char *name, const char *pk, const char *sig, const char *ts,
    const char *body, size_t len)
{
	char *b2 = xmalloc(len + 2), *s2 = xstrdup(sig), *p2 = xstrdup(pk);

	memcpy(b2, body, len);
	b2[len] = 'x';
	ok(dc_verify(pk, sig, ts, b2, len + 1) < 0, "%s: a byte added to the "
	    "body: refused", name);
	if (len > 0) {
		b2[0] ^= 1;
		ok(dc_verify(pk, sig, ts, b2, len) < 0, "%s: a bit of the body "
		    "flipped: refused", name);
	} else
		ok(dc_verify(pk, sig, "1", body, len) < 0, "%s: another "
		    "timestamp: refused", name);
	ok(dc_verify(pk, sig, "1700000001", body, len) < 0, "%s: another "
	    "timestamp: refused", name);
	s2[10] = s2[10] == '0' ? '1' : '0';
	ok(dc_verify(pk, s2, ts, body, len) < 0, "%s: a digit of the "
	    "signature changed: refused", name);
	p2[0] = p2[0] == '0' ? '1' : '0';
	ok(dc_verify(p2, sig, ts, body, len) < 0, "%s: another key: refused",
	    name);
	free(s2);
	s2 = xmalloc(strlen(sig) + 3);
	sprintf(s2, "%s00", sig);
	ok(dc_verify(pk, s2, ts, body, len) < 0, "%s: a signature too long: "
	    "refused", name);
	free(b2);
	free(s2);
	free(p2);
}

static void
vectors(const char *shared)
{
	struct oxi_buf path = OXI_BUF_INIT;
	size_t len, n;
	char *text, *m;
	jv doc, rfc, dcv, v;
	int i, k, want;

	oxi_buf_printf(&path, "%s/wire/discord/discord_ed25519_vectors.json",
	    shared);
	text = slurp(path.s, &len);
	doc = text ? oxi_json_parse(text, len) : jv_invalid();
	rfc = jv_getpath(jv_copy(doc), jv_parse("[\"rfc8032_test_vectors\","
	    "\"vectors\"]"));
	dcv = jv_getpath(jv_copy(doc), jv_parse("[\"discord_interaction_"
	    "vectors\",\"vectors\"]"));
	k = jv_array_length(jv_copy(rfc));
	n = jv_array_length(jv_copy(dcv));
	for (i = 0; i < k; i++) {
		v = jv_array_get(jv_copy(rfc), i);
		m = unhex(s(v, "message"), &len);
		is_int(dc_verify(s(v, "public"), s(v, "signature"), "", m, len),
		    0, "%s verifies", s(v, "name"));
		mutations(s(v, "name"), s(v, "public"), s(v, "signature"), "",
		    m, len);
		free(m);
		jv_free(v);
	}
	for (i = 0; i < (int)n; i++) {
		v = jv_array_get(jv_copy(dcv), i);
		{
			jv ok_ = oxi_jget(v, "valid");

			want = jv_get_kind(ok_) == JV_KIND_TRUE ? 0 : -1;
			jv_free(ok_);
		}
		is_int(dc_verify(s(v, "public_key"), s(v, "x_signature_ed25519"),
		    s(v, "x_signature_timestamp"), s(v, "body"),
		    strlen(s(v, "body"))), want, "%s: %s", s(v, "name"),
		    want == 0 ? "verifies" : "refused");
		if (want == 0)
			mutations(s(v, "name"), s(v, "public_key"),
			    s(v, "x_signature_ed25519"),
			    s(v, "x_signature_timestamp"), s(v, "body"),
			    strlen(s(v, "body")));
		jv_free(v);
	}
	ok(k == 3 && n == 8, "the file holds the 3 RFC vectors and the 8 "
	    "Discord ones (%d, %zu)", k, n);
	jv_free(rfc);
	jv_free(dcv);
	jv_free(doc);
	free(text);
	oxi_buf_free(&path);
}

/* one Markdown text: its only part */
static void
md1(const char *in, const char *want, const char *what)
{
	char **p;
	int n = dc_md_render(in, strlen(in), 1, DC_TEXT_MAX, &p);

	is_str(n == 1 ? p[0] : NULL, want, "markdown: %s", what);
	if (n > 0)
		dc_md_free(p, n);
}

static void
markdown(void)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char **p;
	int i, n, bad, fences;

	md1("**bold** and *it* `x_y`", "**bold** and *it* `x_y`",
	    "bold, italic, code kept; nothing escaped in code");
	md1("a_b*c <@1> ~x~ | y", "a\\_b\\*c \\<@1> ~~x~~ \\| y",
	    "markup characters of the text escaped, strikethrough");
	md1("```c\nint x;\n```", "```c\nint x;\n```", "a code block");
	md1("[site](https://x.org/a_b) see https://x.org/a_b",
	    "[site](https://x.org/a_b) see https://x.org/a_b",
	    "a link, and a bare URL as itself");
	md1("> quoted\n> two", "> quoted\n> two", "a quote, line by line");
	md1("# Title\n\ntext\n\n- a\n- b", "**Title**\n\ntext\n\n\xe2\x80\xa2 a"
	    "\n\xe2\x80\xa2 b", "a heading bold, a list of bullets");
	md1("| a | b |\n|---|---|\n| 1 | 2 |", "```\na | b\n--+--\n1 | 2\n```",
	    "a table as a code block");
	n = dc_md_render("*plain*", 7, 0, DC_TEXT_MAX, &p);
	is_str(n == 1 ? p[0] : NULL, "\\*plain\\*", "plain text: shown as "
	    "it is");
	dc_md_free(p, n);
	for (i = 0; i < 300; i++)
		oxi_buf_printf(&b, "Sentence %d is *here*.%s", i, i % 20 == 19 ?
		    "\n\n" : " ");
	n = dc_md_render(b.s, b.len, 1, DC_TEXT_MAX, &p);
	for (i = bad = 0; i < n; i++)
		bad |= oxi_tgmd_units(p[i], strlen(p[i])) > DC_TEXT_MAX ||
		    p[i][strlen(p[i]) - 1] != '.';
	ok(n >= 4 && !bad, "a long text: %d parts of 2000 at most, each "
	    "ending a sentence", n);
	dc_md_free(p, n);
	oxi_buf_reset(&b);
	oxi_buf_cats(&b, "```py\n");
	for (i = 0; i < 200; i++)
		oxi_buf_printf(&b, "x_%d = '```'  # a line\n", i);
	oxi_buf_cats(&b, "```\n");
	n = dc_md_render(b.s, b.len, 1, DC_TEXT_MAX, &p);
	for (i = bad = 0; i < n; i++) {
		const char *q;

		for (fences = 0, q = p[i]; (q = strstr(q, "```")); q += 3)
			fences++;
		bad |= oxi_tgmd_units(p[i], strlen(p[i])) > DC_TEXT_MAX ||
		    fences != 2 || strncmp(p[i], "```py\n", 6) != 0;
	}
	ok(n >= 3 && !bad, "a long code block: %d parts, each one whole "
	    "block (backticks inside broken up)", n);
	dc_md_free(p, n);
	oxi_buf_free(&b);
	n = dc_md_render("", 0, 1, DC_TEXT_MAX, &p);
	is_int(n, 0, "nothing to show: no part");
}

static void
gateway(void)
{
	struct dc_gw g;
	const char *why;
	jv v;
	long j;
	int i, okj = 1;

	const char *disp = "{\"op\":0,\"t\":\"MESSAGE_CREATE\",\"s\":42,"
	    "\"d\":{\"id\":\"1\"}}", *hello = "{\"op\":10,\"d\":"
	    "{\"heartbeat_interval\":45000}}";

	is_int(dc_gw_read(disp, strlen(disp), &g, &why), 0, "a dispatch read");
	ok(g.op == 0 && g.s == 42 && !strcmp(g.t, "MESSAGE_CREATE") &&
	    oxi_jis(g.d, JV_KIND_OBJECT), "...its op, s, t and d");
	jv_free(g.d);
	is_int(dc_gw_read(hello, strlen(hello), &g, &why), 0, "Hello read");
	ok(g.op == 10 && g.s == -1 && g.t[0] == '\0' &&
	    oxi_jnum(g.d, "heartbeat_interval", 0) == 45000, "...no s, no t");
	jv_free(g.d);
	ok(dc_gw_read("[1]", 3, &g, &why) < 0 && dc_gw_read("{\"d\":1}", 7,
	    &g, &why) < 0 && dc_gw_read("{\"op\":1.5}", 10, &g, &why) < 0 &&
	    dc_gw_read("{\"op\":", 6, &g, &why) < 0, "no object, no op, a "
	    "fraction, cut JSON: refused");
	v = dc_gw_identify("T0K", 37377);
	is_str(jv_string_value(v), "{\"op\":2,\"d\":{\"token\":\"T0K\","
	    "\"intents\":37377,\"properties\":{\"os\":\"linux\",\"browser\":"
	    "\"oxi\",\"device\":\"oxi\"}}}", "identify");
	jv_free(v);
	v = dc_gw_resume("T0K", "sess", 7);
	is_str(jv_string_value(v), "{\"op\":6,\"d\":{\"token\":\"T0K\","
	    "\"session_id\":\"sess\",\"seq\":7}}", "resume");
	jv_free(v);
	v = dc_gw_heartbeat(-1);
	is_str(jv_string_value(v), "{\"op\":1,\"d\":null}", "a heartbeat "
	    "before any sequence number");
	jv_free(v);
	for (i = 0; i < 1000; i++)
		okj &= (j = dc_gw_jitter(1000)) >= 0 && j < 1000;
	ok(okj, "the jitter is in [0, interval)");
	ok(dc_gw_close(4004, &why) == 1 && strstr(why, "DISCORD_BOT_TOKEN") &&
	    dc_gw_close(4014, &why) == 1 && dc_gw_close(4013, &why) == 1,
	    "4004, 4013, 4014: fatal, saying why");
	ok(dc_gw_close(4009, &why) == 2 && dc_gw_close(4007, &why) == 2,
	    "4007, 4009: the session is gone");
	ok(dc_gw_close(4000, &why) == 0 && dc_gw_close(1006, &why) == 0 &&
	    dc_gw_close(1000, &why) == 0, "4000, 1006, 1000: resume");
}

int
main(int argc, char **argv)
{
	const char *shared = argc > 1 ? argv[1] : oxi_getenv("SHARED");
	struct oxi_buf top = OXI_BUF_INIT;
	const char *slash;
	FILE *f;

	if (!shared) {
		slash = strrchr(argv[0], '/');
		if (slash)
			oxi_buf_cat(&top, argv[0], slash - argv[0]);
		else
			oxi_buf_cats(&top, ".");
		oxi_buf_cats(&top, "/../../../shared");
		shared = top.s;
	}
	{
		struct oxi_buf p = OXI_BUF_INIT;

		oxi_buf_printf(&p, "%s/wire/discord/discord_ed25519_vectors."
		    "json", shared);
		f = fopen(p.s, "r");
		oxi_buf_free(&p);
	}
	/* 3 RFC vectors and 8 Discord-style ones (2 valid), each valid one
	 * mutated NMUT ways */
	plan(1 + 3 * (1 + NMUT) + 8 + 2 * NMUT + 1 + 11 + 12);
	ok(dc_verify("zz", "00", "", "", 0) < 0, "a malformed key: refused");
	if (f) {
		fclose(f);
		vectors(shared);
	} else
		for (int i = 0; i < 3 * (1 + NMUT) + 8 + 2 * NMUT + 1; i++)
			printf("ok %d # SKIP no shared directory '%s'\n",
			    ++tap_n, shared);
	markdown();
	gateway();
	return done();
}
