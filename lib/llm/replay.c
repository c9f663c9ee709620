/*
 * replay.c - answers recorded by oxi-llm --record, played back
 *
 * A recording is NDJSON: each request (an llm.request, embed.request or
 * transcribe, with its "model" as it was resolved) followed by the
 * records that answered it: llm.delta records, then one llm.response,
 * embed.response, transcription or error.  Records answer the request
 * before them whose id is their "id" (or "ref" for an error), so a
 * transcript whose requests interleave reads the same.  A request is
 * matched by a key, not by its id: a hash of its type, model, messages,
 * tools, input and path, serialised with sorted keys.  The n-th request with a given key gets the n-th
 * answer recorded for it, and the last one again after that.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/llm.h"

#define REPLAY_MAX	(256 * 1024 * 1024)

struct ent {
	char key[OXI_REPLAY_KEYLEN + 1];	/* the request's key */
	char *id;			/* its id in the recording */
	jv recs;			/* the records answering it */
	int done;			/* its final record came */
	int used;			/* it was played back */
};

struct oxi_replay {
	struct ent *v;			/* requests in recorded order */
	size_t n;			/* used */
	size_t cap;			/* allocated */
};

void
oxi_replay_key(jv req, const char *model, char out[OXI_REPLAY_KEYLEN + 1])
{
	static const char *const keys[] = {
		"type", "messages", "tools", "input", "path", NULL
	};
	uint64_t h = 14695981039346656037ULL;	/* FNV-1a, 64 bits */
	const char *s;
	jv o = jv_object(), v;
	int i;

	for (i = 0; keys[i]; i++) {
		v = jv_object_get(jv_copy(req), jv_string(keys[i]));
		if (!jv_is_valid(v)) {
			jv_free(v);
			v = jv_null();
		}
		o = jv_object_set(o, jv_string(keys[i]), v);
	}
	o = jv_object_set(o, jv_string("model"), model ? jv_string(model) :
	    jv_null());
	v = jv_dump_string(o, JV_PRINT_SORTED);
	for (s = jv_string_value(v); *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	jv_free(v);
	snprintf(out, OXI_REPLAY_KEYLEN + 1, "%016llx", (unsigned long long)h);
}

/* the latest request recorded with this id that is still open */
static struct ent *
byid(struct oxi_replay *r, const char *id)
{
	size_t i;

	if (!id)
		return NULL;
	for (i = r->n; i > 0; i--)
		if (strcmp(r->v[i - 1].id, id) == 0)
			return r->v[i - 1].done ? NULL : &r->v[i - 1];
	return NULL;
}

static void
take(struct oxi_replay *r, jv rec)
{
	const char *type = oxi_msg_type_peek(rec), *id, *model;
	struct ent *e;

	if (strcmp(type, "llm.request") == 0 ||
	    strcmp(type, "embed.request") == 0 ||
	    strcmp(type, "transcribe") == 0) {
		if (!(id = oxi_msg_peek(rec, "id"))) {
			jv_free(rec);
			return;
		}
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 16;
			r->v = xrealloc(r->v, r->cap * sizeof *r->v);
		}
		e = &r->v[r->n++];
		memset(e, 0, sizeof *e);
		model = oxi_msg_peek(rec, "model");
		oxi_replay_key(rec, model, e->key);
		e->id = xstrdup(id);
		e->recs = jv_array();
		jv_free(rec);
		return;
	}
	if (strcmp(type, "error") == 0)
		id = oxi_msg_peek(rec, "ref");
	else if (strcmp(type, "llm.delta") == 0 ||
	    strcmp(type, "llm.response") == 0 ||
	    strcmp(type, "embed.response") == 0 ||
	    strcmp(type, "transcription") == 0)
		id = oxi_msg_peek(rec, "id");
	else
		id = NULL;
	if (!(e = byid(r, id))) {
		jv_free(rec);
		return;
	}
	if (strcmp(type, "llm.delta") != 0)
		e->done = 1;
	e->recs = jv_array_append(e->recs, rec);
}

struct oxi_replay *
oxi_replay_load(const char *path, char *why, size_t len)
{
	struct oxi_replay *r;
	struct oxi_buf b = OXI_BUF_INIT;
	char *p, *end, *nl;
	unsigned long lineno = 0;
	size_t i, k;
	jv rec;

	if (oxi_readfile(path, &b, REPLAY_MAX) < 0) {
		snprintf(why, len, "unable to read '%.200s': %s", path,
		    strerror(errno));
		oxi_buf_free(&b);
		return NULL;
	}
	r = xcalloc(1, sizeof *r);
	for (p = b.s, end = b.s + b.len; p && p < end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', end - p)))
			nl = end;
		lineno++;
		if (nl == p)
			continue;
		rec = oxi_json_parse(p, nl - p);
		if (jv_get_kind(rec) != JV_KIND_OBJECT) {
			jv_free(rec);
			snprintf(why, len, "%.200s:%lu: not a JSON object",
			    path, lineno);
			oxi_buf_free(&b);
			oxi_replay_free(r);
			return NULL;
		}
		take(r, rec);
	}
	oxi_buf_free(&b);
	/* requests that never got their answer are left out */
	for (i = k = 0; i < r->n; i++)
		if (r->v[i].done)
			r->v[k++] = r->v[i];
		else {
			free(r->v[i].id);
			jv_free(r->v[i].recs);
		}
	r->n = k;
	return r;
}

size_t
oxi_replay_count(const struct oxi_replay *r)
{
	return r ? r->n : 0;
}

jv
oxi_replay_find(struct oxi_replay *r, const char *key)
{
	struct ent *last = NULL;
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (strcmp(r->v[i].key, key) != 0)
			continue;
		if (!r->v[i].used) {
			r->v[i].used = 1;
			return jv_copy(r->v[i].recs);
		}
		last = &r->v[i];
	}
	return last ? jv_copy(last->recs) : jv_invalid();
}

void
oxi_replay_free(struct oxi_replay *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		free(r->v[i].id);
		jv_free(r->v[i].recs);
	}
	free(r->v);
	free(r);
}
