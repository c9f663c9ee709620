/*
 * fz-json.c - the JSON check in front of libjq (core/json.c), which every
 * JSON text from outside passes: a text the check accepts is one that
 * libjq parses (without leaking: LeakSanitizer watches), and what libjq
 * writes back passes the check again; a refused text has a reason.  libjq
 * never sees a text the check refused (libjq 1.6 leaks on some)
 */
#include <string.h>

#include "oxi.h"
#include "fz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	const char *why = NULL, *s;
	jv v, out;

	if (oxi_json_check((const char *)d, n, &why) < 0) {
		FZ_CHECK(why != NULL && why[0] != '\0',
		    "refused without a reason");
		v = oxi_json_parse((const char *)d, n);
		FZ_CHECK(!jv_is_valid(v), "parse accepts what check refused");
		jv_free(v);
		return 0;
	}
	v = jv_parse_sized((const char *)d, (int)n);
	FZ_CHECK(jv_is_valid(v), "libjq refuses a text the check accepted");
	out = jv_dump_string(jv_copy(v), 0);
	s = jv_string_value(out);
	FZ_CHECK(oxi_json_check(s, strlen(s), &why) == 0,
	    "libjq's own output fails the check");
	jv_free(out);
	out = oxi_json_parse((const char *)d, n);
	FZ_CHECK(jv_equal(out, v), "parse and libjq differ");
	return 0;
}
