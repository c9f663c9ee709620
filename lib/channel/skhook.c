/*
 * skhook.c - the Events API of oxi-recv slack (instead of Socket Mode),
 * on the listener of chhook.c
 *
 * Every request must be signed: X-Slack-Signature is v0=HMAC-SHA256 of
 * "v0:<X-Slack-Request-Timestamp>:<raw body>" with the signing secret,
 * the timestamp within 5 minutes (sk_verify): 401 otherwise.  A
 * url_verification is answered with its challenge.  An event_callback
 * (JSON), or a click (a form whose payload field is the JSON of a
 * block_actions), is wrapped as a Socket Mode envelope would hold it
 * and put in the ledger under the same key, so that a retry of Slack's
 * (X-Slack-Retry-Num) is known; the 200 comes after the ledger has it
 * (500 if the ledger cannot take it: Slack posts it again).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oxi.h"
#include "channel/channel.h"
#include "channel/ch.h"
#include "channel/sk.h"

struct skhook {
	struct skrx *rx;		/* the receiver */
	struct ch_hook *h;		/* the listener */
};

/* a hex digit's value, or -1 */
static int
hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* the form field name of body, URL-decoded, into b; 0 or -1 if none */
static int
field(const char *body, size_t len, const char *name, struct oxi_buf *b)
{
	size_t n = strlen(name), i;
	const char *p = body, *end = body + len, *amp;

	for (; p < end; p = amp + 1) {
		if (!(amp = memchr(p, '&', (size_t)(end - p))))
			amp = end;
		if ((size_t)(amp - p) <= n || strncmp(p, name, n) != 0 ||
		    p[n] != '=')
			continue;
		for (i = n + 1; p + i < amp; i++)
			if (p[i] == '+')
				oxi_buf_cats(b, " ");
			else if (p[i] == '%' && p + i + 2 < amp + 1 &&
			    hexval(p[i + 1]) >= 0 && hexval(p[i + 2]) >= 0) {
				oxi_buf_printf(b, "%c", hexval(p[i + 1]) * 16 +
				    hexval(p[i + 2]));
				i += 2;
			} else
				oxi_buf_cat(b, p + i, 1);
		oxi_buf_cats(b, "");
		return 0;
	}
	return -1;
}

/* a signed request: into the ledger, or answered */
static int
take(void *arg, const struct ch_hook_req *q, struct oxi_buf *out)
{
	struct skhook *h = arg;
	struct oxi_buf f = OXI_BUF_INIT;
	const char *why, *type;
	char key[300];
	jv body, env, s;
	int status = 0;

	if (sk_verify(h->rx->sk.secret, ch_hook_header(q,
	    "X-Slack-Request-Timestamp"), ch_hook_header(q,
	    "X-Slack-Signature"), q->body, q->len, (long long)time(NULL),
	    &why) < 0) {
		oxi_warn("slack: webhook: a request with %s: refused", why);
		oxi_buf_cats(out, "{\"ok\":false}");
		return 401;
	}
	if (q->len > 0 && q->body[0] == '{')
		body = oxi_json_parse(q->body, q->len);
	else if (field(q->body, q->len, "payload", &f) == 0)
		body = oxi_json_parse(f.s, f.len);
	else
		body = jv_invalid();
	oxi_buf_free(&f);
	type = oxi_jis(body, JV_KIND_OBJECT) ? oxi_msg_type_peek(body) : NULL;
	if (type && strcmp(type, "url_verification") == 0) {
		s = jv_dump_string(jv_object_set(jv_object(),
		    jv_string("challenge"), oxi_jget(body, "challenge")), 0);
		oxi_buf_cats(out, jv_string_value(s));
		jv_free(s);
		jv_free(body);
		return 200;
	}
	if (!type) {
		jv_free(body);
		oxi_warn("slack: webhook: a body that is not an event: refused");
		oxi_buf_cats(out, "{\"ok\":false}");
		return 400;
	}
	env = jv_object_set(jv_object(), jv_string("type"), jv_string(
	    strcmp(type, "event_callback") == 0 ? "events_api" :
	    "interactive"));
	env = jv_object_set(env, jv_string("payload"), body);
	sk_event_key(env, key, sizeof key);
	if (!key[0]) {
		oxi_debug("slack: webhook: a %s without an id: skipped", type);
		jv_free(env);
		return 0;
	}
	s = jv_dump_string(env, 0);
	if (!sk_ledger_put(h->rx, key, jv_string_value(s),
	    strlen(jv_string_value(s))))
		oxi_debug("slack: webhook: %s is known", key);
	jv_free(s);
	return status;
}

struct skhook *
sk_hook_open(struct skrx *rx, const char *listen)
{
	struct skhook *h = xcalloc(1, sizeof *h);

	h->rx = rx;
	h->h = ch_hook_open(listen, rx->o->max, "slack", NULL, take, h);
	return h;
}

int
sk_hook_wait(struct skhook *h, int sigfd, int ms)
{
	return ch_hook_wait(h->h, sigfd, ms);
}

void
sk_hook_close(struct skhook *h)
{
	ch_hook_close(h->h);
	free(h);
}
