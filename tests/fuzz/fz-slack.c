/*
 * fz-slack.c - what Slack sends oxi-recv slack, as records
 * (channel/skevent.c), and texts as mrkdwn in parts (channel/skmd.c over
 * tgmd.c): each record is a msg.in or an approval.answer that passes the
 * checks of protocol v1, with an id of the channel, and a key for the
 * ledger; every part is valid UTF-8 within the cap, and no mrkdwn part
 * forms a mention, a channel link or a broadcast (<@ <# <!).  The input
 * is an envelope, a wire sample ({"frame":...}), an event ({"event":...})
 * or lines of these; and the whole input again as a text.  No network:
 * files are listed, not fetched.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "channel/channel.h"
#include "channel/tgmd.h"
#include "channel/sk.h"
#include "fz.h"

static struct sk_ev ev = { "main", "U0BOT", 0, 1700000000, NULL, NULL };

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("OXI_DEADLETTER", "/dev/null", 1);
	return 0;
}

/* the records of one envelope (consumed) */
static void
envelope(jv env, int flags)
{
	const char *type, *why, *id;
	char key[300];
	jv out = jv_array(), r;
	int i, n;

	ev.all = flags & 1;
	sk_event_key(env, key, sizeof key);
	sk_event(&ev, env, &out);
	jv_free(env);
	n = jv_array_length(jv_copy(out));
	FZ_CHECK(n <= 1, "more than one record of an envelope");
	for (i = 0; i < n; i++) {
		r = jv_array_get(jv_copy(out), i);
		type = oxi_msg_type_peek(r);
		FZ_CHECK(strcmp(type, "msg.in") == 0 ||
		    strcmp(type, "approval.answer") == 0, "a record of another type");
		FZ_CHECK(oxi_msg_check(r, &why) == 0, "a record that fails its check");
		id = oxi_msg_peek(r, "id");
		FZ_CHECK(id && strncmp(id, "slack:main:", 11) == 0,
		    "an id outside the channel");
		FZ_CHECK(key[0] != '\0', "a record of an envelope with no key");
		jv_free(r);
	}
	jv_free(out);
}

/* a JSON value (consumed) as an envelope */
static void
value(jv v, int flags)
{
	jv x;

	if (!oxi_jis(v, JV_KIND_OBJECT)) {
		jv_free(v);
		return;
	}
	if (oxi_jis(x = oxi_jget(v, "frame"), JV_KIND_OBJECT)) {
		jv_free(v);
		envelope(x, flags);
		return;
	}
	jv_free(x);
	if (oxi_jis(x = oxi_jget(v, "event"), JV_KIND_OBJECT)) {
		jv_free(v);
		v = jv_object_set(jv_object(), jv_string("type"),
		    jv_string("events_api"));
		v = jv_object_set(v, jv_string("envelope_id"), jv_string("e1"));
		v = jv_object_set(v, jv_string("payload"), jv_object_set(
		    jv_object_set(jv_object(), jv_string("type"),
		    jv_string("event_callback")), jv_string("event"), x));
		envelope(v, flags);
		return;
	}
	jv_free(x);
	envelope(v, flags);
}

/* the text s[0..n) as mrkdwn in parts of at most max units */
static void
text(const char *s, size_t n, int md, size_t max)
{
	struct oxi_tgmd_part *p;
	int i, k;

	k = oxi_tgmd_render_as(s, n, md, max, &sk_mrkdwn, &p);
	FZ_CHECK(k >= 0, "the render failed");
	for (i = 0; i < k; i++) {
		FZ_CHECK(oxi_utf8_valid(p[i].html, strlen(p[i].html), 0),
		    "a part that is not UTF-8");
		FZ_CHECK(p[i].units <= max || oxi_tgmd_units(p[i].plain,
		    strlen(p[i].plain)) <= 2, "a part over the cap");
		FZ_CHECK(!strstr(p[i].html, "<@") && !strstr(p[i].html, "<!") &&
		    !strstr(p[i].html, "<#"), "a mention or broadcast made");
	}
	oxi_tgmd_free(p, k);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	const char *s = (const char *)d, *nl;
	size_t len = n;
	int flags = n > 0 ? d[n - 1] & 3 : 0;

	fz_quiet(1);
	value(oxi_json_parse(s, n), flags);
	while (len > 0 && (nl = memchr(s, '\n', len))) {
		value(oxi_json_parse(s, nl - s), flags);
		len -= nl + 1 - s;
		s = nl + 1;
	}
	text((const char *)d, n, !(flags & 2), 16 + fz_cut(d, n, 0) % 200);
	fz_quiet(0);
	return 0;
}
