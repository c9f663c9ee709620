/*
 * media.c - the attachments of a message, as the model is shown them
 *
 * A msg.in's attachments (oxi(7)) join the history with its text: a line
 * for each, "[image: photo.jpg, image/jpeg, 120 KB]", and under the
 * message's "media" key a reference to each image (PNG, JPEG, GIF, WebP)
 * and PDF that was fetched, is what its first bytes say and is within the
 * cap: {"type":"image","media_type":"image/jpeg","path":...,"name":...},
 * never its bytes.  Only a request carries the bytes, in base64 content
 * parts, and only for the latest user messages (cfg->histimages of them)
 * and as far as the request's size limit allows; the others keep their
 * lines.  Other documents are their line: name, type and size.
 *
 * Voice messages and audio are transcribed by the model stage first (a
 * transcribe record; turn.c takes the answer): the text joins the
 * message as "[voice] ...", or "[voice message: could not transcribe:
 * why]".
 *
 * The files are read only below $OXI_HOME/files, where the receivers put
 * them: a record naming another file shows nothing of it.
 */
#define _GNU_SOURCE		/* realpath */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "oxi.h"
#include "loop/engine.h"

/* the types oxi-llm takes (llm/attach.c tells them the same way: the
 * loop and llm wings see only core, whose header is full) */
static const struct {
	const char *mime;	/* media type */
	const char *magic;	/* first bytes */
	size_t len;		/* their count */
} types[] = {
	{ "image/png", "\x89PNG\r\n\x1a\n", 8 },
	{ "image/jpeg", "\xff\xd8\xff", 3 },
	{ "image/gif", "GIF8", 4 },
	{ "image/webp", "RIFF", 4 },	/* and WEBP at 8 */
	{ "application/pdf", "%PDF-", 5 },
	{ NULL, NULL, 0 }
};

/* the type of bytes s[0..n) that a model may be shown, or NULL */
static const char *
sniff(const char *s, size_t n)
{
	int i;

	for (i = 0; types[i].mime; i++)
		if (n >= types[i].len && memcmp(s, types[i].magic,
		    types[i].len) == 0 && (strcmp(types[i].mime,
		    "image/webp") != 0 || (n >= 12 &&
		    memcmp(s + 8, "WEBP", 4) == 0)))
			return types[i].mime;
	return NULL;
}

/* attachment i of msg.in in (borrowed), or invalid */
static jv
att(jv in, int i)
{
	jv a = oxi_jget(in, "attachments"), x;

	if (jv_get_kind(a) != JV_KIND_ARRAY || i >= jv_array_length(
	    jv_copy(a))) {
		jv_free(a);
		return jv_invalid();
	}
	x = jv_array_get(a, i);
	if (jv_get_kind(x) != JV_KIND_OBJECT) {
		jv_free(x);
		return jv_null();
	}
	return x;
}

static int
isvoice(jv a)
{
	const char *k = oxi_msg_peek(a, "kind");

	return k && (strcmp(k, "voice") == 0 || strcmp(k, "audio") == 0);
}

/*
 * The real path of p in out when it is a file below $OXI_HOME/files: 0,
 * or -1 with *why
 */
static int
inside(const char *p, char out[PATH_MAX], const char **why)
{
	const char *home = oxi_state_dir();
	char dir[PATH_MAX];
	struct stat st;
	size_t n;

	if (!home || !realpath(home, dir)) {
		*why = "no state directory";
		return -1;
	}
	if (!realpath(p, out) || stat(out, &st) < 0) {
		*why = strerror(errno);
		return -1;
	}
	n = strlen(dir);
	if (strncmp(out, dir, n) != 0 || strncmp(out + n, "/files/", 7) != 0) {
		*why = "not a file the receiver fetched";
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "not a file";
		return -1;
	}
	return 0;
}

/* the index of the first voice or audio attachment of msg.in in
 * (borrowed) from index from that was fetched, or -1 */
static int
voice(jv in, int from)
{
	jv a;
	int i;

	for (i = from; jv_is_valid(a = att(in, i)); i++) {
		if (isvoice(a) && oxi_msg_peek(a, "path")) {
			jv_free(a);
			return i;
		}
		jv_free(a);
	}
	jv_free(a);
	return -1;
}

/* the transcribe record id for attachment i of in, or an invalid jv
 * with the reason it cannot be */
static jv
transcribe(jv in, int i, const char *id)
{
	jv a = att(in, i), r;
	const char *why, *mime = oxi_msg_peek(a, "mime");
	char path[PATH_MAX];

	if (inside(oxi_msg_peek(a, "path"), path, &why) < 0) {
		jv_free(a);
		return oxi_jbad("%s", why);
	}
	r = oxi_msg_new("transcribe");
	r = jv_object_set(r, jv_string("id"), jv_string(id));
	r = jv_object_set(r, jv_string("path"), jv_string(path));
	if (mime)
		r = jv_object_set(r, jv_string("mime"), jv_string(mime));
	jv_free(a);
	return r;
}

void
oxi_media_heard(struct oxi_buf *b, const char *text, const char *why)
{
	if (b->len > 0)
		oxi_buf_putc(b, '\n');
	if (text)
		oxi_buf_printf(b, "[voice] %s", text);
	else
		oxi_buf_printf(b, "[voice message: could not transcribe: %s]",
		    why);
}

int
oxi_media_listen(struct oxi_loop *l, struct turn *t)
{
	int i;
	jv req, why;

	while ((i = voice(t->in, t->voice)) >= 0) {
		t->voice = i + 1;
		oxi_id_new(t->reqid);
		req = transcribe(t->in, i, t->reqid);
		if (!jv_is_valid(req)) {
			why = jv_invalid_get_msg(req);
			oxi_media_heard(&t->heard, NULL, jv_string_value(why));
			jv_free(why);
			continue;
		}
		req = jv_object_set(req, jv_string("session"),
		    jv_string(t->session));
		if (!t->deadline && l->cfg->turnms > 0)
			t->deadline = oxi_clock_ms() + l->cfg->turnms;
		t->state = WAIT_VOICE;
		oxi_out_typing(l, t);
		t->asked = oxi_clock_ms();
		if (l->io.llm(l->io.arg, req) == 0)
			return 1;
		oxi_media_heard(&t->heard, NULL, "the model stage is not "
		    "running");
	}
	return 0;
}

/* n bytes for people, after a comma unless first */
static void
size(struct oxi_buf *b, double n)
{
	const char *sep = b->len ? ", " : "";

	if (n < 1024)
		oxi_buf_printf(b, "%s%.0f bytes", sep, n);
	else if (n < 1024 * 1024)
		oxi_buf_printf(b, "%s%.0f KB", sep, n / 1024);
	else
		oxi_buf_printf(b, "%s%.1f MB", sep, n / (1024 * 1024));
}

/*
 * The reference of attachment a (borrowed) for the "media" of its
 * message, or null, and why not in *why (NULL: it is not an image or a
 * PDF, nothing to say)
 */
static jv
ref(jv a, size_t max, const char **why)
{
	const char *kind = oxi_msg_peek(a, "kind"), *p, *mime;
	char path[PATH_MAX], head[16];
	struct stat st;
	ssize_t n;
	int fd;
	jv r;

	*why = NULL;
	if (!(p = oxi_msg_peek(a, "path")) || !kind ||
	    (strcmp(kind, "image") != 0 && strcmp(kind, "document") != 0))
		return jv_null();
	if (strcmp(kind, "document") == 0 && (!(mime = oxi_msg_peek(a,
	    "mime")) || strcmp(mime, "application/pdf") != 0))
		return jv_null();
	if (inside(p, path, why) < 0)
		return jv_null();
	if (stat(path, &st) == 0 && max > 0 && (size_t)st.st_size > max) {
		*why = "over the size cap for images and PDFs";
		return jv_null();
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0 ||
	    (n = read(fd, head, sizeof head)) < 0) {
		*why = strerror(errno);
		if (fd >= 0)
			close(fd);
		return jv_null();
	}
	close(fd);
	mime = sniff(head, (size_t)n);
	if (!mime || (strcmp(kind, "image") == 0) != (strncmp(mime, "image/",
	    6) == 0)) {
		*why = strcmp(kind, "image") == 0 ? "not a PNG, JPEG, GIF or"
		    " WebP image" : "not a PDF";
		return jv_null();
	}
	r = jv_object_set(jv_object(), jv_string("type"), jv_string(mime[0] ==
	    'i' ? "image" : "file"));
	r = jv_object_set(r, jv_string("media_type"), jv_string(mime));
	r = jv_object_set(r, jv_string("path"), jv_string(path));
	if ((p = oxi_msg_peek(a, "name")))
		r = jv_object_set(r, jv_string("name"), jv_string(p));
	return r;
}

/* the line of attachment a (borrowed), its reference appended to media */
static void
line(struct oxi_buf *b, jv a, size_t max, jv *media)
{
	struct oxi_buf f = OXI_BUF_INIT;
	const char *kind = oxi_msg_peek(a, "kind"), *s, *why = NULL;
	double n;
	jv r;

	if ((s = oxi_msg_peek(a, "name")))
		oxi_buf_cats(&f, s);
	if ((s = oxi_msg_peek(a, "mime")))
		oxi_buf_printf(&f, "%s%s", f.len ? ", " : "", s);
	if ((n = oxi_jnum(a, "size", -1)) >= 0)
		size(&f, n);
	if ((n = oxi_jnum(a, "duration", -1)) >= 0)
		oxi_buf_printf(&f, "%s%.0f s", f.len ? ", " : "", n);
	if ((s = oxi_msg_peek(a, "error")))
		oxi_buf_printf(&f, "%snot received: %s", f.len ? ", " : "", s);
	else if (isvoice(a) && !oxi_msg_peek(a, "path"))
		oxi_buf_printf(&f, "%snot received", f.len ? ", " : "");
	else {
		r = ref(a, max, &why);
		if (jv_get_kind(r) == JV_KIND_OBJECT)
			*media = jv_array_append(*media, r);
		else
			jv_free(r);
		if (why)
			oxi_buf_printf(&f, "%snot shown: %s", f.len ? ", " :
			    "", why);
	}
	oxi_buf_printf(b, "%s[%s%s%s%s]", b->len ? "\n" : "", kind ? kind :
	    "attachment", isvoice(a) ? " message" : "", f.len ? ": " : "",
	    f.len ? f.s : "");
	oxi_buf_free(&f);
}

jv
oxi_media_user(jv in, const char *heard, size_t max)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const char *text = oxi_msg_peek(in, "text");
	jv m, a, media = jv_array();
	int i;

	if (heard && *heard)
		oxi_buf_cats(&b, heard);
	if (text && *text)
		oxi_buf_printf(&b, "%s%s", b.len ? "\n" : "", text);
	for (i = 0; jv_is_valid(a = att(in, i)); i++) {
		/* a voice message fetched is in heard */
		if (jv_get_kind(a) == JV_KIND_OBJECT && !(isvoice(a) &&
		    oxi_msg_peek(a, "path") && !oxi_msg_peek(a, "error")))
			line(&b, a, max, &media);
		jv_free(a);
	}
	jv_free(a);
	m = jv_object_set(jv_object(), jv_string("role"), jv_string("user"));
	m = jv_object_set(m, jv_string("content"), jv_string(b.s ? b.s : ""));
	if (jv_array_length(jv_copy(media)) > 0)
		m = jv_object_set(m, jv_string("media"), media);
	else
		jv_free(media);
	oxi_buf_free(&b);
	return m;
}

/*
 * Part p (a reference, borrowed) with its bytes in base64, within *room
 * bytes (less them after), or invalid with the reason
 */
static jv
part(jv p, size_t max, size_t *room)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const char *path = oxi_msg_peek(p, "path"), *why, *mime;
	char real[PATH_MAX], *enc;
	size_t n;
	jv r;

	if (!path || inside(path, real, &why) < 0)
		return oxi_jbad("%s", path ? why : "no path");
	if (oxi_readfile(real, &b, max > 0 ? max : (size_t)-1 / 2) < 0) {
		oxi_buf_free(&b);
		return oxi_jbad("%s", errno == EFBIG ? "over the size cap for"
		    " images and PDFs" : strerror(errno));
	}
	if (!(mime = sniff(b.s ? b.s : "", b.len)) ||
	    !(why = oxi_msg_peek(p, "media_type")) || strcmp(why, mime) != 0) {
		oxi_buf_free(&b);
		return oxi_jbad("the file changed");
	}
	n = sodium_base64_ENCODED_LEN(b.len, sodium_base64_VARIANT_ORIGINAL);
	if (n + 128 > *room) {
		oxi_buf_free(&b);
		return oxi_jbad("too large for the request");
	}
	*room -= n + 128;
	enc = xmalloc(n);
	sodium_bin2base64(enc, n, (const unsigned char *)(b.s ? b.s : ""),
	    b.len, sodium_base64_VARIANT_ORIGINAL);
	oxi_buf_free(&b);
	r = jv_object_delete(jv_copy(p), jv_string("path"));
	r = jv_object_set(r, jv_string("data"), jv_string(enc));
	free(enc);
	return r;
}

/* message m (consumed) with its media as parts after its text */
static jv
show(jv m, size_t max, size_t *room, const char *refused, int *n)
{
	jv media = oxi_jget(m, "media"), parts = jv_array(), p, r, msg;
	const char *name;
	jv text = oxi_jget(m, "content");
	int i;

	if (jv_get_kind(text) != JV_KIND_STRING) {
		jv_free(text);
		text = jv_string("");
	}
	for (i = 0; i < jv_array_length(jv_copy(media)); i++) {
		p = jv_array_get(jv_copy(media), i);
		name = oxi_msg_peek(p, "name");
		r = refused ? oxi_jbad("%s", refused) : part(p, max, room);
		if (jv_is_valid(r)) {
			parts = jv_array_append(parts, r);
			(*n)++;
		} else {
			msg = jv_invalid_get_msg(r);
			text = jv_string_append_str(text, "\n[");
			text = jv_string_append_str(text, name ? name :
			    oxi_msg_peek(p, "type"));
			text = jv_string_append_str(text, ": not shown: ");
			text = jv_string_concat(text, msg);
			text = jv_string_append_str(text, "]");
		}
		jv_free(p);
	}
	jv_free(media);
	parts = jv_array_concat(JV_ARRAY(jv_object_set(jv_object_set(
	    jv_object(), jv_string("type"), jv_string("text")),
	    jv_string("text"), text)), parts);
	return jv_object_set(m, jv_string("content"), parts);
}

jv
oxi_media_parts(jv msgs, int keep, size_t max, size_t room,
    const char *refused, int *n)
{
	int i, users = 0;
	jv m, media;

	*n = 0;
	for (i = jv_array_length(jv_copy(msgs)) - 1; i >= 0; i--) {
		m = jv_array_get(jv_copy(msgs), i);
		if (oxi_jstr_is(media = oxi_jget(m, "role"), "user"))
			users++;
		jv_free(media);
		media = oxi_jget(m, "media");
		if (jv_get_kind(media) == JV_KIND_ARRAY && users <= keep)
			m = show(m, max, &room, refused, n);
		jv_free(media);
		m = jv_object_delete(m, jv_string("media"));
		msgs = jv_array_set(msgs, i, m);
	}
	return msgs;
}
