/*
 * dchook.c - the HTTP interactions endpoint of oxi-recv discord
 *
 * With an Interactions Endpoint URL set in the developer portal, Discord
 * posts interactions (the clicks on buttons) there instead of sending
 * them on the Gateway.  Each request is signed: Ed25519 over
 * X-Signature-Timestamp and the raw body, by the application's key
 * ($DISCORD_PUBLIC_KEY, dcsig.c); one that does not verify is answered
 * 401 and nothing else is done (Discord sends bad signatures on purpose
 * and drops an endpoint that takes them).  A PING (type 1) is answered
 * {"type":1}; a button's interaction (type 3) goes into the ledger,
 * keyed by its id, before it is answered with dc_answer's body, its
 * approval.answer written by the receiver's drain; any other type is
 * answered with a message only its user sees.  The listener is
 * chhook.c's, on 127.0.0.1 unless an address is given: a proxy with TLS
 * in front of it is the public URL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"

#define BODY_MAX	(1UL << 20)	/* an interaction we read */

struct dchook {
	struct dcrx *rx;
	struct ch_hook *h;
	char key[65];		/* the public key, hex */
};

/* a request: signed, then a PING or an interaction */
static int
take(void *arg, const struct ch_hook_req *q, struct oxi_buf *out)
{
	struct dchook *h = arg;
	const char *sig = ch_hook_header(q, "X-Signature-Ed25519"),
	    *ts = ch_hook_header(q, "X-Signature-Timestamp");
	char key[DC_ID + 4], id[DC_ID];
	double type;
	jv d, a;

	if (!sig || !ts || dc_verify(h->key, sig, ts, q->body, q->len) < 0) {
		oxi_debug("discord: an interaction with a bad signature: 401");
		oxi_buf_cats(out, "{\"error\":\"invalid request signature\"}");
		return 401;
	}
	d = oxi_json_parse(q->body, q->len);
	type = oxi_jis(d, JV_KIND_OBJECT) ? oxi_jnum(d, "type", -1) : -1;
	if (type == 1) {
		jv_free(d);
		oxi_buf_cats(out, "{\"type\":1}");
		return 200;
	}
	if (type != 3 || !*dc_id(d, "id", id)) {
		jv_free(d);
		oxi_buf_cats(out, "{\"type\":4,\"data\":{\"content\":\"This bot "
		    "takes messages and its own buttons only.\",\"flags\":64}}");
		return 200;
	}
	snprintf(key, sizeof key, "i:%s", id);
	a = jv_dump_string(dc_answer(d), 0);
	dc_ledger_put(h->rx, key, DC_HTTP_INTERACTION, d, -1);
	oxi_buf_cats(out, jv_string_value(a));
	jv_free(a);
	return 200;
}

struct dchook *
dc_hook_open(struct dcrx *rx, const char *listen)
{
	struct dchook *h = xcalloc(1, sizeof *h);
	const char *k = oxi_getenv("DISCORD_PUBLIC_KEY");

	if (!k || strlen(k) != 64 || strspn(k, "0123456789abcdefABCDEF") != 64)
		oxi_die(OXI_EX_USAGE, "DISCORD_PUBLIC_KEY must be the "
		    "application's public key, 64 hex digits, for the "
		    "interactions endpoint");
	snprintf(h->key, sizeof h->key, "%s", k);
	h->rx = rx;
	h->h = ch_hook_open(listen, BODY_MAX, "discord", NULL, take, h);
	return h;
}

int
dc_hook_fd(const struct dchook *h)
{
	return ch_hook_fd(h->h);
}

int
dc_hook_serve(struct dchook *h)
{
	return ch_hook_wait(h->h, -1, 0);
}

void
dc_hook_close(struct dchook *h)
{
	if (!h)
		return;
	ch_hook_close(h->h);
	free(h);
}
