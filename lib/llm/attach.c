/*
 * attach.c - attachments: files and URLs as content parts of a message
 *
 * oxi-llm -a makes a part of a file, of stdin ("-") or of a URL:
 * {"type":"image","media_type":"image/png","data":BASE64} (png, jpeg,
 * gif, webp) or {"type":"file","media_type":"application/pdf",...},
 * "url" instead of "data" for a URL, and "name" for a file.  A file's
 * type is told by its first bytes, a URL's by its extension, unless
 * given.  The log keeps a part without its data, with the file's
 * absolute path instead, and reads the file again to continue a
 * conversation.  The dialects read parts through oxi_llm_att and write
 * them in their own shape (see oxi(7)).
 */
#define _GNU_SOURCE		/* realpath */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <sodium.h>

#include "oxi.h"
#include "llm/dialect.h"

static const struct {
	const char *mime;	/* media type */
	const char *ext[3];	/* extensions of a URL's path */
	const char *magic;	/* first bytes */
	size_t len;		/* their count */
} types[] = {
	{ "image/png", { "png" }, "\x89PNG\r\n\x1a\n", 8 },
	{ "image/jpeg", { "jpg", "jpeg" }, "\xff\xd8\xff", 3 },
	{ "image/gif", { "gif" }, "GIF8", 4 },
	{ "image/webp", { "webp" }, "RIFF", 4 },	/* and WEBP at 8 */
	{ "application/pdf", { "pdf" }, "%PDF-", 5 },
	{ NULL, { NULL }, NULL, 0 }
};

#define KNOWN	"png, jpeg, gif, webp or pdf"

/* the type of bytes s[0..n), or NULL */
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

/* the type of a URL by the extension of its path, or NULL */
static const char *
byext(const char *url)
{
	const char *end = url + strcspn(url, "?#"), *dot;
	size_t n;
	int i, j;

	for (dot = end; dot > url && dot[-1] != '.' && dot[-1] != '/'; dot--)
		;
	if (dot == url || dot[-1] != '.')
		return NULL;
	n = end - dot;
	for (i = 0; types[i].mime; i++)
		for (j = 0; j < 3 && types[i].ext[j]; j++)
			if (strlen(types[i].ext[j]) == n &&
			    strncasecmp(dot, types[i].ext[j], n) == 0)
				return types[i].mime;
	return NULL;
}

/* mime as one of ours (static), or NULL */
static const char *
ours(const char *mime)
{
	int i;

	if (strcasecmp(mime, "image/jpg") == 0)
		mime = "image/jpeg";
	for (i = 0; types[i].mime; i++)
		if (strcasecmp(mime, types[i].mime) == 0)
			return types[i].mime;
	return NULL;
}

static jv
part(const char *mime)
{
	return jv_object_set(jv_object_set(jv_object(), jv_string("type"),
	    jv_string(strncmp(mime, "image/", 6) == 0 ? "image" : "file")),
	    jv_string("media_type"), jv_string(mime));
}

static int
isurl(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0;
}

int
oxi_llm_readin(struct oxi_buf *b, size_t max)
{
	ssize_t r;

	errno = 0;
	for (;;) {
		oxi_buf_grow(b, 65536);
		r = read(0, b->s + b->len, b->cap - b->len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r;
		if ((b->len += r) > max) {
			errno = EFBIG;
			return -1;
		}
		b->s[b->len] = '\0';
	}
}

jv
oxi_llm_attach(const char *arg, const char *mime)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const char *m, *name;
	char *enc;
	size_t n;
	jv p;

	if (mime && !(m = ours(mime)))
		return oxi_jbad("'%.200s': a type of " KNOWN " expected", mime);
	mime = mime ? m : NULL;
	if (isurl(arg)) {
		if (!mime && !(mime = byext(arg)))
			return oxi_jbad("'%.200s': no type in its name: give it"
			    " with --at (" KNOWN ")", arg);
		return jv_object_set(part(mime), jv_string("url"),
		    jv_string(arg));
	}
	if ((strcmp(arg, "-") == 0 ? oxi_llm_readin(&b, OXI_LLM_ATTACH_MAX) :
	    oxi_readfile(arg, &b, OXI_LLM_ATTACH_MAX)) < 0) {
		oxi_buf_free(&b);
		if (errno == EFBIG)
			return oxi_jbad("'%.200s' is over %d MiB, too big to"
			    " attach", arg, OXI_LLM_ATTACH_MAX >> 20);
		return oxi_jbad("unable to read '%.200s': %s", arg,
		    strerror(errno));
	}
	m = sniff(b.s ? b.s : "", b.len);
	if (!mime && !(mime = m)) {
		oxi_buf_free(&b);
		return oxi_jbad("'%.200s' is not an image or a PDF (" KNOWN
		    ")", arg);
	}
	n = sodium_base64_ENCODED_LEN(b.len, sodium_base64_VARIANT_ORIGINAL);
	enc = xmalloc(n);
	sodium_bin2base64(enc, n, (const unsigned char *)(b.s ? b.s : ""),
	    b.len, sodium_base64_VARIANT_ORIGINAL);
	oxi_buf_free(&b);
	p = jv_object_set(part(mime), jv_string("data"), jv_string(enc));
	free(enc);
	if (strcmp(arg, "-") != 0) {
		name = strrchr(arg, '/');
		p = jv_object_set(p, jv_string("name"),
		    jv_string(name ? name + 1 : arg));
	}
	return p;
}

jv
oxi_llm_attach_ref(jv p, const char *arg)
{
	char abs[PATH_MAX];

	if (isurl(arg) || strcmp(arg, "-") == 0)
		return p;
	p = jv_object_delete(p, jv_string("data"));
	return jv_object_set(p, jv_string("path"), jv_string(realpath(arg,
	    abs) ? abs : arg));
}

jv
oxi_llm_attach_again(jv ref)
{
	const char *path = oxi_msg_peek(ref, "path");
	jv p;

	if (!path)
		return ref;
	p = oxi_llm_attach(path, oxi_msg_peek(ref, "media_type"));
	jv_free(ref);
	return p;
}

int
oxi_llm_att(jv p, struct oxi_llm_att *a)
{
	const char *t = oxi_msg_peek(p, "type");

	if (!t || (strcmp(t, "image") != 0 && strcmp(t, "file") != 0))
		return 0;
	a->file = t[0] == 'f';
	a->mime = oxi_msg_peek(p, "media_type");
	a->data = oxi_msg_peek(p, "data");
	a->url = oxi_msg_peek(p, "url");
	a->name = oxi_msg_peek(p, "name");
	if (!a->data && !a->url)
		return 0;	/* a provider's own part, as Anthropic's */
	if (a->data)
		a->url = NULL;
	return 1;
}

jv
oxi_llm_att_url(const struct oxi_llm_att *a)
{
	struct oxi_buf b = OXI_BUF_INIT;
	jv s;

	if (!a->data)
		return jv_string(a->url);
	oxi_buf_printf(&b, "data:%s;base64,%s", a->mime ? a->mime :
	    "application/octet-stream", a->data);
	s = jv_string_sized(b.s, (int)b.len);
	oxi_buf_free(&b);
	return s;
}
