/*
 * taint.c - how far a record is trusted: the trust oxi-guard in gives
 * each msg.in and approval.answer, and the reading of a tool.call's
 * taint by oxi-guard tool
 *
 * trust is "owner" for a sender on the owner list, "allowlisted" for
 * another sender the guard lets in by its allowlist (or pairing), and
 * "external" for anyone else it lets in (an open DM policy); whatever
 * trust a record came with is replaced.  The owner list is $OXI_OWNER,
 * else the file owner in the configuration directory, entries as in the
 * allowlist; without either, "cli:*": the person at the terminal.
 *
 * oxi-loop(1) makes a call's taint from its message's trust
 * ("owner:cli") and the origins of what the turn's context holds
 * ("workspace", "web:https://a.org", "mcp:whois", ...): the call is
 * free of outside content only when every origin is the owner's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/policy.h"

int
oxi_owner_load(struct oxi_allow *owners, const char **src)
{
	static char path[4096];
	const char *v = oxi_getenv("OXI_OWNER"), *dir;

	if (v) {
		oxi_allow_parse(owners, v, strlen(v), 0);
		*src = "OXI_OWNER";
		return 0;
	}
	if ((dir = oxi_config_dir()) && (size_t)snprintf(path, sizeof path,
	    "%s/owner", dir) < sizeof path) {
		*src = path;
		if (oxi_allow_load(owners, path) == 0)
			return 0;
		if (errno != ENOENT)
			return -1;
		oxi_allow_free(owners);
	}
	*src = "the default, cli:*";
	oxi_allow_parse(owners, "cli:*", 5, 0);
	return 0;
}

const char *
oxi_trust_of(const struct oxi_allow *owners, jv rec, int allowed)
{
	const char *channel = oxi_msg_peek(rec, "channel");
	jv f = oxi_msg_idstr(oxi_jget(rec, "from"));
	int own;

	own = channel && oxi_allow_ok(owners, channel,
	    jv_get_kind(f) == JV_KIND_STRING ? jv_string_value(f) : NULL);
	jv_free(f);
	return own ? "owner" : allowed ? "allowlisted" : "external";
}

jv
oxi_trust_stamp(jv rec, const struct oxi_allow *owners, int allowed)
{
	return jv_object_set(rec, jv_string("trust"),
	    jv_string(oxi_trust_of(owners, rec, allowed)));
}

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
