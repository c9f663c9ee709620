/*
 * oxi-guard - let in only allowed senders; keep secrets out of replies
 *
 * oxi-guard in: reads records on stdin and writes them to stdout.  A
 * msg.in from a sender not on the allowlist is dropped with one info
 * line on stderr; one whose text is longer than -m bytes is answered
 * with a msg.out refusal instead of being passed on.  Accepted msg.in
 * lines and every other record pass on byte for byte.
 *
 * oxi-guard out: replaces each known secret value in the "text" of
 * msg.out, msg.draft, status and approval.ask records and in the "message" of
 * error records with "[REDACTED]", holds back the end of a draft that
 * could be the start of a secret, and cuts texts longer than -m bytes.
 * Changed records are written anew; all others pass on byte for byte.
 *
 * A bad line, or a msg.in (in) / msg.out or msg.draft (out) without its
 * required keys: one warning, a dead letter, exit status 1.  SIGHUP
 * reloads the allowlist or the secrets; SIGTERM finishes the records
 * already read and exits 0.  -d fd: readiness once configured.
 * exit: 0 ok, 1 some records rejected, 100 usage or configuration,
 * 111 i/o error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"

#define USAGE	"oxi-guard [-v] [-d fd] [-l maxline] [-a allow] " \
		"[-m maxbytes] [-s secrets] in | out"

#define MAXIN_DEFAULT	16384	/* msg.in text cap in bytes */
#define MAXOUT_DEFAULT	65536	/* outbound text cap in bytes */
#define TRUNCATED	"\n[truncated]"

static const char *aflag;	/* -a: allowlist entries */
static const char *sflag;	/* -s: secrets file */
static int outmode;		/* 0: in, 1: out */
static size_t maxbytes;		/* -m or its default */
static struct oxi_stage stage;	/* stdin, exit status */
static struct oxi_allow allow = OXI_ALLOW_INIT;
static struct oxi_secrets secrets = OXI_SECRETS_INIT;
static struct oxi_buf red = OXI_BUF_INIT;	/* redacted text, reused */

/*
 * Builds the allowlist from -a, else $OXI_ALLOW, else the allow file.
 * A file it cannot read is fatal at start-up; on reload, -1 after a
 * warning, with *a emptied.
 */
static int
loadallow(struct oxi_allow *a, const char **src, int reload)
{
	static char path[4096];
	const char *v, *dir;

	if (aflag) {
		oxi_allow_parse(a, aflag, strlen(aflag), 0);
		*src = "-a";
	} else if ((v = oxi_getenv("OXI_ALLOW"))) {
		oxi_allow_parse(a, v, strlen(v), 0);
		*src = "OXI_ALLOW";
	} else {
		if (!(dir = oxi_config_dir())) {
			if (!reload)
				oxi_diesys(OXI_EX_USAGE, "unable to find the "
				    "configuration directory");
			oxi_warnsys("unable to find the configuration "
			    "directory");
			return -1;
		}
		snprintf(path, sizeof path, "%s/allow", dir);
		*src = path;
		if (oxi_allow_load(a, path) < 0 && errno != ENOENT) {
			if (!reload)
				oxi_diesys(OXI_EX_USAGE, "unable to read "
				    "allowlist '%s'", path);
			oxi_warnsys("unable to read allowlist '%s'", path);
			oxi_allow_free(a);
			return -1;
		}
	}
	if (a->nbad > 0)
		oxi_warn("allowlist %s: %zu invalid entries ignored, "
		    "the first '%s'", *src, a->nbad, a->bad);
	if (a->n == 0)
		oxi_warn("allowlist %s is empty: every sender is denied", *src);
	return 0;
}

/*
 * Builds the secret set from -s or $OXI_SECRETS_FILE, plus the variables
 * named in $OXI_REDACT_ENV.  A file it cannot read is fatal at start-up;
 * on reload, -1 after a warning, with *sec emptied.
 */
static int
loadsecrets(struct oxi_secrets *sec, int reload)
{
	const char *file, *names, *p, *val;
	char name[256];
	size_t n, nshort;
	unsigned long first;

	file = sflag ? sflag : oxi_getenv("OXI_SECRETS_FILE");
	if (file) {
		if (oxi_secrets_load(sec, file, &nshort, &first) < 0) {
			if (!reload)
				oxi_diesys(OXI_EX_USAGE, "unable to read "
				    "secrets file '%s'", file);
			oxi_warnsys("unable to read secrets file '%s'", file);
			oxi_secrets_free(sec);
			return -1;
		}
		if (nshort > 0)
			oxi_warn("secrets file '%s': ignored %zu value%s "
			    "shorter than %d bytes (first on line %lu)", file,
			    nshort, nshort == 1 ? "" : "s", OXI_SECRET_MIN,
			    first);
	}
	names = oxi_getenv("OXI_REDACT_ENV");
	for (p = names ? names : ""; *p; p += n) {
		n = strcspn(p, " \t\n,");
		if (n == 0) {
			n = 1;
			continue;
		}
		if (n >= sizeof name) {
			oxi_warn("OXI_REDACT_ENV: variable name too long");
			continue;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (!(val = oxi_getenv(name)))
			oxi_warn("OXI_REDACT_ENV: variable '%s' is not set",
			    name);
		else if (oxi_secrets_add(sec, val, strlen(val)) == 1)
			oxi_warn("OXI_REDACT_ENV: variable '%s' is shorter "
			    "than %d bytes, ignored", name, OXI_SECRET_MIN);
	}
	if (sec->n == 0)
		oxi_debug("no secrets configured: nothing to redact");
	return 0;
}

static void
configure(int reload)
{
	struct oxi_allow na = OXI_ALLOW_INIT;
	struct oxi_secrets ns = OXI_SECRETS_INIT;
	const char *src = "";

	if (!outmode) {
		if (loadallow(&na, &src, reload) < 0) {
			oxi_warn("keeping the previous allowlist");
			return;
		}
		oxi_allow_free(&allow);
		allow = na;
		if (reload)
			oxi_info("reloaded allowlist %s: %zu entr%s", src,
			    allow.n, allow.n == 1 ? "y" : "ies");
		else
			oxi_debug("allowlist %s: %zu entries", src, allow.n);
	} else {
		if (loadsecrets(&ns, reload) < 0) {
			oxi_warn("keeping the previous secrets");
			return;
		}
		oxi_secrets_free(&secrets);
		secrets = ns;
		if (reload)
			oxi_info("reloaded secrets: %zu value%s", secrets.n,
			    secrets.n == 1 ? "" : "s");
		else
			oxi_debug("secrets: %zu values", secrets.n);
	}
}

static void
refuse(jv rec, const char *id, size_t len)
{
	char rid[OXI_ID_LEN + 1], text[160];
	jv out;

	oxi_id_new(rid);
	snprintf(text, sizeof text, "Your message is too long (%zu bytes; "
	    "the limit is %zu).", len, maxbytes);
	out = oxi_msg_reply(rec, "msg.out");
	out = jv_object_set(out, jv_string("id"), jv_string(rid));
	out = jv_object_set(out, jv_string("in_reply_to"), jv_string(id));
	out = jv_object_set(out, jv_string("text"), jv_string(text));
	out = jv_object_set(out, jv_string("format"), jv_string("text"));
	oxi_nd_out(out);
}

/* consumes rec */
static void
guardin(jv rec)
{
	const char *why, *id, *channel, *from;
	jv f, text;
	size_t len;

	if (strcmp(oxi_msg_type_peek(rec), "msg.in") != 0) {
		oxi_stage_pass(&stage);
		goto done;
	}
	if (oxi_msg_check(rec, &why) < 0) {
		oxi_stage_reject(&stage, why);
		goto done;
	}
	id = oxi_msg_peek(rec, "id");
	channel = oxi_msg_peek(rec, "channel");
	f = oxi_msg_idstr(jv_object_get(jv_copy(rec), jv_string("from")));
	from = jv_get_kind(f) == JV_KIND_STRING ? jv_string_value(f) : NULL;
	if (!oxi_allow_ok(&allow, channel, from)) {
		oxi_info("denied message from '%.64s' on channel '%.32s': "
		    "not on the allowlist", from ? from : "", channel);
		jv_free(f);
		goto done;
	}
	text = jv_object_get(jv_copy(rec), jv_string("text"));
	len = (size_t)jv_string_length_bytes(text);
	if (len > maxbytes) {
		oxi_warn("message '%.64s' from '%.64s' on channel '%.32s' "
		    "is %zu bytes, over the limit of %zu: refused", id,
		    from ? from : "", channel, len, maxbytes);
		refuse(rec, id, len);
	} else
		oxi_stage_pass(&stage);
	jv_free(f);
done:
	jv_free(rec);
}

/* consumes rec */
static void
guardout(jv rec)
{
	const char *type, *why, *key, *id, *s;
	jv v;
	size_t len, n = 0, keep, orig;
	int draft = 0, changed = 0;

	type = oxi_msg_type_peek(rec);
	if (strcmp(type, "msg.out") == 0 || strcmp(type, "msg.draft") == 0) {
		if (oxi_msg_check(rec, &why) < 0) {
			oxi_stage_reject(&stage, why);
			goto done;
		}
		draft = type[4] == 'd';
		key = "text";
	} else if (strcmp(type, "approval.ask") == 0 ||
	    strcmp(type, "status") == 0)
		key = "text";
	else if (strcmp(type, "error") == 0)
		key = "message";
	else {
		oxi_stage_pass(&stage);
		goto done;
	}
	v = jv_object_get(jv_copy(rec), jv_string(key));
	if (jv_get_kind(v) != JV_KIND_STRING) {
		/* not a shape we know: nothing of ours to redact */
		jv_free(v);
		oxi_stage_pass(&stage);
		goto done;
	}
	s = jv_string_value(v);
	len = (size_t)jv_string_length_bytes(jv_copy(v));
	id = oxi_msg_peek(rec, type[0] == 'e' ? "ref" : "id");
	if (!id)
		id = "";
	if ((n = oxi_redact(&secrets, s, len, &red)) > 0) {
		s = red.s;
		len = red.len;
		changed = 1;
		oxi_info("%s '%.64s': redacted %zu secret%s", type, id, n,
		    n == 1 ? "" : "s");
	}
	if (draft && (keep = oxi_redact_hold(&secrets, s, len)) < len) {
		orig = len;
		len = oxi_utf8_cut(s, len, keep);
		changed = 1;
		oxi_debug("%s '%.64s': held back the last %zu bytes", type, id,
		    orig - len);
	}
	if (changed || len > maxbytes) {
		struct oxi_buf t = OXI_BUF_INIT;

		if (len > maxbytes) {
			oxi_info("%s '%.64s': text of %zu bytes cut to %zu",
			    type, id, len, maxbytes);
			len = oxi_utf8_cut(s, len,
			    maxbytes - strlen(TRUNCATED));
			oxi_buf_cat(&t, s, len);
			oxi_buf_cats(&t, TRUNCATED);
		} else
			oxi_buf_cat(&t, s, len);
		rec = jv_object_set(rec, jv_string(key),
		    jv_string_sized(t.s, (int)t.len));
		oxi_buf_free(&t);
		jv_free(v);
		oxi_nd_out(rec);
		return;
	}
	jv_free(v);
	oxi_stage_pass(&stage);
done:
	jv_free(rec);
}

/* the stage's callbacks; record consumes rec */
static void
record(struct oxi_stage *st, jv rec)
{
	(void)st;
	if (outmode)
		guardout(rec);
	else
		guardin(rec);
}

static void
hup(struct oxi_stage *st)
{
	(void)st;
	configure(1);
}

/*
 * A broken outbound line, or a record of ours without its keys
 * (oxi_stage_reject), must not carry a secret into the dead letters.
 */
static int
dlq_redact(const char *data, size_t len, struct oxi_buf *out)
{
	return oxi_redact(&secrets, data, len, out) > 0;
}

int
main(int argc, char *argv[])
{
	const char *v, *mflag = NULL;
	int c, dflag = -1, r;
	size_t lflag = 0;

	oxi_prog = "oxi-guard";
	oxi_std_opts(argc, argv, USAGE);
	while ((c = getopt(argc, argv, "a:d:l:m:s:v")) != -1)
		switch (c) {
		case 'a': aflag = optarg; break;
		case 'd': dflag = oxi_fdarg(optarg); break;
		case 'l': lflag = oxi_sizearg(optarg, "maxline"); break;
		case 'm': mflag = optarg; break;
		case 's': sflag = optarg; break;
		case 'v': oxi_verbose++; break;
		default: oxi_usage(USAGE);
		}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		oxi_usage(USAGE);
	if (strcmp(argv[0], "in") == 0)
		outmode = 0;
	else if (strcmp(argv[0], "out") == 0)
		outmode = 1;
	else
		oxi_usage(USAGE);
	if (outmode)
		oxi_deadletter_filter = dlq_redact;
	if (outmode && aflag)
		oxi_die(OXI_EX_USAGE, "option -a applies to 'in' only");
	if (!outmode && sflag)
		oxi_die(OXI_EX_USAGE, "option -s applies to 'out' only");

	if (mflag)
		maxbytes = oxi_sizearg(mflag, "maxbytes");
	else if ((v = oxi_getenv(outmode ? "OXI_GUARD_MAX_OUT" :
	    "OXI_GUARD_MAX_IN")))
		maxbytes = oxi_sizearg(v, outmode ? "OXI_GUARD_MAX_OUT" :
		    "OXI_GUARD_MAX_IN");
	else
		maxbytes = outmode ? MAXOUT_DEFAULT : MAXIN_DEFAULT;
	if (outmode && maxbytes <= strlen(TRUNCATED))
		oxi_die(OXI_EX_USAGE, "maxbytes %zu leaves no room for the "
		    "truncation marker", maxbytes);

	oxi_stage_init(&stage, lflag, 0);
	stage.record = record;
	stage.hup = hup;
	configure(0);
	r = oxi_stage_run(&stage, dflag);
	/* SIGTERM: the records already read are finished, nothing more */
	oxi_allow_free(&allow);
	oxi_secrets_free(&secrets);
	oxi_buf_free(&red);
	oxi_nd_free(&stage.in);
	return oxi_sig_term ? OXI_EX_OK : r;
}
