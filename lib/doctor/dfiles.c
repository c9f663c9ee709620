/*
 * dfiles.c - the doctor's file checks: the configuration and state
 * directories and the vault closed to others, the workspace holding none
 * of them, dead letters waiting, room on the disk for the databases
 */
#define _GNU_SOURCE

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "doctor/check.h"
#include "tool/tool.h"
#include "vault/vault.h"

/* one directory: ours, closed to others; 0 ok, else the level said */
static int
dirperm(struct oxi_doc *d, const char *what, const char *path)
{
	char fix[PATH_MAX + 40];
	struct stat st;

	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		oxi_doc_say(d, "perms", OXI_DOC_ERROR, "check the path",
		    "unable to stat the %s '%s': %s", what, path,
		    strerror(errno));
		return OXI_DOC_ERROR;
	}
	snprintf(fix, sizeof fix, "chmod 700 '%s'", path);
	if (st.st_uid != geteuid()) {
		oxi_doc_say(d, "perms", OXI_DOC_ERROR, "chown it to yourself",
		    "the %s '%s' is not yours (uid %lu)", what, path,
		    (unsigned long)st.st_uid);
		return OXI_DOC_ERROR;
	}
	if (st.st_mode & 022) {
		oxi_doc_say(d, "perms", OXI_DOC_ERROR, fix, "others may write"
		    " the %s '%s' (mode %04o)", what, path,
		    (unsigned)(st.st_mode & 07777));
		return OXI_DOC_ERROR;
	}
	if (st.st_mode & 077) {
		oxi_doc_say(d, "perms", OXI_DOC_WARN, fix, "others may read"
		    " the %s '%s' (mode %04o)", what, path,
		    (unsigned)(st.st_mode & 07777));
		return OXI_DOC_WARN;
	}
	return 0;
}

/* a file of the configuration others may write: its name in bad */
static int
openfiles(const char *dir, char *bad, size_t n)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *dp;
	int r = 0;

	if (!(dp = opendir(dir)))
		return 0;
	while (!r && (e = readdir(dp)))
		if (e->d_name[0] != '.' && (size_t)snprintf(path, sizeof path,
		    "%s/%s", dir, e->d_name) < sizeof path &&
		    lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 022 || st.st_uid != geteuid())) {
			snprintf(bad, n, "%s", path);
			r = 1;
		}
	closedir(dp);
	return r;
}

void
oxi_doc_perms(struct oxi_doc *d)
{
	const char *cfg = oxi_config_dir(), *st = oxi_state_dir(), *vp, *kf;
	char why[600], bad[PATH_MAX], fix[PATH_MAX + 20];
	int r = 0, v;

	if (cfg)
		r |= dirperm(d, "configuration directory", cfg);
	if (st)
		r |= dirperm(d, "state directory", st);
	if (cfg && !r && openfiles(cfg, bad, sizeof bad)) {
		snprintf(fix, sizeof fix, "chmod 600 '%s'", bad);
		oxi_doc_say(d, "perms", OXI_DOC_ERROR, fix, "others may write"
		    " '%s' of the configuration, or it is not yours", bad);
		r = 1;
	}
	if (!r)
		oxi_doc_say(d, "perms", OXI_DOC_OK, NULL, "the configuration"
		    " (%s) and state (%s) directories are yours alone",
		    cfg ? cfg : "none", st ? st : "none");
	vp = oxi_vault_path();
	kf = oxi_getenv("OXI_VAULT_KEY_FILE");
	if (!vp)
		return;
	v = oxi_vault_perms(vp, kf && access(kf, F_OK) == 0 ? kf : NULL, why,
	    sizeof why);
	if (v < 0)
		oxi_doc_say(d, "vault", OXI_DOC_ERROR, "the command this line"
		    " names", "%s", why);
	else if (kf && access(kf, F_OK) < 0)
		oxi_doc_say(d, "vault", OXI_DOC_ERROR, "oxi-vault keygen FILE,"
		    " then oxi-vault rotate -K FILE", "the key file '%s' is"
		    " missing", kf);
	else if (v == 1)
		oxi_doc_say(d, "vault", OXI_DOC_SKIP, NULL, "no vault '%s':"
		    " secrets come from the environment", vp);
	else
		oxi_doc_say(d, "vault", OXI_DOC_OK, NULL, "the vault '%s'%s is"
		    " closed to others", vp, kf ? " and its key file" : "");
}

/* 1 if path is dir or beneath it (both made absolute, links resolved) */
static int
beneath(const char *path, const char *dir)
{
	char p[PATH_MAX], w[PATH_MAX];
	size_t n;

	if (!realpath(path, p) || !realpath(dir, w))
		return 0;
	n = strlen(w);
	return strncmp(p, w, n) == 0 && (p[n] == '/' || p[n] == '\0' ||
	    (n == 1 && w[0] == '/'));
}

void
oxi_doc_workspace(struct oxi_doc *d)
{
	const char *ws = oxi_wsp_path(NULL), *what[4], *path[4];
	int i, n = 0, bad = 0;

	what[n] = "configuration directory";
	path[n++] = oxi_config_dir();
	what[n] = "state directory";
	path[n++] = oxi_state_dir();
	what[n] = "vault";
	path[n++] = oxi_vault_path();
	what[n] = "vault's key file";
	path[n++] = oxi_getenv("OXI_VAULT_KEY_FILE");
	if (!ws) {
		oxi_doc_say(d, "workspace", OXI_DOC_SKIP, NULL, "no workspace"
		    " is known");
		return;
	}
	for (i = 0; i < n && !bad; i++)
		if (path[i] && beneath(path[i], ws)) {
			oxi_doc_say(d, "workspace", OXI_DOC_ERROR, "set"
			    " OXI_WORKSPACE to a directory outside it", "the"
			    " workspace '%s' holds the %s '%s': the tools could"
			    " read or change it", ws, what[i], path[i]);
			bad = 1;
		}
	if (!bad)
		oxi_doc_say(d, "workspace", OXI_DOC_OK, NULL, "the workspace"
		    " '%s' holds no configuration, state or secret", ws);
}

/* the lines of a dead-letter file, 0 if none */
static long
count(const char *path)
{
	struct oxi_buf b = OXI_BUF_INIT;
	long n = 0;
	size_t i;

	if (oxi_readfile(path, &b, 64 << 20) < 0)
		return 0;
	for (i = 0; i < b.len; i++)
		n += b.s[i] == '\n';
	oxi_buf_free(&b);
	return n;
}

void
oxi_doc_dead(struct oxi_doc *d)
{
	static const char *const stages[] = { "recv", "guard-in", "loop",
		"guard-out", "send", "llm", "tool", NULL };
	char path[PATH_MAX], fix[PATH_MAX + 80], first[PATH_MAX] = "";
	const char *p, *st;
	long n, total = 0;
	int i, files = 0;

	for (i = -1; i < 0 || (d->svc && stages[i]); i++) {
		if (i >= 0)
			snprintf(path, sizeof path, "%s/%s/data/deadletter.ndjson",
			    d->svc, stages[i]);
		else if ((p = oxi_getenv("OXI_DEADLETTER")))
			snprintf(path, sizeof path, "%s", p);
		else if ((st = oxi_state_dir()))
			snprintf(path, sizeof path, "%s/deadletter.ndjson", st);
		else
			continue;
		if ((n = count(path)) > 0) {
			total += n;
			if (files++ == 0)
				snprintf(first, sizeof first, "%s", path);
		}
	}
	snprintf(fix, sizeof fix, "read them (jq . '%s'), fix their cause,"
	    " then move the file away", first);
	if (total > 0)
		oxi_doc_say(d, "deadletters", OXI_DOC_WARN, fix, "%ld dead"
		    " letter%s waiting in %d file%s, first '%s'", total,
		    total == 1 ? "" : "s", files, files == 1 ? "" : "s", first);
	else
		oxi_doc_say(d, "deadletters", OXI_DOC_OK, NULL, "no dead"
		    " letters");
}

void
oxi_doc_disk(struct oxi_doc *d)
{
	const char *st = oxi_state_dir();
	struct statvfs v;
	unsigned long long mb;
	long min;

	if (oxi_env_int("OXI_DOCTOR_MIN_FREE_MB", 100, 1L << 40, &min) < 0) {
		oxi_doc_say(d, "disk", OXI_DOC_ERROR, "a number of MiB",
		    "bad OXI_DOCTOR_MIN_FREE_MB");
		return;
	}
	if (!st || statvfs(st, &v) < 0) {
		oxi_doc_say(d, "disk", OXI_DOC_ERROR, "set OXI_HOME",
		    "unable to look at the state directory's disk");
		return;
	}
	mb = (unsigned long long)v.f_bavail * v.f_frsize >> 20;
	if (mb < (unsigned long long)min)
		oxi_doc_say(d, "disk", OXI_DOC_ERROR, "free some space, or"
		    " move OXI_HOME", "%llu MiB free for the databases in '%s'"
		    " (under %ld MiB): writes will fail", mb, st, min);
	else if (mb < 10ULL * min)
		oxi_doc_say(d, "disk", OXI_DOC_WARN, "free some space soon",
		    "%llu MiB free for the databases in '%s'", mb, st);
	else
		oxi_doc_say(d, "disk", OXI_DOC_OK, NULL, "%llu MiB free for"
		    " the databases", mb);
}
