/*
 * dchan.c - the doctor's channel checks: each channel's token found
 * along the credential chain and well formed, and online one harmless
 * call that proves the platform takes it (Telegram's getMe, Slack's
 * auth.test, Discord's /users/@me).  The token is in a URL or a header:
 * neither the URL, the header nor libcurl's message about it is shown.
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
#define SK_BASE	"https://slack.com/api"
#define DC_BASE	"https://discord.com/api/v10"

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

/* Slack's bot token: xoxb- then letters, digits and - */
static int
sktoken(const char *t)
{
	return strncmp(t, "xoxb-", 5) == 0 && t[5] && strspn(t + 5,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
	    == strlen(t + 5);
}

/* Discord's bot token: three parts of base64url joined by dots */
static int
dctoken(const char *t)
{
	const char *p;
	int dots = 0;

	for (p = t; *p; p++)
		if (*p == '.')
			dots++;
		else if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
		    "QRSTUVWXYZ0123456789-_", *p))
			return 0;
	return dots == 2 && *t != '.' && p[-1] != '.';
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

struct chan {
	const char *label, *var, *api, *refix, *shape;
	int (*wellformed)(const char *);
};

static const struct chan chans[] = {
	{ "telegram", "TELEGRAM_BOT_TOKEN", "the Bot API", "make a new token"
	    " with @BotFather and store it (oxi-vault set TELEGRAM_BOT_TOKEN)",
	    "copy the token @BotFather gave again (digits, ':', then letters)",
	    tgtoken },
	{ "slack", "SLACK_BOT_TOKEN", "the Slack API", "reinstall the app"
	    " and store its Bot User OAuth Token (oxi-vault set"
	    " SLACK_BOT_TOKEN)", "copy the Bot User OAuth Token again"
	    " (xoxb-...)", sktoken },
	{ "discord", "DISCORD_BOT_TOKEN", "the Discord API", "reset the bot's"
	    " token in the Developer Portal and store it (oxi-vault set"
	    " DISCORD_BOT_TOKEN)", "copy the bot's token again (three parts"
	    " joined by dots)", dctoken },
};

/* the URL (in locked memory) and the header a check of c calls */
static char *
where(const struct chan *c, const char *token, struct curl_slist **hdrs)
{
	const char *env[] = { "OXI_TELEGRAM_BASE_URL", "OXI_SLACK_API",
	    "OXI_DISCORD_API" }, *dflt[] = { TG_BASE, SK_BASE, DC_BASE };
	int k = (int)(c - chans);
	const char *base = oxi_getenv(env[k]);
	size_t n;
	char *url, *h;

	if (!base)
		base = dflt[k];
	n = strlen(base) + strlen(token) + 32;
	if (!(url = sodium_malloc(n)))
		return NULL;
	if (k == 0) {
		snprintf(url, n, "%s/bot%s/getMe", base, token);
		return url;
	}
	snprintf(url, n, "%s%s", base, k == 1 ? "/auth.test" : "/users/@me");
	if (!(h = sodium_malloc(strlen(token) + 32))) {
		sodium_free(url);
		return NULL;
	}
	sprintf(h, "Authorization: %s %s", k == 1 ? "Bearer" : "Bot", token);
	*hdrs = curl_slist_append(NULL, h);
	oxi_wipe(h, strlen(h));
	sodium_free(h);
	return url;
}

/* the harmless call: 0 with the bot's name in who, else -1 with why (no
 * secret) */
static int
whoami(const struct chan *c, const char *token, char *who, size_t wn,
    char *why, size_t n)
{
	char err[CURL_ERROR_SIZE];
	struct curl_slist *hdrs = NULL;
	struct oxi_buf b = OXI_BUF_INIT;
	const char *name = NULL;
	char *url;
	CURL *e;
	CURLcode rc;
	long status = 0;
	jv r, u, okv;
	int ok = -1;

	if (oxi_curl_init() < 0 || !(e = curl_easy_init())) {
		snprintf(why, n, "unable to initialise libcurl");
		return -1;
	}
	if (!(url = where(c, token, &hdrs))) {
		curl_easy_cleanup(e);
		snprintf(why, n, "out of locked memory");
		return -1;
	}
	oxi_curl_base(e, url, err, 10000, 20000);
	oxi_curl_io(e, hdrs, body, head, &b);
	if (c == &chans[1])
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, "");
	rc = curl_easy_perform(e);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(e);
	curl_slist_free_all(hdrs);
	sodium_free(url);
	oxi_wipe(err, sizeof err);
	if (rc != CURLE_OK) {
		snprintf(why, n, "%s is unreachable (%s)", c->api,
		    curl_easy_strerror(rc));
		oxi_buf_free(&b);
		return -1;
	}
	r = oxi_json_parse(b.s ? b.s : "", b.len);
	okv = oxi_jget(r, "ok");
	u = c == &chans[0] ? oxi_jget(r, "result") : jv_copy(r);
	if (jv_get_kind(u) == JV_KIND_OBJECT)
		name = oxi_msg_peek(u, c == &chans[1] ? "user" : "username");
	if (status == 200 && jv_get_kind(u) == JV_KIND_OBJECT && (c ==
	    &chans[2] ? name != NULL : jv_get_kind(okv) == JV_KIND_TRUE)) {
		snprintf(who, wn, "@%s", name ? name : "?");
		ok = 0;
	} else
		snprintf(why, n, "%s answered HTTP %ld%s", c->api, status,
		    status == 401 || status == 404 || (status == 200 &&
		    c == &chans[1]) ? ": the token is revoked or wrong" : "");
	jv_free(okv);
	jv_free(u);
	jv_free(r);
	oxi_buf_free(&b);
	return ok;
}

/* one channel's line */
static void
check(struct oxi_doc *d, const struct chan *c)
{
	const char *name = c->var, *src;
	struct oxi_secret_buf val = { NULL, 0 };
	char why[400], who[80];

	src = oxi_doc_secret(d, name, NULL, why, sizeof why);
	if (!src) {
		if (*why)
			oxi_doc_say(d, c->label, OXI_DOC_WARN, "give"
			    " OXI_VAULT_KEY_FILE or run on a terminal", "the"
			    " token could not be looked for: %s", why);
		else
			oxi_doc_say(d, c->label, OXI_DOC_SKIP, NULL, "no"
			    " %s anywhere: the channel is not used", name);
		return;
	}
	if (strcmp(src, "helper") == 0 && !d->online) {
		oxi_doc_say(d, c->label, OXI_DOC_OK, NULL, "%s comes from"
		    " its helper (run with --online to try it)", name);
		return;
	}
	if (!oxi_doc_secret(d, name, &val, why, sizeof why)) {
		oxi_doc_say(d, c->label, OXI_DOC_ERROR, "check the helper"
		    " command or the vault", "%s could not be read: %s", name,
		    why);
		return;
	}
	if (!c->wellformed((char *)val.p))
		oxi_doc_say(d, c->label, OXI_DOC_ERROR, c->shape, "%s (from"
		    " the %s) is not a bot token", name, src);
	else if (!d->online)
		oxi_doc_say(d, c->label, OXI_DOC_OK, NULL, "%s is in the %s"
		    " and well formed", name, src);
	else if (whoami(c, (char *)val.p, who, sizeof who, why,
	    sizeof why) == 0)
		oxi_doc_say(d, c->label, OXI_DOC_OK, NULL, "the token (from"
		    " the %s) is the bot %s", src, who);
	else
		oxi_doc_say(d, c->label, OXI_DOC_ERROR, strstr(why,
		    "revoked") ? c->refix : "check the network or the API's"
		    " base URL", "%s", why);
	oxi_secret_free(&val);
}

void
oxi_doc_channels(struct oxi_doc *d)
{
	size_t i;

	for (i = 0; i < sizeof chans / sizeof chans[0]; i++)
		check(d, &chans[i]);
}
