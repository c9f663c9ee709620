/*
 * account.c - usage and cost of answers, the spend ledger, and budgets
 *
 * Every answer gets its usage normalised and its cost from the price
 * table; costs go to the ledger, opened on first use, and a call is
 * refused (code "budget", nothing sent) while a daily, monthly or session
 * cap is spent.  Budgets fail closed: with a budget set, a model without
 * a price is refused at start (oxi_llm_acct_priced) and per request.
 * ctl.c keeps one struct oxi_llm_acct.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/job.h"

static const char *const periodname[3] = { "daily", "monthly", "session" };

static int
budgets(const struct oxi_llm_acct *a)
{
	return a->budget[0] >= 0 || a->budget[1] >= 0 || a->budget[2] >= 0;
}

/* the ledger, opened on first use; NULL (warned once) if it cannot be */
static struct oxi_ledger *
ledger(struct oxi_llm_acct *a)
{
	char path[4096];
	const char *dir, *err = "";

	if (a->ledger || a->noledger)
		return a->ledger;
	if (a->path)
		snprintf(path, sizeof path, "%s", a->path);
	else if ((dir = oxi_state_dir()))
		snprintf(path, sizeof path, "%s/llm.db", dir);
	else {
		snprintf(a->ledgerr, sizeof a->ledgerr, "no state directory");
		a->noledger = 1;
		oxi_warn("unable to keep the spend ledger: %s", a->ledgerr);
		return NULL;
	}
	if (!(a->ledger = oxi_ledger_open(path, &err))) {
		snprintf(a->ledgerr, sizeof a->ledgerr, "%s", err);
		a->noledger = 1;
		oxi_warn("unable to open the spend ledger '%s': %s", path,
		    a->ledgerr);
	}
	return a->ledger;
}

/* the usage object with all five counts, numbers */
static jv
normusage(jv u)
{
	static const char *const k[5] = {
		"input", "output", "cache_read", "cache_write", "reasoning"
	};
	jv r = jv_object(), v;
	int i;

	for (i = 0; i < 5; i++) {
		v = jv_get_kind(u) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(u), jv_string(k[i])) : jv_invalid();
		if (jv_get_kind(v) != JV_KIND_NUMBER) {
			jv_free(v);
			v = jv_number(0);
		}
		r = jv_object_set(r, jv_string(k[i]), v);
	}
	if (jv_get_kind(u) == JV_KIND_OBJECT)	/* keep whatever else */
		r = jv_object_merge(u, r);
	else
		jv_free(u);
	return r;
}

jv
oxi_llm_account(struct oxi_llm_acct *a, jv rec, int embed,
    const char *session, const char *id)
{
	const char *model = oxi_msg_peek(rec, "model"), *err;
	struct oxi_ledger *l;
	jv u, v, cost;

	u = jv_object_get(jv_copy(rec), jv_string("usage"));
	if (embed) {
		/* an embedding counts input only; unknown stays null */
		if (jv_get_kind(u) != JV_KIND_OBJECT) {
			jv_free(u);
			u = jv_object_set(jv_object(), jv_string("input"),
			    jv_null());
		}
	} else {
		u = normusage(u);
		rec = jv_object_set(rec, jv_string("usage"), jv_copy(u));
	}
	v = jv_object_get(jv_copy(u), jv_string("input"));
	if (embed && jv_get_kind(v) != JV_KIND_NUMBER) {
		jv_free(u);
		cost = jv_null();	/* tokens unknown: cost unknown */
	} else
		cost = oxi_prices_cost(a->prices, model, u);
	jv_free(v);
	rec = jv_object_set(rec, jv_string("cost_usd"), jv_copy(cost));
	if (jv_get_kind(cost) == JV_KIND_NUMBER && (l = ledger(a))) {
		u = jv_object_get(jv_copy(rec), jv_string("usage"));
		if (oxi_ledger_add(l, session, id, model, u,
		    jv_number_value(cost), &err) < 0)
			oxi_warn("unable to record spend in the ledger: %s",
			    err);
	}
	jv_free(cost);
	return rec;
}

int
oxi_llm_acct_priced(const struct oxi_llm_acct *a, const char *models,
    char *why, size_t len)
{
	char **v;
	int n, i, r = 0;

	if (!budgets(a) || !models)
		return 0;
	n = oxi_llm_chain(models, &v);
	for (i = 0; i < n && r == 0; i++)
		if (!oxi_prices_find(a->prices, v[i])) {
			snprintf(why, len, "a budget is set but '%.100s' has no"
			    " price, so its spend cannot be counted: add it to"
			    " prices.json (OXI_PRICES) or unset the budget",
			    v[i]);
			r = -1;
		}
	oxi_llm_chain_free(v, n);
	return r;
}

jv
oxi_llm_overbudget(struct oxi_llm_acct *a, const char *id,
    const char *session, const char *models)
{
	struct oxi_ledger *l;
	const char *err = "";
	double spent[3];
	char m[300];
	int i;

	if (!budgets(a))
		return jv_invalid();
	if (oxi_llm_acct_priced(a, models, m, sizeof m) < 0)
		return oxi_msg_error(id, "budget", m, 0);
	if (!(l = ledger(a)) || oxi_ledger_spent(l, session, spent,
	    &err) < 0) {
		snprintf(m, sizeof m, "the spend ledger is unavailable (%s);"
		    " refusing while a budget is set", l ? err : a->ledgerr);
		return oxi_msg_error(id, "budget", m, 1);
	}
	for (i = 0; i < 3; i++) {
		if (a->budget[i] < 0 || (i == 2 && !session))
			continue;
		if (spent[i] >= a->budget[i]) {
			snprintf(m, sizeof m, "the %s cap of %.2f USD"
			    " is spent (%.4f USD %s)", periodname[i],
			    a->budget[i], spent[i], i == 0 ?
			    "today, UTC" : i == 1 ? "this month, UTC" :
			    "in this session");
			return oxi_msg_error(id, "budget", m, 0);
		}
	}
	return jv_invalid();
}

void
oxi_llm_acct_free(struct oxi_llm_acct *a)
{
	oxi_prices_free(a->prices);
	oxi_ledger_close(a->ledger);
	a->prices = NULL;
	a->ledger = NULL;
}
