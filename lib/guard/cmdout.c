/*
 * cmdout.c - oxi-guard out: keep secrets out of replies
 *
 * Replaces each known secret value in the "text" of msg.out, msg.draft,
 * status and approval.ask records and in the "message" of error records
 * with "[REDACTED]", holds back the end of a draft that could be the
 * start of a secret, and cuts texts longer than -m bytes.  Changed
 * records are written anew; all others pass on byte for byte.  A bad
 * line or a msg.out or msg.draft without its required keys: one
 * warning, a dead letter (secrets redacted), exit status 1.  SIGHUP
 * reloads the secrets; SIGTERM finishes the records already read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"

#define MAXOUT_DEFAULT	65536	/* outbound text cap in bytes */
#define TRUNCATED	"\n[truncated]"

static const char *sflag;	/* -s: secrets file */
static const char *mflag;	/* -m: the size limit */
static size_t maxbytes;		/* -m or its default */
static struct oxi_secrets secrets = OXI_SECRETS_INIT;
static struct oxi_buf red = OXI_BUF_INIT;	/* redacted text, reused */

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
	struct oxi_secrets ns = OXI_SECRETS_INIT;
	const char *v;

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
	}
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

/* the stage's callback; consumes rec */
static void
record(struct oxi_stage *st, jv rec)
{
	const char *type, *why, *key, *id, *s;
	jv v;
	size_t len, n = 0, keep, orig;
	int draft = 0, changed = 0;


	type = oxi_msg_type_peek(rec);
	if (strcmp(type, "msg.out") == 0 || strcmp(type, "msg.draft") == 0) {
		if (oxi_msg_check(rec, &why) < 0) {
			oxi_stage_reject(st, why);
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
		oxi_stage_pass(st);
		goto done;
	}
	v = jv_object_get(jv_copy(rec), jv_string(key));
	if (jv_get_kind(v) != JV_KIND_STRING) {
		/* not a shape we know: nothing of ours to redact */
		jv_free(v);
		oxi_stage_pass(st);
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
	oxi_stage_pass(st);
done:
	jv_free(rec);
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

static int
opt(int c, const char *arg)
{
	switch (c) {
	case 's': sflag = arg; return 0;
	case 'm': mflag = arg; return 0;
	}
	return -1;
}

static void
done(void)
{
	oxi_secrets_free(&secrets);
	oxi_buf_free(&red);
}

int
oxi_guard_out(int argc, char *argv[])
{
	static const struct oxi_guard_filter f = {
		.usage = OXI_GUARD_OUT_USAGE, .opts = "m:s:", .opt = opt,
		.configure = configure, .record = record, .done = done,
	};

	oxi_deadletter_filter = dlq_redact;
	return oxi_guard_filter(&f, argc, argv);
}
