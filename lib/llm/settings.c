/*
 * settings.c - the settings of the call machine from the environment
 * (timeouts, retries, backoff, breakers, budgets) and from oxi-llm -b,
 * each checked: a bad one is named in a one-line reason
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/llm.h"

#define CFG(f)	offsetof(struct oxi_llmctl_cfg, f)

/* US dollars in v for what: 0, or -1 with why */
static int
usd(const char *what, const char *v, double *d, char *why, size_t len)
{
	char *end;

	*d = strtod(v, &end);
	if (end == v || *end || !(*d >= 0) || *d > 1e9) {
		snprintf(why, len, "bad %s '%s': US dollars expected", what, v);
		return -1;
	}
	return 0;
}

int
oxi_llmctl_budget(struct oxi_llmctl_cfg *c, const char *s, char *why,
    size_t len)
{
	static const char *const names[3] = { "day", "month", "session" };
	const char *eq = strchr(s, '=');
	int i;

	for (i = 0; eq && i < 3; i++)
		if ((size_t)(eq - s) == strlen(names[i]) &&
		    strncmp(s, names[i], eq - s) == 0)
			return usd("budget", eq + 1, &c->budget[i], why, len);
	snprintf(why, len, "bad budget '%s': day=USD, month=USD or"
	    " session=USD expected", s);
	return -1;
}

int
oxi_llmctl_env(struct oxi_llmctl_cfg *c, char *why, size_t len)
{
	static const char *const usdvars[3] = {
		"OXI_BUDGET_DAY_USD", "OXI_BUDGET_MONTH_USD",
		"OXI_BUDGET_SESSION_USD"
	};
	/* in the order they were always read: the first bad one is named */
	static const struct {
		const char *name;	/* the variable */
		size_t off;		/* of its field in the cfg */
		long max;		/* a count's max; 0: seconds as ms */
	} vars[] = {
		{ "OXI_LLM_CONNECT_TIMEOUT", CFG(connect_ms), 0 },
		{ "OXI_LLM_IDLE_TIMEOUT", CFG(idle_ms), 0 },
		{ "OXI_LLM_TIMEOUT", CFG(total_ms), 0 },
		{ "OXI_LLM_RETRIES", CFG(retries), 20 },
		{ "OXI_LLM_BACKOFF", CFG(base_ms), 0 },
		{ "OXI_LLM_BACKOFF_MAX", CFG(cap_ms), 0 },
		{ "OXI_LLM_RETRY_WINDOW", CFG(window_ms), 0 },
		{ "OXI_LLM_BREAKER", CFG(brk_max), 1000 },
		{ "OXI_LLM_BREAKER_TIME", CFG(brk_ms), 0 },
		{ "OXI_LLM_MIN_RATE", CFG(min_bps), 1000000 },
		{ NULL, 0, 0 }
	};
	const char *v;
	long n, *ms;
	int i, *cnt;

	c->connect_ms = c->idle_ms = c->total_ms = 0;
	for (i = 0; (v = vars[i].name); i++) {
		ms = (long *)((char *)c + vars[i].off);
		cnt = (int *)((char *)c + vars[i].off);
		if (vars[i].max == 0 && oxi_env_ms(v, *ms, ms) < 0) {
			snprintf(why, len, "bad %s '%s': seconds expected", v,
			    oxi_getenv(v));
			return -1;
		}
		if (vars[i].max > 0) {
			if (oxi_env_int(v, *cnt, vars[i].max, &n) < 0) {
				snprintf(why, len, "bad %s '%s': a number from"
				    " 0 to %ld expected", v, oxi_getenv(v),
				    vars[i].max);
				return -1;
			}
			*cnt = (int)n;
		}
	}
	for (i = 0; i < 3; i++)
		if ((v = oxi_getenv(usdvars[i])) &&
		    usd(usdvars[i], v, &c->budget[i], why, len) < 0)
			return -1;
	return 0;
}
