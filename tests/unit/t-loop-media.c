/* t-loop-media.c - attachments through the turn engine: images and PDFs
 * as content parts of the latest messages only, references (never bytes)
 * in the history, the other kinds as lines, a refusal asked once more
 * without them, voice messages transcribed before the turn */
#define _GNU_SOURCE

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>
#include <sqlite3.h>

#include "oxi.h"
#include "loop/engine.h"
#include "tap.h"
#include "loopio.h"

static char home[PATH_MAX], files[PATH_MAX + 32];
static const char *chat = "a";

/* writes n bytes of s to files/NAME (or to NAME under home if out) */
static void
put(const char *name, const char *s, size_t n, int out)
{
	char p[PATH_MAX + 64];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", out ? home : files, name);
	if (!(f = fopen(p, "w")) || fwrite(s, 1, n, f) != n || fclose(f))
		exit(2);
}

/* a msg.in in chat with text and attachments (a JSON array text) */
static int
amsg(struct oxi_loop *l, const char *id, const char *text, const char *atts)
{
	return oxi_loop_msg(l, rec("{\"v\":1,\"type\":\"msg.in\",\"id\":\"%s\","
	    "\"channel\":\"telegram\",\"account\":\"b\",\"chat\":\"%s\","
	    "\"text\":\"%s\",\"attachments\":%s}", id, chat, text, atts));
}

/* an attachment of kind with a file of files/ (NULL: none) */
static const char *
att(const char *kind, const char *name, const char *mime, const char *file)
{
	static char b[4][PATH_MAX + 200], p[PATH_MAX + 80];
	static int k;
	char *s = b[k++ % 4];

	p[0] = '\0';
	if (file)
		snprintf(p, sizeof p, ",\"path\":\"%s/%s\"", files, file);
	snprintf(s, sizeof b[0], "{\"kind\":\"%s\",\"name\":\"%s\",\"mime\":\"%s\","
	    "\"size\":2048%s}", kind, name, mime, p);
	return s;
}

/* the model stage fails the last record sent to it: code, not retryable */
static int
fail(struct oxi_loop *l, jv reqs, const char *code, const char *message)
{
	return oxi_loop_llm(l, rec("{\"v\":1,\"type\":\"error\",\"ref\":\"%s\","
	    "\"code\":\"%s\",\"message\":\"%s\",\"retryable\":false}",
	    get(reqs, -1, "id"), code, message));
}

/* [att(...)]: the attachments of a message, one */
static const char *
one(const char *kind, const char *name, const char *mime, const char *file)
{
	static char b[PATH_MAX + 210];

	snprintf(b, sizeof b, "[%s]", att(kind, name, mime, file));
	return b;
}

/* the contents of the messages of the last llm.request from the from-th
 * on, as JSON, "|" between */
static const char *
sent(jv reqs, int from)
{
	static char *s;
	jv r = jv_array_get(jv_copy(reqs), len(reqs) - 1), m, x, d;
	struct oxi_buf b = OXI_BUF_INIT;
	int i;

	m = jv_object_get(r, jv_string("messages"));
	if (from < 0)		/* counts from the end */
		from += len(m);
	for (i = from; i < len(m); i++) {
		x = jv_array_get(jv_copy(m), i);
		d = jv_dump_string(jv_object_get(x, jv_string("content")), 0);
		oxi_buf_printf(&b, "%s%s", i > from ? "|" : "",
		    jv_string_value(d));
		jv_free(d);
	}
	jv_free(m);
	free(s);
	s = b.s ? b.s : xstrdup("");
	return s;
}

/* base64 of n bytes of s */
static const char *
b64(const char *s, size_t n)
{
	static char out[8192];

	sodium_bin2base64(out, sizeof out, (const unsigned char *)s, n,
	    sodium_base64_VARIANT_ORIGINAL);
	return out;
}

/* 1 if a user message stored in db holds s in its extra keys */
static int
stored(sqlite3 *db, const char *s)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT extra FROM messages WHERE role ="
	    " 'user' AND instr(extra, ?) > 0", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, s, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

int
main(void)
{
	static const char jpeg[] = "\xff\xd8\xff\xe0JFIF-a-small-photo";
	static const char png[] = "\x89PNG\r\n\x1a\nsecond-image";
	static const char pdf[] = "%PDF-1.4 a page";
	struct cap c;
	struct oxi_loop_io io = { .llm = io_llm, .tool = io_tool,
	    .out = io_out, .arg = &c };
	struct oxi_loop_cfg cfg = { .model = "openai/m", .system = "S",
	    .maxrounds = 8, .maxhist = 60, .imagemax = 4096,
	    .histimages = 1 };
	struct oxi_loop *l;
	char big[6000], want[9000], rid[64], cmd[2 * PATH_MAX];
	const char *err;
	sqlite3 *db;
	int n;

	oxi_prog = "t-loop-media";
	plan(30);
	snprintf(home, sizeof home, "/tmp/t-loop-media.XXXXXX");
	if (!mkdtemp(home) || setenv("OXI_HOME", home, 1) < 0)
		return 2;
	snprintf(files, sizeof files, "%s/files/telegram", home);
	if (oxi_mkdirp(files, 0700) < 0)
		return 2;
	put("p.jpg", jpeg, sizeof jpeg - 1, 0);
	put("q.png", png, sizeof png - 1, 0);
	put("r.pdf", pdf, sizeof pdf - 1, 0);
	put("fake.jpg", "just text", 9, 0);
	put("notes.docx", "PK\3\4", 4, 0);
	put("v.oga", "OggS voice", 10, 0);
	memset(big, 'x', sizeof big);
	memcpy(big, png, 8);
	put("big.png", big, sizeof big, 0);
	memcpy(big, jpeg, 4);
	put("mid.jpg", big, 3000, 0);
	put("out.jpg", jpeg, sizeof jpeg - 1, 1);

	c.llm = jv_array(), c.tool = jv_array(), c.out = jv_array(), c.down = 0;
	cfg.tools = jv_array();
	if (!(db = oxi_hist_open(":memory:", &err)))
		return 2;
	l = oxi_loop_new(db, &cfg, &io);

	/* an image: a part of the message, its bytes in base64 */
	snprintf(want, sizeof want, "[{\"type\":\"text\",\"text\":\"what is "
	    "this?\\n[image: photo.jpg, image/jpeg, 2 KB]\"},{\"type\":"
	    "\"image\",\"media_type\":\"image/jpeg\",\"name\":\"photo.jpg\","
	    "\"data\":\"%s\"}]", b64(jpeg, sizeof jpeg - 1));
	amsg(l, "i1", "what is this?",
	    one("image", "photo.jpg", "image/jpeg", "p.jpg"));
	is_int(len(c.llm), 1, "a photo: one llm.request");
	is_str(sent(c.llm, 1), want, "the text, a line, and the image as a "
	    "content part in base64");
	is_int(stored(db, "\"path\":\""), 1, "the history keeps the file's "
	    "path");
	is_int(stored(db, b64(jpeg, sizeof jpeg - 1)), 0, "and never its bytes");
	answer(l, get(c.llm, -1, "id"), "a photo", NULL);
	is_str(get(c.out, -1, "text"), "a photo", "answered");

	/* the next message: the earlier image is its line only */
	amsg(l, "i2", "and now?", "[]");
	is_str(sent(c.llm, 1), "\"what is this?\\n[image: photo.jpg, "
	    "image/jpeg, 2 KB]\"|\"a photo\"|\"and now?\"",
	    "OXI_HISTORY_IMAGES=1: an earlier image is not sent again");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);
	cfg.histimages = 2;
	amsg(l, "i3", "two", one("image", "q.png", "image/png", "q.png"));
	ok(strstr(sent(c.llm, 1), b64(png, sizeof png - 1)) != NULL &&
	    strstr(sent(c.llm, 1), b64(jpeg, sizeof jpeg - 1)) == NULL,
	    "at 2, the images of the last two user messages: this one's...");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);
	amsg(l, "i4", "three", "[]");
	ok(strstr(sent(c.llm, 1), b64(png, sizeof png - 1)) != NULL &&
	    strstr(sent(c.llm, 1), b64(jpeg, sizeof jpeg - 1)) == NULL,
	    "...and then the one before");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);
	cfg.histimages = 1;

	/* what is not shown, and why */
	amsg(l, "k1", "", (snprintf(cmd, sizeof cmd, "[%s,%s,%s]",
	    att("image", "fake.jpg", "image/jpeg", "fake.jpg"),
	    att("image", "big.png", "image/png", "big.png"),
	    att("document", "notes.docx", "application/x-docx",
	    "notes.docx")), cmd));
	is_str(sent(c.llm, -1), "\"[image: fake.jpg, image/jpeg, 2 KB, not "
	    "shown: not a PNG, JPEG, GIF or WebP image]\\n[image: big.png, "
	    "image/png, 2 KB, not shown: over the size cap for images and "
	    "PDFs]\\n[document: notes.docx, application/x-docx, 2 KB]\"",
	    "a fake image, one over the cap, a document: their lines only");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);
	snprintf(cmd, sizeof cmd, "[{\"kind\":\"image\",\"path\":\"%s/out.jpg\""
	    "},{\"kind\":\"voice\",\"duration\":7,\"error\":\"too big\"},"
	    "{\"kind\":\"sticker\"}]", home);
	amsg(l, "k2", "", cmd);
	is_str(sent(c.llm, -1), "\"[image: not shown: not a file the receiver "
	    "fetched]\\n[voice message: 7 s, not received: too big]\\n"
	    "[sticker]\"", "a file outside $OXI_HOME/files is not read; a "
	    "voice message not fetched, a sticker: lines");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);

	/* a PDF: a file part */
	amsg(l, "d1", "read it",
	    one("document", "r.pdf", "application/pdf", "r.pdf"));
	snprintf(want, sizeof want, "{\"type\":\"file\",\"media_type\":"
	    "\"application/pdf\",\"name\":\"r.pdf\",\"data\":\"%s\"}",
	    b64(pdf, sizeof pdf - 1));
	ok(strstr(sent(c.llm, -1), want) != NULL, "a PDF goes as a file part");

	/* the model refuses: asked once more without the attachments */
	n = len(c.llm);
	fail(l, c.llm, "invalid", "Ollama takes images as data, not files");
	is_int(len(c.llm), n + 1, "a refusal of a request with a PDF: asked "
	    "again");
	is_str(sent(c.llm, -1), "[{\"type\":\"text\",\"text\":\"read it\\n"
	    "[document: r.pdf, application/pdf, 2 KB]\\n[r.pdf: not shown: "
	    "the model did not take it]\"}]", "without it, saying so");
	answer(l, get(c.llm, -1, "id"), "cannot read PDFs", NULL);
	is_str(get(c.out, -1, "text"), "cannot read PDFs", "and answered");
	amsg(l, "d2", "look", one("image", "p.jpg", "image/jpeg", "p.jpg"));
	fail(l, c.llm, "bad_request", "image_url is only supported by certain"
	    " models");
	n = len(c.llm);
	fail(l, c.llm, "bad_request", "still bad");
	ok(len(c.llm) == n && strcmp(get(c.out, -1, "type"), "error") == 0 &&
	    strcmp(get(c.out, -1, "message"), "still bad") == 0,
	    "a second refusal ends the turn with its error");
	n = len(c.llm);
	msg(l, "e1", "e", "plain");
	fail(l, c.llm, "bad_request", "no");
	ok(len(c.llm) == n + 1 && strcmp(get(c.out, -1, "type"), "error") ==
	    0, "a request without attachments is not asked again");

	/* a request's size limit: the image gives way */
	chat = "z";
	cfg.maxreq = 4500;
	amsg(l, "z1", "small room",
	    one("image", "mid.jpg", "image/jpeg", "mid.jpg"));
	cfg.maxreq = 0;
	ok(strstr(sent(c.llm, -1), "[mid.jpg: not shown: too large for the "
	    "request]") != NULL && strstr(sent(c.llm, -1), "\"data\"") == NULL,
	    "an image that does not fit the request's limit: a line");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);

	/* a voice message: transcribed first */
	chat = "v";
	n = len(c.llm);
	amsg(l, "v1", "", one("voice", "voice.oga", "audio/ogg", "v.oga"));
	is_int(len(c.llm), n + 1, "a voice message: one record to the model "
	    "stage...");
	is_str(get(c.llm, -1, "type"), "transcribe", "...a transcribe");
	snprintf(want, sizeof want, "%s/v.oga", files);
	ok(get(c.llm, -1, "path") && realpath(want, big) &&
	    strcmp(get(c.llm, -1, "path"), big) == 0 && strcmp(get(c.llm, -1,
	    "mime"), "audio/ogg") == 0, "with the file's path and type");
	is_str(get(c.llm, -1, "session"), "telegram:b:v", "and the session, "
	    "for its budget");
	snprintf(rid, sizeof rid, "%s", get(c.llm, -1, "id"));
	answer(l, rid, "not for a transcribe", NULL);
	delta(l, rid, "nor this");
	is_int(len(c.out) > 0 && strcmp(get(c.out, -1, "type"), "typing") == 0,
	    1, "an llm.response or delta for it changes nothing");
	oxi_loop_llm(l, rec("{\"v\":1,\"type\":\"transcription\",\"id\":\"%s\","
	    "\"text\":\"buy bread\",\"model\":\"openai/whisper-1\"}", rid));
	is_str(get(c.llm, -1, "type"), "llm.request", "the transcription: "
	    "then the request");
	is_str(sent(c.llm, -1), "\"[voice] buy bread\"", "the message is "
	    "what was said");
	answer(l, get(c.llm, -1, "id"), "noted", NULL);
	is_str(get(c.out, -1, "text"), "noted", "answered");
	amsg(l, "v2", "and this",
	    one("voice", "voice.oga", "audio/ogg", "v.oga"));
	fail(l, c.llm, "unconfigured", "no API key for openai: set "
	    "OPENAI_API_KEY");
	is_str(sent(c.llm, -1), "\"[voice message: could not transcribe: no "
	    "API key for openai: set OPENAI_API_KEY]\\nand this\"", "no "
	    "transcription: the turn goes on with a line saying why");
	is_str(sent(c.llm, 1), "\"[voice] buy bread\"|\"noted\"|\"[voice "
	    "message: could not transcribe: no API key for openai: set "
	    "OPENAI_API_KEY]\\nand this\"", "the history holds what was "
	    "said as text");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);
	amsg(l, "v3", "", one("voice", "voice.oga", "audio/ogg", "v.oga"));
	oxi_loop_bad(l, OXI_LOOP_LLM, get(c.llm, -1, "id"), OXI_ID_LEN);
	is_str(sent(c.llm, -1), "\"[voice message: could not transcribe: the "
	    "transcription could not be read]\"", "nor when its answer cannot "
	    "be read");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);
	amsg(l, "v4", "", one("voice", "voice.oga", "audio/ogg", "v.oga"));
	oxi_loop_llm(l, rec("{\"v\":1,\"type\":\"transcription\",\"id\":\"%s\","
	    "\"text\":\" \"}", get(c.llm, -1, "id")));
	is_str(sent(c.llm, -1), "\"[voice message: could not transcribe: "
	    "nothing was said in it]\"", "a transcription of nothing says so");
	answer(l, get(c.llm, -1, "id"), "ok", NULL);
	amsg(l, "v5", "",
	    one("voice", "voice.oga", "audio/ogg", "v.oga"));
	oxi_loop_lost(l, OXI_LOOP_LLM);
	ok(strcmp(get(c.out, -1, "type"), "error") == 0 && strcmp(get(c.out,
	    -1, "code"), "llm_exited") == 0 && oxi_loop_busy(l) == 0,
	    "the model stage exits during a transcribe: the turn fails");

	oxi_loop_free(l);
	oxi_hist_close(db);
	cap_free(&c, cfg.tools);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
	if (system(cmd) != 0)
		return 2;
	return done();
}
