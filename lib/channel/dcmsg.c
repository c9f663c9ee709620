/*
 * dcmsg.c - a Discord Gateway event as the records of oxi-recv discord
 *
 * MESSAGE_CREATE becomes a msg.in: its content with the bot's mention
 * cut, the message it answers, its thread (a channel whose parent we
 * know from THREAD_CREATE or GUILD_CREATE: chat is the parent, thread
 * the thread), its attachments, each fetched into
 * $OXI_HOME/files/discord/<attachment id>.<ext> (0600) up to
 * OXI_DISCORD_FILE_MAX.  A direct message always passes; in a guild only
 * one that mentions the bot or answers one of its messages, unless
 * OXI_DISCORD_GUILDS=all.  Messages of bots (ourselves too) and webhooks
 * and system messages are dropped.
 *
 * INTERACTION_CREATE of a button (a message component) is answered at
 * once, the message's buttons replaced by what was chosen; its custom_id
 * "a:<ask>:<choice>" (the buttons of oxi-send's approval.ask) becomes an
 * approval.answer.  One that came to the HTTP endpoint (dchook.c) was
 * answered there.
 *
 * Ids stay the same when an event comes again (a resume, a restart):
 * discord:<account>:<channel>:<message id> for a message,
 * discord:<account>:cb:<interaction id> for an answer.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"

#define TRIES	3		/* attempts at a file when the network fails */

int
dc_event_kept(const char *t)
{
	return strcmp(t, "MESSAGE_CREATE") == 0 ||
	    strcmp(t, "INTERACTION_CREATE") == 0;
}

/* borrowed string obj[key], or NULL (obj must outlive its use) */
static const char *
str(jv obj, const char *key)
{
	return oxi_jis(obj, JV_KIND_OBJECT) ? oxi_msg_peek(obj, key) : NULL;
}

/* 1 if obj[key] is true */
static int
yes(jv obj, const char *key)
{
	jv v = oxi_jis(obj, JV_KIND_OBJECT) ? oxi_jget(obj, key) : jv_null();
	int r = jv_get_kind(v) == JV_KIND_TRUE;

	jv_free(v);
	return r;
}

/* Discord's ISO 8601 time ("2017-04-15T21:26:33.210000+00:00") as
 * RFC 3339 UTC with milliseconds, else now */
static jv
when(const char *ts)
{
	char out[32];
	struct tm tm;
	time_t now;
	size_t i;

	for (i = 0; ts && i < 19; i++)
		if (!ts[i] || !((ts[i] >= '0' && ts[i] <= '9') ||
		    strchr("-T:", ts[i])))
			break;
	if (ts && i == 19 && (!strcmp(ts + 19 + strspn(ts + 19, ".0123456789"),
	    "+00:00") || !strcmp(ts + 19 + strspn(ts + 19, ".0123456789"),
	    "Z"))) {
		memcpy(out, ts, 19);
		if (ts[19] == '.' && strspn(ts + 20, "0123456789") >= 3)
			memcpy(out + 19, ts + 19, 4);
		else
			memcpy(out + 19, ".000", 4);
		memcpy(out + 23, "Z", 2);
		return jv_string(out);
	}
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
	return jv_string(out);
}

/* a user's name: global_name, else username */
static jv
nameof(jv user)
{
	const char *g = str(user, "global_name"), *u = str(user, "username");

	return g ? jv_string(g) : u ? jv_string(u) : jv_null();
}

/* 1 if m (a message, borrowed) mentions the bot, or answers it */
static int
forus(struct dcrx *rx, jv m)
{
	jv ms = oxi_jget(m, "mentions"), r, a;
	char id[DC_ID];
	int i, n, hit = 0;

	if (!rx->botid[0]) {
		jv_free(ms);
		return 0;
	}
	n = oxi_jis(ms, JV_KIND_ARRAY) ? jv_array_length(jv_copy(ms)) : 0;
	for (i = 0; i < n && !hit; i++) {
		r = jv_array_get(jv_copy(ms), i);
		hit = strcmp(dc_id(r, "id", id), rx->botid) == 0;
		jv_free(r);
	}
	jv_free(ms);
	if (hit)
		return 1;
	r = oxi_jget(m, "referenced_message");
	a = oxi_jis(r, JV_KIND_OBJECT) ? oxi_jget(r, "author") : jv_null();
	hit = strcmp(dc_id(a, "id", id), rx->botid) == 0;
	jv_free(a);
	jv_free(r);
	return hit;
}

/* content with every <@bot> and <@!bot> cut, and what is left trimmed */
static void
clean(struct dcrx *rx, const char *s, struct oxi_buf *out)
{
	char a[DC_ID + 4], b[DC_ID + 4];
	size_t la, lb;
	const char *p;

	snprintf(a, sizeof a, "<@%s>", rx->botid);
	snprintf(b, sizeof b, "<@!%s>", rx->botid);
	la = strlen(a);
	lb = strlen(b);
	oxi_buf_cats(out, "");
	for (p = s; *p;) {
		if (rx->botid[0] && strncmp(p, a, la) == 0)
			p += la;
		else if (rx->botid[0] && strncmp(p, b, lb) == 0)
			p += lb;
		else
			oxi_buf_cat(out, p++, 1);
	}
	for (p = out->s; *p == ' ' || *p == '\n'; p++)
		;
	memmove(out->s, p, out->len - (p - out->s) + 1);
	out->len -= p - out->s;
	while (out->len > 0 && (out->s[out->len - 1] == ' ' ||
	    out->s[out->len - 1] == '\n'))
		out->s[--out->len] = '\0';
}

/* an extension: the file name's, if short and plain, else "bin" */
static const char *
extof(const char *name, char *buf, size_t len)
{
	const char *dot = name ? strrchr(name, '.') : NULL;
	size_t n;

	if (!dot || !dot[1])
		return "bin";
	n = strspn(dot + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
	    "WXYZ0123456789");
	if (dot[1 + n] || n > 8 || n >= len)
		return "bin";
	snprintf(buf, len, "%s", dot + 1);
	return buf;
}

/* the kind of an attachment by its type, and flags (a voice message) */
static const char *
kindof(const char *mime, int voice)
{
	if (!mime)
		return "document";
	if (strncmp(mime, "image/", 6) == 0)
		return "image";
	if (strncmp(mime, "audio/", 6) == 0)
		return voice ? "voice" : "audio";
	if (strncmp(mime, "video/", 6) == 0)
		return "video";
	return "document";
}

/*
 * 1 if url is one of Discord's file hosts (https://cdn.discordapp.com/,
 * https://media.discordapp.net/), or on the host of the API when that
 * is set elsewhere ($OXI_DISCORD_API: a test double): a payload naming
 * another address gets no request from us
 */
static int
cdnok(const struct dcrx *rx, const char *url)
{
	static const char *const hosts[] = { "https://cdn.discordapp.com/",
		"https://media.discordapp.net/", NULL };
	const char *b = rx->dc.base, *e;
	int i;

	for (i = 0; hosts[i]; i++)
		if (strncmp(url, hosts[i], strlen(hosts[i])) == 0)
			return 1;
	if (strcmp(b, DC_API) == 0 || !(e = strchr(strchr(b, ':') + 3, '/')))
		return 0;
	return strncmp(url, b, e - b) == 0 && url[e - b] == '/';
}

/* attachment f (borrowed) as the agreed record, fetched; *stopped set if
 * SIGTERM ended a transfer */
static jv
attach(struct dcrx *rx, jv f, int voice, int *stopped)
{
	struct oxi_buf dest = OXI_BUF_INIT;
	struct dc_res res;
	struct stat sb;
	const char *mime = str(f, "content_type"), *name = str(f, "filename"),
	    *url = str(f, "url");
	char id[DC_ID], ext[16];
	double size = oxi_jnum(f, "size", -1), dur;
	int i;
	jv a;

	dc_id(f, "id", id);
	a = jv_object_set(jv_object(), jv_string("kind"),
	    jv_string(kindof(mime, voice)));
	a = jv_object_set(a, jv_string("mime"), jv_string(mime ? mime :
	    "application/octet-stream"));
	a = jv_object_set(a, jv_string("name"), jv_string(name ? name :
	    "file"));
	if (size >= 0)
		a = jv_object_set(a, jv_string("size"), jv_number(size));
	a = jv_object_set(a, jv_string("file_id"), jv_string(id));
	if ((dur = oxi_jnum(f, "duration_secs", -1)) >= 0)
		a = jv_object_set(a, jv_string("duration"),
		    jv_number((double)(long)(dur + 0.5)));
	if (!id[0] || !url)
		return jv_object_set(a, jv_string("error"),
		    jv_string("no usable file id or URL"));
	if (!cdnok(rx, url))
		return jv_object_set(a, jv_string("error"),
		    jv_string("a file not on Discord's file hosts"));
	if (size > (double)rx->filemax)
		return jv_object_set(a, jv_string("error"),
		    jv_string_fmt("file over %zu bytes", rx->filemax));
	oxi_buf_printf(&dest, "%s/%s.%s", rx->filedir, id,
	    extof(name, ext, sizeof ext));
	if (stat(dest.s, &sb) == 0 && S_ISREG(sb.st_mode))
		goto got;
	if (oxi_mkdirp(rx->filedir, 0700) < 0) {
		a = jv_object_set(a, jv_string("error"), jv_string_fmt(
		    "unable to create the files directory: %s",
		    strerror(errno)));
		oxi_buf_free(&dest);
		return a;
	}
	for (i = 0; i < TRIES; i++) {
		if (i > 0)
			dc_pause(&rx->dc, 1000L << (i - 1));
		if (dc_download(&rx->dc, url, rx->filemax, dest.s, &res) == 0) {
			dc_res_free(&res);
			goto got;
		}
		dc_res_free(&res);
		if (res.kind == OXI_HTTP_ABORT && oxi_sig_term) {
			*stopped = 1;
			break;
		}
		if (!res.temp)
			break;
	}
	oxi_warn("discord: a file of the message is missing: %s", res.err);
	a = jv_object_set(a, jv_string("error"), jv_string(res.err));
	oxi_buf_free(&dest);
	return a;
got:
	a = jv_object_set(a, jv_string("path"), jv_string(dest.s));
	oxi_buf_free(&dest);
	return a;
}

/* where a message of channel is: its chat (the parent of a thread) in
 * chat, the thread in thread ("" if none) */
static void
place(struct dcrx *rx, const char *channel, char *chat, char *thread)
{
	dc_ledger_parent(rx, channel, chat, DC_ID);
	if (chat[0])
		snprintf(thread, DC_ID, "%s", channel);
	else {
		snprintf(chat, DC_ID, "%s", channel);
		thread[0] = '\0';
	}
}

/* a message (m borrowed) as a msg.in appended to *out, if it is for us:
 * 0, or -1 if SIGTERM stopped a file */
static int
message(struct dcrx *rx, jv m, jv *out)
{
	struct oxi_buf text = OXI_BUF_INIT;
	char id[DC_ID], ch[DC_ID], chat[DC_ID], thread[DC_ID], from[DC_ID],
	    s[DC_ID];
	jv au = oxi_jget(m, "author"), atts = oxi_jget(m, "attachments"),
	    got = jv_array(), ref, rec;
	double type = oxi_jnum(m, "type", 0);
	int i, n, stopped = 0, dm = !str(m, "guild_id"),
	    voice = ((long)oxi_jnum(m, "flags", 0) & 8192) != 0;

	dc_id(m, "id", id);
	dc_id(m, "channel_id", ch);
	dc_id(au, "id", from);
	n = oxi_jis(atts, JV_KIND_ARRAY) ? jv_array_length(jv_copy(atts)) : 0;
	clean(rx, str(m, "content") ? str(m, "content") : "", &text);
	if (!id[0] || !ch[0] || (type != 0 && type != 19) || yes(au, "bot") ||
	    str(m, "webhook_id") || (rx->botid[0] && !strcmp(from, rx->botid)) ||
	    (text.len == 0 && n == 0)) {
		oxi_debug("discord: message %s of channel %s: nothing to take",
		    id, ch);
		goto skip;
	}
	if (!dm && !rx->guilds_all && !forus(rx, m)) {
		oxi_debug("discord: message %s of channel %s: not for us", id,
		    ch);
		goto skip;
	}
	for (i = 0; i < n && !stopped; i++) {
		jv f = jv_array_get(jv_copy(atts), i);

		got = jv_array_append(got, attach(rx, f, voice, &stopped));
		jv_free(f);
	}
	if (stopped)
		goto skip;
	place(rx, ch, chat, thread);
	rec = oxi_msg_new("msg.in");
	rec = jv_object_set(rec, jv_string("id"), jv_string_fmt(
	    "discord:%s:%s:%s", rx->dc.account, ch, id));
	rec = jv_object_set(rec, jv_string("channel"), jv_string("discord"));
	rec = jv_object_set(rec, jv_string("account"),
	    jv_string(rx->dc.account));
	rec = jv_object_set(rec, jv_string("chat"), jv_string(chat));
	rec = jv_object_set(rec, jv_string("thread"), thread[0] ?
	    jv_string(thread) : jv_null());
	rec = jv_object_set(rec, jv_string("from"), from[0] ?
	    jv_string(from) : jv_null());
	rec = jv_object_set(rec, jv_string("from_name"), nameof(au));
	rec = jv_object_set(rec, jv_string("text"), jv_string(text.s));
	rec = jv_object_set(rec, jv_string("ts"), when(str(m, "timestamp")));
	ref = oxi_jget(m, "message_reference");
	rec = jv_object_set(rec, jv_string("reply_to"), type == 19 &&
	    *dc_id(ref, "message_id", s) ? jv_string(s) : jv_null());
	jv_free(ref);
	rec = jv_object_set(rec, jv_string("attachments"), got);
	got = jv_null();
	rec = jv_object_set(rec, jv_string("trust"), jv_string("user"));
	rec = jv_object_set(rec, jv_string("message_id"), jv_string(id));
	rec = jv_object_set(rec, jv_string("chat_type"),
	    jv_string(dm ? "dm" : "guild"));
	*out = jv_array_append(*out, rec);
skip:
	jv_free(got);
	jv_free(atts);
	jv_free(au);
	oxi_buf_free(&text);
	return stopped ? -1 : 0;
}

/* what the message of a button says once it is chosen */
static const char *
said(const char *choice)
{
	return !strcmp(choice, "once") ? "Approved once" : !strcmp(choice,
	    "always") ? "Approved always" : !strcmp(choice, "deny") ?
	    "Denied" : NULL;
}

jv
dc_answer(jv d)
{
	jv data = oxi_jget(d, "data"), msg = oxi_jget(d, "message"), body;
	const char *cid = str(data, "custom_id"), *colon, *say = NULL,
	    *content;

	colon = cid && strncmp(cid, "a:", 2) == 0 ? strrchr(cid, ':') : NULL;
	if (colon && colon > cid + 1)
		say = said(colon + 1);
	if (say) {
		content = str(msg, "content");
		body = jv_object_set(jv_object(), jv_string("content"),
		    jv_string_fmt("%s%s*%s*", content ? content : "",
		    content && *content ? "\n\n" : "", say));
		body = jv_object_set(body, jv_string("components"), jv_array());
		body = jv_object_set(jv_object_set(jv_object(),
		    jv_string("type"), jv_number(7)), jv_string("data"), body);
	} else
		body = jv_object_set(jv_object(), jv_string("type"),
		    jv_number(6));
	jv_free(msg);
	jv_free(data);
	return body;
}

/* answers interaction d through the REST API (dc_answer's body) */
static void
respond(struct dcrx *rx, jv d)
{
	struct oxi_buf path = OXI_BUF_INIT;
	struct dc_res res;
	const char *tok = str(d, "token");
	char iid[DC_ID];

	if (!*dc_id(d, "id", iid) || !tok || strspn(tok, "abcdefghijklmnopqr"
	    "stuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(tok) ||
	    strlen(tok) > 512)
		return;
	oxi_buf_printf(&path, "/interactions/%s/%s/callback", iid, tok);
	if (dc_call(&rx->dc, "POST", path.s, dc_answer(d), &res) < 0)
		oxi_warn("discord: the button's answer: %s", res.err);
	dc_res_free(&res);
	oxi_wipe(path.s, path.len);
	oxi_buf_free(&path);
}

/* a button pressed (d borrowed): answered; "a:<ask>:<choice>" becomes an
 * approval.answer */
static void
interaction(struct dcrx *rx, jv d, long long at, int answer, jv *out)
{
	jv data = oxi_jget(d, "data"), mem = oxi_jget(d, "member"), who, rec;
	const char *cid = str(data, "custom_id"), *colon;
	char iid[DC_ID], ch[DC_ID], chat[DC_ID], thread[DC_ID], from[DC_ID];
	struct tm tm;
	time_t tt = (time_t)at;
	char ts[32];

	who = oxi_jis(mem, JV_KIND_OBJECT) ? oxi_jget(mem, "user") :
	    oxi_jget(d, "user");
	colon = cid && strncmp(cid, "a:", 2) == 0 ? strrchr(cid, ':') : NULL;
	if (colon && colon == cid + 1)
		colon = NULL;
	if (oxi_jnum(d, "type", 0) != 3) {
		oxi_debug("discord: an interaction not of a button: skipped");
		goto done;
	}
	if (answer)
		respond(rx, d);
	if (!colon || !*dc_id(d, "id", iid)) {
		oxi_debug("discord: a button not ours: skipped");
		goto done;
	}
	dc_id(d, "channel_id", ch);
	dc_id(who, "id", from);
	place(rx, ch, chat, thread);
	gmtime_r(&tt, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
	rec = oxi_msg_new("approval.answer");
	rec = jv_object_set(rec, jv_string("id"), jv_string_fmt(
	    "discord:%s:cb:%s", rx->dc.account, iid));
	rec = jv_object_set(rec, jv_string("ref"), jv_string_sized(cid + 2,
	    (int)(colon - cid - 2)));
	rec = jv_object_set(rec, jv_string("choice"), jv_string(colon + 1));
	rec = jv_object_set(rec, jv_string("from"), jv_string(from));
	rec = jv_object_set(rec, jv_string("from_name"), nameof(who));
	rec = jv_object_set(rec, jv_string("channel"), jv_string("discord"));
	rec = jv_object_set(rec, jv_string("account"),
	    jv_string(rx->dc.account));
	rec = jv_object_set(rec, jv_string("chat"), jv_string(chat));
	if (thread[0])
		rec = jv_object_set(rec, jv_string("thread"),
		    jv_string(thread));
	rec = jv_object_set(rec, jv_string("ts"), jv_string(ts));
	*out = jv_array_append(*out, rec);
done:
	jv_free(who);
	jv_free(mem);
	jv_free(data);
}

int
dc_event(struct dcrx *rx, const char *t, jv d, long long at, int answer,
    jv *out)
{
	if (!oxi_jis(d, JV_KIND_OBJECT))
		return 0;
	if (strcmp(t, "MESSAGE_CREATE") == 0)
		return message(rx, d, out);
	if (strcmp(t, "INTERACTION_CREATE") == 0)
		interaction(rx, d, at, answer, out);
	else if (strcmp(t, DC_HTTP_INTERACTION) == 0)
		interaction(rx, d, at, 0, out);
	return 0;
}
