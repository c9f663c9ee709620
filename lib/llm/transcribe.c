/*
 * transcribe.c - transcribe records in flight
 *
 * {"type":"transcribe","id","path":"/abs/file","mime":"audio/ogg",
 * "model":"provider/model"} becomes one multipart/form-data POST to the
 * provider's transcription endpoint (an OpenAI-compatible API:
 * "/audio/transcriptions" in its dialect) with the file, the model's name
 * and response_format=json.  It ends in one callback, as oxi_llm_start
 * does: a transcription {"id","text","model","usage"} or an error record.
 *
 * The model is the record's, else $OXI_TRANSCRIBE_MODEL, else
 * openai/whisper-1.  When the model is "none", or the provider
 * has no key or no transcription endpoint, the error is "unconfigured"
 * and nothing is sent.  A file that is not there or not readable is a
 * "file" error, one over 25 MiB (OpenAI's cap) "too_large"; neither is
 * retried.  The file's name as sent ends in the extension of its type,
 * since the API goes by the name, and its documented list has .ogg, not
 * the .oga a Telegram voice note is saved as: audio/ogg goes as
 * audio.ogg.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "oxi.h"
#include "llm/job.h"

#define TRANSCRIBE_MODEL	"openai/whisper-1"
#define TRANSCRIBE_MAX		(25L * 1024 * 1024)

struct tjob {
	struct oxi_llm_job q;		/* id, model, key, callbacks */
	struct oxi_buf body;		/* the reply */
};

/* the extensions the API takes, by media type */
static const struct {
	const char *mime, *ext;
} exts[] = {
	{ "audio/ogg", "ogg" }, { "audio/opus", "ogg" },
	{ "audio/x-opus+ogg", "ogg" }, { "audio/mpeg", "mp3" },
	{ "audio/mp3", "mp3" }, { "audio/mp4", "m4a" }, { "audio/m4a", "m4a" },
	{ "audio/x-m4a", "m4a" }, { "audio/wav", "wav" },
	{ "audio/x-wav", "wav" }, { "audio/wave", "wav" },
	{ "audio/webm", "webm" }, { "audio/flac", "flac" },
	{ "audio/x-flac", "flac" }, { "video/mp4", "mp4" },
	{ "video/webm", "webm" }, { "video/mpeg", "mpeg" },
	{ NULL, NULL }
};

const char *
oxi_transcribe_model(jv rec)
{
	const char *m = oxi_msg_peek(rec, "model");

	if (!m && !(m = oxi_getenv("OXI_TRANSCRIBE_MODEL")))
		return TRANSCRIBE_MODEL;
	return strcmp(m, "none") == 0 ? NULL : m;
}

int
oxi_transcribe_check(jv rec, const char **why)
{
	static const char *const opt[] = { "mime", "model", NULL };
	const char *path = oxi_msg_peek(rec, "path");
	int i;
	jv v;

	if (!oxi_msg_peek(rec, "id")) {
		*why = "transcribe record needs \"id\" (a string)";
		return -1;
	}
	if (!path || *path != '/') {
		*why = "transcribe record needs \"path\" (an absolute path)";
		return -1;
	}
	for (i = 0; opt[i]; i++) {
		v = oxi_jget(rec, opt[i]);
		if (jv_is_valid(v) && jv_get_kind(v) != JV_KIND_STRING &&
		    jv_get_kind(v) != JV_KIND_NULL) {
			jv_free(v);
			*why = i == 0 ? "transcribe \"mime\" must be a string" :
			    "transcribe \"model\" must be a string";
			return -1;
		}
		jv_free(v);
	}
	return 0;
}

/* the name the file goes by: audio.EXT for a type the API knows, else
 * its own name, .oga and .opus as .ogg */
static void
filename(struct oxi_buf *b, const char *path, const char *mime)
{
	const char *base = strrchr(path, '/') + 1, *dot;
	int i;

	for (i = 0; mime && exts[i].mime; i++)
		if (strcasecmp(mime, exts[i].mime) == 0) {
			oxi_buf_printf(b, "audio.%s", exts[i].ext);
			return;
		}
	dot = strrchr(base, '.');
	if (dot && (strcasecmp(dot, ".oga") == 0 ||
	    strcasecmp(dot, ".opus") == 0))
		oxi_buf_printf(b, "%.*s.ogg", (int)(dot - base), base);
	else
		oxi_buf_cats(b, base);
}

/* the usage of a reply (borrowed): tokens, or the seconds of audio */
static jv
usage(jv r)
{
	jv u = oxi_jget(r, "usage"), type = oxi_jget(u, "type");
	jv out = jv_object();

	if (oxi_jstr_is(type, "tokens")) {
		out = jv_object_set(out, jv_string("input"),
		    jv_number(oxi_jnum(u, "input_tokens", 0)));
		out = jv_object_set(out, jv_string("output"),
		    jv_number(oxi_jnum(u, "output_tokens", 0)));
	} else {
		out = jv_object_set(out, jv_string("input"), jv_null());
		if (oxi_jnum(u, "seconds", -1) >= 0)
			out = jv_object_set(out, jv_string("seconds"),
			    jv_number(oxi_jnum(u, "seconds", 0)));
	}
	jv_free(type);
	jv_free(u);
	return out;
}

static int
ondata(void *arg, const char *p, size_t n)
{
	struct tjob *j = arg;

	oxi_buf_cat(&j->body, p, n);
	return 0;
}

static void
ondone(void *arg, struct oxi_http_res *res)
{
	struct tjob *j = arg;
	jv r, text, rec;

	if (res->kind != OXI_HTTP_OK)
		rec = oxi_llm_job_httperr(&j->q, res);
	else {
		r = oxi_json_parse(j->body.s ? j->body.s : "", j->body.len);
		text = oxi_jget(r, "text");
		if (jv_get_kind(text) != JV_KIND_STRING) {
			jv_free(text);
			rec = oxi_llm_job_fail(&j->q, "bad_reply",
			    jv_invalid_with_msg(jv_string("the reply has no"
			    " \"text\"")), 0);
		} else {
			rec = oxi_msg_new("transcription");
			rec = jv_object_set(rec, jv_string("id"),
			    jv_string(j->q.id));
			rec = jv_object_set(rec, jv_string("text"), text);
			rec = jv_object_set(rec, jv_string("model"),
			    jv_string(j->q.model));
			rec = jv_object_set(rec, jv_string("usage"), usage(r));
		}
		jv_free(r);
	}
	j->q.cfg->done(j->q.cfg->arg, j->q.id, rec);
	oxi_llm_job_free(&j->q);
	oxi_buf_free(&j->body);
	free(j);
}

/* an error record for id about model: code, not retryable */
static jv
fail(const char *id, const char *model, const char *code, const char *msg)
{
	return jv_object_set(oxi_msg_error(id, code, msg, 0),
	    jv_string("model"), jv_string(model));
}

/* 0 if path is a file to send, else -1 with the error record in *err */
static int
checkfile(const char *id, const char *model, const char *path, jv *err)
{
	struct stat st;
	char msg[400];

	if (stat(path, &st) < 0 || access(path, R_OK) < 0)
		snprintf(msg, sizeof msg, "unable to read '%.300s': %s", path,
		    strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(msg, sizeof msg, "'%.300s' is not a file", path);
	else if (st.st_size > TRANSCRIBE_MAX) {
		snprintf(msg, sizeof msg, "'%.300s' is over %ld MiB, more"
		    " than the API takes", path, TRANSCRIBE_MAX >> 20);
		*err = fail(id, model, "too_large", msg);
		return -1;
	} else if (st.st_size == 0)
		snprintf(msg, sizeof msg, "'%.300s' is empty", path);
	else
		return 0;
	*err = fail(id, model, "file", msg);
	return -1;
}

int
oxi_transcribe_start(struct oxi_http_loop *loop,
    const struct oxi_llm_cfg *cfg, jv rec, jv *err)
{
	struct oxi_http_part form[4];
	struct oxi_http_req req;
	struct oxi_llm_target t;
	struct oxi_buf url = OXI_BUF_INIT, name = OXI_BUF_INIT;
	const char *id, *model, *why, *path, *mime;
	char msg[300];
	struct tjob *j;
	int n, nokey;

	id = oxi_msg_peek(rec, "id");
	if (oxi_transcribe_check(rec, &why) < 0) {
		*err = oxi_msg_error(id, "invalid", why, 0);
		return OXI_LLM_BAD;
	}
	if (!(model = oxi_transcribe_model(rec))) {
		*err = oxi_msg_error(id, "unconfigured", "no transcription:"
		    " the model is \"none\"", 0);
		return OXI_LLM_FAIL;
	}
	if (oxi_llm_resolve(model, &t, msg, sizeof msg, &nokey) < 0) {
		*err = fail(id, model, nokey ? "unconfigured" : "config", msg);
		return OXI_LLM_FAIL;
	}
	if (!t.p->dialect->transcribe) {
		snprintf(msg, sizeof msg, "%s: no transcription: the"
		    " provider's API offers none", t.p->name);
		*err = fail(id, model, "unconfigured", msg);
		oxi_llm_target_free(&t);
		return OXI_LLM_FAIL;
	}
	path = oxi_msg_peek(rec, "path");
	mime = oxi_msg_peek(rec, "mime");
	if (checkfile(id, model, path, err) < 0) {
		oxi_llm_target_free(&t);
		return OXI_LLM_FAIL;
	}
	oxi_buf_cat(&url, t.base.s, t.base.len);
	oxi_buf_cats(&url, t.p->dialect->transcribe);
	filename(&name, path, mime);
	memset(form, 0, sizeof form);
	form[0].name = "file";
	form[0].file = path;
	form[0].filename = name.s;
	form[0].type = mime;
	form[1].name = "model";
	form[1].value = t.model;
	form[2].name = "response_format";
	form[2].value = "json";

	j = xcalloc(1, sizeof *j);
	oxi_llm_job_init(&j->q, id, model, &t, cfg);
	memset(&req, 0, sizeof req);
	req.url = url.s;
	req.form = form;
	req.max = 8 * 1024 * 1024;
	req.data = ondata;
	req.done = ondone;
	req.arg = j;
	if ((n = oxi_llm_job_post(&j->q, loop, &t, "Accept: application/json",
	    &req, jv_null(), err)) != OXI_LLM_STARTED) {
		oxi_llm_job_free(&j->q);
		free(j);
	}
	oxi_buf_free(&name);
	oxi_buf_free(&url);
	oxi_llm_target_free(&t);
	return n;
}
