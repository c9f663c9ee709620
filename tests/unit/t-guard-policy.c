/* t-guard-policy.c - oxi-guard tool's verdicts: risk classes, the taint
 * gate, policy rules in jq (and their failures, closed), approvals */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/policy.h"
#include "tap.h"

static char dir[512];

static jv
call(const char *name, const char *args, const char *taint)
{
	char b[4096];

	snprintf(b, sizeof b, "{\"v\":1,\"type\":\"tool.call\",\"id\":\"c1\","
	    "\"name\":\"%s\",\"args\":%s,\"session\":\"s\",\"taint\":%s}",
	    name, args, taint);
	return oxi_json_parse(b, strlen(b));
}

/* the risk class of an http_request with args a */
static const char *
RISK(const char *a)
{
	jv c = oxi_json_parse(a, strlen(a));
	int r = oxi_risk("http_request", c);

	jv_free(c);
	return oxi_risk_name(r);
}

#define PARSE(s)	oxi_json_parse((s), strlen(s))

static const char *seentext = "";
static jv facts;	/* what the tool stage says of its tools */

static int
seen(void *arg, const char *s)
{
	(void)arg;
	return strstr(seentext, s) != NULL;
}

/* the verdict's action on a call, under pol (may be NULL) */
static int
judge(const struct oxi_policy *pol, const char *name, const char *args,
    const char *taint, struct oxi_verdict *v)
{
	jv c = call(name, args, taint);

	oxi_policy_judge(pol, c, facts, seen, NULL, v);
	jv_free(c);
	return v->action;
}

static int
act(const struct oxi_policy *pol, const char *name, const char *args,
    const char *taint)
{
	struct oxi_verdict v;

	return judge(pol, name, args, taint, &v);
}

/* loads the rules of text: 0 or -1 with err */
static int
load(struct oxi_policy *p, const char *text, char *err, size_t n)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof path, "%s/policy", dir);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return oxi_policy_load(p, path, err, n);
}

#define OWN	"[\"owner:cli\"]"
#define WEB	"[\"owner:cli\",\"web:https://a.org\"]"

int
main(void)
{
	struct oxi_policy p = OXI_POLICY_INIT;
	struct oxi_verdict v;
	char err[300], buf[800], path[700], *line;
	const char *t = getenv("TMPDIR");
	jv c;
	FILE *f;

	plan(80);
	oxi_prog = "t-guard-policy";
	snprintf(dir, sizeof dir, "%s/t-guard-policy.%ld", t ? t : "/tmp",
	    (long)getpid());
	mkdir(dir, 0700);

	/* what a call does */
	c = PARSE("{}");
	is_str(oxi_risk_name(oxi_risk("read_file", c)), "read", "read_file reads");
	is_str(oxi_risk_name(oxi_risk("grep", c)), "read", "grep reads");
	is_str(oxi_risk_name(oxi_risk("write_file", c)), "write",
	    "write_file writes in the workspace");
	is_str(oxi_risk_name(oxi_risk("shell", c)), "exec", "shell runs");
	is_str(oxi_risk_name(oxi_risk("web_fetch", c)), "fetch", "web_fetch "
	    "fetches");
	is_str(oxi_risk_name(oxi_risk("whois__send", c)), "other", "an MCP "
	    "tool is unknown");
	is_str(oxi_risk_name(oxi_risk(NULL, c)), "other", "no name: unknown");
	jv_free(c);
	is_str(RISK("{\"method\":\"GET\",\"url\":\"u\"}"), "fetch",
	    "http_request GET fetches");
	is_str(RISK("{\"method\":\"head\",\"url\":\"u\",\"body\":\"\"}"),
	    "fetch", "HEAD with an empty body fetches");
	is_str(RISK("{\"method\":\"POST\",\"url\":\"u\"}"), "post",
	    "POST posts");
	is_str(RISK("{\"method\":\"GET\",\"url\":\"u\",\"body\":\"x\"}"),
	    "post", "a GET with a body posts");
	is_str(RISK("{\"method\":\"GET\",\"url\":\"u\",\"headers\":"
	    "{\"X-D\":\"x\"}}"), "post", "a GET with headers posts");
	is_str(RISK("{\"url\":\"u\"}"), "post", "no method: posts");

	/* the taint */
	c = oxi_json_parse(OWN, strlen(OWN));
	ok(!oxi_taint_outside(c, buf, sizeof buf), "the owner's alone: clean");
	jv_free(c);
	c = oxi_json_parse(WEB, strlen(WEB));
	ok(oxi_taint_outside(c, buf, sizeof buf) && !strcmp(buf,
	    "web:https://a.org"), "a web origin: outside, named");
	jv_free(c);
	c = PARSE("[\"user:cli\"]");
	ok(oxi_taint_outside(c, buf, sizeof buf), "a message not the owner's "
	    "is outside");
	jv_free(c);
	c = PARSE("[]");
	ok(oxi_taint_outside(c, buf, sizeof buf), "no origin at all counts "
	    "as outside");
	jv_free(c);
	ok(oxi_taint_outside(jv_null(), buf, sizeof buf), "no taint at all "
	    "counts as outside");

	/* the classes of origins */
	c = PARSE("[\"owner:cli\",\"workspace\",\"shell\"]");
	ok(oxi_taint_class(c, buf, sizeof buf) == OXI_ORIGIN_LOCAL &&
	    !strcmp(buf, "workspace, shell"), "the workspace and a confined "
	    "command's output are local: %s", buf);
	jv_free(c);
	c = PARSE("[\"owner:cli\",\"shell:network\"]");
	is_int(oxi_taint_class(c, buf, sizeof buf), OXI_ORIGIN_OUTSIDE,
	    "a command with the network is outside");
	jv_free(c);
	c = PARSE("[\"workspace\",\"allowlisted:telegram\"]");
	is_int(oxi_taint_class(c, buf, sizeof buf), OXI_ORIGIN_OUTSIDE,
	    "someone else's message is outside");
	jv_free(c);
	c = PARSE("[\"workspace:x\",\"owner\"]");
	is_int(oxi_taint_class(c, buf, sizeof buf), OXI_ORIGIN_OUTSIDE,
	    "look-alikes of local and owner origins are outside");
	jv_free(c);

	/* the gate without rules, and a tool stage that says nothing */
	facts = jv_object();
	is_int(act(NULL, "shell", "{\"command\":\"ls\"}", OWN), OXI_POL_ALLOW,
	    "untainted shell runs");
	is_int(judge(NULL, "shell", "{\"command\":\"ls\"}", WEB, &v),
	    OXI_POL_ASK, "tainted shell not said to be confined is asked");
	ok(strstr(v.why, "outside the sandbox") && strstr(v.why,
	    "web:https://a.org"), "saying why: %s", v.why);
	ok(!strstr(v.why, "ls"), "...never the arguments");
	ok(!v.confined, "...not confined");
	/* a tool stage whose shell is confined and asks before the network */
	jv_free(facts);
	c = PARSE("[{\"name\":\"shell\",\"x-oxi\":{\"sandbox\":"
	    "\"confined\",\"network\":\"asks\"}},{\"name\":\"read_file\"}]");
	facts = oxi_policy_facts(c);
	is_int(judge(NULL, "shell", "{\"command\":\"ls -la | wc -l\"}", WEB,
	    &v), OXI_POL_ALLOW, "a confined shell runs in a tainted turn");
	ok(v.confined && !v.deferred && !v.why[0], "...confined, nothing to say");
	is_int(judge(NULL, "shell", "{\"command\":\"ls\"}", "[\"owner:cli\","
	    "\"workspace\"]", &v), OXI_POL_ALLOW, "...and after the workspace");
	is_int(judge(NULL, "shell", "{\"command\":\"curl x\",\"network\":"
	    "true}", WEB, &v), OXI_POL_ALLOW, "a shell with the network in a "
	    "tainted turn goes to the tool stage, which asks");
	ok(v.deferred && !v.confined && strstr(v.why, "asks the owner "
	    "itself"), "...deferred: %s", v.why);
	is_int(judge(NULL, "shell", "{\"command\":\"x\",\"network\":\"yes\"}",
	    WEB, &v), OXI_POL_ALLOW, "any network value but false is the "
	    "network");
	ok(v.deferred, "...deferred too");
	is_int(judge(NULL, "shell", "{\"command\":\"x\",\"network\":true}",
	    OWN, &v), OXI_POL_ALLOW, "untainted: allowed");
	ok(!v.deferred, "...not deferred (the tool stage asks all the same)");
	jv_free(facts);
	c = PARSE("[{\"name\":\"shell\",\"x-oxi\":{\"sandbox\":"
	    "\"none\",\"network\":\"asks\"}}]");
	facts = oxi_policy_facts(c);
	is_int(judge(NULL, "shell", "{\"command\":\"ls\"}", "[\"owner:cli\","
	    "\"workspace\"]", &v), OXI_POL_ASK, "a shell run unconfined "
	    "(unsafe mode) is asked after the workspace");
	ok(strstr(v.why, "outside the sandbox") && strstr(v.why, "files of "
	    "the workspace"), "...saying what was read: %s", v.why);
	jv_free(facts);
	c = PARSE("[{\"name\":\"shell\",\"x-oxi\":{\"sandbox\":"
	    "\"confined\"}}]");
	facts = oxi_policy_facts(c);
	is_int(judge(NULL, "shell", "{\"command\":\"x\",\"network\":true}",
	    WEB, &v), OXI_POL_ASK, "a stage that does not ask before the "
	    "network: the guard asks");
	ok(strstr(v.why, "with the network") != NULL, "...%s", v.why);
	is_int(act(NULL, "http_request", "{\"method\":\"POST\",\"url\":\"u\"}",
	    "[\"owner:cli\",\"workspace\"]"), OXI_POL_ASK, "data posted "
	    "after reading the workspace is asked");
	jv_free(facts);
	facts = oxi_policy_facts(PARSE("{}"));
	is_int(jv_object_length(jv_copy(facts)), 0, "a list that is not an "
	    "array says nothing");
	is_int(act(NULL, "read_file", "{\"path\":\"x\"}", WEB), OXI_POL_ALLOW,
	    "a tainted read runs");
	is_int(act(NULL, "write_file", "{\"path\":\"x\",\"content\":\"y\"}",
	    WEB), OXI_POL_ALLOW, "a tainted write in the workspace runs");
	is_int(act(NULL, "http_request", "{\"method\":\"POST\",\"url\":\"u\"}",
	    WEB), OXI_POL_ASK, "a tainted post is asked");
	is_int(act(NULL, "mcp__send", "{}", WEB), OXI_POL_ASK, "a tainted "
	    "unknown tool is asked");
	is_int(act(NULL, "mcp__send", "{}", OWN), OXI_POL_ALLOW, "an untainted "
	    "unknown tool runs");
	seentext = "see https://a.org/next for more";
	is_int(act(NULL, "web_fetch", "{\"url\":\"https://a.org/next\"}", WEB),
	    OXI_POL_ALLOW, "a tainted fetch of a URL a tool showed runs");
	is_int(act(NULL, "web_fetch", "{\"url\":\"https://a.org/next?d=key\"}",
	    WEB), OXI_POL_ASK, "a URL built on it is asked");
	is_int(act(NULL, "web_fetch", "{}", WEB), OXI_POL_ASK, "a fetch "
	    "without url is asked");

	/* rules */
	ok(load(&p, "# rules\n\nallow .name == \"x\"\nbogus .a\n", err,
	    sizeof err) < 0 && strstr(err, "line 4: unknown action"),
	    "an unknown action names its line: %s", err);
	ok(load(&p, "deny .name ==\n", err, sizeof err) < 0 &&
	    strstr(err, "line 1: the expression does not compile"),
	    "a bad expression names its line: %s", err);
	ok(load(&p, "ask\n", err, sizeof err) < 0 && strstr(err,
	    "no expression"), "an action without an expression is refused");
	is_int(load(&p, "# comment\n"
	    "deny .name == \"shell\" and (.args.command | test(\"rm -rf\"))\n"
	    "ask .name == \"write_file\" and \\\n"
	    "    (.args.path | startswith(\".git/\"))\n"
	    "safe .name == \"mcp__whois\"\n"
	    "allow .risk == \"exec\" and .tainted\n"
	    "deny .args.n | . > 3\n"
	    "allow .args.m | . + 1 > 2\n", err, sizeof err), 0,
	    "a policy of six rules, one on two lines, loads");
	is_int(p.n, 6, "six rules");
	is_int(judge(&p, "shell", "{\"command\":\"rm -rf /\"}", OWN, &v),
	    OXI_POL_DENY, "deny wins in a clean turn");
	is_int(v.line, 2, "the rule is named by its line");
	is_int(judge(&p, "write_file", "{\"path\":\".git/config\","
	    "\"content\":\"\"}", OWN, &v), OXI_POL_ASK, "ask asks in a clean "
	    "turn");
	is_int(v.line, 3, "...the rule on two lines, by its first");
	is_int(act(&p, "write_file", "{\"path\":\"a\",\"content\":\"\"}", OWN),
	    OXI_POL_ALLOW, "no rule: allowed");
	is_int(act(&p, "mcp__whois", "{}", WEB), OXI_POL_ALLOW, "safe: runs "
	    "in a tainted turn");
	is_int(act(&p, "shell", "{\"command\":\"ls\"}", WEB), OXI_POL_ASK,
	    "allow does not open the taint gate");
	is_int(act(&p, "shell", "{\"command\":\"ls\"}", OWN), OXI_POL_ALLOW,
	    "...which an untainted turn does not meet");
	is_int(judge(&p, "x", "{\"n\":\"a\"}", OWN, &v), OXI_POL_DENY,
	    "a deny rule that fails counts as matching (fail closed)");
	is_int(v.line, 7, "...that rule");
	is_int(act(&p, "x", "{\"m\":\"a\"}", OWN), OXI_POL_ALLOW,
	    "an allow rule that fails does not match");
	is_int(act(&p, "x", "{\"m\":\"a\"}", WEB), OXI_POL_ASK,
	    "...and the gate still holds the unknown tool");
	oxi_policy_free(&p);
	/* the man page's rule: the workspace and confined commands' output
	 * as trusted as the owner's words, for calls that leave the sandbox */
	is_int(load(&p, "safe .trust == \"local\"\n", err, sizeof err), 0,
	    "the rule on trust loads");
	is_int(act(&p, "http_request", "{\"method\":\"POST\",\"url\":\"u\"}",
	    "[\"owner:cli\",\"shell\",\"workspace\"]"), OXI_POL_ALLOW,
	    "a rule may trust the workspace and commands' output");
	is_int(act(&p, "http_request", "{\"method\":\"POST\",\"url\":\"u\"}",
	    "[\"owner:cli\",\"workspace\",\"web:https://a.org\"]"),
	    OXI_POL_ASK, "...not a web page");
	is_int(act(&p, "http_request", "{\"method\":\"POST\",\"url\":\"u\"}",
	    "[\"owner:cli\",\"shell:network\"]"), OXI_POL_ASK, "...nor a "
	    "command with the network");
	oxi_policy_free(&p);
	/* the rules see trust and confined */
	load(&p, "deny .confined and .trust == \"external\"\n", err,
	    sizeof err);
	jv_free(facts);
	facts = oxi_policy_facts(PARSE("[{\"name\":\"shell\","
	    "\"x-oxi\":{\"sandbox\":\"confined\"}}]"));
	is_int(act(&p, "shell", "{\"command\":\"ls\"}", WEB), OXI_POL_DENY,
	    "a rule sees .confined and .trust");
	is_int(act(&p, "shell", "{\"command\":\"ls\"}", "[\"owner:cli\","
	    "\"workspace\"]"), OXI_POL_ALLOW, "...and tells local from external");
	oxi_policy_free(&p);
	jv_free(facts);

	/* approvals */
	snprintf(path, sizeof path, "%s/guard-approved", dir);
	setenv("OXI_GUARD_APPROVED", path, 1);
	c = call("shell", "{\"command\":\"ls\",\"cwd\":\".\"}", WEB);
	line = oxi_approval_line(c, "it runs a command\n(and more)");
	ok(strstr(line, "\"guard\":\"tool\"") && strstr(line, "\"name\":"
	    "\"shell\"") && strstr(line, "\"digest\":\"") && strstr(line,
	    "\"what\":\"shell {") && !strchr(line, '\n'), "the approval line: "
	    "%s", line);
	ok(!oxi_approval_found(c), "no store: not approved");
	snprintf(buf, sizeof buf, "%s-once", path);
	f = fopen(buf, "w");
	fprintf(f, "# a comment\n%s\nnot json\n", line);
	fclose(f);
	ok(oxi_approval_found(c), "the -once store approves it");
	ok(!oxi_approval_found(c), "...once");
	{
		struct oxi_buf b = OXI_BUF_INIT;

		oxi_readfile(buf, &b, 1 << 20);
		is_str(b.s, "# a comment\nnot json\n", "the other lines stay");
		oxi_buf_free(&b);
	}
	f = fopen(path, "w");
	fprintf(f, "%s\n", line);
	fclose(f);
	ok(oxi_approval_found(c) && oxi_approval_found(c), "the store approves "
	    "it every time");
	jv_free(c);
	c = call("shell", "{\"command\":\"ls \",\"cwd\":\".\"}", WEB);
	ok(!oxi_approval_found(c), "a call one byte apart is not approved");
	jv_free(c);
	free(line);

	unlink(path);
	unlink(buf);
	snprintf(path, sizeof path, "%s/policy", dir);
	unlink(path);
	rmdir(dir);
	return done();
}
