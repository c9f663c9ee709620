/*
 * cmdpair.c - oxi-guard pairing: list, approve, revoke and invite
 *
 * The owner's side of pairing (pair.c): "list" prints one line per
 * paired sender, pending request, live invitation and locked-out
 * sender, tab-separated: kind, sender, name, code, time (RFC 3339: when
 * paired, when the code or the lockout ends).  "approve CODE" lets in
 * the stranger who was given CODE; "revoke CHANNEL:SENDER" forgets a
 * sender; "invite [CHANNEL]" prints a code a person may send the
 * assistant as "/pair CODE" to pair themselves.
 * exit: 0 done, 1 no such code or sender, 100 usage, 111 database.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/in.h"

static void
row(const char *kind, const char *who, const char *name, const char *code,
    long long t, void *arg)
{
	char ts[32];
	time_t tt = (time_t)t;
	struct tm tm;

	(void)arg;
	gmtime_r(&tt, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
	printf("%s\t%s\t%s\t%s\t%s\n", kind, who ? who : "",
	    name ? name : "", code ? code : "", ts);
}

/* the owner's decision into the audit log (never a code) */
static void
audit(const char *event, const char *who)
{
	if (oxi_audit(event, jv_object_set(jv_object(), jv_string("who"),
	    jv_string(who))) < 0)
		oxi_warnsys("unable to write the audit log");
}

int
oxi_guard_pairing(int argc, char *argv[])
{
	char code[OXI_PAIR_CODELEN + 2], who[600];
	struct oxi_pair *p;
	const char *path, *err, *cmd;
	long long now = (long long)time(NULL);
	int r = OXI_EX_OK, k;

	if (argc < 2)
		oxi_usage(OXI_GUARD_PAIRING_USAGE);
	cmd = argv[1];
	if (!((strcmp(cmd, "list") == 0 && argc == 2) ||
	    (strcmp(cmd, "approve") == 0 && argc == 3) ||
	    (strcmp(cmd, "revoke") == 0 && argc == 3) ||
	    (strcmp(cmd, "invite") == 0 && argc <= 3)))
		oxi_usage(OXI_GUARD_PAIRING_USAGE);
	if (!(path = oxi_pair_path()))
		oxi_die(OXI_EX_USAGE, "unable to find the state directory");
	if (!(p = oxi_pair_open(path, &err)))
		oxi_die(oxi_errtemp(errno) ? OXI_EX_TEMP : OXI_EX_USAGE,
		    "pairing database '%s': %s", path, err);
	if (strcmp(cmd, "list") == 0) {
		if (oxi_pair_list(p, now, row, NULL) < 0)
			r = OXI_EX_TEMP;
	} else if (strcmp(cmd, "approve") == 0) {
		if ((k = oxi_pair_approve(p, argv[2], now, who,
		    sizeof who)) < 0)
			r = OXI_EX_TEMP;
		else if (k == 0) {
			oxi_warn("no pending request with that code (it may "
			    "have expired)");
			r = OXI_EX_FALSE;
		} else {
			oxi_info("paired '%s'", who);
			audit("pairing.approved", who);
		}
	} else if (strcmp(cmd, "revoke") == 0) {
		if ((k = oxi_pair_revoke(p, argv[2])) < 0) {
			if (!strchr(argv[2], ':'))
				oxi_die(OXI_EX_USAGE, "revoke CHANNEL:SENDER");
			r = OXI_EX_TEMP;
		} else if (k == 0) {
			oxi_warn("'%.200s' is neither paired nor pending",
			    argv[2]);
			r = OXI_EX_FALSE;
		} else {
			oxi_info("revoked '%.200s'", argv[2]);
			audit("pairing.revoked", argv[2]);
		}
	} else {
		if (oxi_pair_invite(p, argc == 3 ? argv[2] : NULL, now,
		    code) < 0)
			r = OXI_EX_TEMP;
		else {
			printf("%s\n", code);
			audit("pairing.invited", argc == 3 ? argv[2] : "*");
		}
	}
	oxi_pair_close(p);
	if (r == OXI_EX_TEMP)
		oxi_warn("pairing database '%s' failed", path);
	oxi_fshut(stdout, "stdout");
	return r;
}
