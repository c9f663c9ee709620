/*
 * tghook.c - the webhook of oxi-recv telegram, on the listener of
 * chhook.c
 *
 * Telegram posts only to https on ports 443, 80, 88 or 8443: a proxy
 * that holds the TLS certificate forwards to us.  Each request must
 * carry the header X-Telegram-Bot-Api-Secret-Token equal to
 * $OXI_TELEGRAM_WEBHOOK_SECRET (compared in constant time): 401 without
 * it, 403 with another.  A body that is not an update is answered 400;
 * an update is answered 200 only once it is in the ledger (500 if the
 * ledger fails: Telegram posts it again).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/ch.h"
#include "channel/tg.h"

#define SECRET_HDR	"X-Telegram-Bot-Api-Secret-Token"

struct tghook {
	struct tgrx *rx;		/* the receiver */
	struct ch_hook *h;		/* the listener */
	char secret[257];		/* the shared secret */
};

/* 1 if a equals the secret s, in a time that depends on s only */
static int
same(const char *a, const char *s)
{
	size_t la = strlen(a), ls = strlen(s), i;
	unsigned char d = la != ls;

	for (i = 0; i < ls; i++)
		d |= (unsigned char)(i < la ? a[i] : 0) ^ (unsigned char)s[i];
	return d == 0;
}

/* the headers: the secret */
static int
gate(void *arg, const struct ch_hook_req *q, struct oxi_buf *out)
{
	struct tghook *h = arg;
	const char *v = ch_hook_header(q, SECRET_HDR);

	oxi_buf_cats(out, "{\"ok\":false}");
	if (!v) {
		oxi_warn("telegram: webhook: a request without the secret: "
		    "refused");
		return 401;
	}
	if (!same(v, h->secret)) {
		oxi_warn("telegram: webhook: a request with a wrong secret: "
		    "refused");
		return 403;
	}
	oxi_buf_reset(out);
	return 0;
}

/* the body of a request, all read: into the ledger */
static int
take(void *arg, const struct ch_hook_req *q, struct oxi_buf *out)
{
	struct tghook *h = arg;
	const char *why, *err;
	jv u;

	if (oxi_json_check(q->body, q->len, &why) < 0)
		u = jv_invalid();
	else
		u = oxi_json_parse(q->body, q->len);
	if (!oxi_jis(u, JV_KIND_OBJECT)) {
		jv_free(u);
		oxi_deadletter("webhook", 0, "not a Telegram update", q->body,
		    q->len);
		oxi_warn("telegram: webhook: a body that is not an update: "
		    "refused, dead-lettered");
		oxi_buf_cats(out, "{\"ok\":false,\"description\":\"not an "
		    "update\"}");
		return 400;
	}
	if (tg_ledger_put(h->rx, u, &err) < 0) {
		if (errno == EINVAL) {
			oxi_deadletter("webhook", 0, err, q->body, q->len);
			oxi_warn("telegram: webhook: %s: refused, dead-lettered",
			    err);
			oxi_buf_cats(out, "{\"ok\":false,\"description\":"
			    "\"not an update\"}");
			return 400;
		}
		oxi_warn("telegram: webhook: ledger: %s", err);
		oxi_buf_cats(out, "{\"ok\":false}");
		return 500;
	}
	return 0;
}

/* the secret: 1 to 256 of A-Z a-z 0-9 _ -, as setWebhook takes it */
static void
secret(struct tghook *h)
{
	const char *s = oxi_getenv("OXI_TELEGRAM_WEBHOOK_SECRET"), *p;

	if (!s)
		oxi_die(OXI_EX_USAGE, "the webhook needs "
		    "OXI_TELEGRAM_WEBHOOK_SECRET");
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
			break;
	if (*p || p - s > 256)
		oxi_die(OXI_EX_USAGE, "OXI_TELEGRAM_WEBHOOK_SECRET must be 1 to "
		    "256 of A-Z a-z 0-9 _ -");
	memcpy(h->secret, s, p - s + 1);
}

/* setWebhook, when we are told the public URL */
static void
register_url(struct tghook *h)
{
	const char *url = oxi_getenv("OXI_TELEGRAM_WEBHOOK_URL");
	struct tg_res res;
	jv p;

	if (!url)
		return;
	p = jv_object_set(jv_object(), jv_string("url"), jv_string(url));
	p = jv_object_set(p, jv_string("secret_token"), jv_string(h->secret));
	p = jv_object_set(p, jv_string("allowed_updates"), jv_parse(
	    "[\"message\",\"edited_message\",\"callback_query\"]"));
	if (tg_call(&h->rx->tg, "setWebhook", p, 30000, &res) < 0) {
		if (res.code == 401 || res.code == 404 || (!res.temp &&
		    !oxi_sig_term))
			oxi_die(OXI_EX_USAGE, "telegram: %s", res.err);
		oxi_warn("telegram: %s: the webhook is not registered",
		    res.err);
	}
	tg_res_free(&res);
}

struct tghook *
tg_hook_open(struct tgrx *rx, const char *listen)
{
	struct tghook *h = xcalloc(1, sizeof *h);

	h->rx = rx;
	secret(h);
	h->h = ch_hook_open(listen, rx->o->max, "telegram", gate, take, h);
	register_url(h);
	return h;
}

int
tg_hook_wait(struct tghook *h, int sigfd, int ms)
{
	return ch_hook_wait(h->h, sigfd, ms);
}

void
tg_hook_close(struct tghook *h)
{
	ch_hook_close(h->h);
	oxi_wipe(h->secret, sizeof h->secret);
	free(h);
}
