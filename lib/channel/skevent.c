/*
 * skevent.c - what Slack sends oxi-recv slack, as records: an envelope
 * of Socket Mode ({"envelope_id","type","payload"}; the Events API's
 * bodies are wrapped the same way by skhook.c) becomes a msg.in, an
 * approval.answer or nothing
 *
 * events_api: a message in a DM (channel_type im), a mention of the bot
 * in a channel (app_mention), and with OXI_SLACK_CHANNELS=all every
 * message of a channel the bot is in (then app_mention is skipped: the
 * message event carries the same message).  A message's thread is its
 * thread_ts.  Dropped: any bot's messages (bot_id, bot_message), our
 * own, edits and deletions and the other subtypes but file_share and
 * thread_broadcast.  The text has Slack's escapes undone: &amp; &lt;
 * &gt;, <@U1> as @U1 (our own mention taken out), <#C1|name> as #name,
 * <!here> as @here, <url|label> as "label (url)".
 *
 * interactive: a click on a button of oxi-send slack (block_actions, a
 * value "a:<ask id>:<choice>") becomes an approval.answer; other
 * payloads are skipped.  Anything malformed is skipped, never fatal:
 * the parser faces the network (tests/fuzz/fz-slack.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oxi.h"
#include "channel/channel.h"
#include "channel/sk.h"

/* the string obj[key] (borrowed), or NULL */
#define str(obj, key)	oxi_msg_peek(obj, key)

/* obj[key] if it is an object or array of kind k, else null */
static jv
sub(jv obj, const char *key, jv_kind k)
{
	jv v = oxi_jget(obj, key);

	if (jv_get_kind(v) != k) {
		jv_free(v);
		return jv_null();
	}
	return v;
}

/* a string value or null */
static jv
sornull(const char *s)
{
	return s && *s ? jv_string(s) : jv_null();
}

/* RFC 3339 UTC of a Slack ts ("1610241741.000200"), else of at */
static void
when(const char *ts, long long at, char out[32])
{
	struct tm tm;
	time_t t;
	char buf[96];
	long long s = ts ? strtoll(ts, NULL, 10) : 0;
	int ms = 0;
	const char *dot = ts ? strchr(ts, '.') : NULL;

	if (s <= 0 || s > 253402300799LL)
		s = at > 0 && at <= 253402300799LL ? at : 0;
	else if (dot && strlen(dot) >= 4 && strspn(dot + 1, "0123456789") >= 3)
		ms = (dot[1] - '0') * 100 + (dot[2] - '0') * 10 + dot[3] - '0';
	t = (time_t)s;
	if (!gmtime_r(&t, &tm)) {
		t = 0;
		gmtime_r(&t, &tm);
	}
	snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, ms);
	memcpy(out, buf, 31);
	out[31] = '\0';
}

/* the entity <inner> (inner[0..n)) as plain text, to b */
static void
entity(const struct sk_ev *ev, struct oxi_buf *b, const char *in, size_t n)
{
	const char *bar = memchr(in, '|', n);
	size_t k = bar ? (size_t)(bar - in) : n;

	if (n > 1 && in[0] == '@') {
		if (k - 1 == strlen(ev->bot) && *ev->bot &&
		    memcmp(in + 1, ev->bot, k - 1) == 0)
			return;		/* our own mention */
		oxi_buf_cats(b, "@");
		if (bar)
			oxi_buf_cat(b, bar + 1, n - k - 1);
		else
			oxi_buf_cat(b, in + 1, n - 1);
	} else if (n > 1 && (in[0] == '#' || in[0] == '!')) {
		if (bar)
			oxi_buf_printf(b, "%s%.*s", in[0] == '#' ? "#" : "",
			    (int)(n - k - 1), bar + 1);
		else
			oxi_buf_printf(b, "%s%.*s", in[0] == '#' ? "#" : "@",
			    (int)(n - 1), in + 1);
	} else if (bar && n - k - 1 > 0 && (k != n - k - 1 ||
	    memcmp(in, bar + 1, k) != 0))
		oxi_buf_printf(b, "%.*s (%.*s)", (int)(n - k - 1), bar + 1,
		    (int)k, in);
	else
		oxi_buf_cat(b, in, k);
}

/* Slack's message text as plain text, into b (NUL-terminated) */
static void
plain(const struct sk_ev *ev, struct oxi_buf *b, const char *s)
{
	struct oxi_buf t = OXI_BUF_INIT;
	const char *e;
	size_t i, k, n = strlen(s);

	oxi_buf_cats(&t, "");
	for (i = 0; i < n; i++) {
		if (s[i] == '<' && (e = memchr(s + i + 1, '>', n - i - 1))) {
			k = t.len;
			entity(ev, &t, s + i + 1, (size_t)(e - s - i - 1));
			i = (size_t)(e - s);
			/* our mention gone: one blank for the two around it */
			if (t.len == k && s[i + 1] == ' ' && (k == 0 ||
			    t.s[k - 1] == ' '))
				i++;
		} else
			oxi_buf_cat(&t, s + i, 1);
	}
	/* the escapes last: &amp;lt; is "&lt;" as typed */
	oxi_buf_cats(b, "");
	for (i = 0; i < t.len; i++) {
		if (strncmp(t.s + i, "&lt;", 4) == 0) {
			oxi_buf_cats(b, "<");
			i += 3;
		} else if (strncmp(t.s + i, "&gt;", 4) == 0) {
			oxi_buf_cats(b, ">");
			i += 3;
		} else if (strncmp(t.s + i, "&amp;", 5) == 0) {
			oxi_buf_cats(b, "&");
			i += 4;
		} else
			oxi_buf_cat(b, t.s + i, 1);
	}
	oxi_buf_free(&t);
	/* a mention taken out leaves blanks at the ends */
	for (i = 0; i < b->len && (b->s[i] == ' ' || b->s[i] == '\n'); i++)
		;
	memmove(b->s, b->s + i, b->len - i + 1);
	b->len -= i;
	while (b->len > 0 && (b->s[b->len - 1] == ' ' ||
	    b->s[b->len - 1] == '\n'))
		b->s[--b->len] = '\0';
}

/* a file of a message as an attachment (f borrowed) */
static jv
attachment(const struct sk_ev *ev, jv f)
{
	const char *mime = str(f, "mimetype"), *id = str(f, "id");
	const char *kind = "document";
	jv a, v;

	if (mime && strncmp(mime, "image/", 6) == 0)
		kind = "image";
	else if (mime && strncmp(mime, "audio/", 6) == 0)
		kind = str(f, "subtype") && !strcmp(str(f, "subtype"),
		    "slack_audio") ? "voice" : "audio";
	else if (mime && strncmp(mime, "video/", 6) == 0)
		kind = "video";
	a = jv_object_set(jv_object(), jv_string("kind"), jv_string(kind));
	a = jv_object_set(a, jv_string("mime"), sornull(mime));
	a = jv_object_set(a, jv_string("name"), sornull(str(f, "name")));
	v = oxi_jget(f, "size");
	a = jv_object_set(a, jv_string("size"), jv_get_kind(v) ==
	    JV_KIND_NUMBER ? v : jv_null());
	a = jv_object_set(a, jv_string("file_id"), sornull(id));
	if (ev->fetch && id)
		a = ev->fetch(ev->arg, f, a);
	return a;
}

/* a message event (e borrowed) as a msg.in, if it is for us */
static void
message(const struct sk_ev *ev, jv e, int mention, long long at, jv *out)
{
	const char *type = str(e, "channel_type"), *sub_ = str(e, "subtype");
	const char *chat = str(e, "channel"), *ts = str(e, "ts");
	const char *user = str(e, "user"), *text = str(e, "text");
	struct oxi_buf t = OXI_BUF_INIT;
	char at3339[32];
	jv files, atts = jv_array(), rec, f;
	int i, n;

	if (!chat || !ts || !user || str(e, "bot_id") || (*ev->bot &&
	    strcmp(user, ev->bot) == 0) || (sub_ && strcmp(sub_,
	    "file_share") != 0 &&
	    strcmp(sub_, "thread_broadcast") != 0)) {
		oxi_debug("slack: a message not for us (a bot's, ours, an "
		    "edit): skipped");
		jv_free(atts);
		return;
	}
	if (!type)
		type = chat[0] == 'D' ? "im" : chat[0] == 'G' ? "group" :
		    "channel";
	if (!mention && strcmp(type, "im") != 0 && !ev->all) {
		oxi_debug("slack: a message of channel %s: not for us", chat);
		jv_free(atts);
		return;
	}
	if (mention && ev->all) {
		oxi_debug("slack: a mention: its message event takes it");
		jv_free(atts);
		return;
	}
	plain(ev, &t, text ? text : "");
	files = sub(e, "files", JV_KIND_ARRAY);
	n = jv_get_kind(files) == JV_KIND_ARRAY ?
	    jv_array_length(jv_copy(files)) : 0;
	for (i = 0; i < n; i++) {
		f = jv_array_get(jv_copy(files), i);
		if (jv_get_kind(f) == JV_KIND_OBJECT)
			atts = jv_array_append(atts, attachment(ev, f));
		jv_free(f);
	}
	jv_free(files);
	if (t.len == 0 && jv_array_length(jv_copy(atts)) == 0) {
		oxi_debug("slack: an empty message: skipped");
		jv_free(atts);
		oxi_buf_free(&t);
		return;
	}
	when(ts, at, at3339);
	rec = oxi_msg_new("msg.in");
	rec = jv_object_set(rec, jv_string("id"), jv_string_fmt(
	    "slack:%s:%s:%s", ev->account, chat, ts));
	rec = jv_object_set(rec, jv_string("channel"), jv_string("slack"));
	rec = jv_object_set(rec, jv_string("account"),
	    jv_string(ev->account));
	rec = jv_object_set(rec, jv_string("chat"), jv_string(chat));
	rec = jv_object_set(rec, jv_string("thread"),
	    sornull(str(e, "thread_ts")));
	rec = jv_object_set(rec, jv_string("from"), jv_string(user));
	rec = jv_object_set(rec, jv_string("text"), jv_string_sized(t.s,
	    (int)t.len));
	rec = jv_object_set(rec, jv_string("ts"), jv_string(at3339));
	rec = jv_object_set(rec, jv_string("reply_to"), jv_null());
	rec = jv_object_set(rec, jv_string("attachments"), atts);
	rec = jv_object_set(rec, jv_string("trust"), jv_string("user"));
	rec = jv_object_set(rec, jv_string("message_id"), jv_string(ts));
	rec = jv_object_set(rec, jv_string("chat_type"), jv_string(
	    strcmp(type, "im") == 0 ? "private" : type));
	*out = jv_array_append(*out, rec);
	oxi_buf_free(&t);
}

/* a click (p borrowed): "a:<ask>:<choice>" becomes an approval.answer */
static void
click(const struct sk_ev *ev, jv p, long long at, jv *out)
{
	jv acts = sub(p, "actions", JV_KIND_ARRAY), a, user, chan, msg, cont;
	const char *v, *colon, *uid, *chat, *thread;
	char ts[32];
	jv rec;

	a = jv_get_kind(acts) == JV_KIND_ARRAY && jv_array_length(jv_copy(
	    acts)) > 0 ? jv_array_get(jv_copy(acts), 0) : jv_null();
	user = sub(p, "user", JV_KIND_OBJECT);
	chan = sub(p, "channel", JV_KIND_OBJECT);
	msg = sub(p, "message", JV_KIND_OBJECT);
	cont = sub(p, "container", JV_KIND_OBJECT);
	v = str(a, "value");
	colon = v && strncmp(v, "a:", 2) == 0 ? strrchr(v, ':') : NULL;
	uid = str(user, "id");
	chat = str(chan, "id") ? str(chan, "id") : str(cont, "channel_id");
	if (!colon || colon == v + 1 || !colon[1] || !uid || !chat) {
		oxi_debug("slack: a click not on our buttons: skipped");
		goto done;
	}
	thread = str(msg, "thread_ts") ? str(msg, "thread_ts") :
	    str(cont, "thread_ts");
	when(str(a, "action_ts"), at, ts);
	rec = oxi_msg_new("approval.answer");
	rec = jv_object_set(rec, jv_string("id"), jv_string_fmt(
	    "slack:%s:cb:%s:%s", ev->account, uid, str(a, "action_ts") ?
	    str(a, "action_ts") : ts));
	rec = jv_object_set(rec, jv_string("ref"), jv_string_sized(v + 2,
	    (int)(colon - v - 2)));
	rec = jv_object_set(rec, jv_string("choice"), jv_string(colon + 1));
	rec = jv_object_set(rec, jv_string("from"), jv_string(uid));
	rec = jv_object_set(rec, jv_string("from_name"), sornull(
	    str(user, "username") ? str(user, "username") : str(user, "name")));
	rec = jv_object_set(rec, jv_string("channel"), jv_string("slack"));
	rec = jv_object_set(rec, jv_string("account"),
	    jv_string(ev->account));
	rec = jv_object_set(rec, jv_string("chat"), jv_string(chat));
	if (thread)
		rec = jv_object_set(rec, jv_string("thread"), jv_string(thread));
	rec = jv_object_set(rec, jv_string("ts"), jv_string(ts));
	*out = jv_array_append(*out, rec);
done:
	jv_free(cont);
	jv_free(msg);
	jv_free(chan);
	jv_free(user);
	jv_free(a);
	jv_free(acts);
}

void
sk_event(const struct sk_ev *ev, jv env, jv *out)
{
	const char *type = str(env, "type"), *et;
	jv p = sub(env, "payload", JV_KIND_OBJECT), e;

	if (type && strcmp(type, "events_api") == 0) {
		e = sub(p, "event", JV_KIND_OBJECT);
		et = str(e, "type");
		if (et && strcmp(et, "message") == 0)
			message(ev, e, 0, ev->at, out);
		else if (et && strcmp(et, "app_mention") == 0)
			message(ev, e, 1, ev->at, out);
		else
			oxi_debug("slack: an event of type %s: skipped",
			    et ? et : "none");
		jv_free(e);
	} else if (type && strcmp(type, "interactive") == 0 &&
	    str(p, "type") && strcmp(str(p, "type"), "block_actions") == 0)
		click(ev, p, ev->at, out);
	else
		oxi_debug("slack: an envelope of type %s: skipped",
		    type ? type : "none");
	jv_free(p);
}

void
sk_event_key(jv env, char *key, size_t len)
{
	const char *type = str(env, "type"), *s;
	jv p = sub(env, "payload", JV_KIND_OBJECT), acts, a, u;

	key[0] = '\0';
	if (type && strcmp(type, "events_api") == 0 &&
	    (s = str(p, "event_id")))
		snprintf(key, len, "e:%s", s);
	else if (type && strcmp(type, "interactive") == 0) {
		acts = sub(p, "actions", JV_KIND_ARRAY);
		a = jv_get_kind(acts) == JV_KIND_ARRAY && jv_array_length(
		    jv_copy(acts)) > 0 ? jv_array_get(jv_copy(acts), 0) :
		    jv_null();
		u = sub(p, "user", JV_KIND_OBJECT);
		if (str(u, "id") && str(a, "action_ts"))
			snprintf(key, len, "i:%s:%s", str(u, "id"),
			    str(a, "action_ts"));
		jv_free(u);
		jv_free(a);
		jv_free(acts);
	}
	if (!key[0] && (s = str(env, "envelope_id")))
		snprintf(key, len, "n:%s", s);
	jv_free(p);
}
