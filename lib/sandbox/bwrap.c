/*
 * bwrap.c - the bubblewrap mechanism: exports sbx_bwrap only
 *
 * Used when a probe with the real options works: new user (where
 * possible), pid, net, ipc, uts and cgroup namespaces, /usr and the /lib
 * and /bin links read-only, /etc read-only with its secrets masked (every
 * entry others may not read, and a fixed list), a fresh /proc (pid 1's
 * environ masked; read-only, so /proc/sys and the like are out of reach
 * even of root), a fresh read-only /dev, no /sys, bounded tmpfs on /tmp
 * and /dev/shm, empty directories on /home, /root and $HOME (in the
 * root, so read-only), the workspace bound read-write, the root
 * remounted read-only, no capability, and our seccomp filter.  Processes
 * are capped by RLIMIT_NPROC counted inside the user namespace
 * (prlimit(1) inside bubblewrap), and for root by a pids cgroup.  bwrap
 * waits for the command and exits with its code, 128 + n when a signal
 * killed it.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "sandbox/sandbox.h"
#include "sandbox/mech.h"

static char bwrap[PATH_MAX];	/* the bwrap binary */
static char prlimitbin[PATH_MAX];	/* prlimit(1), or "" */
static int nosize;		/* an old bwrap: no --size for a tmpfs */

/* 1 if path is /, or a system directory or under one */
static int
sysunder(const char *path)
{
	static const char *const dirs[] = { "/usr", "/bin", "/sbin", "/lib",
		"/lib32", "/lib64", "/libx32", "/etc", "/proc", "/dev", "/sys",
		"/tmp", "/var", "/run", NULL };
	size_t k;
	int i;

	if (strcmp(path, "/") == 0)
		return 1;
	for (i = 0; dirs[i]; i++) {
		k = strlen(dirs[i]);
		if (strncmp(path, dirs[i], k) == 0 && (path[k] == '/' ||
		    path[k] == '\0'))
			return 1;
	}
	return 0;
}

/* the bwrap command line for argv; the info fd is 3, seccomp fd 4 */
static void
args(const struct oxi_sbx *s, const struct sbx_lim *l, char *const argv[],
    int sfd, struct sbx_strv *a)
{
	char buf[PATH_MAX], num[64];
	const char *home, *ro[3];
	int nro = 0;
	struct stat st;
	ssize_t k;
	size_t i;
	int j;

	sbx_etcscan();
	sbx_sv_add(a, bwrap);
	sbx_sv_add(a, "--unshare-all");
	if (s->net)
		sbx_sv_add(a, "--share-net");
	sbx_sv_add(a, "--die-with-parent");
	sbx_sv_add(a, "--new-session");
	sbx_sv_add(a, "--cap-drop");
	sbx_sv_add(a, "ALL");
	for (j = 0; sbx_sysdirs[j]; j++) {
		if (lstat(sbx_sysdirs[j], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode) && (k = readlink(sbx_sysdirs[j], buf,
		    sizeof buf - 1)) > 0) {
			buf[k] = '\0';
			sbx_sv_add(a, "--symlink");
			sbx_sv_add(a, buf);
		} else if (S_ISDIR(st.st_mode)) {
			sbx_sv_add(a, "--ro-bind");
			sbx_sv_add(a, sbx_sysdirs[j]);
		} else
			continue;
		sbx_sv_add(a, sbx_sysdirs[j]);
	}
	sbx_sv_add(a, "--ro-bind");
	sbx_sv_add(a, "/etc");
	sbx_sv_add(a, "/etc");
	for (i = 0; i < sbx_etcmask.n; i++) {
		if (lstat(sbx_etcmask.v[i], &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			/* an empty mask, and nothing can be written in */
			sbx_sv_add(a, "--tmpfs");
			sbx_sv_add(a, sbx_etcmask.v[i]);
			sbx_sv_add(a, "--remount-ro");
			sbx_sv_add(a, sbx_etcmask.v[i]);
		} else {
			sbx_sv_add(a, "--ro-bind");
			sbx_sv_add(a, "/dev/null");
			sbx_sv_add(a, sbx_etcmask.v[i]);
		}
	}
	sbx_sv_add(a, "--proc");
	sbx_sv_add(a, "/proc");
	/* bwrap's own init is pid 1: its environ is closed as ours is */
	sbx_sv_add(a, "--ro-bind");
	sbx_sv_add(a, "/dev/null");
	sbx_sv_add(a, "/proc/1/environ");
	/* and read-only: /proc/sys, /proc/sysrq-trigger and the rest are
	 * the host's, which a real root inside would own */
	sbx_sv_add(a, "--remount-ro");
	sbx_sv_add(a, "/proc");
	/* /dev read-only (its nodes still work), and the two tmpfs written
	 * into, /tmp and /dev/shm, bounded: they are the host's memory */
	sbx_sv_add(a, "--dev");
	sbx_sv_add(a, "/dev");
	sbx_sv_add(a, "--remount-ro");
	sbx_sv_add(a, "/dev");
	for (j = 0; j < 2; j++) {
		if (!nosize) {
			snprintf(num, sizeof num, "%lld", (long long)l->tmp <<
			    (j == 0 ? 20 : 18));
			sbx_sv_add(a, "--size");
			sbx_sv_add(a, num);
		}
		sbx_sv_add(a, "--tmpfs");
		sbx_sv_add(a, j == 0 ? "/tmp" : "/dev/shm");
	}
	for (j = 0; j < 3; j++) {
		home = j == 0 ? "/home" : j == 1 ? "/root" : getenv("HOME");
		if (j == 2 && nro > 0 && home && strcmp(home, ro[0]) == 0)
			continue;
		if (j == 2 && nro > 1 && home && strcmp(home, ro[1]) == 0)
			continue;
		if (!home || home[0] != '/' || sysunder(home) ||
		    stat(home, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (s->workspace && strncmp(s->workspace, home,
		    strlen(s->workspace)) == 0 && (home[strlen(s->workspace)]
		    == '/' || home[strlen(s->workspace)] == '\0'))
			continue;	/* home holds the workspace itself */
		/* a bare directory in the root, which is remounted read-only
		 * below: as empty and unwritable as a tmpfs, one mount less */
		sbx_sv_add(a, "--dir");
		sbx_sv_add(a, home);
		ro[nro++] = home;
	}
	if (s->workspace) {
		sbx_sv_add(a, "--bind");
		sbx_sv_add(a, s->workspace);
		sbx_sv_add(a, s->workspace);
	}
	/* after the workspace: a read-only path inside it stays so */
	for (j = 0; s->ro && s->ro[j]; j++) {
		sbx_sv_add(a, "--ro-bind");
		sbx_sv_add(a, s->ro[j]);
		sbx_sv_add(a, s->ro[j]);
	}
	/* the root, and the masks of homes in it, read-only: nothing lands
	 * there */
	sbx_sv_add(a, "--remount-ro");
	sbx_sv_add(a, "/");
	sbx_sv_add(a, "--chdir");
	sbx_sv_add(a, s->cwd ? s->cwd : s->workspace ? s->workspace : "/");
	if (sfd >= 0) {
		sbx_sv_add(a, "--seccomp");
		sbx_sv_add(a, "4");
	}
	sbx_sv_add(a, "--info-fd");
	sbx_sv_add(a, "3");
	sbx_sv_add(a, "--");
	/* processes counted inside the user namespace: root is exempt */
	if (prlimitbin[0] && l->nproc > 0 && geteuid() != 0) {
		sbx_sv_add(a, prlimitbin);
		snprintf(num, sizeof num, "--nproc=%ld:%ld", l->nproc,
		    l->nproc);
		sbx_sv_add(a, num);
		sbx_sv_add(a, "--");
	}
	for (j = 0; argv[j]; j++)
		sbx_sv_add(a, argv[j]);
}


static int
probe(int (*try)(const struct sbx_mech *))
{
	const char *b;

	(void)sbx_findbin("prlimit", prlimitbin, sizeof prlimitbin);
	if ((b = oxi_getenv("OXI_BWRAP")) && strlen(b) < sizeof bwrap)
		strcpy(bwrap, b);
	else
		(void)sbx_findbin("bwrap", bwrap, sizeof bwrap);
	if (bwrap[0] && try(&sbx_bwrap) == 0)
		return 0;
	/* an old one may not know --size: its /tmp is unbounded then */
	nosize = 1;
	if (bwrap[0] && try(&sbx_bwrap) == 0) {
		oxi_debug("sandbox: bubblewrap has no --size: /tmp unbounded");
		return 0;
	}
	oxi_debug("sandbox: bubblewrap %s", bwrap[0] ?
	    "does not work here" : "not found");
	return -1;
}

/* where prlimit(1) cannot count processes inside, the child counts ours */
static int
needuid(const struct sbx_job *j)
{
	return !prlimitbin[0] && j->lim.nproc > 0 && getuid() != 0;
}

static int
prepare(struct sbx_job *j, char *why, size_t n)
{
	(void)why;
	(void)n;
	if ((j->xfd = sbx_seccomp_fd(j->sbx->net)) < 0)
		oxi_debug("sandbox: no seccomp filter for bubblewrap");
	args(j->sbx, &j->lim, j->argv, j->xfd, &j->args);
	j->exe = xstrdup(bwrap);
	/* counted here: the child allocates nothing once its limits hold */
	if (needuid(j))
		j->nuid = sbx_uidprocs();
	return 0;
}

static void
run(const struct sbx_job *j)
{
	if (needuid(j))
		sbx_setlim(RLIMIT_NPROC, j->lim.nproc + j->nuid, 1);
	execve(j->exe, j->args.v, j->env.v);
	_exit(errno == ENOENT ? OXI_EX_NOENT : OXI_EX_NOEXEC);
}

/* the pid of the init of the sandbox's pid namespace, from --info-fd */
static pid_t
init(int fd)
{
	char info[512], *p;
	size_t off;
	ssize_t r;

	/* bwrap writes it in pieces, then closes the fd */
	for (off = 0; off < sizeof info - 1; off += r)
		if ((r = read(fd, info + off, sizeof info - 1 - off)) <= 0 &&
		    !(r < 0 && errno == EINTR))
			break;
		else if (r < 0)
			r = 0;
	info[off] = '\0';
	if ((p = strstr(info, "\"child-pid\"")) && (p = strchr(p, ':')))
		return (pid_t)atol(p + 1);
	return -1;
}

const struct sbx_mech sbx_bwrap = {
	.name = "bwrap",
	.title = "bubblewrap",
	.probe = probe,
	.prepare = prepare,
	.exec = run,
	.init = init,
};
