/*
 * tgmsg.c - a Telegram update as the records of oxi-recv telegram
 *
 * message (and edited_message with OXI_TELEGRAM_EDITS=new) becomes a
 * msg.in: its text or caption, the message it replies to, its forum
 * topic as the thread, its photo (the largest size), document, voice
 * note, audio, video or sticker as attachments, each fetched into
 * $OXI_HOME/files/telegram/<file_unique_id>.<ext> (0600) up to
 * OXI_TELEGRAM_FILE_MAX.  In a group only a message addressed to the bot
 * passes (a mention of @bot, /command@bot, a reply to the bot), unless
 * OXI_TELEGRAM_GROUPS=all; "/command@bot" loses its "@bot".
 * callback_query is answered at once, and its data "a:<ask>:<choice>"
 * (the buttons of oxi-send's approval.ask) becomes an approval.answer.
 * Any other kind is skipped with one warning per kind.
 *
 * Ids stay the same when an update is read again after a restart:
 * telegram:<account>:<chat>:<message_id> for a message, ":e<edit_date>"
 * after it for an edit, telegram:<account>:cb:<callback id> for an
 * answer; ts is the message's date.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/tg.h"

#define ID	32		/* a platform id as text */
#define TRIES	3		/* attempts at a file when the network fails */

/* the update kinds of the Bot API that tgmsg.c does not take */
static const char *const others[] = {
	"channel_post", "edited_channel_post", "business_connection",
	"business_message", "edited_business_message",
	"deleted_business_messages", "message_reaction",
	"message_reaction_count", "inline_query", "chosen_inline_result",
	"shipping_query", "pre_checkout_query", "purchased_paid_media",
	"poll", "poll_answer", "my_chat_member", "chat_member",
	"chat_join_request", "chat_boost", "removed_chat_boost", NULL
};

/* one warning per kind skipped */
static void
skipkind(struct tgrx *rx, const char *kind)
{
	int i, known = 0;

	for (i = 0; i < rx->nwarned; i++)
		if (strcmp(rx->warned[i], kind) == 0)
			return;
	if (rx->nwarned < TG_NWARN)
		snprintf(rx->warned[rx->nwarned++], sizeof rx->warned[0], "%s",
		    kind);
	for (i = 0; others[i]; i++)
		known |= strcmp(others[i], kind) == 0;
	oxi_warn("telegram: %s update kind '%.39s' skipped (warned once)",
	    known ? "the" : "an unknown", kind);
}

/* obj[key] as a platform id string in buf ("" if none) */
static const char *
idof(jv obj, const char *key, char *buf)
{
	jv v = oxi_jget(obj, key);

	tg_idstr(v, buf, ID);
	jv_free(v);
	return buf;
}

/* borrowed string obj[key], or NULL (obj must outlive its use) */
static const char *
str(jv obj, const char *key)
{
	return oxi_jis(obj, JV_KIND_OBJECT) ? oxi_msg_peek(obj, key) : NULL;
}

/* 1 if obj[key] is of kind k */
static int
has(jv obj, const char *key, jv_kind k)
{
	jv v = oxi_jget(obj, key);
	int r = jv_get_kind(v) == k;

	jv_free(v);
	return r;
}

/* RFC 3339 UTC of unix time t */
static void
rfc3339(long long t, char out[32])
{
	struct tm tm;
	time_t tt;

	/* years of four digits only: 0000 to 9999 */
	if (t < -62167219200LL || t > 253402300799LL)
		t = 0;
	tt = (time_t)t;
	if (!gmtime_r(&tt, &tm)) {
		tt = 0;
		gmtime_r(&tt, &tm);
	}
	strftime(out, 32, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
}

/* a user's or chat's display name: first and last name, else title,
 * else @username */
static jv
nameof(jv who)
{
	const char *f = str(who, "first_name"), *l = str(who, "last_name"),
	    *t = str(who, "title"), *u = str(who, "username");

	if (f && l)
		return jv_string_fmt("%s %s", f, l);
	if (f || t)
		return jv_string(f ? f : t);
	if (u)
		return jv_string_fmt("@%s", u);
	return jv_null();
}

/* the byte offset in s[0..n) of UTF-16 offset u16 (Telegram's entity
 * offsets count UTF-16 code units) */
static size_t
u16byte(const char *s, size_t n, long long u16)
{
	size_t i = 0, k;

	while (i < n && u16 > 0) {
		k = oxi_utf8_seq(s + i, n - i);
		if (k == 0)
			k = 1;
		u16 -= k == 4 ? 2 : 1;
		i += k;
	}
	return i;
}

/*
 * Walks the entities of text: sets *mentioned if one addresses the bot,
 * and writes text to clean with "@bot" cut from "/command@bot".
 */
static void
entities(struct tgrx *rx, const char *text, jv ents, int *mentioned,
    struct oxi_buf *clean)
{
	size_t n = strlen(text), b, e, done = 0, bl = strlen(rx->botname);
	char uid[ID];
	const char *type;
	jv en, user;
	int i, k;

	k = oxi_jis(ents, JV_KIND_ARRAY) ? jv_array_length(jv_copy(ents)) : 0;
	for (i = 0; i < k; i++) {
		en = jv_array_get(jv_copy(ents), i);
		type = str(en, "type");
		b = u16byte(text, n, tg_int(en, "offset", 0));
		e = b + u16byte(text + b, n - b, tg_int(en, "length", 0));
		if (type && strcmp(type, "text_mention") == 0) {
			user = oxi_jget(en, "user");
			if (strcmp(idof(user, "id", uid), rx->tg.botid) == 0)
				*mentioned = 1;
			jv_free(user);
		} else if (type && bl > 0 && e - b == bl + 1 &&
		    strcmp(type, "mention") == 0 &&
		    strncasecmp(text + b + 1, rx->botname, bl) == 0)
			*mentioned = 1;
		else if (type && bl > 0 && e - b > bl + 1 && b >= done &&
		    strcmp(type, "bot_command") == 0 &&
		    text[e - bl - 1] == '@' &&
		    strncasecmp(text + e - bl, rx->botname, bl) == 0) {
			*mentioned = 1;
			oxi_buf_cat(clean, text + done, e - bl - 1 - done);
			done = e;
		}
		jv_free(en);
	}
	oxi_buf_cat(clean, text + done, n - done);
}

/* a file's extension from its name, else its MIME type: "jpg" */
static const char *
extof(const char *name, const char *mime, char *buf, size_t len)
{
	static const char *const map[] = {
		"image/jpeg", "jpg", "image/png", "png", "image/gif", "gif",
		"image/webp", "webp", "audio/ogg", "ogg", "audio/mpeg", "mp3",
		"video/mp4", "mp4", "video/webm", "webm", "application/pdf",
		"pdf", "application/x-tgsticker", "tgs", "text/plain", "txt",
		NULL
	};
	const char *dot = name ? strrchr(name, '.') : NULL, *p;
	int i;

	if (dot && dot[1] && strlen(dot + 1) < len && strlen(dot + 1) <= 8) {
		for (p = dot + 1; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') ||
			    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
				break;
		if (!*p) {
			snprintf(buf, len, "%s", dot + 1);
			return buf;
		}
	}
	for (i = 0; mime && map[i]; i += 2)
		if (strcmp(mime, map[i]) == 0)
			return map[i + 1];
	return "bin";
}

/*
 * Fetches attachment a (consumed; its file_id, name, mime and size set)
 * with the file f of the message (borrowed): the attachment with "path",
 * or with "error".  *stopped is set if SIGTERM ended a transfer.
 */
static jv
fetch(struct tgrx *rx, jv a, jv f, int *stopped)
{
	struct oxi_buf dest = OXI_BUF_INIT;
	struct tg_res res, dl;
	struct stat sb;
	const char *uid = str(f, "file_unique_id"), *fid = str(f, "file_id"),
	    *path, *p;
	char ext[16];
	double size = oxi_jnum(f, "file_size", -1);
	int i, r;

	for (p = uid; p && *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
			break;
	if (!fid || !uid || !*uid || *p || p - uid > 128)
		return jv_object_set(a, jv_string("error"),
		    jv_string("no usable file id"));
	if (size > (double)rx->filemax)
		return jv_object_set(a, jv_string("error"),
		    jv_string_fmt("file over %zu bytes", rx->filemax));
	oxi_buf_printf(&dest, "%s/%s.%s", rx->filedir, uid,
	    extof(str(a, "name"), str(a, "mime"), ext, sizeof ext));
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
			tg_pause(&rx->tg, 1000L << (i - 1));
		if ((r = tg_getfile(&rx->tg, fid, &res)) == 0) {
			size = oxi_jnum(res.result, "file_size", -1);
			path = str(res.result, "file_path");
			r = -1;
			res.temp = 0;
			if (size > (double)rx->filemax)
				snprintf(res.err, sizeof res.err,
				    "file over %zu bytes", rx->filemax);
			else if (!path)
				snprintf(res.err, sizeof res.err,
				    "getFile: no file path");
			else {
				if ((r = tg_download(&rx->tg, path,
				    rx->filemax, dest.s, &dl)) < 0) {
					memcpy(res.err, dl.err, sizeof res.err);
					res.kind = dl.kind;
					res.temp = dl.temp;
				}
				tg_res_free(&dl);
			}
		}
		tg_res_free(&res);
		if (r == 0)
			goto got;
		if (res.kind == OXI_HTTP_ABORT && oxi_sig_term) {
			*stopped = 1;
			break;
		}
		if (!res.temp)
			break;
	}
	oxi_warn("telegram: a file of the message is missing: %s", res.err);
	a = jv_object_set(a, jv_string("error"), jv_string(res.err));
	oxi_buf_free(&dest);
	return a;
got:
	a = jv_object_set(a, jv_string("path"), jv_string(dest.s));
	oxi_buf_free(&dest);
	return a;
}

/* an attachment of kind for file f (borrowed) */
static jv
att(const char *kind, jv f, const char *mime, const char *name)
{
	jv a = jv_object_set(jv_object(), jv_string("kind"), jv_string(kind));
	const char *v;
	double d;

	a = jv_object_set(a, jv_string("mime"),
	    jv_string((v = str(f, "mime_type")) ? v : mime));
	a = jv_object_set(a, jv_string("name"),
	    jv_string((v = str(f, "file_name")) ? v : name));
	if ((d = oxi_jnum(f, "file_size", -1)) >= 0)
		a = jv_object_set(a, jv_string("size"), jv_number(d));
	if ((v = str(f, "file_id")))
		a = jv_object_set(a, jv_string("file_id"), jv_string(v));
	if ((d = oxi_jnum(f, "duration", -1)) >= 0)
		a = jv_object_set(a, jv_string("duration"), jv_number(d));
	return a;
}

/* the largest size of a photo (borrowed array), as a new reference */
static jv
largest(jv sizes)
{
	jv best = jv_invalid(), s;
	double bw = -1, w;
	int i, n = jv_array_length(jv_copy(sizes));

	for (i = 0; i < n; i++) {
		s = jv_array_get(jv_copy(sizes), i);
		w = oxi_jnum(s, "width", 0) * oxi_jnum(s, "height", 0);
		if (w <= 0)
			w = oxi_jnum(s, "file_size", 0);
		if (w >= bw) {
			jv_free(best);
			best = s;
			bw = w;
		} else
			jv_free(s);
	}
	return best;
}

/* the attachments of message m (borrowed), not fetched: an array, with
 * the file object of each in *files */
static jv
attachments(jv m, jv *files)
{
	static const struct {
		const char *key, *kind, *mime, *name;
	} kinds[] = {
		{ "document", "document", "application/octet-stream",
		    "document" },
		{ "voice", "voice", "audio/ogg", "voice.ogg" },
		{ "audio", "audio", "audio/mpeg", "audio.mp3" },
		{ "video", "video", "video/mp4", "video.mp4" },
		{ "video_note", "video", "video/mp4", "video_note.mp4" },
		{ "animation", "video", "video/mp4", "animation.mp4" },
		{ NULL, NULL, NULL, NULL }
	};
	jv out = jv_array(), f;
	const char *mime;
	int i;

	*files = jv_array();
	f = oxi_jget(m, "photo");
	if (oxi_jis(f, JV_KIND_ARRAY)) {
		jv big = largest(f);

		if (jv_is_valid(big)) {
			out = jv_array_append(out, att("image", big,
			    "image/jpeg", "photo.jpg"));
			*files = jv_array_append(*files, big);
		}
	}
	jv_free(f);
	for (i = 0; kinds[i].key; i++) {
		/* an animation comes as a document too: take it once */
		if (i == 0 && has(m, "animation", JV_KIND_OBJECT))
			continue;
		f = oxi_jget(m, kinds[i].key);
		if (oxi_jis(f, JV_KIND_OBJECT)) {
			out = jv_array_append(out, att(kinds[i].kind, f,
			    kinds[i].mime, kinds[i].name));
			*files = jv_array_append(*files, f);
		} else
			jv_free(f);
	}
	f = oxi_jget(m, "sticker");
	if (oxi_jis(f, JV_KIND_OBJECT)) {
		mime = has(f, "is_animated", JV_KIND_TRUE) ?
		    "application/x-tgsticker" : has(f, "is_video",
		    JV_KIND_TRUE) ? "video/webm" : "image/webp";
		out = jv_array_append(out, att("sticker", f, mime,
		    strcmp(mime, "image/webp") == 0 ? "sticker.webp" :
		    "sticker"));
		*files = jv_array_append(*files, f);
	} else
		jv_free(f);
	return out;
}

/* 1 if message m (borrowed) answers one of the bot's messages */
static int
replytobot(struct tgrx *rx, jv m)
{
	jv r = oxi_jget(m, "reply_to_message"), from = oxi_jget(r, "from");
	char id[ID];
	int yes = strcmp(idof(from, "id", id), rx->tg.botid) == 0;

	jv_free(from);
	jv_free(r);
	return yes;
}

/*
 * A message or an edit (m borrowed) as a msg.in appended to *out, if it
 * is for us: 0, or -1 if SIGTERM stopped a file.
 */
static int
message(struct tgrx *rx, jv m, int edit, jv *out)
{
	struct oxi_buf id = OXI_BUF_INIT, clean = OXI_BUF_INIT;
	char chat[ID], mid[ID], from[ID], s[ID], ts[32];
	const char *type, *text;
	jv c = oxi_jget(m, "chat"), who = oxi_jget(m, "from"), ents, r,
	    atts, files, f, a, rec;
	int i, n, mentioned = 0, stopped = 0, group;

	idof(c, "id", chat);
	idof(m, "message_id", mid);
	type = str(c, "type");
	group = type && (strcmp(type, "group") == 0 ||
	    strcmp(type, "supergroup") == 0);
	if (!jv_is_valid(who) || jv_get_kind(who) == JV_KIND_NULL) {
		jv_free(who);
		who = oxi_jget(m, "sender_chat");
	}
	idof(who, "id", from);
	if (!(text = str(m, "text"))) {
		text = str(m, "caption");
		ents = oxi_jget(m, "caption_entities");
	} else
		ents = oxi_jget(m, "entities");
	if (!text)
		text = "";
	entities(rx, text, ents, &mentioned, &clean);
	jv_free(ents);
	atts = attachments(m, &files);
	n = jv_array_length(jv_copy(atts));
	if (!*chat || !*mid || (!*text && n == 0) ||
	    has(who, "is_bot", JV_KIND_TRUE)) {
		oxi_debug("telegram: message %s of chat %s: nothing to take",
		    mid, chat);
		goto skip;
	}
	if (group && !rx->groups_all && !mentioned && !replytobot(rx, m)) {
		oxi_debug("telegram: message %s of group %s: not for us", mid,
		    chat);
		goto skip;
	}
	for (i = 0; i < n && !stopped; i++) {
		f = jv_array_get(jv_copy(files), i);
		a = fetch(rx, jv_array_get(jv_copy(atts), i), f, &stopped);
		jv_free(f);
		atts = jv_array_set(atts, i, a);
	}
	if (stopped)
		goto skip;
	oxi_buf_printf(&id, "telegram:%s:%s:%s", rx->tg.account, chat, mid);
	if (edit)
		oxi_buf_printf(&id, ":e%lld",
		    tg_int(m, "edit_date", 0));
	rfc3339(tg_int(m, edit ? "edit_date" : "date", 0), ts);
	rec = oxi_msg_new("msg.in");
	rec = jv_object_set(rec, jv_string("id"), jv_string(id.s));
	rec = jv_object_set(rec, jv_string("channel"), jv_string("telegram"));
	rec = jv_object_set(rec, jv_string("account"),
	    jv_string(rx->tg.account));
	rec = jv_object_set(rec, jv_string("chat"), jv_string(chat));
	rec = jv_object_set(rec, jv_string("thread"), has(m,
	    "is_topic_message", JV_KIND_TRUE) && *idof(m,
	    "message_thread_id", s) ? jv_string(s) : jv_null());
	rec = jv_object_set(rec, jv_string("from"), *from ? jv_string(from) :
	    jv_null());
	rec = jv_object_set(rec, jv_string("from_name"), nameof(who));
	rec = jv_object_set(rec, jv_string("text"), jv_string_sized(clean.s ?
	    clean.s : "", (int)clean.len));
	rec = jv_object_set(rec, jv_string("ts"), jv_string(ts));
	r = oxi_jget(m, "reply_to_message");
	/* in a forum every message answers its topic's first message */
	rec = jv_object_set(rec, jv_string("reply_to"), *idof(r, "message_id",
	    s) && !has(r, "forum_topic_created", JV_KIND_OBJECT) ?
	    jv_string(s) : jv_null());
	jv_free(r);
	rec = jv_object_set(rec, jv_string("attachments"), atts);
	atts = jv_null();
	rec = jv_object_set(rec, jv_string("trust"), jv_string("user"));
	rec = jv_object_set(rec, jv_string("message_id"), jv_string(mid));
	rec = jv_object_set(rec, jv_string("chat_type"),
	    jv_string(type ? type : "private"));
	if (edit)
		rec = jv_object_set(rec, jv_string("edited"), jv_true());
	*out = jv_array_append(*out, rec);
skip:
	jv_free(atts);
	jv_free(files);
	jv_free(who);
	jv_free(c);
	oxi_buf_free(&id);
	oxi_buf_free(&clean);
	return stopped ? -1 : 0;
}

/* a button pressed: answered at once; "a:<ask>:<choice>" becomes an
 * approval.answer (cq borrowed) */
static void
callback(struct tgrx *rx, jv cq, long long at, jv *out)
{
	struct tg_res res;
	const char *data = str(cq, "data"), *cid = str(cq, "id"), *colon,
	    *say;
	char chat[ID], from[ID], s[ID], ts[32];
	jv msg = oxi_jget(cq, "message"), who = oxi_jget(cq, "from"), c, p,
	    rec;

	if (!cid) {
		oxi_warn("telegram: a callback query without an id: skipped");
		goto done;
	}
	colon = data && strncmp(data, "a:", 2) == 0 ? strrchr(data, ':') :
	    NULL;
	say = !colon || colon == data + 1 ? NULL : strcmp(colon + 1, "once") ==
	    0 ? "Approved once" : strcmp(colon + 1, "always") == 0 ?
	    "Approved always" : strcmp(colon + 1, "deny") == 0 ? "Denied" :
	    NULL;
	p = jv_object_set(jv_object(), jv_string("callback_query_id"),
	    jv_string(cid));
	if (say)
		p = jv_object_set(p, jv_string("text"), jv_string(say));
	if (tg_call(&rx->tg, "answerCallbackQuery", p, 15000, &res) < 0)
		oxi_warn("telegram: %s", res.err);
	tg_res_free(&res);
	if (!colon || colon == data + 1) {
		oxi_debug("telegram: callback data not ours: skipped");
		goto done;
	}
	c = oxi_jget(msg, "chat");
	idof(c, "id", chat);
	jv_free(c);
	idof(who, "id", from);
	if (!*chat)
		memcpy(chat, from, sizeof chat);
	rfc3339(at, ts);
	rec = oxi_msg_new("approval.answer");
	rec = jv_object_set(rec, jv_string("id"), jv_string_fmt(
	    "telegram:%s:cb:%s", rx->tg.account, cid));
	rec = jv_object_set(rec, jv_string("ref"), jv_string_sized(data + 2,
	    (int)(colon - data - 2)));
	rec = jv_object_set(rec, jv_string("choice"), jv_string(colon + 1));
	rec = jv_object_set(rec, jv_string("from"), jv_string(from));
	rec = jv_object_set(rec, jv_string("from_name"), nameof(who));
	rec = jv_object_set(rec, jv_string("channel"), jv_string("telegram"));
	rec = jv_object_set(rec, jv_string("account"),
	    jv_string(rx->tg.account));
	rec = jv_object_set(rec, jv_string("chat"), jv_string(chat));
	if (has(msg, "is_topic_message", JV_KIND_TRUE) && *idof(msg, "message_thread_id", s))
		rec = jv_object_set(rec, jv_string("thread"), jv_string(s));
	rec = jv_object_set(rec, jv_string("ts"), jv_string(ts));
	*out = jv_array_append(*out, rec);
done:
	jv_free(msg);
	jv_free(who);
}

int
tg_update(struct tgrx *rx, jv u, long long at, jv *out)
{
	const char *kind = NULL;
	jv keys = jv_keys(jv_copy(u)), k, v;
	int i, n = jv_array_length(jv_copy(keys)), r = 0;

	for (i = 0; i < n && !kind; i++) {
		k = jv_array_get(jv_copy(keys), i);
		if (strcmp(jv_string_value(k), "update_id") != 0) {
			v = jv_object_get(jv_copy(u), jv_copy(k));
			if (strcmp(jv_string_value(k), "message") == 0)
				r = message(rx, v, 0, out);
			else if (strcmp(jv_string_value(k), "edited_message") ==
			    0 && rx->edits_new)
				r = message(rx, v, 1, out);
			else if (strcmp(jv_string_value(k), "edited_message") ==
			    0)
				oxi_debug("telegram: an edit: ignored");
			else if (strcmp(jv_string_value(k), "callback_query") ==
			    0)
				callback(rx, v, at, out);
			else
				skipkind(rx, jv_string_value(k));
			jv_free(v);
			kind = "";
		}
		jv_free(k);
	}
	jv_free(keys);
	return r;
}
