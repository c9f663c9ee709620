/*
 * landlock.c - the Landlock mechanism: exports sbx_landlock only
 *
 * Used when bubblewrap is not, and the kernel has Landlock and seccomp.
 * The child confines itself: namespaces where the kernel grants them
 * (user, net, pid, mount, ipc, uts); in a new pid namespace an init of
 * ours (not dumpable, it reaps and relays the exit) with a fresh /proc
 * and a tmpfs /tmp; then no capability, Landlock rules that let it read
 * the system directories and /etc minus its secrets, and read and write
 * the workspace and a private tmp, no TCP (ABI 4), no signals or
 * abstract sockets outside (ABI 6), and the seccomp filter.  In a mount
 * namespace every mount but the workspace and that tmp is read-only, as
 * Landlock does not govern chmod, chown, utime or xattrs; without one
 * the seccomp filter refuses those calls.
 */
#define _GNU_SOURCE

#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "sandbox/sandbox.h"
#include "sandbox/mech.h"

static int llabi;		/* Landlock ABI, 0 if none */

/* Landlock: allow rights under path (file rights only for a file) */
static void
llallow(int rs, const char *path, uint64_t rights, uint64_t handled)
{
	struct ll_path_beneath pb;
	struct stat st;
	int fd;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) < 0)
		return;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		rights &= LL_FILE_RIGHTS;
	pb.allowed = rights & handled;
	pb.fd = fd;
	(void)syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH, &pb, 0);
	close(fd);
}

/* confines the calling process with Landlock: 0 or -1 */
static int
restrict_(const struct oxi_sbx *s, const char *tmp, int procok)
{
	static const char *const devs[] = { "/dev/null", "/dev/zero",
		"/dev/full", "/dev/random", "/dev/urandom", NULL };
	struct ll_ruleset_attr ra;
	struct stat st;
	uint64_t fs, all;
	size_t sz;
	int rs, i;

	fs = LL_FS_ABI1;
	if (llabi >= 2)
		fs |= LL_REFER;
	if (llabi >= 3)
		fs |= LL_TRUNCATE;
	if (llabi >= 5)
		fs |= LL_IOCTL_DEV;
	memset(&ra, 0, sizeof ra);
	ra.fs = fs;
	sz = sizeof ra.fs;
	if (llabi >= 4) {
		if (!s->net)
			ra.net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		sz = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (llabi >= 6) {
		ra.scoped = LL_SCOPE_ABSTRACT | LL_SCOPE_SIGNAL;
		sz = sizeof ra;
	}
	if ((rs = (int)syscall(SYS_landlock_create_ruleset, &ra, sz, 0)) < 0)
		return -1;
	all = fs;
	for (i = 0; sbx_sysdirs[i]; i++)
		llallow(rs, sbx_sysdirs[i], LL_RX, fs);
	for (i = 0; i < (int)sbx_etcok.n; i++)
		llallow(rs, sbx_etcok.v[i], LL_RX, fs);
	for (i = 0; devs[i]; i++)
		llallow(rs, devs[i], LL_READ_FILE | LL_WRITE_FILE, fs);
	if (procok)
		llallow(rs, "/proc", LL_READ_FILE | LL_READ_DIR, fs);
	for (i = 0; s->ro && s->ro[i]; i++)
		llallow(rs, s->ro[i], LL_RX, fs);
	/* a carved workspace: read, and write only where it says */
	if (s->workspace)
		llallow(rs, s->workspace, s->rw ? LL_RX : all, fs);
	for (i = 0; s->workspace && s->rw && s->rw[i]; i++)
		if (lstat(s->rw[i], &st) == 0 && !S_ISLNK(st.st_mode))
			llallow(rs, s->rw[i], all, fs);
	llallow(rs, tmp ? tmp : "/tmp", all, fs);
	if (syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
		close(rs);
		return -1;
	}
	close(rs);
	return 0;
}


/*
 * Every mount read-only but the workspace (bound on itself first, so it
 * is a mount of its own) and rw, the tmp the sandbox writes: a chmod,
 * chown, utime or xattr (which Landlock does not govern) then changes
 * nothing outside, not even root's /etc or /dev/null.  0 or -1.
 */
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
static int
rdonly(const struct oxi_sbx *s, const char *rw)
{
	struct {
		uint64_t set, clr, prop, userns;
	} a;

	if (s->workspace && mount(s->workspace, s->workspace, NULL, MS_BIND |
	    MS_REC, NULL) < 0)
		return -1;
	memset(&a, 0, sizeof a);
	a.set = 1;	/* MOUNT_ATTR_RDONLY */
	if (syscall(SYS_mount_setattr, AT_FDCWD, "/", 0x8000 /* AT_RECURSIVE
	    */, &a, sizeof a) < 0)
		return -1;
	memset(&a, 0, sizeof a);
	a.clr = 1;
	/* each top alone: a read-only mount inside stays read-only */
	if (s->workspace && syscall(SYS_mount_setattr, AT_FDCWD,
	    s->workspace, 0, &a, sizeof a) < 0)
		return -1;
	return syscall(SYS_mount_setattr, AT_FDCWD, rw, 0, &a, sizeof a) < 0 ?
	    -1 : 0;
}

/* 1 if the workspace, cwd or a read-only path lies under /tmp, which a
 * tmpfs would hide */
static int
undertmp(const struct oxi_sbx *s)
{
	int i;

	if ((s->workspace && strncmp(s->workspace, "/tmp/", 5) == 0) ||
	    (s->cwd && strncmp(s->cwd, "/tmp/", 5) == 0))
		return 1;
	for (i = 0; s->ro && s->ro[i]; i++)
		if (strncmp(s->ro[i], "/tmp/", 5) == 0)
			return 1;
	return 0;
}

/* drops every capability, for good: bounding set, ambient, the rest */
static void
dropcaps(void)
{
	struct {
		uint32_t version;	/* _LINUX_CAPABILITY_VERSION_3 */
		int pid;		/* 0: this thread */
	} hdr = { 0x20080522, 0 };
	struct {
		uint32_t eff, perm, inh;	/* one word of each set */
	} data[2];
	int c;

	for (c = 0; c < 64; c++)
		(void)prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(data, 0, sizeof data);
	(void)syscall(SYS_capset, &hdr, data);
}

/* the last steps before exec: never returns */
static void
llexec(const struct oxi_sbx *s, const struct sbx_lim *l, const char *exe,
    char *const argv[], char *const envp[], const char *tmp, int procok,
    int userns, int ns, int probing)
{
	if (l->nproc > 0 && getuid() != 0)
		sbx_setlim(RLIMIT_NPROC, l->nproc + (userns ? 0 :
		    sbx_uidprocs()), 1);
	if (chdir(s->cwd ? s->cwd : s->workspace ? s->workspace : "/") < 0)
		_exit(OXI_EX_NOENT);
	dropcaps();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    restrict_(s, tmp, procok) < 0)
		_exit(OXI_EX_NOEXEC);
	if (sbx_seccomp_load(s->net, ns) < 0)
		_exit(OXI_EX_NOEXEC);
	if (probing)
		_exit(0);
	execve(exe, argv, envp);
	_exit(errno == ENOENT ? OXI_EX_NOENT : OXI_EX_NOEXEC);
}


/*
 * The Landlock child, after fork: namespaces where the kernel grants
 * them; in a new pid namespace an init (not dumpable, so its /proc
 * entries are closed) that mounts a fresh /proc and a tmpfs /tmp,
 * reaps, and relays the command's exit; then the command: limits, no
 * capability, Landlock, seccomp, exec.  statfd gets the init's pid in
 * our namespace.  Never returns.
 */
static void
child(const struct oxi_sbx *s, const struct sbx_lim *l, const char *exe,
    char *const argv[], char *const envp[], const char *tmp, int statfd,
    int probing)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	int ns, userns = 0, pidns, mntns, procok = 0;
	pid_t pid;

	ns = CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC |
	    CLONE_NEWUTS;
	if (s->net)
		ns &= ~CLONE_NEWNET;
	if (uid != 0 && unshare(CLONE_NEWUSER | ns) == 0)
		userns = 1;
	else if (unshare(ns) < 0)
		ns = !s->net && unshare(CLONE_NEWNET) == 0 ? CLONE_NEWNET : 0;
	if (userns) {
		snprintf(map, sizeof map, "%ld %ld 1", (long)uid, (long)uid);
		(void)sbx_writefile("/proc/self/setgroups", "deny");
		if (sbx_writefile("/proc/self/uid_map", map) < 0)
			_exit(OXI_EX_NOEXEC);
		snprintf(map, sizeof map, "%ld %ld 1", (long)gid, (long)gid);
		if (sbx_writefile("/proc/self/gid_map", map) < 0)
			_exit(OXI_EX_NOEXEC);
	}
	pidns = (ns & CLONE_NEWPID) != 0;
	mntns = (ns & CLONE_NEWNS) != 0;
	if (!pidns) {
		/* no init to make the mounts read-only (seccomp.c) */
		ns &= ~CLONE_NEWNS;
		close(statfd);
		llexec(s, l, exe, argv, envp, tmp, 0, userns, ns, probing);
	}
	if ((pid = fork()) < 0)
		_exit(OXI_EX_TEMP);
	if (pid > 0) {
		/* the parent of the namespace: tells its init, relays */
		(void)!write(statfd, &pid, sizeof pid);
		sbx_closefrom(0);
		_exit(sbx_reap(pid, 1));
	}
	/* the init of the new pid namespace: its parent is outside, so
	 * getppid() says 0; it dies with that parent */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	close(statfd);
	if (mntns && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0) {
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV |
		    MS_NOEXEC | MS_RDONLY, NULL) == 0)
			procok = 1;
		/* a bounded tmpfs on /tmp, or where that would hide what the
		 * sandbox needs, on its private tmp directory alone (else
		 * that directory bound on itself) */
		snprintf(map, sizeof map, "mode=1777,size=%ldm", l->tmp);
		if (tmp && undertmp(s)) {
			if (mount("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV,
			    map) < 0)
				(void)mount(tmp, tmp, NULL, MS_BIND, NULL);
		} else if (tmp && mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID |
		    MS_NODEV, map) == 0) {
			/* /tmp is now private; $TMPDIR is made again in it */
			(void)mkdir(tmp, 0700);
			tmp = NULL;
		} else if (tmp)
			(void)mount(tmp, tmp, NULL, MS_BIND, NULL);
		if (rdonly(s, tmp ? tmp : "/tmp") < 0)
			ns &= ~CLONE_NEWNS;
	} else
		ns &= ~CLONE_NEWNS;
	if ((pid = fork()) < 0)
		_exit(OXI_EX_TEMP);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		llexec(s, l, exe, argv, envp, tmp, procok, userns, ns, probing);
	}
	sbx_closefrom(0);
	_exit(sbx_reap(pid, 0));
}

static int
probe(int (*try)(const struct sbx_mech *))
{
	llabi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LL_VERSION);
	if (llabi < 0)
		llabi = 0;
	if (llabi > 0 && sbx_seccomp_ok() && try(&sbx_landlock) == 0)
		return 0;
	oxi_debug("sandbox: no Landlock (ABI %d) or seccomp", llabi);
	return -1;
}

/* a private tmp directory, bound for the child's $TMPDIR */
static int
prepare(struct sbx_job *j, char *why, size_t n)
{
	char tmpl[PATH_MAX];

	sbx_etcscan();
	snprintf(tmpl, sizeof tmpl, "%s/oxi-sbx.XXXXXX",
	    oxi_getenv("TMPDIR") ? oxi_getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpl)) {
		snprintf(why, n, "sandbox: private tmp: %s", strerror(errno));
		return -1;
	}
	j->tmp = xstrdup(tmpl);
	return 0;
}

static void
run(const struct sbx_job *j)
{
	child(j->sbx, &j->lim, j->exe, j->argv, j->env.v, j->tmp, 3,
	    j->probing);
}

/* the pid of the init of the sandbox's pid namespace, if it has one */
static pid_t
init(struct sbx_job *j, int fd)
{
	pid_t pid;

	(void)j;
	if (read(fd, &pid, sizeof pid) != sizeof pid)
		return -1;
	return pid;
}

const struct sbx_mech sbx_landlock = {
	.name = "landlock",
	.title = "landlock",
	.probe = probe,
	.prepare = prepare,
	.exec = run,
	.init = init,
};
