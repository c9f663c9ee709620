/*
 * dchan.c - the doctor's channel checks: each channel's token found
 * along the credential chain and well formed, and online one harmless
 * call (Telegram's getMe) that proves the platform takes it.  The token
 * is in a URL: neither the URL nor libcurl's message about it is shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <sodium.h>

#include "oxi.h"
#include "doctor/check.h"
#include "net/net.h"
#include "vault/vault.h"

#define TG_BASE	"https://api.telegram.org"

/* digits, ':', then letters, digits, _ and - */
static int
tgtoken(const char *t)
{
	size_t i = strspn(t, "0123456789");

	if (i == 0 || t[i] != ':' || !t[i + 1])
		return 0;
	for (i++; t[i]; i++)
		if (!(t[i] == '_' || t[i] == '-' || (t[i] >= '0' && t[i] <= '9')
		    || (t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' &&
		    t[i] <= 'Z')))
			return 0;
	return 1;
}

static size_t
body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct oxi_buf *b = arg;

	if (b->len < 65536)
		oxi_buf_cat(b, p, size * nmemb);
	return size * nmemb;
}

static size_t
head(char *p, size_t size, size_t nmemb, void *arg)
{
	(void)p;
	(void)arg;
	return size * nmemb;
}

/* getMe: 0 with the bot's name in who, else -1 with why (no secret) */
static int
getme(const char *token, char *who, size_t wn, char *why, size_t n)
{
	char err[CURL_ERROR_SIZE];
	const char *base = oxi_getenv("OXI_TELEGRAM_BASE_URL");
	struct oxi_buf b = OXI_BUF_INIT;
	size_t ulen;
	char *url;
	CURL *e;
	CURLcode rc;
	long status = 0;
	jv r, u, okv;
	int ok = -1;

	if (!base)
		base = TG_BASE;
	if (oxi_curl_init() < 0 || !(e = curl_easy_init())) {
		snprintf(why, n, "unable to initialise libcurl");
		return -1;
	}
	ulen = strlen(base) + strlen(token) + 16;
	if (!(url = sodium_malloc(ulen))) {
		curl_easy_cleanup(e);
		snprintf(why, n, "out of locked memory");
		return -1;
	}
	snprintf(url, ulen, "%s/bot%s/getMe", base, token);
	oxi_curl_base(e, url, err, 10000, 20000);
	oxi_curl_io(e, NULL, body, head, &b);
	rc = curl_easy_perform(e);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(e);
	sodium_free(url);
	oxi_wipe(err, sizeof err);
	if (rc != CURLE_OK) {
		snprintf(why, n, "the Bot API is unreachable (%s)",
		    curl_easy_strerror(rc));
		oxi_buf_free(&b);
		return -1;
	}
	r = oxi_json_parse(b.s ? b.s : "", b.len);
	okv = oxi_jget(r, "ok");
	u = oxi_jget(r, "result");
	if (status == 200 && jv_get_kind(okv) == JV_KIND_TRUE &&
	    jv_get_kind(u) == JV_KIND_OBJECT) {
		const char *name = oxi_msg_peek(u, "username");

		snprintf(who, wn, "@%s", name ? name : "?");
		ok = 0;
	} else
		snprintf(why, n, "the Bot API answered HTTP %ld%s", status,
		    status == 401 || status == 404 ? ": the token is revoked"
		    " or wrong" : "");
	jv_free(okv);
	jv_free(u);
	jv_free(r);
	oxi_buf_free(&b);
	return ok;
}

void
oxi_doc_channels(struct oxi_doc *d)
{
	const char *name = "TELEGRAM_BOT_TOKEN", *src;
	struct oxi_secret_buf val = { NULL, 0 };
	char why[400], who[80];

	src = oxi_doc_secret(d, name, NULL, why, sizeof why);
	if (!src) {
		if (*why)
			oxi_doc_say(d, "telegram", OXI_DOC_WARN, "give"
			    " OXI_VAULT_KEY_FILE or run on a terminal", "the"
			    " token could not be looked for: %s", why);
		else
			oxi_doc_say(d, "telegram", OXI_DOC_SKIP, NULL, "no"
			    " %s anywhere: the channel is not used", name);
		return;
	}
	if (strcmp(src, "helper") == 0 && !d->online) {
		oxi_doc_say(d, "telegram", OXI_DOC_OK, NULL, "%s comes from"
		    " its helper (run with --online to try it)", name);
		return;
	}
	if (!oxi_doc_secret(d, name, &val, why, sizeof why)) {
		oxi_doc_say(d, "telegram", OXI_DOC_ERROR, "check the helper"
		    " command or the vault", "%s could not be read: %s", name,
		    why);
		return;
	}
	if (!tgtoken((char *)val.p))
		oxi_doc_say(d, "telegram", OXI_DOC_ERROR, "copy the token"
		    " @BotFather gave again (digits, ':', then letters)", "%s"
		    " (from the %s) is not a bot token", name, src);
	else if (!d->online)
		oxi_doc_say(d, "telegram", OXI_DOC_OK, NULL, "%s is in the %s"
		    " and well formed", name, src);
	else if (getme((char *)val.p, who, sizeof who, why, sizeof why) == 0)
		oxi_doc_say(d, "telegram", OXI_DOC_OK, NULL, "the token (from"
		    " the %s) is the bot %s", src, who);
	else
		oxi_doc_say(d, "telegram", OXI_DOC_ERROR, strstr(why,
		    "revoked") ? "make a new token with @BotFather and store"
		    " it (oxi-vault set TELEGRAM_BOT_TOKEN)" : "check the"
		    " network or OXI_TELEGRAM_BASE_URL", "%s", why);
	oxi_secret_free(&val);
}
