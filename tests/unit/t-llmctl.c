/* t-llmctl.c - backoff, circuit breakers, chains, prices, the ledger and
 * replay keys of lib/llm/ctl.c, breaker.c, cost.c and replay.c */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "llm/llm.h"
#include "tap.h"

#define S(lit)	lit, sizeof(lit) - 1

static void
backoff(void)
{
	int n, bad = 0;
	unsigned long r;
	long d;

	/* rnd 0 gives the low end, a large rnd the high end */
	is_int(oxi_llm_backoff(1, 500, 8000, -1, 0), 250,
	    "retry 1: half the base at least");
	is_int(oxi_llm_backoff(1, 500, 8000, -1, 250), 500,
	    "retry 1: the base at most");
	is_int(oxi_llm_backoff(3, 500, 8000, -1, 0), 1000,
	    "retry 3: the base doubled twice, jittered down to half");
	is_int(oxi_llm_backoff(3, 500, 8000, -1, 1000), 2000,
	    "retry 3: 2000 at most");
	is_int(oxi_llm_backoff(30, 500, 8000, -1, 4000), 8000,
	    "a late retry stops at the cap");
	is_int(oxi_llm_backoff(30, 500, 8000, -1, 0), 4000,
	    "and jitters within its upper half");
	is_int(oxi_llm_backoff(1, 500, 8000, 3000, 0), 3000,
	    "Retry-After wins over a shorter backoff");
	is_int(oxi_llm_backoff(1, 500, 8000, 20000, 0), 20000,
	    "even past the cap");
	is_int(oxi_llm_backoff(5, 500, 8000, 10, 0), 4000,
	    "a shorter Retry-After does not shorten the backoff");
	for (n = 1; n < 10; n++)
		for (r = 0; r < 5000; r += 7) {
			d = oxi_llm_backoff(n, 100, 1000, -1, r);
			if (d < 50 || d > 1000)
				bad++;
		}
	is_int(bad, 0, "every jitter stays within [base/2, cap]");
}

static void
breaker(void)
{
	struct oxi_breaker b;

	memset(&b, 0, sizeof b);
	is_int(oxi_breaker_allow(&b, 0), 1, "a new breaker is closed");
	oxi_breaker_note(&b, 0, 3, 1000, 10);
	oxi_breaker_note(&b, 0, 3, 1000, 20);
	is_int(b.state, OXI_BRK_CLOSED, "two failures of three: closed");
	oxi_breaker_note(&b, 1, 3, 1000, 30);
	oxi_breaker_note(&b, 0, 3, 1000, 40);
	oxi_breaker_note(&b, 0, 3, 1000, 50);
	is_int(b.state, OXI_BRK_CLOSED, "a success starts the count again");
	oxi_breaker_note(&b, 0, 3, 1000, 60);
	is_int(b.state, OXI_BRK_OPEN, "three in a row: open");
	is_int(oxi_breaker_allow(&b, 500), 0, "open: refused");
	is_int(oxi_breaker_allow(&b, 1059), 0, "until the cool-down is over");
	is_int(oxi_breaker_allow(&b, 1060), 2, "then one probe");
	is_int(b.state, OXI_BRK_HALF, "half-open");
	is_int(oxi_breaker_allow(&b, 1061), 0, "a second one waits");
	oxi_breaker_note(&b, 0, 3, 1000, 1100);
	is_int(b.state, OXI_BRK_OPEN, "a failed probe opens it again");
	is_int((int)b.until, 2100, "for another cool-down");
	is_int(oxi_breaker_allow(&b, 2100), 2, "the next probe");
	oxi_breaker_note(&b, 1, 3, 1000, 2200);
	is_int(b.state, OXI_BRK_CLOSED, "a good probe closes it");
	is_int(oxi_breaker_allow(&b, 2201), 1, "and lets everything through");
	memset(&b, 0, sizeof b);
	oxi_breaker_note(&b, 0, 0, 1000, 0);
	oxi_breaker_note(&b, 0, 0, 1000, 0);
	is_int(b.state, OXI_BRK_CLOSED, "max 0: never opens");
}

static void
chain(void)
{
	char **v;
	int n;

	n = oxi_llm_chain(" anthropic/x , openai/y,,ollama/z ", &v);
	is_int(n, 3, "a chain of three, blanks and empty parts dropped");
	is_str(v[0], "anthropic/x", "first");
	is_str(v[2], "ollama/z", "last");
	ok(v[3] == NULL, "NULL-ended");
	oxi_llm_chain_free(v, n);
	n = oxi_llm_chain("openrouter/anthropic/claude", &v);
	is_int(n, 1, "one model");
	is_str(v[0], "openrouter/anthropic/claude", "slashes kept");
	oxi_llm_chain_free(v, n);
	is_int(oxi_llm_chain(" , ", &v), 0, "nothing");
	oxi_llm_chain_free(v, 0);
}

static double
cost(const struct oxi_prices *t, const char *model, const char *usage)
{
	jv c = oxi_prices_cost(t, model, jv_parse(usage));
	double d = jv_get_kind(c) == JV_KIND_NUMBER ? jv_number_value(c) :
	    -1;

	jv_free(c);
	return d;
}

static void
prices(void)
{
	struct oxi_prices *t = oxi_prices_new();
	const struct oxi_price *p;
	char why[200];
	const char *k;
	size_t i;

	ok(oxi_prices_add(t, S("{\"_c\":\"x\","
	    "\"a/m\":{\"input\":2,\"output\":8},"
	    "\"a/m-*\":{\"input\":3,\"output\":9},"
	    "\"a/m-long-*\":{\"input\":4,\"output\":10,\"cache_read\":1,"
	    "\"cache_write\":5},"
	    "\"a/*\":{\"input\":0,\"output\":0}}"), why, sizeof why) == 0,
	    "a table");
	p = oxi_prices_find(t, "a/m");
	ok(p && p->input == 2 && p->output == 8, "an exact entry");
	ok(p && p->cache_read == 2 && p->cache_write == 2,
	    "cache prices default to the input price");
	p = oxi_prices_find(t, "a/m-2025");
	ok(p && p->input == 3, "a glob");
	p = oxi_prices_find(t, "a/m-long-1");
	ok(p && p->input == 4, "the longest matching glob");
	p = oxi_prices_find(t, "a/zzz");
	ok(p && p->input == 0, "a catch-all glob");
	ok(oxi_prices_find(t, "b/m") == NULL, "no entry");
	for (i = 0; (k = oxi_prices_key(t, i)); i++)
		ok(k[0] != '_', "comments are not entries: %s", k);
	is_int((long long)i, 4, "four entries");

	ok(fabs(cost(t, "a/m", "{\"input\":1000000,\"output\":500000}") -
	    6) < 1e-9, "input and output priced per million");
	ok(fabs(cost(t, "a/m-long-x", "{\"input\":1000000,\"output\":0,"
	    "\"cache_read\":400000,\"cache_write\":100000}") -
	    (0.5 * 4 + 0.4 * 1 + 0.1 * 5)) < 1e-9,
	    "cache reads and writes are part of input, priced apart");
	ok(fabs(cost(t, "a/m", "{\"input\":10,\"cache_read\":50}") -
	    50 * 2 / 1e6) < 1e-12,
	    "more cached than input counts no plain input");
	ok(cost(t, "b/m", "{\"input\":10}") == -1, "no entry: null");
	ok(cost(t, "a/m", "null") == -1, "no usage: null");
	ok(fabs(cost(t, "a/m", "{\"input\":3}") - 6e-6) < 1e-15,
	    "small costs survive rounding");

	ok(oxi_prices_add(t, S("{\"a/m\":{\"input\":1,\"output\":1}}"),
	    why, sizeof why) == 0, "a second table over the first");
	p = oxi_prices_find(t, "a/m");
	ok(p && p->input == 1, "replaces the entry of the same key");
	ok(oxi_prices_add(t, S("[1]"), why, sizeof why) < 0 &&
	    strstr(why, "not a JSON object"), "not an object: %s", why);
	ok(oxi_prices_add(t, S("{\"a/x\":{\"input\":-1}}"), why,
	    sizeof why) < 0 && strstr(why, "a/x"), "a negative price: %s",
	    why);
	ok(oxi_prices_add(t, S("{\"nomodel\":{\"input\":1}}"), why,
	    sizeof why) < 0, "a key without provider/: %s", why);
	ok(oxi_prices_add(t, S("{\"a/x\":"), why, sizeof why) < 0,
	    "bad JSON: %s", why);
	oxi_prices_free(t);
}

static void
ledger(void)
{
	char path[32] = "/tmp/t-llmctl.XXXXXX", db[48], aux[64];
	struct oxi_ledger *l;
	const char *err = "";
	double s[3];
	int fd;

	fd = mkstemp(path);
	close(fd);
	unlink(path);
	snprintf(db, sizeof db, "%s.db", path);
	l = oxi_ledger_open(db, &err);
	ok(l != NULL, "a ledger (%s)", l ? "ok" : err);
	if (!l)
		return;
	ok(oxi_ledger_spent(l, "s1", s, &err) == 0 && s[0] == 0 &&
	    s[1] == 0 && s[2] == 0, "nothing spent");
	ok(oxi_ledger_add(l, "s1", "r1", "a/m", jv_parse("{\"input\":5}"),
	    0.25, &err) == 0, "one answer booked");
	ok(oxi_ledger_add(l, "s2", "r2", "a/m", jv_null(), 0.5, &err) == 0,
	    "another, without usage");
	ok(oxi_ledger_add(l, NULL, "r3", "a/m", jv_null(), 1, &err) == 0,
	    "one without a session");
	ok(oxi_ledger_spent(l, "s1", s, &err) == 0 && s[0] == 1.75 &&
	    s[1] == 1.75 && s[2] == 0.25, "day, month and session sums");
	ok(oxi_ledger_spent(l, NULL, s, &err) == 0 && s[2] == 0,
	    "no session: 0");
	oxi_ledger_close(l);
	l = oxi_ledger_open(db, &err);
	ok(l && oxi_ledger_spent(l, "s2", s, &err) == 0 && s[0] == 1.75 &&
	    s[2] == 0.5, "kept when opened again");
	oxi_ledger_close(l);
	unlink(db);
	snprintf(aux, sizeof aux, "%s-wal", db);
	unlink(aux);
	snprintf(aux, sizeof aux, "%s-shm", db);
	unlink(aux);
}

static void
keys(void)
{
	char a[OXI_REPLAY_KEYLEN + 1], b[OXI_REPLAY_KEYLEN + 1];
	jv r1, r2;

	r1 = jv_parse("{\"type\":\"llm.request\",\"id\":\"1\",\"session\":"
	    "\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
	r2 = jv_parse("{\"messages\":[{\"content\":\"hi\",\"role\":\"user\"}],"
	    "\"id\":\"2\",\"type\":\"llm.request\",\"stream\":false}");
	oxi_replay_key(r1, "a/m", a);
	oxi_replay_key(r2, "a/m", b);
	is_int((long long)strlen(a), OXI_REPLAY_KEYLEN, "16 hex digits");
	is_str(a, b, "the id, the session, stream and key order do not count");
	oxi_replay_key(r2, "a/n", b);
	ok(strcmp(a, b) != 0, "the model does");
	jv_free(r2);
	r2 = jv_parse("{\"type\":\"llm.request\",\"id\":\"1\",\"messages\":"
	    "[{\"role\":\"user\",\"content\":\"hi!\"}]}");
	oxi_replay_key(r2, "a/m", b);
	ok(strcmp(a, b) != 0, "the messages do");
	jv_free(r2);
	r2 = jv_parse("{\"type\":\"llm.request\",\"id\":\"1\",\"messages\":"
	    "[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[]}");
	oxi_replay_key(r2, "a/m", b);
	ok(strcmp(a, b) != 0, "the tools do");
	jv_free(r2);
	r2 = jv_parse("{\"type\":\"embed.request\",\"id\":\"1\",\"messages\":"
	    "[{\"role\":\"user\",\"content\":\"hi\"}]}");
	oxi_replay_key(r2, "a/m", b);
	ok(strcmp(a, b) != 0, "the type does");
	jv_free(r1);
	jv_free(r2);
}

/* the "text" of the first record of recs (borrowed), static */
static const char *
text0(jv recs)
{
	static char buf[64];
	jv t = jv_object_get(jv_array_get(jv_copy(recs), 0), jv_string("text"));

	snprintf(buf, sizeof buf, "%s", jv_is_valid(t) &&
	    jv_get_kind(t) == JV_KIND_STRING ? jv_string_value(t) : "(none)");
	jv_free(t);
	return buf;
}

static void
replay(void)
{
	char path[] = "/tmp/t-llmctl-rec.XXXXXX", why[300];
	char k[OXI_REPLAY_KEYLEN + 1], k2[OXI_REPLAY_KEYLEN + 1];
	struct oxi_replay *r;
	FILE *f;
	jv req, recs;
	int fd = mkstemp(path);

	f = fdopen(fd, "w");
	fputs("{\"type\":\"llm.request\",\"id\":\"a\",\"model\":\"x/m\","
	    "\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}\n"
	    "{\"type\":\"llm.request\",\"id\":\"b\",\"model\":\"x/m\","
	    "\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}\n"
	    "{\"type\":\"llm.delta\",\"id\":\"b\",\"text\":\"B\"}\n"
	    "{\"type\":\"llm.delta\",\"id\":\"a\",\"text\":\"A\"}\n"
	    "{\"type\":\"llm.response\",\"id\":\"a\",\"n\":1}\n"
	    "{\"type\":\"llm.response\",\"id\":\"b\",\"n\":2}\n"
	    "{\"type\":\"llm.request\",\"id\":\"c\",\"model\":\"x/m\","
	    "\"messages\":[{\"role\":\"user\",\"content\":\"lost\"}]}\n"
	    "{\"type\":\"llm.request\",\"id\":\"d\",\"model\":\"x/m\","
	    "\"messages\":[{\"role\":\"user\",\"content\":\"e\"}]}\n"
	    "{\"type\":\"error\",\"ref\":\"d\",\"code\":\"server\"}\n", f);
	fclose(f);
	r = oxi_replay_load(path, why, sizeof why);
	ok(r != NULL, "a recording (%s)", r ? "ok" : why);
	if (!r)
		return;
	is_int((long long)oxi_replay_count(r), 3,
	    "three answered requests; one never answered is left out");
	req = jv_parse("{\"type\":\"llm.request\",\"id\":\"z\","
	    "\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}");
	oxi_replay_key(req, "x/m", k);
	recs = oxi_replay_find(r, k);
	is_int(jv_array_length(jv_copy(recs)), 2,
	    "interleaved records sorted by id");
	is_str(text0(recs), "A", "the first answer first");
	jv_free(recs);
	recs = oxi_replay_find(r, k);
	is_str(text0(recs), "B", "the second answer second");
	jv_free(recs);
	recs = oxi_replay_find(r, k);
	is_str(text0(recs), "B", "then the last one again");
	jv_free(recs);
	jv_free(req);
	req = jv_parse("{\"type\":\"llm.request\",\"id\":\"z\","
	    "\"messages\":[{\"role\":\"user\",\"content\":\"e\"}]}");
	oxi_replay_key(req, "x/m", k2);
	recs = oxi_replay_find(r, k2);
	is_int(jv_array_length(jv_copy(recs)), 1, "an error is an answer");
	jv_free(recs);
	jv_free(req);
	req = jv_parse("{\"type\":\"llm.request\",\"id\":\"z\","
	    "\"messages\":[{\"role\":\"user\",\"content\":\"lost\"}]}");
	oxi_replay_key(req, "x/m", k2);
	recs = oxi_replay_find(r, k2);
	ok(!jv_is_valid(recs), "no answer: invalid");
	jv_free(recs);
	jv_free(req);
	oxi_replay_free(r);
	f = fopen(path, "w");
	fputs("{\"type\":\"llm.request\"}\nnot json\n", f);
	fclose(f);
	ok(oxi_replay_load(path, why, sizeof why) == NULL &&
	    strstr(why, ":2: not a JSON object"), "a bad line: %s", why);
	unlink(path);
	ok(oxi_replay_load(path, why, sizeof why) == NULL,
	    "no file: %s", why);
}

int
main(void)
{
	plan(80);
	backoff();
	breaker();
	chain();
	prices();
	ledger();
	keys();
	replay();
	return done();
}
