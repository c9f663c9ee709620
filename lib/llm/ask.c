/*
 * ask.c - the efforts of reasoning_effort as thinking budgets, for the
 * dialects
 */
#include "oxi.h"
#include "llm/dialect.h"

int
oxi_llm_effort(jv th)
{
	static const struct {
		const char *name;	/* an effort */
		int tokens;		/* its thinking budget */
	} e[] = {
		{ "none", 0 }, { "minimal", 1024 }, { "low", 2048 },
		{ "medium", 8192 }, { "high", 24576 }, { NULL, -1 }
	};
	jv v = oxi_jget(th, "effort");
	int i;

	for (i = 0; e[i].name && !oxi_jstr_is(v, e[i].name); i++)
		;
	jv_free(v);
	return e[i].tokens;
}
