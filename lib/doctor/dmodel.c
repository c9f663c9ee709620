/*
 * dmodel.c - the doctor's model checks: a model named, its provider
 * known, its key found along the credential chain (and, online, one
 * short real call through oxi-llm); the price table and the budgets it
 * must be able to hold
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "doctor/check.h"
#include "llm/llm.h"
#include "vault/vault.h"

/* the model or chain to check, or NULL */
static const char *
model(const struct oxi_doc *d)
{
	const char *m;

	if ((m = d->model) || (m = oxi_getenv("OXI_MODEL")))
		return m;
	return oxi_llm_default_model();
}

/* the provider of a model name, or NULL */
static const struct oxi_llm_provider *
provider(const char *m)
{
	const struct oxi_llm_provider *p;
	size_t n = strcspn(m, "/");

	for (p = oxi_llm_providers; p->name; p++)
		if (strlen(p->name) == n && strncmp(p->name, m, n) == 0)
			return p;
	return NULL;
}

/* the one short call: oxi-llm with the key in its environment only */
static void
call(struct oxi_doc *d, const char *chain, const char *key, const char *src)
{
	const char *args[] = { "-n", "-m", chain, "Reply with the word ok.",
		NULL };
	struct oxi_secret_buf val = { NULL, 0 };
	struct oxi_buf out = OXI_BUF_INIT;
	char why[400], line[400];
	int code;

	if (key && src && strcmp(src, "environment") != 0 &&
	    !oxi_doc_secret(d, key, &val, why, sizeof why)) {
		oxi_doc_say(d, "model", OXI_DOC_ERROR, "check the helper"
		    " command or the vault (oxi-vault list)", "%s: the key %s"
		    " could not be read: %s", chain, key, why);
		return;
	}
	code = oxi_doc_cmd("oxi-llm", args, 60, val.p ? key : NULL,
	    (char *)val.p, &out);
	oxi_secret_free(&val);
	oxi_doc_lastline(&out, line, sizeof line);
	oxi_buf_free(&out);
	if (code == 0)
		oxi_doc_say(d, "model", OXI_DOC_OK, NULL, "%s answers%s%s%s",
		    chain, key ? " (key " : "", key ? key : "",
		    key ? src ? strcmp(src, "environment") == 0 ?
		    " from the environment)" : strcmp(src, "vault") == 0 ?
		    " from the vault)" : " from its helper)" : ")" : "");
	else
		oxi_doc_say(d, "model", OXI_DOC_ERROR, code == OXI_EX_TEMP ?
		    "the provider is unreachable or busy: try again, or check"
		    " its OXI_<PROVIDER>_BASE_URL" : "check the key and the"
		    " model name: oxi-llm -v -m MODEL hi", "%s does not answer"
		    " (exit %d): %s", chain, code, line);
}

void
oxi_doc_model(struct oxi_doc *d)
{
	const struct oxi_llm_provider *p;
	const char *chain = model(d), *src, *key = NULL, *ksrc = NULL;
	char why[400], **v;
	int n, i, bad = 0;

	if (!chain) {
		oxi_doc_say(d, "model", OXI_DOC_ERROR, "set OXI_MODEL (e.g."
		    " openai/gpt-4o-mini) or run 'oxi-llm models default"
		    " provider/model'", "no model is configured");
		return;
	}
	if (oxi_llm_check_chain(chain, 2, why, sizeof why) < 0) {
		oxi_doc_say(d, "model", OXI_DOC_ERROR, "oxi-llm -M lists the"
		    " providers and priced models", "%s", why);
		return;
	}
	n = oxi_llm_chain(chain, &v);
	for (i = 0; i < n && !bad; i++) {
		if (!(p = provider(v[i])) || !p->keyenv)
			continue;
		src = oxi_doc_secret(d, p->keyenv, NULL, why, sizeof why);
		if (src) {
			if (!key) {
				key = p->keyenv;
				ksrc = src;
			}
			continue;
		}
		/* not found: fatal only where the provider needs it */
		if (oxi_llm_check(v[i], why, sizeof why) == 0)
			continue;
		bad = 1;
		oxi_doc_say(d, "model", OXI_DOC_ERROR, "put it in the vault"
		    " (oxi-vault set NAME) or the environment", "%s: %s is in"
		    " none of the environment, a helper, the vault%s%s",
		    v[i], p->keyenv, *why && !strstr(why, "no API key") ?
		    ": " : "", *why && !strstr(why, "no API key") ? why : "");
	}
	oxi_llm_chain_free(v, n);
	if (bad)
		return;
	if (d->online)
		call(d, chain, key, ksrc);
	else
		oxi_doc_say(d, "model", OXI_DOC_OK, NULL, "%s%s%s%s%s", chain,
		    key ? ", key " : "", key ? key : "", key ? " in the " :
		    "", key ? ksrc : "");
}

void
oxi_doc_prices(struct oxi_doc *d)
{
	struct oxi_llmctl_cfg cfg;
	struct oxi_prices *t;
	const char *chain = model(d);
	char why[400], none[300] = "", **v;
	int n = 0, i, budget;

	oxi_llmctl_defaults(&cfg);
	if (oxi_llmctl_env(&cfg, why, sizeof why) < 0) {
		oxi_doc_say(d, "prices", OXI_DOC_ERROR, "fix or unset the"
		    " variable named", "%s", why);
		return;
	}
	budget = cfg.budget[0] >= 0 || cfg.budget[1] >= 0 ||
	    cfg.budget[2] >= 0;
	if (!(t = oxi_prices_load(why, sizeof why))) {
		oxi_doc_say(d, "prices", OXI_DOC_ERROR, "fix the file named,"
		    " or unset OXI_PRICES", "%s", why);
		return;
	}
	if (chain)
		n = oxi_llm_chain(chain, &v);
	for (i = 0; i < n; i++)
		if (!oxi_prices_find(t, v[i]) && strlen(none) + strlen(v[i]) +
		    4 < sizeof none)
			snprintf(none + strlen(none), sizeof none - strlen(none),
			    "%s'%s'", *none ? ", " : "", v[i]);
	if (n)
		oxi_llm_chain_free(v, n);
	oxi_prices_free(t);
	if (*none && budget)
		oxi_doc_say(d, "prices", OXI_DOC_ERROR, "add a price to"
		    " prices.json (OXI_PRICES; 0 for a local server) or unset"
		    " the budget", "a budget is set but %s has no price:"
		    " oxi-llm refuses to start", none);
	else if (*none)
		oxi_doc_say(d, "prices", OXI_DOC_WARN, "add a price to"
		    " prices.json (OXI_PRICES; 0 for a local server)", "%s has"
		    " no price: its spend is not counted, and no budget could"
		    " hold it", none);
	else
		oxi_doc_say(d, "prices", OXI_DOC_OK, NULL, "the price table"
		    " loads%s%s", chain ? " and prices the model" : "",
		    budget ? "; budgets are enforceable" : "");
}
