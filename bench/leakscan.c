/*
 * leakscan - the leak scanner of oxi-guard out on its own, for make eval
 * and make bench (bench/eval-leak.py, bench/leak)
 *
 * leakscan [-r rules] [-s secrets] [-D] scan: each line of stdin is a
 * JSON object {"text":...} (optional "draft":true, "taint":true,
 * "session":... for a canary); writes {"out":..., "hits":[{"kind",
 * "rule", "depth", "span"}], "err":...} per line.
 * leakscan decode: each line {"text":...} is decoded to the end (at
 * most OXI_DEC_DEPTH layers): {"out":...}.
 * leakscan time N: each line's text is scanned N times; prints the
 * microseconds of each scan, one per line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/leak.h"

static const char *kinds[] = { "secret", "rule", "canary" };

static double
now(void)
{
	struct timespec ts;

	clock_gettime(getenv("LEAK_CPU") ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int
main(int argc, char *argv[])
{
	struct oxi_leak lk = { NULL, NULL, NULL };
	struct oxi_leak_res res = OXI_LEAK_RES_INIT;
	struct oxi_secrets sec = OXI_SECRETS_INIT;
	char *lbuf = NULL;
	size_t lcap = 0;
	ssize_t len;
	struct oxi_buf b = OXI_BUF_INIT;
	const struct oxi_known *canary;
	const char *rules = NULL, *err, *mode;
	unsigned long line;
	size_t i, ns, n;
	unsigned long fl;
	long reps = 1, k;
	int timing = 0;
	unsigned flags;
	double t0;
	jv rec, t, o, hits, h;
	int c, r = 0;

	oxi_prog = "leakscan";
	lk.known = oxi_known_new();
	while ((c = getopt(argc, argv, "r:s:")) != -1)
		switch (c) {
		case 'r': rules = optarg; break;
		case 's':
			if (oxi_secrets_load(&sec, optarg, &ns, &fl) < 0)
				oxi_diesys(100, "%s", optarg);
			for (i = 0; i < sec.n; i++)
				oxi_known_add(lk.known, sec.v[i].s,
				    sec.v[i].len, OXI_HIT_SECRET);
			break;
		default:
			oxi_die(100, "usage: leakscan [-r rules] [-s secrets] "
			    "scan | decode | time N");
		}
	if (optind >= argc)
		oxi_die(100, "scan, decode or time?");
	mode = argv[optind];
	if (strcmp(mode, "time") == 0) {
		timing = 1;
		if (optind + 1 < argc)
			reps = atol(argv[optind + 1]);
	}
	if (rules && !(lk.rules = oxi_srules_load(rules, &err, &line)))
		oxi_die(100, "%s, line %lu: %s", rules, line, err);
	lk.home = getenv("HOME");
	oxi_canary_load();
	while ((len = getline(&lbuf, &lcap, stdin)) > 0) {
		rec = oxi_json_parse(lbuf, (size_t)len);
		if (jv_get_kind(rec) != JV_KIND_OBJECT) {
			jv_free(rec);
			continue;
		}
		t = jv_object_get(jv_copy(rec), jv_string("text"));
		if (jv_get_kind(t) != JV_KIND_STRING) {
			jv_free(t);
			jv_free(rec);
			continue;
		}
		n = (size_t)jv_string_length_bytes(jv_copy(t));
		o = jv_object();
		if (strcmp(mode, "decode") == 0) {
			oxi_decode_all(jv_string_value(t), n, &b,
			    OXI_DEC_DEPTH);
			o = jv_object_set(o, jv_string("out"),
			    jv_string_sized(b.s ? b.s : "", (int)b.len));
			oxi_nd_write(1, o);
			jv_free(t);
			jv_free(rec);
			continue;
		}
		flags = OXI_LEAK_TEXT;
		if (oxi_jis(oxi_jget(rec, "draft"), JV_KIND_TRUE))
			flags |= OXI_LEAK_DRAFT;
		if (oxi_jis(oxi_jget(rec, "taint"), JV_KIND_TRUE))
			flags |= OXI_LEAK_TAINT;
		canary = oxi_msg_peek(rec, "session") ?
		    oxi_canary_known(oxi_msg_peek(rec, "session")) : NULL;
		for (k = 0; k < reps; k++) {
			t0 = now();
			r = oxi_leak_text(&lk, canary, NULL,
			    jv_string_value(t), n, flags, 256, &res);
			if (timing)
				printf("%.1f\n", now() - t0);
		}
		if (timing) {
			jv_free(o);
			jv_free(t);
			jv_free(rec);
			continue;
		}
		if (r < 0)
			o = jv_object_set(o, jv_string("err"),
			    jv_string(res.err));
		else
			o = jv_object_set(o, jv_string("out"), r ?
			    jv_string_sized(res.out.s, (int)res.out.len) :
			    jv_copy(t));
		hits = jv_array();
		for (i = 0; r >= 0 && i < res.hits.n; i++) {
			const struct oxi_hit *x = &res.hits.v[i];

			h = jv_object_set(jv_object(), jv_string("kind"),
			    jv_string(kinds[x->kind]));
			if (x->kind == OXI_HIT_RULE)
				h = jv_object_set(h, jv_string("rule"),
				    jv_string(oxi_srules_id(lk.rules,
				    x->idx)));
			h = jv_object_set(h, jv_string("depth"),
			    jv_number(x->depth));
			h = jv_object_set(h, jv_string("span"),
			    jv_string_sized(jv_string_value(t) + x->lo,
			    (int)(x->hi - x->lo)));
			hits = jv_array_append(hits, h);
		}
		o = jv_object_set(o, jv_string("hits"), hits);
		oxi_nd_write(1, o);
		jv_free(t);
		jv_free(rec);
	}
	fflush(stdout);
	oxi_leak_res_free(&res);
	oxi_known_free(lk.known);
	oxi_srules_free(lk.rules);
	oxi_secrets_free(&sec);
	oxi_buf_free(&b);
	free(lbuf);
	return 0;
}
