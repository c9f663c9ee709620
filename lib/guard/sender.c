/*
 * sender.c - who may talk to the assistant: the owner, the allowlist, the
 * DM policy of each channel, and the assistant's own echoes
 *
 * Trust comes from the lists alone: a sender named on the owner list is
 * the owner; one named on the allowlist (an entry with its id) is
 * allowlisted; one let in by a wildcard ("*", "telegram:*") is external,
 * as anyone could be.  With no owner list the named entries of the
 * allowlist are the owner's (a one-person assistant, as before), and so
 * is whoever it lets in on the terminal (channel cli): a user of this
 * machine.
 */
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/in.h"

static const char *const dmnames[] = { "allowlist", "pairing", "open" };

static int
dmword(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof dmnames / sizeof dmnames[0]; i++)
		if (strlen(dmnames[i]) == n && memcmp(dmnames[i], s, n) == 0)
			return (int)i;
	return -1;
}

int
oxi_dm_parse(struct oxi_senders *s, const char *spec, char *bad, size_t n)
{
	const char *p, *colon;
	size_t k;
	int d;

	for (p = spec; *p; p += k) {
		if ((k = strcspn(p, ", \t\n")) == 0) {
			k = 1;
			continue;
		}
		colon = memchr(p, ':', k);
		d = colon ? dmword(colon + 1, (size_t)(p + k - colon - 1)) :
		    dmword(p, k);
		if (d < 0 || (colon && (colon == p ||
		    (size_t)(colon - p) >= sizeof s->dm[0].channel ||
		    s->ndm == OXI_DM_CHANNELS))) {
			snprintf(bad, n, "%.*s", (int)k, p);
			return -1;
		}
		if (!colon) {
			s->dmall = (enum oxi_dm)d;
			continue;
		}
		memcpy(s->dm[s->ndm].channel, p, (size_t)(colon - p));
		s->dm[s->ndm].channel[colon - p] = '\0';
		s->dm[s->ndm++].dm = (enum oxi_dm)d;
	}
	return 0;
}

enum oxi_dm
oxi_dm_of(const struct oxi_senders *s, const char *channel)
{
	size_t i;

	for (i = 0; channel && i < s->ndm; i++)
		if (strcmp(s->dm[i].channel, channel) == 0)
			return s->dm[i].dm;
	return s->dmall;
}

const char *
oxi_dm_name(enum oxi_dm d)
{
	return dmnames[d];
}

int
oxi_sender_isdm(jv rec)
{
	const char *t = oxi_msg_peek(rec, "chat_type"), *chat, *from;
	jv f;
	int r;

	if (t)
		return strcmp(t, "private") == 0 || strcmp(t, "dm") == 0 ||
		    strcmp(t, "direct") == 0 || strcmp(t, "im") == 0;
	chat = oxi_msg_peek(rec, "chat");
	f = oxi_msg_idstr(jv_object_get(jv_copy(rec), jv_string("from")));
	from = jv_get_kind(f) == JV_KIND_STRING ? jv_string_value(f) : NULL;
	r = chat && from && strcmp(chat, from) == 0;
	jv_free(f);
	return r;
}

enum oxi_trust
oxi_sender_trust(const struct oxi_senders *s, const char *channel,
    const char *from)
{
	int m;

	if (s->owners.n > 0 && oxi_allow_match(&s->owners, channel, from) > 0)
		return OXI_TRUST_OWNER;
	m = oxi_allow_match(&s->allow, channel, from);
	if (m > 0 && s->owners.n == 0 && (m == 2 ||
	    (channel && strcmp(channel, "cli") == 0)))
		return OXI_TRUST_OWNER;
	if (m == 2)
		return OXI_TRUST_ALLOWED;
	return m == 1 ? OXI_TRUST_EXTERNAL : OXI_TRUST_NONE;
}

int
oxi_sender_self(const struct oxi_senders *s, const char *channel,
    const char *from)
{
	return from && oxi_allow_match(&s->self, channel, from) == 2;
}

const char *
oxi_trust_name(enum oxi_trust t)
{
	static const char *const names[] = { "none", "external",
	    "allowlisted", "owner" };

	return names[t];
}

void
oxi_senders_free(struct oxi_senders *s)
{
	oxi_allow_free(&s->allow);
	oxi_allow_free(&s->owners);
	oxi_allow_free(&s->self);
	s->ndm = 0;
	s->dmall = OXI_DM_ALLOWLIST;
}
