/*
 * cmdout.c - oxi-guard out: keep secrets, the canary and data in links
 * out of everything that reaches a person or a log
 *
 * Every string of every record (keys too) is judged by the leak scanner
 * (leak.c): the secrets configured, in any spelling it undoes, and what
 * the pattern rules find are replaced with "[REDACTED]"; in the texts a
 * person reads ("text", "message"), markdown links and images whose URL
 * would carry data away are removed and home paths shortened to "~".
 * A draft is cut before a tail as long as the longest encoded secret, and
 * what the drafts of one reply have shown of a secret counts against
 * the next.  A reply that shows the session's canary is blocked: its
 * drafts are dropped and the msg.out says it was withheld.  A record
 * that cannot be judged (a PCRE2 limit, an internal error) is blocked
 * and dead-lettered, never passed.  A changed record is written anew;
 * every other passes on byte for byte.  SIGHUP reloads the secrets and
 * the rules; SIGTERM finishes the records already read.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/leak.h"

#define MAXOUT_DEFAULT	65536	/* outbound text cap in bytes */
#define TRUNCATED	"\n[truncated]"
#define WITHHELD	"[This reply was withheld: it showed protected " \
			"data.]"
#define UNCHECKED	"[This reply was withheld: it could not be checked.]"
#define HOLD_MIN	64	/* bytes a draft holds back at least */
#define HOLD_PER	8	/* bytes held per byte of the longest value */
#define HOLD_MAX	16384
#define REPLIES		256	/* replies whose drafts are followed */
#define KEYRETRY_MS	1000	/* a missing canary key is looked for again */

static const char *sflag;	/* -s: secrets file */
static const char *rflag;	/* -r: rules file */
static const char *mflag;	/* -m: the size limit */
static size_t maxbytes;		/* -m or its default */
static struct oxi_secrets secrets = OXI_SECRETS_INIT;
static struct oxi_secrets exact = OXI_SECRETS_INIT;	/* too short to
							 * be found but as
							 * written */
static struct oxi_leak leak;
static struct oxi_leak_res res = OXI_LEAK_RES_INIT;
static long long keytry;	/* when the canary key was last looked for */

/* the state of one reply sent as drafts */
static struct reply {
	char *id;
	struct oxi_shown *shown;	/* what its texts showed */
	int blocked;			/* it showed the canary */
	unsigned long long used;
} replies[REPLIES];
static unsigned long long tick;

/* what one record's judgement found */
struct verdict {
	size_t nsecret, nlinks, npaths, held;
	int canary;		/* the canary was shown */
	const char *err;	/* it could not be judged */
	int draftgone;		/* the draft's text is all held back */
};

static struct reply *
replyof(const char *id, int make)
{
	int i, old = 0;

	tick++;
	for (i = 0; i < REPLIES; i++) {
		if (replies[i].id && strcmp(replies[i].id, id) == 0) {
			replies[i].used = tick;
			return &replies[i];
		}
		if (replies[i].used < replies[old].used)
			old = i;
	}
	if (!make)
		return NULL;
	free(replies[old].id);
	oxi_shown_free(replies[old].shown);
	replies[old].id = xstrdup(id);
	replies[old].shown = oxi_shown_new(leak.known);
	replies[old].blocked = 0;
	replies[old].used = tick;
	return &replies[old];
}

static void
replydrop(struct reply *r)
{
	free(r->id);
	oxi_shown_free(r->shown);
	memset(r, 0, sizeof *r);
}

static void
repliesfree(void)
{
	int i;

	for (i = 0; i < REPLIES; i++)
		replydrop(&replies[i]);
}

static void
configure(int reload)
{
	struct oxi_secrets ns = OXI_SECRETS_INIT, nx = OXI_SECRETS_INIT;
	struct oxi_srules *rules = NULL;
	struct oxi_known *known;
	const char *v, *path, *err;
	unsigned long line;
	size_t i;

	if (!reload) {
		if (mflag)
			maxbytes = oxi_sizearg(mflag, "maxbytes");
		else if ((v = oxi_getenv("OXI_GUARD_MAX_OUT")))
			maxbytes = oxi_sizearg(v, "OXI_GUARD_MAX_OUT");
		else
			maxbytes = MAXOUT_DEFAULT;
		if (maxbytes <= strlen(TRUNCATED))
			oxi_die(OXI_EX_USAGE, "maxbytes %zu leaves no room "
			    "for the truncation marker", maxbytes);
		leak.home = oxi_getenv("HOME");
	}
	if ((path = oxi_srules_path(rflag)) && !(rules = oxi_srules_load(path,
	    &err, &line))) {
		if (!reload)
			oxi_die(OXI_EX_USAGE, "secret rules '%s'%s%.0lu: %s",
			    path, line ? ", line " : "", line, err);
		oxi_warn("secret rules '%s': %s; keeping the previous rules",
		    path, err);
		return;
	}
	if (oxi_secrets_config(&ns, sflag, reload) < 0) {
		oxi_srules_free(rules);
		oxi_warn("keeping the previous secrets");
		return;
	}
	known = oxi_known_new();
	for (i = 0; i < ns.n; i++)
		if (oxi_known_add(known, ns.v[i].s, ns.v[i].len,
		    OXI_HIT_SECRET) < 0)
			oxi_secrets_add(&nx, ns.v[i].s, ns.v[i].len);
	if (nx.n > 0)
		oxi_warn("%zu secret value%s with too few letters and digits "
		    "to be found in other spellings: redacted only as "
		    "written", nx.n, nx.n == 1 ? "" : "s");
	repliesfree();
	oxi_secrets_free(&secrets);
	oxi_secrets_free(&exact);
	oxi_known_free(leak.known);
	oxi_srules_free(leak.rules);
	secrets = ns;
	exact = nx;
	leak.known = known;
	leak.rules = rules;
	if (reload)
		oxi_info("reloaded secrets: %zu value%s, %zu rule%s",
		    secrets.n, secrets.n == 1 ? "" : "s",
		    oxi_srules_count(rules), oxi_srules_count(rules) == 1 ?
		    "" : "s");
	else
		oxi_debug("secrets: %zu values, %zu rules", secrets.n,
		    oxi_srules_count(rules));
}

/* the canary set of the record's session: its "session", else the key
 * oxi-loop gives its first session (channel:account:chat[:thread]) */
static const struct oxi_known *
canaryof(jv rec)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const struct oxi_known *k;
	const char *s, *ch, *chat, *acc, *th;
	long long now = oxi_clock_ms();

	/* a reply of oxi-loop (it has a session) looks for the key at once:
	 * oxi-loop makes it before the first request; others each second */
	if (oxi_canary_load() != 1) {
		if (!oxi_msg_peek(rec, "session") && now - keytry < KEYRETRY_MS)
			return NULL;
		keytry = now;
		if (oxi_canary_load() != 1)
			return NULL;
	}
	if ((s = oxi_msg_peek(rec, "session")))
		return oxi_canary_known(s);
	if (!(ch = oxi_msg_peek(rec, "channel")) ||
	    !(chat = oxi_msg_peek(rec, "chat")))
		return NULL;
	acc = oxi_msg_peek(rec, "account");
	oxi_buf_printf(&b, "%s:%s:%s", ch, acc ? acc : "", chat);
	if ((th = oxi_msg_peek(rec, "thread")))
		oxi_buf_printf(&b, ":%s", th);
	k = oxi_canary_known(b.s);
	oxi_buf_free(&b);
	return k;
}

/*
 * Does the reply hold outside content?  As oxi-guard tool judges a call
 * (oxi(7), tool.call): yes unless every origin of its taint is the
 * owner's.  A reply without a taint (not from oxi-loop) is judged by
 * its text alone.
 */
static int
tainted(jv rec)
{
	jv t = jv_object_get(jv_copy(rec), jv_string("taint")), x;
	int i, n, r = 0;

	if (jv_get_kind(t) == JV_KIND_ARRAY) {
		n = jv_array_length(jv_copy(t));
		for (i = 0; i < n && !r; i++) {
			x = jv_array_get(jv_copy(t), i);
			r = jv_get_kind(x) != JV_KIND_STRING ||
			    strncmp(jv_string_value(x), "owner:", 6) != 0;
			jv_free(x);
		}
	} else if (jv_get_kind(t) == JV_KIND_STRING)
		r = strncmp(jv_string_value(t), "owner", 5) != 0;
	jv_free(t);
	return r;
}

static int
keyis(const char *key, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(key, *set) == 0)
			return 1;
	return 0;
}

/*
 * One string judged: a new string, or an invalid jv if unchanged.  key
 * is the object key it is the value of ("" for an array element or a
 * key itself).
 */
static jv
judge(const char *key, jv s, const struct oxi_known *canary,
    struct oxi_shown *shown, unsigned flags, struct verdict *vd)
{
	static const char *const texts[] = { "text", "message", NULL };
	static const char *const raw[] = { "path", "file", "file_id", "url",
	    "session", "taint", "mime", NULL };
	struct oxi_buf t = OXI_BUF_INIT;
	const char *p = jv_string_value(s);
	size_t n = (size_t)jv_string_length_bytes(jv_copy(s)), hold;
	int r;

	if (keyis(key, texts))
		flags |= OXI_LEAK_TEXT;
	else
		flags &= ~(OXI_LEAK_TEXT | OXI_LEAK_DRAFT);
	if (keyis(key, raw))
		flags &= ~OXI_LEAK_TEXT;
	hold = oxi_known_maxlen(leak.known);
	if (oxi_known_maxlen(canary) > hold)
		hold = oxi_known_maxlen(canary);
	hold *= HOLD_PER;
	hold = hold < HOLD_MIN ? HOLD_MIN : hold > HOLD_MAX ? HOLD_MAX : hold;
	r = oxi_leak_text(&leak, canary, shown, p, n, flags, hold, &res);
	if (r < 0) {
		vd->err = res.err;
		jv_free(s);
		return jv_invalid();
	}
	vd->nsecret += res.nsecret;
	vd->nlinks += res.nlinks;
	vd->npaths += res.npaths;
	vd->canary |= res.ncanary > 0;
	if (flags & OXI_LEAK_DRAFT) {
		vd->held += res.held;
		vd->draftgone = res.out.len == 0 && n > 0;
	}
	if (exact.n > 0 && oxi_redact(&exact, r ? res.out.s : p,
	    r ? res.out.len : n, &t) > 0) {
		vd->nsecret++;
		jv_free(s);
		s = jv_string_sized(t.s, (int)t.len);
		oxi_buf_free(&t);
		return s;
	}
	oxi_buf_free(&t);
	jv_free(s);
	if (r == 0)
		return jv_invalid();
	return jv_string_sized(res.out.s, (int)res.out.len);
}

/*
 * Every string of v judged, keys included: the new value, or an invalid
 * jv if nothing changed (v consumed either way).
 */
static jv
walk(const char *key, jv v, const struct oxi_known *canary,
    struct oxi_shown *shown, unsigned flags, struct verdict *vd, int depth)
{
	jv out, x, nx, nk;
	int i, n, changed = 0, it;

	if (vd->err)
		goto gone;
	switch (jv_get_kind(v)) {
	case JV_KIND_STRING:
		return judge(key, v, canary, shown, flags, vd);
	case JV_KIND_ARRAY:
		if (depth > OXI_JSON_DEPTH)
			goto gone;
		out = jv_copy(v);
		n = jv_array_length(jv_copy(v));
		for (i = 0; i < n; i++) {
			x = jv_array_get(jv_copy(v), i);
			nx = walk("", x, canary, shown, flags, vd, depth + 1);
			if (jv_is_valid(nx)) {
				out = jv_array_set(out, i, nx);
				changed = 1;
			}
		}
		break;
	case JV_KIND_OBJECT:
		if (depth > OXI_JSON_DEPTH)
			goto gone;
		out = jv_object();
		for (it = jv_object_iter(v); jv_object_iter_valid(v, it);
		    it = jv_object_iter_next(v, it)) {
			jv k = jv_object_iter_key(v, it);

			x = jv_object_iter_value(v, it);
			nk = judge("", jv_copy(k), canary, NULL, 0, vd);
			nx = walk(jv_string_value(k), x, canary, shown, flags,
			    vd, depth + 1);
			if (jv_is_valid(nk) || jv_is_valid(nx))
				changed = 1;
			if (!jv_is_valid(nx)) {
				jv_free(nx);
				nx = jv_object_get(jv_copy(v), jv_copy(k));
			}
			if (jv_is_valid(nk)) {
				jv_free(k);
				k = nk;
			} else
				jv_free(nk);
			out = jv_object_set(out, k, nx);
		}
		break;
	default:
		jv_free(v);
		return jv_invalid();
	}
	jv_free(v);
	if (changed && !vd->err)
		return out;
	jv_free(out);
	return jv_invalid();
gone:
	jv_free(v);
	return jv_invalid();
}

/* rec with its text replaced (the size cap applied): consumed */
static jv
settext(jv rec, const char *key, const char *s, size_t len)
{
	struct oxi_buf t = OXI_BUF_INIT;

	if (len > maxbytes) {
		len = oxi_utf8_cut(s, len, maxbytes - strlen(TRUNCATED));
		oxi_buf_cat(&t, s, len);
		oxi_buf_cats(&t, TRUNCATED);
	} else
		oxi_buf_cat(&t, s, len);
	rec = jv_object_set(rec, jv_string(key), jv_string_sized(t.s ? t.s :
	    "", (int)t.len));
	oxi_buf_free(&t);
	return rec;
}

/* the size cap on the text of a record about to go out */
static jv
cap(jv rec, const char *type, const char *id, int *changed)
{
	jv t = jv_object_get(jv_copy(rec), jv_string("text"));
	size_t len;

	if (jv_get_kind(t) == JV_KIND_STRING &&
	    (len = (size_t)jv_string_length_bytes(jv_copy(t))) > maxbytes) {
		oxi_info("%s '%.64s': text of %zu bytes cut to %zu", type, id,
		    len, maxbytes);
		rec = settext(rec, "text", jv_string_value(t), len);
		*changed = 1;
	}
	jv_free(t);
	return rec;
}

static void
report(const char *type, const char *id, const struct verdict *vd)
{
	struct oxi_buf b = OXI_BUF_INIT;

	if (vd->nsecret)
		oxi_buf_printf(&b, ", redacted %zu secret%s", vd->nsecret,
		    vd->nsecret == 1 ? "" : "s");
	if (vd->nlinks)
		oxi_buf_printf(&b, ", removed %zu link%s", vd->nlinks,
		    vd->nlinks == 1 ? "" : "s");
	if (vd->npaths)
		oxi_buf_printf(&b, ", shortened %zu home path%s", vd->npaths,
		    vd->npaths == 1 ? "" : "s");
	if (b.len)
		oxi_info("%s '%.64s': %s", type, id, b.s + 2);
	if (vd->held)
		oxi_debug("%s '%.64s': held back the last %zu bytes", type,
		    id, vd->held);
	oxi_buf_free(&b);
}

/*
 * A decision in the audit log (oxi-guard(1), AUDIT LOG): the record's
 * type and id as they go out and what was found, never a value.  0, or
 * -1 when it cannot be written: the caller fails closed.
 */
static int
audit(const char *event, const char *type, const char *id,
    const struct verdict *vd)
{
	jv d = jv_object();

	d = jv_object_set(d, jv_string("type"), jv_string(type));
	d = jv_object_set(d, jv_string("id"), jv_string(id));
	if (vd->err)
		d = jv_object_set(d, jv_string("why"), jv_string(vd->err));
	else if (vd->canary)
		d = jv_object_set(d, jv_string("why"), jv_string("canary"));
	d = jv_object_set(d, jv_string("secrets"), jv_number(vd->nsecret));
	d = jv_object_set(d, jv_string("links"), jv_number(vd->nlinks));
	d = jv_object_set(d, jv_string("paths"), jv_number(vd->npaths));
	if (oxi_audit(event, d) < 0) {
		oxi_warnsys("%s '%.64s': unable to write the audit log", type,
		    id);
		return -1;
	}
	return 0;
}

/* the stage's callback; consumes rec */
static void
record(struct oxi_stage *st, jv rec)
{
	struct verdict vd;
	struct reply *rp = NULL;
	const struct oxi_known *canary;
	const char *type, *why, *id;
	char idbuf[80];
	jv nrec, idv;
	int out = 0, draft = 0, changed;
	unsigned flags = 0;

	memset(&vd, 0, sizeof vd);
	type = oxi_msg_type_peek(rec);
	if (strcmp(type, "msg.out") == 0 || strcmp(type, "msg.draft") == 0) {
		if (oxi_msg_check(rec, &why) < 0) {
			oxi_stage_reject(st, why);
			goto done;
		}
		out = 1;
		draft = type[4] == 'd';
	}
	canary = canaryof(rec);
	if (tainted(rec))
		flags |= OXI_LEAK_TAINT;
	if (out && (id = oxi_msg_peek(rec, "id"))) {
		rp = replyof(id, draft);
		if (draft)
			flags |= OXI_LEAK_DRAFT;
	}
	nrec = walk("", jv_copy(rec), canary, rp ? rp->shown : NULL, flags,
	    &vd, 0);
	changed = jv_is_valid(nrec);
	if (!changed) {
		jv_free(nrec);
		nrec = jv_copy(rec);
	}
	/* the id as it goes out, for the lines below */
	idv = jv_object_get(jv_copy(nrec), jv_string(type[0] == 'e' ?
	    "ref" : "id"));
	snprintf(idbuf, sizeof idbuf, "%s", jv_get_kind(idv) ==
	    JV_KIND_STRING ? jv_string_value(idv) : "");
	jv_free(idv);
	if (vd.err) {
		/* fail closed: the record goes to the dead letters only */
		audit("out.unchecked", type, idbuf, &vd);
		oxi_stage_reject(st, vd.err);
		if (out && !draft) {
			nrec = settext(nrec, "text", UNCHECKED,
			    strlen(UNCHECKED));
			oxi_nd_out(nrec);
			nrec = jv_null();
		}
		if (rp)
			rp->blocked = 1;
		goto gone;
	}
	if (vd.canary || (rp && rp->blocked)) {
		if (vd.canary)
			oxi_warn("%s '%.64s' shows the session's canary (the "
			    "system prompt leaked): blocked", type, idbuf);
		if ((vd.canary && !(rp && rp->blocked)) || (!draft &&
		    !vd.canary)) {
			if (audit("out.blocked", type, idbuf, &vd) < 0) {
				oxi_stage_reject(st, "the audit log cannot "
				    "be written");
				goto gone;
			}
		}
		if (rp)
			rp->blocked = 1;
		if (draft || strcmp(type, "status") == 0)
			goto gone;
		idv = jv_object_get(jv_copy(nrec), jv_string(type[0] == 'e' ?
		    "message" : "text"));
		if (jv_get_kind(idv) == JV_KIND_STRING)
			nrec = settext(nrec, type[0] == 'e' ? "message" :
			    "text", WITHHELD, strlen(WITHHELD));
		jv_free(idv);
		changed = 1;
	}
	report(type, idbuf, &vd);
	if (!draft && !vd.canary && !(rp && rp->blocked) && (vd.nsecret ||
	    vd.nlinks || vd.npaths) && audit("out.redacted", type, idbuf,
	    &vd) < 0) {
		oxi_stage_reject(st, "the audit log cannot be written");
		goto gone;
	}
	if (draft && vd.draftgone)
		goto gone;	/* nothing of it may show yet */
	nrec = cap(nrec, type, idbuf, &changed);
	if (out && !draft && rp)
		replydrop(rp);
	if (changed)
		oxi_nd_out(nrec);
	else {
		jv_free(nrec);
		oxi_stage_pass(st);
	}
	goto done;
gone:
	if (out && !draft && rp)
		replydrop(rp);
	jv_free(nrec);
done:
	jv_free(rec);
}

/*
 * A broken outbound line, or a record of ours without its keys
 * (oxi_stage_reject), must not carry a secret into the dead letters:
 * the line is judged as a text, JSON escapes and all.
 */
static int
dlq_redact(const char *data, size_t len, struct oxi_buf *out)
{
	struct oxi_leak_res r = OXI_LEAK_RES_INIT;
	int rc;

	rc = oxi_leak_text(&leak, NULL, NULL, data, len, 0, 0, &r);
	oxi_buf_reset(out);
	if (rc < 0)
		oxi_buf_cats(out, "[withheld: it could not be checked]");
	else if (rc > 0)
		oxi_buf_cat(out, r.out.s, r.out.len);
	if (exact.n > 0 && oxi_redact(&exact, rc > 0 ? r.out.s : data,
	    rc > 0 ? r.out.len : len, out) > 0)
		rc = 1;
	oxi_leak_res_free(&r);
	return rc != 0;
}

static int
opt(int c, const char *arg)
{
	switch (c) {
	case 's': sflag = arg; return 0;
	case 'r': rflag = arg; return 0;
	case 'm': mflag = arg; return 0;
	}
	return -1;
}

static void
done(void)
{
	repliesfree();
	oxi_secrets_free(&secrets);
	oxi_secrets_free(&exact);
	oxi_known_free(leak.known);
	oxi_srules_free(leak.rules);
	oxi_leak_res_free(&res);
	oxi_canary_free();
}

int
oxi_guard_out(int argc, char *argv[])
{
	static const struct oxi_guard_filter f = {
		.usage = OXI_GUARD_OUT_USAGE, .opts = "m:r:s:", .opt = opt,
		.configure = configure, .record = record, .done = done,
	};

	oxi_deadletter_filter = dlq_redact;
	return oxi_guard_filter(&f, argc, argv);
}
