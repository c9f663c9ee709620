/*
 * cmdin.c - oxi-guard in: who may talk, how much, and what their text
 * may carry
 *
 * Reads records on stdin and writes them to stdout.  A msg.in goes
 * through, in order: the assistant's own echoes are dropped; the sender
 * policy (owner list, allowlist, the DM policy of its channel: a
 * stranger is dropped, offered pairing or let in as external); the rate
 * of its sender; the size of its text; Unicode hygiene (invisible
 * characters stripped and flagged); the injection rules, each warn (the
 * record is annotated) or block (a polite msg.out refusal goes back).
 * A let-in msg.in says how far it is trusted ("trust": owner,
 * allowlisted, external).  An approval.answer goes on only from the
 * owner, with its trust; every answer, passed or refused, is audited.  Other records pass on byte
 * for byte.  A scan that fails (a PCRE2 limit) blocks the message and
 * dead-letters it.  A bad line or a msg.in without its required keys:
 * one warning, a dead letter, exit status 1.  SIGHUP reloads the lists
 * and the rules; SIGTERM finishes the records already read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/in.h"

#define MAXIN_DEFAULT	16384	/* msg.in text cap in bytes */
#define RATE_DEFAULT	"20/60"	/* messages per sender per minute */
#ifndef OXI_SHAREDIR
#define OXI_SHAREDIR	"/usr/local/share/oxi"
#endif

static const char *aflag;	/* -a: allowlist entries */
static const char *mflag;	/* -m: the size limit */
static const char *oflag;	/* -o: owner entries */
static const char *pflag;	/* -p: DM policy */
static const char *rflag;	/* -r: rules file or directory */
static const char *Rflag;	/* -R: rate */
static const char *Sflag;	/* -S: the assistant's own ids */
static size_t maxbytes;		/* -m or its default */
static int injmode = 2;		/* 2 as the rules say, 1 warn only, 0 off */
static struct oxi_senders senders;
static struct oxi_rules *rules;
static struct oxi_rate rate;
static struct oxi_pair *pairdb;	/* opened when a DM policy pairs */
static struct oxi_fold clean = OXI_FOLD_INIT;	/* the text, hygiene */

/* the list from flag, else the variable, else the file; -1 if unreadable */
static int
loadlist(struct oxi_allow *a, const char *flag, const char *var,
    const char *file, const char **src, int reload)
{
	static char path[4096];
	const char *v, *dir;

	if ((v = flag) || (v = oxi_getenv(var))) {
		oxi_allow_parse(a, v, strlen(v), 0);
		*src = !flag ? var : strcmp(file, "allow") == 0 ? "-a" :
		    strcmp(file, "owner") == 0 ? "-o" : "-S";
	} else {
		if (!(dir = oxi_config_dir())) {
			if (!reload)
				oxi_diesys(OXI_EX_USAGE, "unable to find the "
				    "configuration directory");
			oxi_warnsys("unable to find the configuration "
			    "directory");
			return -1;
		}
		snprintf(path, sizeof path, "%s/%s", dir, file);
		*src = path;
		if (oxi_allow_load(a, path) < 0 && errno != ENOENT) {
			if (!reload)
				oxi_diesys(OXI_EX_USAGE, "unable to read "
				    "'%s'", path);
			oxi_warnsys("unable to read '%s'", path);
			oxi_allow_free(a);
			return -1;
		}
	}
	if (a->nbad > 0)
		oxi_warn("%s: %zu invalid entries ignored, the first '%s'",
		    *src, a->nbad, a->bad);
	return 0;
}

/* the rules from -r, $OXI_GUARD_RULES, or the shipped directory */
static struct oxi_rules *
loadrules(int reload)
{
	static char path[4096];
	struct oxi_buf err = OXI_BUF_INIT;
	struct oxi_rules *r;
	char exe[4096], *s;
	const char *v;
	ssize_t n;

	if ((v = rflag) || (v = oxi_getenv("OXI_GUARD_RULES")))
		snprintf(path, sizeof path, "%s", v);
	else if ((v = oxi_getenv("OXI_SHARE_DIR")))
		snprintf(path, sizeof path, "%s/rules", v);
	else {
		/* beside the binary (a build tree), else the installed */
		snprintf(path, sizeof path, "%s/rules", OXI_SHAREDIR);
		n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = '\0';
		if ((s = strrchr(exe, '/')) && (*s = '\0', 1) &&
		    (s = strrchr(exe, '/'))) {
			*s = '\0';
			if ((size_t)snprintf(path, sizeof path,
			    "%s/share/oxi/rules", exe) >= sizeof path ||
			    access(path, F_OK) != 0)
				snprintf(path, sizeof path, "%s/rules",
				    OXI_SHAREDIR);
		}
	}
	r = oxi_rules_new();
	if (oxi_rules_load(r, path, &err) < 0) {
		oxi_rules_free(r);
		if (!reload)
			oxi_die(OXI_EX_USAGE, "injection rules: %s", err.s);
		oxi_warn("injection rules: %s", err.s);
		oxi_buf_free(&err);
		return NULL;
	}
	oxi_buf_free(&err);
	oxi_debug("injection rules '%s': %zu rules", path,
	    oxi_rules_count(r));
	return r;
}

static void
configure(int reload)
{
	struct oxi_senders ns;
	struct oxi_rules *nr;
	const char *src = "", *asrc = "", *v, *err;
	char bad[64];

	memset(&ns, 0, sizeof ns);
	if (!reload) {
		if (mflag)
			maxbytes = oxi_sizearg(mflag, "maxbytes");
		else if ((v = oxi_getenv("OXI_GUARD_MAX_IN")))
			maxbytes = oxi_sizearg(v, "OXI_GUARD_MAX_IN");
		else
			maxbytes = MAXIN_DEFAULT;
		v = Rflag ? Rflag : oxi_getenv("OXI_GUARD_RATE");
		if (oxi_rate_parse(&rate, v ? v : RATE_DEFAULT) < 0)
			oxi_die(OXI_EX_USAGE, "bad rate '%s': N/SECONDS, N/m, "
			    "N/h or 0", v);
		v = oxi_getenv("OXI_GUARD_INJECT");
		if (v && strcmp(v, "warn") == 0)
			injmode = 1;
		else if (v && strcmp(v, "off") == 0)
			injmode = 0;
		else if (v && strcmp(v, "block") != 0)
			oxi_die(OXI_EX_USAGE, "OXI_GUARD_INJECT is block, warn "
			    "or off");
	}
	v = pflag ? pflag : oxi_getenv("OXI_DM_POLICY");
	if (v && oxi_dm_parse(&ns, v, bad, sizeof bad) < 0) {
		if (!reload)
			oxi_die(OXI_EX_USAGE, "bad DM policy '%s': allowlist, "
			    "pairing or open, for all or as CHANNEL:POLICY",
			    bad);
		oxi_warn("bad DM policy '%s': keeping the previous lists", bad);
		return;
	}
	if (loadlist(&ns.allow, aflag, "OXI_ALLOW", "allow", &asrc,
	    reload) < 0 || (ns.allow.n == 0 && (oxi_warn("allowlist %s is "
	    "empty: every sender is denied", asrc), 0)) ||
	    loadlist(&ns.owners, oflag, "OXI_OWNER", "owner", &src,
	    reload) < 0 ||
	    loadlist(&ns.self, Sflag, "OXI_GUARD_SELF", "self", &src,
	    reload) < 0) {
		oxi_warn("keeping the previous lists");
		oxi_senders_free(&ns);
		return;
	}
	nr = injmode ? loadrules(reload) : NULL;
	if (injmode && !nr) {
		oxi_warn("keeping the previous rules and lists");
		oxi_senders_free(&ns);
		return;
	}
	oxi_senders_free(&senders);
	senders = ns;
	oxi_rules_free(rules);
	rules = nr;
	if (!pairdb && (oxi_dm_of(&senders, NULL) == OXI_DM_PAIRING ||
	    strstr(v ? v : "", "pairing"))) {
		if (!(v = oxi_pair_path()) || !(pairdb = oxi_pair_open(v,
		    &err))) {
			if (!reload)
				oxi_die(oxi_errtemp(errno) ? OXI_EX_TEMP :
				    OXI_EX_USAGE, "pairing database: %s",
				    v ? err : "no state directory");
			oxi_warn("pairing database: %s", v ? err :
			    "no state directory");
		}
	}
	if (reload)
		oxi_info("reloaded allowlist %s: %zu entr%s; %zu injection "
		    "rules", asrc, senders.allow.n, senders.allow.n == 1 ? "y" :
		    "ies", rules ? oxi_rules_count(rules) : 0);
}

/* 1 if rec's key is the string v */
static int
same(jv rec, const char *key, const char *v)
{
	const char *s = oxi_msg_peek(rec, key);

	return s && strcmp(s, v) == 0;
}

/* the fields of rec that name it in the audit log: its id, channel, chat
 * and sender, and those of extra (strings, when present; never a text) */
static jv
fields(jv rec, const char *const *extra)
{
	static const char *const keys[] = { "id", "channel", "chat", NULL };
	const char *const *kp;
	const char *s;
	jv d = jv_object(), f;

	for (kp = keys; *kp; kp++)
		if ((s = oxi_msg_peek(rec, *kp)))
			d = jv_object_set(d, jv_string(*kp), jv_string(s));
	for (kp = extra; kp && *kp; kp++)
		if ((s = oxi_msg_peek(rec, *kp)))
			d = jv_object_set(d, jv_string(*kp), jv_string(s));
	f = oxi_msg_idstr(jv_object_get(jv_copy(rec), jv_string("from")));
	return jv_object_set(d, jv_string("from"), f);
}

/*
 * One decision into the audit log: the record's fields, and k: v if k.
 * 0, or -1 after a warning.
 */
static int
note(const char *event, jv rec, const char *k, const char *v)
{
	jv d = fields(rec, NULL);

	if (k)
		d = jv_object_set(d, jv_string(k), jv_string(v));
	if (oxi_audit(event, d) == 0)
		return 0;
	oxi_warnsys("unable to write the audit log");
	return -1;
}

/*
 * An approval.answer (consumed) from a sender trusted t: the owner's goes
 * on to oxi-loop, which takes it only for a pending ask of the answer's
 * own channel and chat; anyone else's is refused here.  Either way the
 * audit log says who answered what to which ask ("in.answer" or
 * "in.answer.refused"), and an owner's answer that cannot be audited is
 * dead-lettered rather than passed on: silence is a denial.
 */
static void
answered(struct oxi_stage *st, jv rec, enum oxi_trust t, const char *who)
{
	static const char *const keys[] = { "ref", "choice", NULL };
	const char *choice = oxi_msg_peek(rec, "choice");
	jv d = fields(rec, keys);

	d = jv_object_set(d, jv_string("trust"), jv_string(oxi_trust_name(t)));
	if (t != OXI_TRUST_OWNER) {
		oxi_info("refused an approval answer from %s: %s", who,
		    t == OXI_TRUST_NONE ? "not on the allowlist" :
		    "only the owner may answer");
		d = jv_object_set(d, jv_string("why"), jv_string(t ==
		    OXI_TRUST_NONE ? "not on the allowlist" :
		    "only the owner may answer"));
		if (oxi_audit("in.answer.refused", d) < 0)
			oxi_warnsys("unable to write the audit log");
		jv_free(rec);
		return;
	}
	if (oxi_audit("in.answer", d) < 0) {
		oxi_warnsys("unable to write the audit log: the answer from "
		    "%s is not passed on", who);
		oxi_stage_reject(st, "the audit log cannot be written");
		jv_free(rec);
		return;
	}
	oxi_debug("approval answer '%.16s' from %s", choice ? choice : "?",
	    who);
	if (same(rec, "trust", oxi_trust_name(t))) {
		oxi_stage_pass(st);
		jv_free(rec);
		return;
	}
	rec = jv_object_set(rec, jv_string("trust"),
	    jv_string(oxi_trust_name(t)));
	oxi_nd_out(rec);
}

/* a msg.out to rec's chat, answering id */
static void
reply(jv rec, const char *id, const char *text, const char *why)
{
	char rid[OXI_ID_LEN + 1];
	jv out;

	oxi_id_new(rid);
	out = oxi_msg_reply(rec, "msg.out");
	out = jv_object_set(out, jv_string("id"), jv_string(rid));
	out = jv_object_set(out, jv_string("in_reply_to"), jv_string(id));
	out = jv_object_set(out, jv_string("text"), jv_string(text));
	out = jv_object_set(out, jv_string("format"), jv_string("text"));
	if (why)
		out = jv_object_set(out, jv_string("guard"), jv_string(why));
	oxi_nd_out(out);
}

/* a stranger's direct message under the pairing policy */
static void
pairing(jv rec, const char *id, const char *channel, const char *from)
{
	char code[OXI_PAIR_CODELEN + 2], text[400];
	const char *name = oxi_msg_peek(rec, "from_name"),
	    *t = oxi_msg_peek(rec, "text");
	int left;

	if (!pairdb) {
		oxi_info("denied message from '%.64s' on channel '%.32s': "
		    "no pairing database", from, channel);
		return;
	}
	switch (oxi_pair_request(pairdb, channel, from, name, t ? t : "",
	    (long long)time(NULL), code, &left)) {
	case OXI_PAIR_PENDING:
		oxi_info("pairing requested by '%.64s' on channel '%.32s'",
		    from, channel);
		note("in.pairing", rec, NULL, NULL);
		snprintf(text, sizeof text, "Hello! This assistant only talks "
		    "to people its owner knows. Your pairing code is %s "
		    "(valid for 15 minutes): give it to the owner, who can "
		    "let you in. If the owner gave you a code, send it "
		    "here as: /pair CODE", code);
		reply(rec, id, text, "pairing");
		break;
	case OXI_PAIR_OK:
		oxi_info("paired '%.64s' on channel '%.32s' by invitation",
		    from, channel);
		note("in.paired", rec, "via", "invitation");
		reply(rec, id, "Thank you: you are paired and can talk to the "
		    "assistant now.", "paired");
		break;
	case OXI_PAIR_WRONG:
		oxi_info("wrong pairing code from '%.64s' on channel '%.32s'",
		    from, channel);
		note("in.pairing.wrong", rec, NULL, NULL);
		snprintf(text, sizeof text, "That code is not valid (%d "
		    "tr%s left).", left, left == 1 ? "y" : "ies");
		reply(rec, id, text, "pairing");
		break;
	case OXI_PAIR_LOCKED:
		oxi_info("pairing locked for '%.64s' on channel '%.32s'", from,
		    channel);
		note("in.pairing.locked", rec, NULL, NULL);
		break;
	case OXI_PAIR_FULL:
		oxi_warn("pairing table full: request from '%.64s' on "
		    "channel '%.32s' dropped", from, channel);
		break;
	case OXI_PAIR_QUIET:
		oxi_info("denied message from '%.64s' on channel '%.32s': "
		    "pairing pending", from, channel);
		break;
	default:
		oxi_warn("denied message from '%.64s' on channel '%.32s': "
		    "pairing database failed", from, channel);
		break;
	}
}

/* how far the sender of rec is trusted, pairing included */
static enum oxi_trust
trust(jv rec, const char *channel, const char *from)
{
	enum oxi_trust t = oxi_sender_trust(&senders, channel, from);

	if (t >= OXI_TRUST_ALLOWED || !from || !oxi_sender_isdm(rec))
		return t;
	if (pairdb && oxi_pair_known(pairdb, channel, from) > 0)
		return OXI_TRUST_ALLOWED;
	if (t == OXI_TRUST_NONE && oxi_dm_of(&senders, channel) == OXI_DM_OPEN)
		return OXI_TRUST_EXTERNAL;
	return t;
}

/* the hits of a scan as "rule rule@base64" into b */
static void
hits(const struct oxi_scan *sc, struct oxi_buf *b, jv *arr)
{
	size_t i;

	for (i = 0; i < sc->nhits; i++) {
		if (i > 0)
			oxi_buf_putc(b, ' ');
		oxi_buf_cats(b, sc->hits[i].rule);
		if (*sc->hits[i].via) {
			oxi_buf_putc(b, '@');
			oxi_buf_cats(b, sc->hits[i].via);
		}
		*arr = jv_array_append(*arr, jv_string(sc->hits[i].rule));
	}
}

/* the text of a let-in msg.in: hygiene, rules; consumes rec */
static void
judge(struct oxi_stage *st, jv rec, const char *id, const char *who,
    enum oxi_trust t)
{
	struct oxi_buf why = OXI_BUF_INIT;
	struct oxi_scan sc;
	const char *text = oxi_msg_peek(rec, "text");
	size_t len = strlen(text);
	jv g = jv_object(), names = jv_array(), fl;
	unsigned found;
	int v = OXI_INJ_CLEAN;

	memset(&sc, 0, sizeof sc);
	found = oxi_fold(&clean, text, len, 0);
	if (injmode) {
		v = oxi_inject_scan(rules, clean.out.s, clean.out.len, &sc);
		found |= sc.found;
	}
	if (v == OXI_INJ_ERROR) {
		oxi_warn("message '%.64s' from %s: %s: blocked", id, who,
		    sc.error);
		note("in.error", rec, "why", sc.error);
		reply(rec, id, "Sorry, I could not check this message, so I "
		    "will not pass it on.", "error");
		oxi_stage_reject(st, "the injection scan failed");
		goto done;
	}
	if (v == OXI_INJ_BLOCK && injmode == 1)
		v = OXI_INJ_WARN;
	hits(&sc, &why, &names);
	if (v == OXI_INJ_BLOCK) {
		oxi_info("message '%.64s' from %s blocked: %s", id, who, why.s);
		note("in.blocked", rec, "rules", why.s);
		reply(rec, id, "Sorry, I can't help with that: your message "
		    "looks like an attempt to change my instructions.",
		    "blocked");
		goto done;
	}
	if (v == OXI_INJ_WARN) {
		oxi_info("message '%.64s' from %s flagged: %s", id, who, why.s);
		/* a warning that cannot be kept is not passed on */
		if (note("in.warned", rec, "rules", why.s) < 0) {
			reply(rec, id, "Sorry, I could not check this message, "
			    "so I will not pass it on.", "error");
			oxi_stage_reject(st, "the audit log cannot be written");
			goto done;
		}
	}
	if (found & OXI_FOUND_HIDDEN)
		oxi_info("message '%.64s' from %s: %zu invisible characters "
		    "stripped", id, who, clean.nstrip);
	if (clean.nstrip == 0 && !found && v == OXI_INJ_CLEAN &&
	    same(rec, "trust", oxi_trust_name(t))) {
		oxi_stage_pass(st);
		goto done;
	}
	rec = jv_object_set(rec, jv_string("trust"),
	    jv_string(oxi_trust_name(t)));
	if (clean.nstrip > 0)
		rec = jv_object_set(rec, jv_string("text"),
		    jv_string_sized(clean.out.s, (int)clean.out.len));
	if (found || v == OXI_INJ_WARN) {
		oxi_buf_reset(&why);
		oxi_fold_names(found, &why);
		fl = jv_array();
		if (why.len > 0)
			fl = jv_string_split(jv_string(why.s), jv_string(" "));
		g = jv_object_set(g, jv_string("verdict"),
		    jv_string(v == OXI_INJ_WARN ? "warn" : "clean"));
		g = jv_object_set(g, jv_string("rules"), names);
		names = jv_null();
		g = jv_object_set(g, jv_string("flags"), fl);
		rec = jv_object_set(rec, jv_string("guard"), g);
		g = jv_null();
	}
	oxi_nd_out(rec);
	rec = jv_null();
done:
	jv_free(g);
	jv_free(names);
	jv_free(rec);
	oxi_buf_free(&why);
}

/* seconds on the monotonic clock */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the stage's callback; consumes rec */
static void
record(struct oxi_stage *st, jv rec)
{
	const char *why, *id, *channel, *from, *type = oxi_msg_type_peek(rec);
	char who[128];
	enum oxi_trust t;
	jv f;
	size_t len;
	int first, answer = strcmp(type, "approval.answer") == 0;

	if (strcmp(type, "msg.in") != 0 && !answer) {
		oxi_stage_pass(st);
		jv_free(rec);
		return;
	}
	if (!answer && oxi_msg_check(rec, &why) < 0) {
		oxi_stage_reject(st, why);
		jv_free(rec);
		return;
	}
	id = oxi_msg_peek(rec, "id");
	id = id ? id : "";
	channel = oxi_msg_peek(rec, "channel");
	f = oxi_msg_idstr(jv_object_get(jv_copy(rec), jv_string("from")));
	from = jv_get_kind(f) == JV_KIND_STRING ? jv_string_value(f) : NULL;
	snprintf(who, sizeof who, "'%.64s' on channel '%.32s'",
	    from ? from : "", channel ? channel : "");
	if (oxi_sender_self(&senders, channel, from)) {
		oxi_debug("dropped the assistant's own message '%.64s'", id);
		goto done;
	}
	t = trust(rec, channel, from);
	if (answer) {
		answered(st, rec, t, who);
		rec = jv_null();
		goto done;
	}
	if (t == OXI_TRUST_NONE) {
		if (from && oxi_sender_isdm(rec) &&
		    oxi_dm_of(&senders, channel) == OXI_DM_PAIRING)
			pairing(rec, id, channel, from);
		else {
			oxi_info("denied message from %s: not on the "
			    "allowlist", who);
			note("in.denied", rec, NULL, NULL);
		}
		goto done;
	}
	if (t != OXI_TRUST_OWNER && !oxi_rate_take(&rate, who, now(), &first)) {
		oxi_info("message '%.64s' from %s dropped: over the rate "
		    "limit", id, who);
		note("in.rate", rec, NULL, NULL);
		if (first)
			reply(rec, id, "You are sending messages faster than I "
			    "can take them; please wait a little.", "rate");
		goto done;
	}
	len = strlen(oxi_msg_peek(rec, "text"));
	if (len > maxbytes) {
		oxi_warn("message '%.64s' from %s is %zu bytes, over the limit "
		    "of %zu: refused", id, who, len, maxbytes);
		note("in.toolong", rec, NULL, NULL);
		snprintf(who, sizeof who, "Your message is too long (%zu "
		    "bytes; the limit is %zu).", len, maxbytes);
		reply(rec, id, who, NULL);
		goto done;
	}
	judge(st, rec, id, who, t);
	rec = jv_null();
done:
	jv_free(f);
	jv_free(rec);
}

static int
opt(int c, const char *arg)
{
	switch (c) {
	case 'a': aflag = arg; return 0;
	case 'm': mflag = arg; return 0;
	case 'o': oflag = arg; return 0;
	case 'p': pflag = arg; return 0;
	case 'r': rflag = arg; return 0;
	case 'R': Rflag = arg; return 0;
	case 'S': Sflag = arg; return 0;
	}
	return -1;
}

static void
done(void)
{
	oxi_senders_free(&senders);
	oxi_rules_free(rules);
	oxi_rate_free(&rate);
	oxi_pair_close(pairdb);
	oxi_fold_free(&clean);
}

int
oxi_guard_in(int argc, char *argv[])
{
	static const struct oxi_guard_filter f = {
		.usage = OXI_GUARD_IN_USAGE, .opts = "a:m:o:p:r:R:S:",
		.opt = opt, .configure = configure, .record = record,
		.done = done,
	};

	return oxi_guard_filter(&f, argc, argv);
}
