/*
 * t-discord.c - the Discord channel's pure parts: the Ed25519 check of
 * HTTP interactions against every vector of ../shared/wire/discord/
 * discord_ed25519_vectors.json (RFC 8032 and Discord-style), with
 * mutations of each valid one refused
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
	if (!f) {
		printf("1..0 # SKIP no shared directory '%s'\n", shared);
		return 0;
	}
	fclose(f);
	/* 3 RFC vectors and 8 Discord-style ones (2 valid), each valid one
	 * mutated NMUT ways */
	plan(1 + 3 * (1 + NMUT) + 8 + 2 * NMUT + 1);
	ok(dc_verify("zz", "00", "", "", 0) < 0, "a malformed key: refused");
	vectors(shared);
	return done();
}
