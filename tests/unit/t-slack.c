/*
 * t-slack.c - pieces of the Slack channel: HMAC-SHA256 (sksig.c)
 * against RFC 4231, the v0 signature of the Events API (sk_verify)
 * against Slack's own vector
 * (../shared/wire/slack/slack_signing_vectors.json when it is there, the
 * same values as Slack's documentation otherwise), every one-character
 * change of it, the replay window, and the Markdown as mrkdwn (skmd.c)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "channel/tgmd.h"
#include "channel/sk.h"
#include "tap.h"

static const char *secret = "8f742231b10e8888abcd99yyyzzz85a5";
static const char *ts = "1531420618";
static const char *body = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&"
    "team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&"
    "user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&"
    "text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J"
    "%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015."
    "47445629121.803a0bc887a14d10d2c447fce8b6703c";
static const char *sig =
    "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";

/* the vector of the wire samples, if they are here: 1 read, 0 none */
static int
vector(char **s, char **t, char **b, char **x)
{
	const char *dir = getenv("SHARED");
	char path[4096], buf[16384];
	size_t n;
	FILE *f;
	jv v;

	snprintf(path, sizeof path, "%s/wire/slack/slack_signing_vectors.json",
	    dir && *dir ? dir : "../shared");
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	v = oxi_json_parse(buf, n);
	*s = xstrdup(jv_string_value(jv_object_get(jv_copy(v),
	    jv_string("signing_secret"))));
	*t = xstrdup(jv_string_value(jv_object_get(jv_copy(v),
	    jv_string("timestamp"))));
	*b = xstrdup(jv_string_value(jv_object_get(jv_copy(v),
	    jv_string("body"))));
	*x = xstrdup(jv_string_value(jv_object_get(jv_copy(v),
	    jv_string("expected_signature"))));
	jv_free(v);
	return 1;
}

/* HMAC-SHA256 of data (in pieces of step bytes) with key, as hex */
static const char *
hmac(const char *key, size_t klen, const char *data, size_t step)
{
	static char hex[65];
	const void *parts[64];
	size_t lens[64], n = strlen(data), i;
	unsigned char mac[32];
	int k = 0;

	for (i = 0; i < n && k < 64; i += step, k++) {
		parts[k] = data + i;
		lens[k] = n - i < step ? n - i : step;
	}
	sk_hmac_sha256(key, klen, parts, lens, k, mac);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	return hex;
}

static int
verify(const char *sec, const char *t, const char *s, const char *b,
    long long now)
{
	const char *why;

	return sk_verify(sec, t, s, b, b ? strlen(b) : 0, now, &why);
}

static const char *
md(const char *text)
{
	static struct oxi_tgmd_part *p;
	static int n;

	oxi_tgmd_free(p, n);
	n = oxi_tgmd_render_as(text, strlen(text), 1, SK_TEXT_MAX, &sk_mrkdwn,
	    &p);
	return n == 1 ? p[0].html : n == 0 ? "(nothing)" : "(several)";
}

int
main(void)
{
	char *s, *t, *b, *x, mut[1024], hex[] = "0123456789abcdef";
	long long now;
	size_t i;
	int j, bad = 0, tried = 0;

	plan(28);
	memset(mut, 0x0b, 20);
	is_str(hmac(mut, 20, "Hi There", 100), "b0344c61d8db38535ca8afceaf0bf12b"
	    "881dc200c9833da726e9376c2e32cff7", "RFC 4231 case 1");
	is_str(hmac("Jefe", 4, "what do ya want for nothing?", 100),
	    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
	    "RFC 4231 case 2");
	is_str(hmac("Jefe", 4, "what do ya want for nothing?", 3),
	    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
	    "...the data in pieces of 3 bytes");
	memset(mut, 0xaa, 131);
	is_str(hmac(mut, 131, "Test Using Larger Than Block-Size Key - Hash "
	    "Key First", 100), "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5"
	    "140546040f0ee37f54", "RFC 4231 case 6: a key over the block size");
	is_str(hmac(mut, 131, "This is a test using a larger than block-size "
	    "key and a larger than block-size data. The key needs to be hashed "
	    "before being used by the HMAC algorithm.", 7),
	    "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
	    "RFC 4231 case 7: data over the block size, in pieces");
	if (vector(&s, &t, &b, &x)) {
		ok(strcmp(s, secret) == 0 && strcmp(t, ts) == 0 &&
		    strcmp(b, body) == 0 && strcmp(x, sig) == 0,
		    "the wire sample holds the values of Slack's docs");
		free(s);
		free(t);
		free(b);
		free(x);
	} else
		ok(1, "# SKIP no ../shared/wire/slack");
	now = strtoll(ts, NULL, 10);
	is_int(verify(secret, ts, sig, body, now), 0,
	    "Slack's vector verifies at its own time");
	is_int(verify(secret, ts, sig, body, now + 300), 0,
	    "...and 300 s later");
	is_int(verify(secret, ts, sig, body, now - 300), 0,
	    "...and 300 s earlier (a clock behind)");
	is_int(verify(secret, ts, sig, body, now + 301), -1,
	    "301 s later: refused (a replay)");
	is_int(verify(secret, ts, sig, body, now - 301), -1,
	    "301 s earlier: refused");
	snprintf(mut, sizeof mut, "%s------", body);
	is_int(verify(secret, ts, sig, mut, now), -1,
	    "the body with ------ appended: refused");
	is_int(verify(secret, "1531420619", sig, body, now), -1,
	    "another timestamp: refused");
	is_int(verify("8f742231b10e8888abcd99yyyzzz85a6", ts, sig, body, now),
	    -1, "another secret: refused");
	is_int(verify(secret, ts, NULL, body, now), -1, "no signature: refused");
	is_int(verify(secret, NULL, sig, body, now), -1, "no timestamp: refused");
	is_int(verify(NULL, ts, sig, body, now), -1, "no secret: refused");
	is_int(verify(secret, ts, sig, "", now), -1, "an empty body: refused");
	is_int(verify(secret, "15314206l8", sig, body, now), -1,
	    "a timestamp that is not a number: refused");
	snprintf(mut, sizeof mut, "v1=%s", sig + 3);
	is_int(verify(secret, ts, mut, body, now), -1, "v1=: refused");
	snprintf(mut, sizeof mut, "%.*s", (int)strlen(sig) - 2, sig);
	is_int(verify(secret, ts, mut, body, now), -1,
	    "a signature one byte short: refused");
	for (i = 3; i < strlen(sig); i++)
		for (j = 0; j < 16; j += 5) {
			snprintf(mut, sizeof mut, "%s", sig);
			if (mut[i] == hex[j])
				continue;
			mut[i] = hex[j];
			tried++;
			bad += verify(secret, ts, mut, body, now) < 0;
		}
	ok(tried > 150 && bad == tried,
	    "every one-digit change of the signature refused (%d of %d)", bad,
	    tried);
	for (i = 0, bad = 0, tried = 0; i < strlen(body); i += 3) {
		snprintf(mut, sizeof mut, "%s", body);
		mut[i] ^= 0x20;
		tried++;
		bad += verify(secret, ts, sig, mut, now) < 0;
	}
	ok(tried > 100 && bad == tried,
	    "every body with one byte changed refused (%d of %d)", bad, tried);
	is_str(md("**b** _i_ ~~s~~ `c` [t](https://a.b/?x=1&y=2)"),
	    "*b* _i_ ~s~ `c` <https://a.b/?x=1&amp;y=2|t>",
	    "mrkdwn: bold, italic, strike, code, a link with &");
	is_str(md("<@U1> & <!here>"), "&lt;@U1&gt; &amp; &lt;!here&gt;",
	    "mrkdwn: a mention or broadcast in the text is shown, not made");
	is_str(md("[**x** `y`](https://a.b)"), "<https://a.b|x y>",
	    "mrkdwn: no marks inside a link's text");
	is_str(md("> a\n> b\n\nc"), "> a\n> b\n\nc",
	    "mrkdwn: a quote, line by line");
	is_str(md("```\nx < y\n```"), "```\nx &lt; y\n```",
	    "mrkdwn: a code block, escaped");
	return done();
}
