/*
 * json.c - small accessors for jq's jv values, shared by the modules that
 * read and build JSON (the LLM dialects first of all)
 *
 * They only look at the value they are given: the jv argument is
 * borrowed, not consumed, and a jv they return is the caller's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "oxi.h"

jv
oxi_jget(jv obj, const char *key)
{
	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		return jv_invalid();
	return jv_object_get(jv_copy(obj), jv_string(key));
}

int
oxi_jis(jv v, jv_kind k)
{
	return jv_get_kind(v) == k;
}

int
oxi_jstr_is(jv v, const char *s)
{
	return oxi_jis(v, JV_KIND_STRING) && strcmp(jv_string_value(v), s) == 0;
}

int
oxi_jstr_has(jv v, const char *word)
{
	return oxi_jis(v, JV_KIND_STRING) &&
	    strstr(jv_string_value(v), word) != NULL;
}

double
oxi_jnum(jv obj, const char *key, double dflt)
{
	jv v = oxi_jget(obj, key);
	double d = oxi_jis(v, JV_KIND_NUMBER) ? jv_number_value(v) : dflt;

	jv_free(v);
	return d;
}

jv
oxi_jbad(const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return jv_invalid_with_msg(jv_string(buf));
}
