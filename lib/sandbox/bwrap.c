/*
 * bwrap.c - the bubblewrap mechanism: exports sbx_bwrap only
 *
 * Used when a probe with the real options works: new user (where
 * possible), pid, net, ipc, uts and cgroup namespaces, /usr and the /lib
 * and /bin links read-only, /etc read-only with its secrets masked (every
 * entry others may not read, and a fixed list), a fresh /proc (pid 1's
 * environ masked; read-only, so /proc/sys and the like are out of reach
 * even of root), a /dev that nothing inside may change (below), no /sys,
 * bounded tmpfs on /tmp and /dev/shm, empty directories on /home, /root
 * and $HOME (in the root, so read-only), the workspace bound read-write,
 * the root remounted read-only, no capability, and our seccomp filter.
 *
 * /dev: bubblewrap's --dev binds the host's own device nodes, and for
 * root, who owns them, a chmod or touch inside changed the host's
 * /dev/null.  Root's sandbox gets instead one bind of a directory of
 * ours (sandbox-dev in the state directory) whose nodes and directory
 * belong to nobody: root without capabilities can use them, not change
 * them.
 * Others keep --dev, read-only: the nodes are root's.
 *
 * Processes: for others, RLIMIT_NPROC counted inside the user namespace,
 * set with prlimit(2) on the sandbox's first process while bubblewrap
 * waits on --block-fd (nothing inside runs before it); for root, whom the
 * kernel exempts, a pids cgroup.  bwrap waits for the command and exits
 * with its code, 128 + n when a signal killed it.
 */
#define _GNU_SOURCE

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "sandbox/sandbox.h"
#include "sandbox/mech.h"

static char bwrap[PATH_MAX];	/* the bwrap binary */
static char devdir[PATH_MAX];	/* root's /dev (devmake), or "" */
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

/* the bwrap command line for argv; the info fd is 3, seccomp fd 4 (sfd
 * >= 0), block fd 5 (bfd >= 0) */
static void
args(const struct oxi_sbx *s, const struct sbx_lim *l, char *const argv[],
    int sfd, int bfd, struct sbx_strv *a)
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
	/* /dev: root's of nobody's nodes, else read-only (its nodes still
	 * work); and the two tmpfs written into, /tmp and /dev/shm,
	 * bounded: they are the host's memory */
	if (devdir[0]) {
		sbx_sv_add(a, "--dev-bind");
		sbx_sv_add(a, devdir);
		sbx_sv_add(a, "/dev");
	} else {
		sbx_sv_add(a, "--dev");
		sbx_sv_add(a, "/dev");
		sbx_sv_add(a, "--remount-ro");
		sbx_sv_add(a, "/dev");
	}
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
	/* after the workspace: a read-only path inside it stays so; then
	 * what a carved workspace keeps writable */
	for (j = 0; s->ro && s->ro[j]; j++) {
		sbx_sv_add(a, "--ro-bind");
		sbx_sv_add(a, s->ro[j]);
		sbx_sv_add(a, s->ro[j]);
	}
	for (j = 0; s->workspace && s->rw && s->rw[j]; j++) {
		sbx_sv_add(a, "--bind");
		sbx_sv_add(a, s->rw[j]);
		sbx_sv_add(a, s->rw[j]);
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
	if (bfd >= 0) {
		sbx_sv_add(a, "--block-fd");
		sbx_sv_add(a, "5");
	}
	sbx_sv_add(a, "--");
	for (j = 0; argv[j]; j++)
		sbx_sv_add(a, argv[j]);
}


/* the nodes of root's /dev: name, major, minor (a symlink's target) */
static const struct {
	const char *name;
	int maj, min;
	const char *to;
} devnodes[] = {
	{ "null", 1, 3, NULL }, { "zero", 1, 5, NULL },
	{ "full", 1, 7, NULL }, { "random", 1, 8, NULL },
	{ "urandom", 1, 9, NULL }, { "tty", 5, 0, NULL },
	{ "fd", 0, 0, "/proc/self/fd" }, { "stdin", 0, 0, "/proc/self/fd/0" },
	{ "stdout", 0, 0, "/proc/self/fd/1" },
	{ "stderr", 0, 0, "/proc/self/fd/2" },
};
#define DEVN	(sizeof devnodes / sizeof devnodes[0])
#define NOBODY	65534

/* 1 if dir is root's /dev as devmake makes it, on a file system that
 * lets devices work */
static int
devok(const char *dir)
{
	char path[PATH_MAX], to[PATH_MAX];
	struct statvfs vfs;
	struct stat st;
	ssize_t k;
	size_t i;

	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid !=
	    NOBODY || (st.st_mode & 07777) != 0755 || statvfs(dir, &vfs) < 0 ||
	    (vfs.f_flag & ST_NODEV))
		return 0;
	for (i = 0; i < DEVN; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, devnodes[i].name);
		if (lstat(path, &st) < 0)
			return 0;
		if (devnodes[i].to) {
			if (!S_ISLNK(st.st_mode) || (k = readlink(path, to,
			    sizeof to - 1)) < 0)
				return 0;
			to[k] = '\0';
			if (strcmp(to, devnodes[i].to) != 0)
				return 0;
		} else if (!S_ISCHR(st.st_mode) || st.st_rdev !=
		    makedev(devnodes[i].maj, devnodes[i].min) ||
		    st.st_uid != NOBODY || (st.st_mode & 07777) != 0666)
			return 0;
	}
	snprintf(path, sizeof path, "%s/shm", dir);
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* removes what devmake puts in dir, and dir */
static void
devrm(const char *dir)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < DEVN; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, devnodes[i].name);
		(void)unlink(path);
	}
	snprintf(path, sizeof path, "%s/shm", dir);
	(void)rmdir(path);
	(void)rmdir(dir);
}

/*
 * Root's /dev: $OXI_HOME/sandbox-dev, made in a fresh directory and
 * renamed into place (two oxi-tools may race), or kept when it is as it
 * should be: into devdir, or devdir empty when it cannot be had (not
 * root, no mknod here, a nodev file system).
 */
static void
devmake(void)
{
	char dir[PATH_MAX - 64], tmp[PATH_MAX - 32], path[PATH_MAX];
	const char *state;
	size_t i;
	int r;

	devdir[0] = '\0';
	if (geteuid() != 0 || !(state = oxi_state_dir()) ||
	    (size_t)snprintf(dir, sizeof dir, "%s/sandbox-dev", state) >=
	    sizeof dir)
		return;
	if (devok(dir)) {
		strcpy(devdir, dir);
		return;
	}
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", dir);
	if (!mkdtemp(tmp))
		return;
	for (r = 0, i = 0; r == 0 && i < DEVN; i++) {
		snprintf(path, sizeof path, "%s/%s", tmp, devnodes[i].name);
		r = devnodes[i].to ? symlink(devnodes[i].to, path) :
		    mknod(path, S_IFCHR | 0666, makedev(devnodes[i].maj,
		    devnodes[i].min)) < 0 || chmod(path, 0666) < 0 ||
		    lchown(path, NOBODY, NOBODY) < 0 ? -1 : 0;
	}
	snprintf(path, sizeof path, "%s/shm", tmp);
	if (r == 0 && mkdir(path, 0755) == 0 && chmod(tmp, 0755) == 0 &&
	    lchown(tmp, NOBODY, NOBODY) == 0 && devok(tmp)) {
		if (rename(tmp, dir) < 0 && !devok(dir)) {
			devrm(dir);
			r = rename(tmp, dir);
		}
		if (devok(dir)) {
			strcpy(devdir, dir);
			devrm(tmp);	/* when another's won */
			return;
		}
	}
	oxi_debug("sandbox: no private /dev for root here (%s): bubblewrap's",
	    strerror(errno));
	devrm(tmp);
}

static int
probe(int (*try)(const struct sbx_mech *))
{
	const char *b;

	if ((b = oxi_getenv("OXI_BWRAP")) && strlen(b) < sizeof bwrap)
		strcpy(bwrap, b);
	else
		(void)sbx_findbin("bwrap", bwrap, sizeof bwrap);
	if (!bwrap[0]) {
		oxi_debug("sandbox: bubblewrap not found");
		return -1;
	}
	devmake();
	if (devdir[0] && try(&sbx_bwrap) == 0)
		return 0;
	devdir[0] = '\0';	/* where a bind of it fails, bubblewrap's */
	if (try(&sbx_bwrap) == 0)
		return 0;
	/* an old one may not know --size: its /tmp is unbounded then */
	nosize = 1;
	if (try(&sbx_bwrap) == 0) {
		oxi_debug("sandbox: bubblewrap has no --size: /tmp unbounded");
		return 0;
	}
	oxi_debug("sandbox: bubblewrap does not work here");
	return -1;
}

static int
prepare(struct sbx_job *j, char *why, size_t n)
{
	int b[2];

	/* others' processes are limited before anything inside runs */
	if (j->lim.nproc > 0 && geteuid() != 0) {
		if (pipe2(b, O_CLOEXEC) < 0) {
			snprintf(why, n, "sandbox: pipe: %s", strerror(errno));
			return -1;
		}
		j->bfd = b[0];
		j->bw = b[1];
	}
	if ((j->xfd = sbx_seccomp_fd(j->sbx->net)) < 0)
		oxi_debug("sandbox: no seccomp filter for bubblewrap");
	args(j->sbx, &j->lim, j->argv, j->xfd, j->bfd, &j->args);
	j->exe = xstrdup(bwrap);
	return 0;
}

static void
run(const struct sbx_job *j)
{
	execve(j->exe, j->args.v, j->env.v);
	_exit(errno == ENOENT ? OXI_EX_NOENT : OXI_EX_NOEXEC);
}

/*
 * The pid of the init of the sandbox's pid namespace, from --info-fd;
 * when bwrap waits on the block fd, that process gets its RLIMIT_NPROC
 * (counted in its user namespace, so only the sandbox's processes) and
 * is let go, or is killed if it cannot be limited.
 */
static pid_t
init(struct sbx_job *j, int fd)
{
	struct rlimit rl;
	char info[512], *p;
	size_t off;
	ssize_t r;
	pid_t pid = -1;

	/* bwrap writes it in pieces, then closes the fd */
	for (off = 0; off < sizeof info - 1; off += r)
		if ((r = read(fd, info + off, sizeof info - 1 - off)) <= 0 &&
		    !(r < 0 && errno == EINTR))
			break;
		else if (r < 0)
			r = 0;
	info[off] = '\0';
	if ((p = strstr(info, "\"child-pid\"")) && (p = strchr(p, ':')))
		pid = (pid_t)atol(p + 1);
	if (j->bw < 0)
		return pid;
	rl.rlim_cur = rl.rlim_max = (rlim_t)j->lim.nproc;
	if (pid > 0 && prlimit(pid, RLIMIT_NPROC, &rl, NULL) == 0) {
		(void)!write(j->bw, "1", 1);
		return pid;
	}
	if (pid > 0) {
		oxi_warn("sandbox: cannot limit the processes of the sandbox "
		    "(%s): killed", strerror(errno));
		kill(pid, SIGKILL);
	}
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
