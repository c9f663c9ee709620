/*
 * cmdin.c - oxi-guard in: let in only allowed senders
 *
 * Reads records on stdin and writes them to stdout.  A msg.in from a
 * sender not on the allowlist is dropped with one info line on stderr;
 * one whose text is longer than -m bytes is answered with a msg.out
 * refusal instead of being passed on.  Accepted msg.in lines and every
 * other record pass on byte for byte.  A bad line or a msg.in without
 * its required keys: one warning, a dead letter, exit status 1.  SIGHUP
 * reloads the allowlist; SIGTERM finishes the records already read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"

#define MAXIN_DEFAULT	16384	/* msg.in text cap in bytes */

static const char *aflag;	/* -a: allowlist entries */
static const char *mflag;	/* -m: the size limit */
static size_t maxbytes;		/* -m or its default */
static struct oxi_allow allow = OXI_ALLOW_INIT;

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

static void
configure(int reload)
{
	struct oxi_allow na = OXI_ALLOW_INIT;
	const char *src = "", *v;

	if (!reload) {
		if (mflag)
			maxbytes = oxi_sizearg(mflag, "maxbytes");
		else if ((v = oxi_getenv("OXI_GUARD_MAX_IN")))
			maxbytes = oxi_sizearg(v, "OXI_GUARD_MAX_IN");
		else
			maxbytes = MAXIN_DEFAULT;
	}
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

/* the stage's callback; consumes rec */
static void
record(struct oxi_stage *st, jv rec)
{
	const char *why, *id, *channel, *from;
	jv f, text;
	size_t len;

	if (strcmp(oxi_msg_type_peek(rec), "msg.in") != 0) {
		oxi_stage_pass(st);
		goto done;
	}
	if (oxi_msg_check(rec, &why) < 0) {
		oxi_stage_reject(st, why);
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
		oxi_stage_pass(st);
	jv_free(f);
done:
	jv_free(rec);
}

static int
opt(int c, const char *arg)
{
	switch (c) {
	case 'a': aflag = arg; return 0;
	case 'm': mflag = arg; return 0;
	}
	return -1;
}

static void
done(void)
{
	oxi_allow_free(&allow);
}

int
oxi_guard_in(int argc, char *argv[])
{
	static const struct oxi_guard_filter f = {
		.usage = OXI_GUARD_IN_USAGE, .opts = "a:m:", .opt = opt,
		.configure = configure, .record = record, .done = done,
	};

	return oxi_guard_filter(&f, argc, argv);
}
