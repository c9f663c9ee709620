/*
 * policy.c - oxi-guard tool: what a call does, the rules of the policy
 * file (jq expressions), the verdict, and the owner's approvals
 *
 * A rule's expression sees the call as
 *	{"name","args","session","taint","tainted","trust","confined",
 *	 "risk","id"}
 * where trust is the least trusted class of the taint's origins
 * ("owner", "local": the workspace or a confined command's output,
 * "external"), tainted says it is not "owner", confined that a command
 * runs in the sandbox without network, and risk is the class of
 * oxi_risk ("read", "write", "fetch", "post", "exec", "other").  The
 * built-in gate comes after the rules and does not depend on them: what
 * stays in the sandbox runs (reads, writes in the workspace, a confined
 * command); in a turn that read anything but the owner's words, a call
 * that leaves it (a command not confined, data posted, a URL fetched
 * that the tools did not show, a tool the guard does not know) waits
 * for the owner whatever the model says.  What is confined is what the
 * tool stage says in its list ("x-oxi"), never guessed from a name.
 */
#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jq.h>
#include <sodium.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/policy.h"

#define POLICY_MAX	(1 << 20)	/* bytes of a policy file */
#define STORE_MAX	(16 << 20)	/* bytes of an approval store */
#define WHAT_MAX	200		/* bytes of a call's summary */

static const char *const risknames[] = {
	"read", "write", "fetch", "post", "exec", "other"
};
static const char *const originnames[] = { "owner", "local", "external" };
/* the origins of what stays in the sandbox: the files of the workspace,
 * the output of a confined command (a command with the network says
 * "shell:network") */
static const char *const local[] = { "workspace", "shell", NULL };

/* the built-in tools of oxi-tool(1) by what they do */
static const struct {
	const char *name;
	int risk;
} known[] = {
	{ "read_file", OXI_RISK_READ },
	{ "list_dir", OXI_RISK_READ },
	{ "glob", OXI_RISK_READ },
	{ "grep", OXI_RISK_READ },
	{ "web_search", OXI_RISK_READ },
	{ "write_file", OXI_RISK_WRITE },
	{ "edit_file", OXI_RISK_WRITE },
	{ "web_fetch", OXI_RISK_FETCH },
	{ "http_request", OXI_RISK_FETCH },	/* or post: see oxi_risk */
	{ "shell", OXI_RISK_EXEC },
	{ NULL, 0 }
};

jv
oxi_policy_get(jv call, const char *key)
{
	jv v = oxi_jget(call, key);

	if (jv_is_valid(v))
		return v;
	jv_free(v);
	return jv_null();
}

const char *
oxi_risk_name(int risk)
{
	return risk >= 0 && risk <= OXI_RISK_OTHER ? risknames[risk] : "other";
}

/* 1 if v is absent, null, "" or an empty object or array */
static int
empty(jv v)
{
	int r;

	switch (jv_get_kind(v)) {
	case JV_KIND_INVALID:
	case JV_KIND_NULL:
		r = 1;
		break;
	case JV_KIND_STRING:
		r = jv_string_length_bytes(jv_copy(v)) == 0;
		break;
	case JV_KIND_OBJECT:
		r = jv_object_length(jv_copy(v)) == 0;
		break;
	case JV_KIND_ARRAY:
		r = jv_array_length(jv_copy(v)) == 0;
		break;
	default:
		r = 0;
	}
	jv_free(v);
	return r;
}

int
oxi_risk(const char *name, jv args)
{
	const char *m;
	int i;

	for (i = 0; name && known[i].name; i++)
		if (strcmp(name, known[i].name) == 0)
			break;
	if (!name || !known[i].name)
		return OXI_RISK_OTHER;
	if (strcmp(name, "http_request") != 0)
		return known[i].risk;
	/* a request carries data in its body, its headers or its method */
	m = oxi_msg_peek(args, "method");
	if (m && (strcasecmp(m, "GET") == 0 || strcasecmp(m, "HEAD") == 0 ||
	    strcasecmp(m, "OPTIONS") == 0) && empty(oxi_jget(args, "body")) &&
	    empty(oxi_jget(args, "headers")))
		return OXI_RISK_FETCH;
	return OXI_RISK_POST;
}

/*
 * The taint: oxi-guard in says how far each msg.in is trusted ("trust":
 * owner, allowlisted, external); oxi-loop(1) makes a call's taint from
 * it ("owner:cli") and the origins of what the turn's context holds
 * ("workspace", "web:https://a.org", "mcp:whois", ...): a call is free
 * of outside content only when every origin is the owner's.
 */
const char *
oxi_origin_name(int c)
{
	return c >= OXI_ORIGIN_OWNER && c <= OXI_ORIGIN_OUTSIDE ?
	    originnames[c] : "external";
}

/* the class of one origin */
static int
origin(const char *s)
{
	int i;

	if (strncmp(s, "owner:", 6) == 0)
		return OXI_ORIGIN_OWNER;
	for (i = 0; local[i]; i++)
		if (strcmp(s, local[i]) == 0)
			return OXI_ORIGIN_LOCAL;
	return OXI_ORIGIN_OUTSIDE;
}

int
oxi_taint_class(jv taint, char *out, size_t n)
{
	int i, len, c, worst = OXI_ORIGIN_OWNER;
	size_t used = 0;
	const char *s;
	jv v;

	if (n > 0)
		out[0] = '\0';
	if (jv_get_kind(taint) != JV_KIND_ARRAY) {
		snprintf(out, n, "no taint given");
		return OXI_ORIGIN_OUTSIDE;
	}
	if ((len = jv_array_length(jv_copy(taint))) == 0) {
		snprintf(out, n, "no origin given");
		return OXI_ORIGIN_OUTSIDE;
	}
	for (i = 0; i < len; i++) {
		v = jv_array_get(jv_copy(taint), i);
		s = jv_get_kind(v) == JV_KIND_STRING ? jv_string_value(v) :
		    "?";
		if ((c = origin(s)) > worst)
			worst = c;
		/* the first few, for the owner to read */
		if (c != OXI_ORIGIN_OWNER && used + strlen(s) + 2 < n &&
		    used < 160)
			used += (size_t)snprintf(out + used, n - used,
			    "%s%.80s", used ? ", " : "", s);
		jv_free(v);
	}
	return worst;
}

int
oxi_taint_outside(jv taint, char *out, size_t n)
{
	return oxi_taint_class(taint, out, n) != OXI_ORIGIN_OWNER;
}

jv
oxi_policy_facts(jv list)
{
	jv f = jv_object(), t, x;
	const char *name;
	int i, n;

	n = jv_get_kind(list) == JV_KIND_ARRAY ? jv_array_length(jv_copy(
	    list)) : 0;
	for (i = 0; i < n; i++) {
		t = jv_array_get(jv_copy(list), i);
		x = oxi_jget(t, "x-oxi");
		if ((name = oxi_msg_peek(t, "name")) && jv_get_kind(x) ==
		    JV_KIND_OBJECT)
			f = jv_object_set(f, jv_string(name), x);
		else
			jv_free(x);
		jv_free(t);
	}
	jv_free(list);
	return f;
}

/* 1 if the tool stage says of tool name (facts of oxi_policy_facts,
 * borrowed) that key is v */
static int
fact(jv tools, const char *name, const char *key, const char *v)
{
	const char *s;
	jv x;
	int r;

	if (!name || jv_get_kind(tools) != JV_KIND_OBJECT)
		return 0;
	x = jv_object_get(jv_copy(tools), jv_string(name));
	r = jv_get_kind(x) == JV_KIND_OBJECT && (s = oxi_msg_peek(x, key)) &&
	    strcmp(s, v) == 0;
	jv_free(x);
	return r;
}

/* 1 if args (borrowed) ask for the network ("network": anything but
 * false or null: the tool says what it takes) */
static int
wantsnet(jv args)
{
	jv v = oxi_jget(args, "network");
	int k = jv_get_kind(v);

	jv_free(v);
	return k != JV_KIND_INVALID && k != JV_KIND_NULL &&
	    k != JV_KIND_FALSE;
}

/* the error callback of a compiled rule: keeps the first message */
static void
jqerr(void *arg, jv msg)
{
	char *buf = arg;

	if (!buf[0] && jv_get_kind(msg) == JV_KIND_STRING) {
		/* one line: jq adds the text and a caret below */
		snprintf(buf, 200, "%s", jv_string_value(msg));
		buf[strcspn(buf, "\n")] = '\0';
	}
	else if (!buf[0] && jv_get_kind(msg) == JV_KIND_INVALID)
		snprintf(buf, 200, "invalid expression");
	jv_free(msg);
}

static int
action(const char *s, size_t n)
{
	static const char *const names[] = { "allow", "safe", "ask", "deny" };
	int i;

	for (i = 0; i < 4; i++)
		if (strlen(names[i]) == n && strncmp(s, names[i], n) == 0)
			return i;
	return -1;
}

/* adds the rule text[0..n) of line: 0, or -1 with err */
static int
addrule(struct oxi_policy *p, char *text, size_t n, unsigned long line,
    char *err, size_t errlen)
{
	char msg[200] = "";
	size_t k;
	int a;
	jq_state *jq;

	text[n] = '\0';
	k = strcspn(text, " \t");
	if ((a = action(text, k)) < 0) {
		snprintf(err, errlen, "line %lu: unknown action (want allow, "
		    "safe, ask or deny)", line);
		return -1;
	}
	text += k + strspn(text + k, " \t");
	if (!*text) {
		snprintf(err, errlen, "line %lu: no expression", line);
		return -1;
	}
	if (!(jq = jq_init())) {
		snprintf(err, errlen, "line %lu: out of memory", line);
		return -1;
	}
	jq_set_error_cb(jq, jqerr, msg);
	if (!jq_compile(jq, text)) {
		/* jq's message quotes nothing of ours but the position */
		snprintf(err, errlen, "line %lu: the expression does not "
		    "compile%s%.120s", line, msg[0] ? ": " : "", msg);
		jq_teardown(&jq);
		return -1;
	}
	jq_set_error_cb(jq, jqerr, NULL);
	p->v = xrealloc(p->v, (p->n + 1) * sizeof *p->v);
	p->v[p->n].action = a;
	p->v[p->n].line = line;
	p->v[p->n].jq = jq;
	p->n++;
	return 0;
}

/* the runtime error callback: nothing is printed (the rule fails) */
static void
quiet(void *arg, jv msg)
{
	(void)arg;
	jv_free(msg);
}

int
oxi_policy_load(struct oxi_policy *p, const char *path, char *err,
    size_t errlen)
{
	struct oxi_buf b = OXI_BUF_INIT, rule = OXI_BUF_INIT;
	unsigned long line = 0, first = 0;
	char *s, *e, *t;
	size_t n;
	int r = 0;

	if (oxi_readfile(path, &b, POLICY_MAX) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		oxi_buf_free(&b);
		return -1;
	}
	p->path = xstrdup(path);
	for (s = b.s; s && s < b.s + b.len && r == 0; s = e + 1) {
		if (!(e = memchr(s, '\n', b.s + b.len - s)))
			e = b.s + b.len;
		line++;
		n = (size_t)(e - s);
		if (n > 0 && s[n - 1] == '\r')
			n--;
		t = s + strspn(s, " \t");
		if (rule.len == 0 && (t >= s + n || *t == '#'))
			continue;
		if (rule.len == 0)
			first = line;
		if (n > 0 && s[n - 1] == '\\') {
			oxi_buf_cat(&rule, s, n - 1);
			oxi_buf_putc(&rule, ' ');
			continue;
		}
		oxi_buf_cat(&rule, s, n);
		oxi_buf_grow(&rule, 1);
		t = rule.s + strspn(rule.s, " \t");
		r = addrule(p, t, rule.len - (size_t)(t - rule.s), first, err,
		    errlen);
		oxi_buf_reset(&rule);
	}
	if (r == 0 && rule.len > 0) {
		oxi_buf_grow(&rule, 1);
		t = rule.s + strspn(rule.s, " \t");
		r = addrule(p, t, rule.len - (size_t)(t - rule.s), first, err,
		    errlen);
	}
	for (n = 0; n < p->n; n++)
		jq_set_error_cb(p->v[n].jq, quiet, NULL);
	oxi_buf_free(&rule);
	oxi_buf_free(&b);
	if (r < 0)
		oxi_policy_free(p);
	return r;
}

void
oxi_policy_free(struct oxi_policy *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		jq_state *jq = p->v[i].jq;

		jq_teardown(&jq);
	}
	free(p->v);
	free(p->path);
	p->v = NULL;
	p->n = 0;
	p->path = NULL;
}

/* 1 if the rule's expression gives true for in (borrowed), 0 if not,
 * -1 if it fails */
static int
matches(const struct oxi_rule *r, jv in)
{
	jq_state *jq = r->jq;
	jv v, m;
	int k;

	jq_start(jq, jv_copy(in), 0);
	v = jq_next(jq);
	if (!jv_is_valid(v)) {
		m = jv_invalid_get_msg(v);
		k = jv_get_kind(m) == JV_KIND_NULL ? 0 : -1;	/* empty */
		jv_free(m);
		return k;
	}
	k = jv_get_kind(v) == JV_KIND_TRUE;
	jv_free(v);
	return k;
}

void
oxi_policy_judge(const struct oxi_policy *p, jv call, jv tools,
    int (*seen)(void *, const char *), void *arg, struct oxi_verdict *v)
{
	char outside[256], read[400];
	const char *name = oxi_msg_peek(call, "name"), *url;
	jv args = oxi_policy_get(call, "args"), in;
	jv taint = oxi_policy_get(call, "taint");
	size_t i;
	int m, a = -1, net = 0;

	memset(v, 0, sizeof *v);
	v->risk = oxi_risk(name, args);
	v->trust = oxi_taint_class(taint, outside, sizeof outside);
	v->tainted = v->trust != OXI_ORIGIN_OWNER;
	if (v->risk == OXI_RISK_EXEC) {
		net = wantsnet(args);
		v->confined = !net && fact(tools, name, "sandbox", "confined");
	}
	in = JV_OBJECT(jv_string("name"), jv_string(name ? name : ""),
	    jv_string("args"), jv_copy(args), jv_string("taint"),
	    jv_copy(taint), jv_string("tainted"), jv_bool(v->tainted),
	    jv_string("trust"), jv_string(oxi_origin_name(v->trust)),
	    jv_string("confined"), jv_bool(v->confined),
	    jv_string("risk"), jv_string(oxi_risk_name(v->risk)));
	in = jv_object_set(in, jv_string("session"), oxi_policy_get(call,
	    "session"));
	in = jv_object_set(in, jv_string("id"), oxi_policy_get(call, "id"));
	for (i = 0; p && i < p->n && a < 0; i++) {
		m = matches(&p->v[i], in);
		if (m == 1 || (m < 0 && p->v[i].action >= OXI_POL_ASK)) {
			a = p->v[i].action;
			v->line = p->v[i].line;
		}
	}
	jv_free(in);
	jv_free(taint);
	if (a == OXI_POL_DENY || a == OXI_POL_ASK) {
		v->action = a;
		snprintf(v->why, sizeof v->why, "the tool policy (line %lu) "
		    "%s this call", v->line, a == OXI_POL_DENY ? "refuses" :
		    "asks the owner about");
		jv_free(args);
		return;
	}
	v->action = OXI_POL_ALLOW;
	if (!v->tainted || a == OXI_POL_SAFE) {
		jv_free(args);
		return;
	}
	snprintf(read, sizeof read, "this turn read %s (%s)", v->trust ==
	    OXI_ORIGIN_LOCAL ? "files of the workspace or a command's "
	    "output, not the owner's words" : "outside content", outside);
	switch (v->risk) {
	case OXI_RISK_EXEC:
		/* in the sandbox without network it leaves nothing */
		if (v->confined)
			break;
		if (net && fact(tools, name, "network", "asks")) {
			v->deferred = 1;
			snprintf(v->why, sizeof v->why, "it asks for the network, "
			    "and the tool stage asks the owner itself; %s",
			    read);
			break;
		}
		snprintf(v->why, sizeof v->why, "it runs a command %s, and %s",
		    net ? "with the network" : "outside the sandbox", read);
		break;
	case OXI_RISK_POST:
		snprintf(v->why, sizeof v->why, "it sends data out, and %s",
		    read);
		break;
	case OXI_RISK_OTHER:
		snprintf(v->why, sizeof v->why, "tool '%.64s' may act outside "
		    "the workspace, and %s", name ? name : "", read);
		break;
	case OXI_RISK_FETCH:
		url = oxi_msg_peek(args, "url");
		if (url && seen && seen(arg, url))
			break;
		snprintf(v->why, sizeof v->why, "it fetches a URL that no tool "
		    "showed (it may carry data), and %s", read);
		break;
	}
	if (v->why[0] && !v->deferred)
		v->action = OXI_POL_ASK;
	jv_free(args);
}

void
oxi_digest(const char *s, size_t n, char out[65])
{
	unsigned char h[32];

	crypto_generichash(h, sizeof h, (const unsigned char *)s, n, NULL, 0);
	sodium_bin2hex(out, 65, h, sizeof h);
}

/* the digest of a call: of [name,args], keys sorted */
static void
digest(jv call, char out[65])
{
	jv s = jv_dump_string(JV_ARRAY(oxi_jget(call, "name"),
	    oxi_jget(call, "args")), JV_PRINT_SORTED);

	oxi_digest(jv_string_value(s), (size_t)jv_string_length_bytes(
	    jv_copy(s)), out);
	jv_free(s);
}

/* s on one line, control characters as ' ', cut at max bytes */
static jv
oneline(const char *s, size_t max)
{
	struct oxi_buf b = OXI_BUF_INIT;
	size_t n = strlen(s), k = oxi_utf8_cut(s, n, max), i;
	jv r;

	for (i = 0; i < k; i++)
		oxi_buf_putc(&b, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ?
		    ' ' : s[i]);
	if (k < n)
		oxi_buf_cats(&b, "...");
	r = jv_string_sized(b.s ? b.s : "", (int)b.len);
	oxi_buf_free(&b);
	return r;
}

char *
oxi_approval_line(jv call, const char *why)
{
	char d[65], *line;
	const char *name = oxi_msg_peek(call, "name");
	jv a = jv_dump_string(oxi_jget(call, "args"), 0), what, l;

	digest(call, d);
	what = oneline(jv_string_value(a), WHAT_MAX);
	jv_free(a);
	what = jv_string_concat(jv_string_fmt("%s ", name ? name : "?"), what);
	l = JV_OBJECT(jv_string("digest"), jv_string(d), jv_string("guard"),
	    jv_string("tool"), jv_string("name"), jv_string(name ? name : ""),
	    jv_string("what"), what, jv_string("why"), oneline(why, 400));
	l = jv_dump_string(l, JV_PRINT_SORTED);
	line = xstrdup(jv_string_value(l));
	jv_free(l);
	return line;
}

/*
 * Looks for the line of name and digest d in the store at path, under
 * its lock; consume removes it.  1 found, 0 not.
 */
static int
lookup(const char *path, const char *name, const char *d, int consume)
{
	struct oxi_buf b = OXI_BUF_INIT, keep = OXI_BUF_INIT;
	char *p, *e;
	int fd, found = 0;
	ssize_t r;
	jv v;

	if ((fd = open(path, (consume ? O_RDWR : O_RDONLY) | O_CLOEXEC |
	    O_NOFOLLOW)) < 0)
		return 0;
	while (flock(fd, consume ? LOCK_EX : LOCK_SH) < 0)
		if (errno != EINTR)
			goto out;
	for (;;) {
		oxi_buf_grow(&b, 4096);
		r = read(fd, b.s + b.len, b.cap - b.len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || b.len + (size_t)r > STORE_MAX)
			goto out;
		if (r == 0)
			break;
		b.len += (size_t)r;
	}
	for (p = b.s; p && p < b.s + b.len; p = e + 1) {
		if (!(e = memchr(p, '\n', b.s + b.len - p)))
			e = b.s + b.len;
		if (!found && *p == '{') {
			v = oxi_json_parse(p, (size_t)(e - p));
			if (jv_get_kind(v) == JV_KIND_OBJECT &&
			    oxi_msg_peek(v, "guard") &&
			    !strcmp(oxi_msg_peek(v, "guard"), "tool") &&
			    oxi_msg_peek(v, "name") &&
			    !strcmp(oxi_msg_peek(v, "name"), name) &&
			    oxi_msg_peek(v, "digest") &&
			    !strcmp(oxi_msg_peek(v, "digest"), d))
				found = 1;
			jv_free(v);
			if (found)
				continue;
		}
		oxi_buf_cat(&keep, p, (size_t)(e - p));
		if (e < b.s + b.len)
			oxi_buf_putc(&keep, '\n');
	}
	if (found && consume && (ftruncate(fd, 0) < 0 || pwrite(fd,
	    keep.s ? keep.s : "", keep.len, 0) != (ssize_t)keep.len))
		found = 0;	/* not removed: not used either */
out:
	close(fd);
	oxi_buf_free(&b);
	oxi_buf_free(&keep);
	return found;
}

int
oxi_approval_found(jv call)
{
	const char *store = oxi_approved_path(1), *name;
	char d[65], once[4200];

	if (!store || !(name = oxi_msg_peek(call, "name")))
		return 0;
	digest(call, d);
	if (lookup(store, name, d, 0))
		return 1;
	if ((size_t)snprintf(once, sizeof once, "%s-once", store) >=
	    sizeof once)
		return 0;
	return lookup(once, name, d, 1);
}
