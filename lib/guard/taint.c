/*
 * taint.c - the reading of a tool.call's taint by oxi-guard tool
 *
 * oxi-guard in says how far each msg.in is trusted ("trust": owner,
 * allowlisted, external; sender.c).  oxi-loop(1) makes a call's taint
 * from its message's trust ("owner:cli") and the origins of what the turn's context holds
 * ("workspace", "web:https://a.org", "mcp:whois", ...): the call is
 * free of outside content only when every origin is the owner's.
 */
#include <stdio.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/policy.h"

int
oxi_taint_outside(jv taint, char *out, size_t n)
{
	int i, len, outside = 0;
	size_t used = 0;
	const char *s;
	jv v;

	if (n > 0)
		out[0] = '\0';
	if (jv_get_kind(taint) != JV_KIND_ARRAY) {
		snprintf(out, n, "no taint given");
		return 1;
	}
	if ((len = jv_array_length(jv_copy(taint))) == 0) {
		snprintf(out, n, "no origin given");
		return 1;
	}
	for (i = 0; i < len; i++) {
		v = jv_array_get(jv_copy(taint), i);
		s = jv_get_kind(v) == JV_KIND_STRING ? jv_string_value(v) :
		    "?";
		if (strncmp(s, "owner:", 6) != 0) {
			outside = 1;
			/* the first few, for the owner to read */
			if (used + strlen(s) + 2 < n && used < 160) {
				used += (size_t)snprintf(out + used, n - used,
				    "%s%.80s", used ? ", " : "", s);
			}
		}
		jv_free(v);
	}
	return outside;
}
