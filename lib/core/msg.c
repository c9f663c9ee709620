/* msg.c - records of protocol v1: construction, access, validation */
#include <stdio.h>
#include <string.h>

#include "oxi.h"

jv
oxi_msg_new(const char *type)
{
	jv r = jv_object();

	r = jv_object_set(r, jv_string("v"), jv_number(1));
	return jv_object_set(r, jv_string("type"), jv_string(type));
}

const char *
oxi_msg_peek(jv rec, const char *key)
{
	jv v;
	const char *s;

	if (jv_get_kind(rec) != JV_KIND_OBJECT)
		return NULL;
	v = jv_object_get(jv_copy(rec), jv_string(key));
	if (jv_get_kind(v) != JV_KIND_STRING) {
		jv_free(v);
		return NULL;
	}
	/* rec still holds a reference, so the bytes outlive v */
	s = jv_string_value(v);
	jv_free(v);
	return s;
}

const char *
oxi_msg_type_peek(jv rec)
{
	const char *t = oxi_msg_peek(rec, "type");

	return t ? t : "";
}

/*
 * Required keys per type: 's' a string, 'S' a string or null, 'o' an
 * object, 'a' an array, 'b' a boolean, 'n' a number.
 */
static const struct rule {
	const char *type;	/* record type */
	const char *keys;	/* "key:kind key:kind ..." */
} rules[] = {
	{ "msg.in", "id:s channel:s chat:s text:s" },
	{ "msg.out", "channel:s chat:s text:s" },
	{ "msg.draft", "channel:s chat:s text:s" },
	{ "typing", "channel:s chat:s" },
	{ "status", "channel:s chat:s text:s" },
	{ "receipt", "ref:s ok:b" },
	{ "llm.request", "id:s messages:a" },
	{ "llm.delta", "id:s text:s" },
	{ "llm.response", "id:s message:o" },
	{ "tool.call", "id:s name:s args:o" },
	{ "tool.result", "id:s content:s" },
	{ "approval.ask", "id:s ref:s channel:s chat:s text:s choices:a "
	    "expires:s" },
	{ "approval.answer", "ref:s choice:s channel:s chat:s" },
	{ "error", "code:s message:s" },
	{ NULL, NULL }
};

static int
kindok(jv v, char k)
{
	jv_kind kind = jv_get_kind(v);

	switch (k) {
	case 's': return kind == JV_KIND_STRING;
	case 'S': return kind == JV_KIND_STRING || kind == JV_KIND_NULL;
	case 'o': return kind == JV_KIND_OBJECT;
	case 'a': return kind == JV_KIND_ARRAY;
	case 'b': return kind == JV_KIND_TRUE || kind == JV_KIND_FALSE;
	case 'n': return kind == JV_KIND_NUMBER;
	}
	return 0;
}

int
oxi_msg_check(jv rec, const char **why)
{
	static char reason[128];
	const struct rule *r;
	const char *type, *p, *colon;
	char key[64];
	size_t n;
	jv v;
	int ok;

	if (jv_get_kind(rec) != JV_KIND_OBJECT) {
		*why = "not a JSON object";
		return -1;
	}
	if (!(type = oxi_msg_peek(rec, "type"))) {
		*why = "record has no string \"type\"";
		return -1;
	}
	for (r = rules; r->type; r++)
		if (strcmp(r->type, type) == 0)
			break;
	if (!r->type)
		return 0;	/* not ours to judge */
	for (p = r->keys; *p; p = colon + 2 + (colon[2] == ' ')) {
		colon = strchr(p, ':');
		n = colon - p;
		memcpy(key, p, n);
		key[n] = '\0';
		v = jv_object_get(jv_copy(rec), jv_string(key));
		ok = kindok(v, colon[1]);
		jv_free(v);
		if (!ok) {
			snprintf(reason, sizeof reason,
			    "%s record needs \"%s\" (%s)", type, key,
			    colon[1] == 's' ? "a string" :
			    colon[1] == 'o' ? "an object" :
			    colon[1] == 'a' ? "an array" :
			    colon[1] == 'b' ? "a boolean" : "a value");
			*why = reason;
			return -1;
		}
		if (colon[2] == '\0')
			break;
	}
	return 0;
}

jv
oxi_msg_error(const char *ref, const char *code, const char *msg,
    int retryable)
{
	jv r = oxi_msg_new("error");

	r = jv_object_set(r, jv_string("ref"), ref ? jv_string(ref) :
	    jv_null());
	r = jv_object_set(r, jv_string("code"), jv_string(code));
	r = jv_object_set(r, jv_string("message"), jv_string(msg));
	return jv_object_set(r, jv_string("retryable"), jv_bool(retryable));
}

jv
oxi_msg_idstr(jv v)
{
	char buf[64];

	switch (jv_get_kind(v)) {
	case JV_KIND_STRING:
		return v;
	case JV_KIND_NUMBER:
		snprintf(buf, sizeof buf, "%.17g", jv_number_value(v));
		jv_free(v);
		return jv_string(buf);
	default:
		jv_free(v);
		return jv_null();
	}
}

jv
oxi_msg_reply(jv in, const char *type)
{
	static const char *const keys[] = { "channel", "account", "chat",
	    "thread", NULL };
	jv r = oxi_msg_new(type), v;
	int i;

	for (i = 0; keys[i]; i++) {
		v = jv_object_get(jv_copy(in), jv_string(keys[i]));
		if (jv_is_valid(v))
			r = jv_object_set(r, jv_string(keys[i]), v);
		else
			jv_free(v);
	}
	return r;
}

int
oxi_msg_receipt(int fd, const char *channel, const char *ref,
    const char *inreply, const char *pid, int ok, const char *error)
{
	jv r = oxi_msg_new("receipt");

	r = jv_object_set(r, jv_string("ref"), jv_string(ref));
	r = jv_object_set(r, jv_string("channel"), jv_string(channel));
	r = jv_object_set(r, jv_string("in_reply_to"),
	    inreply ? jv_string(inreply) : jv_null());
	r = jv_object_set(r, jv_string("platform_id"),
	    pid ? jv_string(pid) : jv_null());
	r = jv_object_set(r, jv_string("ok"), jv_bool(ok));
	if (error)
		r = jv_object_set(r, jv_string("error"), jv_string(error));
	return oxi_nd_write(fd, r);
}
