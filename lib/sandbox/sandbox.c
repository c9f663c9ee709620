/*
 * sandbox.c - commands run confined: bubblewrap, else Landlock + seccomp
 * + namespaces, else nothing runs (unless unsafe mode is on)
 *
 * The mechanism is chosen once per process.  bubblewrap is used when a
 * probe with the real options works: new user (where possible), pid,
 * net, ipc, uts and cgroup namespaces, /usr and the /lib and /bin links
 * read-only, /etc read-only with its secrets masked (every entry others
 * may not read, and a fixed list), a fresh /proc (pid 1's environ
 * masked) and /dev, a tmpfs on /tmp, read-only empty ones on /home,
 * /root and $HOME, the workspace bound read-write, the root remounted
 * read-only, no capability, and our seccomp filter.  Else, when the
 * kernel has Landlock and seccomp, the child confines itself: namespaces
 * where the kernel grants them (user, net, pid, mount, ipc, uts); in a
 * new pid namespace an init of ours (not dumpable, it reaps and relays
 * the exit) with a fresh /proc and a tmpfs /tmp; then no capability,
 * Landlock rules that let it read the system directories and /etc minus
 * its secrets, and read and write the workspace and a private tmp, no
 * TCP (ABI 4), no signals or abstract sockets outside (ABI 6), and the
 * same seccomp filter.  Else nothing runs, unless unsafe mode is on.
 * The seccomp filter is plain BPF built here: a few dozen instructions
 * did not need libseccomp.
 *
 * Every mode: a new session (so no TIOCSTI into our terminal), rlimits,
 * the environment scrubbed to PATH, HOME (the workspace), TMPDIR, LANG,
 * LC_ALL, LC_CTYPE, TERM, TZ, the names in $OXI_SANDBOX_ENV and the
 * profile's own, no fd but 0, 1 and 2, and death with oxi-tool.  The
 * seccomp filter refuses sockets but AF_UNIX where no host socket can be
 * reached (AF_INET and AF_INET6 too, but not raw ones, when the network
 * is granted), ptrace, process_vm_*, mount and the new mount API, bpf,
 * keyctl, add_key, request_key, perf_event_open, unshare, setns, clone
 * with namespace flags (clone3 says ENOSYS so libc falls back to
 * clone), io_uring, modules, kexec, TIOCSTI and TIOCLINUX; without a pid
 * namespace also setsid and setpgid, so that killing the process group
 * leaves no survivor.  Processes are capped by RLIMIT_NPROC counted
 * inside the user namespace (prlimit(1) inside bubblewrap), and for
 * root, whom the kernel exempts from RLIMIT_NPROC, by a pids cgroup when
 * one can be made.
 */
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sched.h>

#include "oxi.h"
#include "sandbox/sandbox.h"

#define SBX_PATH	"/usr/local/bin:/usr/bin:/bin"
#define MAXKIDS		64

int oxi_sbx_unsafe;

enum { M_UNKNOWN, M_BWRAP, M_LANDLOCK, M_NONE };
static int mech = M_UNKNOWN;
static char bwrap[PATH_MAX];	/* the bwrap binary */
static char prlimitbin[PATH_MAX];	/* prlimit(1), or "" */
static int llabi;		/* Landlock ABI, 0 if none */

/* what the library keeps about a child until it is reaped */
struct kid {
	pid_t pid;		/* our child, or 0 */
	int pidfd;		/* the sandbox's init or our child, or -1 */
	char *tmp;		/* a private tmp directory to remove, or NULL */
	char *cg;		/* a pids cgroup directory to remove, or NULL */
};
static struct kid kids[MAXKIDS];

struct lim {
	long cpu, mem, nproc, nofile, fsize, timeout;
};

/* sys/syscall.h of older libcs may lack these */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

/* Landlock, spelled out: Debian 12's <linux/landlock.h> stops at ABI 1 */
struct ll_ruleset_attr {
	uint64_t fs;		/* handled_access_fs */
	uint64_t net;		/* handled_access_net (ABI 4) */
	uint64_t scoped;	/* scoped (ABI 6) */
};
struct ll_path_beneath {
	uint64_t allowed;	/* allowed_access */
	int32_t fd;		/* parent_fd */
} __attribute__((packed));
#define LL_VERSION		1U	/* LANDLOCK_CREATE_RULESET_VERSION */
#define LL_RULE_PATH		1	/* LANDLOCK_RULE_PATH_BENEATH */
#define LL_EXECUTE		(1ULL << 0)
#define LL_WRITE_FILE		(1ULL << 1)
#define LL_READ_FILE		(1ULL << 2)
#define LL_READ_DIR		(1ULL << 3)
#define LL_FS_ABI1		((1ULL << 13) - 1)
#define LL_REFER		(1ULL << 13)
#define LL_TRUNCATE		(1ULL << 14)
#define LL_IOCTL_DEV		(1ULL << 15)
#define LL_NET_BIND_TCP		(1ULL << 0)
#define LL_NET_CONNECT_TCP	(1ULL << 1)
#define LL_SCOPE_ABSTRACT	(1ULL << 0)
#define LL_SCOPE_SIGNAL		(1ULL << 1)
#define LL_FILE_RIGHTS		(LL_EXECUTE | LL_WRITE_FILE | LL_READ_FILE | \
	LL_TRUNCATE | LL_IOCTL_DEV)
#define LL_RX			(LL_EXECUTE | LL_READ_FILE | LL_READ_DIR)

/* the seccomp architecture of this build, 0 where unknown */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SBX_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SBX_ARCH	AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define SBX_ARCH	AUDIT_ARCH_RISCV64
#else
#define SBX_ARCH	0
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARGLO(i)	(offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define ARGLO(i)	(offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

static const char *const sysdirs[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL
};
/* secrets in /etc masked even when others may read them */
static const char *const etcsecret[] = {
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
	"/etc/sudoers", "/etc/sudoers.d", "/etc/ssl/private",
	"/etc/security/opasswd", "/etc/krb5.keytab", "/etc/credstore",
	"/etc/credstore.encrypted", "/etc/wireguard", "/etc/oxi",
	"/etc/NetworkManager/system-connections", "/etc/ppp/chap-secrets",
	"/etc/ppp/pap-secrets", NULL
};

/* growable list of strings */
struct strv {
	char **v;		/* entries, NULL-terminated when used as argv */
	size_t n;		/* used */
	size_t cap;		/* allocated */
};

static void
sv_add(struct strv *s, const char *x)
{
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n++] = x ? xstrdup(x) : NULL;
	s->v[s->n] = NULL;
}

static void
sv_free(struct strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

/* /etc split into what is masked and, for Landlock, what may be read */
static struct strv etcmask, etcok;
static int etcdone;

static int
issecret(const char *path, const struct stat *st)
{
	const char *b = strrchr(path, '/') + 1;
	int i;

	for (i = 0; etcsecret[i]; i++)
		if (strcmp(path, etcsecret[i]) == 0)
			return 1;
	if (strncmp(path, "/etc/ssh/", 9) == 0 && strchr(path + 9, '/') ==
	    NULL && strstr(b, "key") && !strstr(b, ".pub"))
		return 1;
	/* what others may not read, the sandbox may not read, even as root */
	if (S_ISREG(st->st_mode) && !(st->st_mode & S_IROTH))
		return 1;
	if (S_ISDIR(st->st_mode) && (st->st_mode & (S_IROTH | S_IXOTH)) !=
	    (S_IROTH | S_IXOTH))
		return 1;
	return 0;
}

/* walks dir: masked entries go to etcmask; returns how many were found,
 * and when none, leaves nothing of dir's own in etcok */
static int
etcwalk(const char *dir, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	size_t mark = etcok.n;
	int n = 0, k;
	DIR *d;

	if (!(d = opendir(dir)))
		return 0;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir,
		    de->d_name) >= sizeof path)
			continue;
		if (lstat(path, &st) < 0)
			continue;
		if (!S_ISLNK(st.st_mode) && issecret(path, &st)) {
			/* what our uid cannot reach needs no mask (a mount per
			 * mask is the cost of a bwrap call); root reads all */
			if (geteuid() == 0 || access(path, S_ISDIR(st.st_mode) ?
			    X_OK : R_OK) == 0)
				sv_add(&etcmask, path);
			n++;
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth < 4 &&
		    (k = etcwalk(path, depth + 1)) > 0) {
			n += k;
			continue;
		}
		sv_add(&etcok, path);
	}
	closedir(d);
	if (n == 0) {
		while (etcok.n > mark)
			free(etcok.v[--etcok.n]);
		if (etcok.v)
			etcok.v[etcok.n] = NULL;
	}
	return n;
}

static void
etcscan(void)
{
	if (etcdone)
		return;
	etcdone = 1;
	if (etcwalk("/etc", 0) == 0)
		sv_add(&etcok, "/etc");
}

static void
limits(const struct oxi_sbx *s, struct lim *l)
{
	l->cpu = s->cpu_s ? s->cpu_s : 60;
	l->mem = s->mem_mb ? s->mem_mb : 512;
	l->nproc = s->nproc ? s->nproc : 64;
	l->nofile = s->nofile ? s->nofile : 32;
	l->fsize = s->fsize_mb ? s->fsize_mb : 64;
	l->timeout = s->timeout_ms > 0 ? s->timeout_ms : 30000;
}

/* a variable name that looks like it holds a secret */
static int
secretname(const char *s, size_t n)
{
	static const char *const w[] = { "KEY", "TOKEN", "SECRET", "PASS",
		"CRED", "AUTH", "COOKIE", NULL };
	char up[128];
	size_t i;

	if (n >= sizeof up)
		return 1;
	for (i = 0; i < n; i++)
		up[i] = s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i];
	up[n] = '\0';
	for (i = 0; w[i]; i++)
		if (strstr(up, w[i]))
			return 1;
	return 0;
}

static void
envset(struct strv *e, const char *name, const char *val)
{
	struct oxi_buf b = OXI_BUF_INIT;
	size_t i, n = strlen(name);

	for (i = 0; i < e->n; i++)
		if (strncmp(e->v[i], name, n) == 0 && e->v[i][n] == '=') {
			free(e->v[i]);
			oxi_buf_printf(&b, "%s=%s", name, val);
			e->v[i] = b.s;
			return;
		}
	oxi_buf_printf(&b, "%s=%s", name, val);
	sv_add(e, b.s);
	oxi_buf_free(&b);
}

static void
mkenv(const struct oxi_sbx *s, const char *tmp, struct strv *e)
{
	static const char *const keep[] = { "LANG", "LC_ALL", "LC_CTYPE",
		"TERM", "TZ", NULL };
	const char *v, *p, *eq;
	char name[128];
	size_t k;
	int i;

	envset(e, "PATH", SBX_PATH);
	envset(e, "HOME", s->workspace ? s->workspace : "/");
	envset(e, "TMPDIR", tmp ? tmp : "/tmp");
	envset(e, "LANG", "C.UTF-8");
	for (i = 0; keep[i]; i++)
		if ((v = oxi_getenv(keep[i])))
			envset(e, keep[i], v);
	for (p = oxi_getenv("OXI_SANDBOX_ENV"); p && *p; p += k) {
		p += strspn(p, ", \t");
		k = strcspn(p, ", \t");
		if (k == 0 || k >= sizeof name)
			continue;
		memcpy(name, p, k);
		name[k] = '\0';
		if (secretname(name, k))
			oxi_warn("sandbox: OXI_SANDBOX_ENV: '%s' looks like a "
			    "secret, not passed", name);
		else if ((v = getenv(name)))
			envset(e, name, v);
	}
	for (i = 0; s->env && s->env[i]; i++) {
		if (!(eq = strchr(s->env[i], '=')) || eq == s->env[i] ||
		    (size_t)(eq - s->env[i]) >= sizeof name)
			continue;
		memcpy(name, s->env[i], eq - s->env[i]);
		name[eq - s->env[i]] = '\0';
		envset(e, name, eq + 1);
	}
}

/* seccomp: a BPF program built per call */
struct bpf {
	struct sock_filter f[256];	/* instructions */
	int n;				/* used */
};

static void
op(struct bpf *b, unsigned short code, unsigned int k, unsigned char jt,
    unsigned char jf)
{
	if (b->n < (int)(sizeof b->f / sizeof b->f[0])) {
		b->f[b->n].code = code;
		b->f[b->n].jt = jt;
		b->f[b->n].jf = jf;
		b->f[b->n].k = k;
	}
	b->n++;
}

/* if syscall nr, return r (the accumulator holds nr) */
static void
deny(struct bpf *b, long nr, unsigned int r)
{
	op(b, BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr, 0, 1);
	op(b, BPF_RET | BPF_K, r, 0, 0);
}

#define RET_ERR(e)	(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define RET_OK		SECCOMP_RET_ALLOW

/*
 * The filter: net grants AF_INET and AF_INET6 (not raw), unixok grants
 * AF_UNIX sockets, pidns keeps setsid and setpgid.  0, or -1 when this
 * architecture is unknown.
 */
static int
mkfilter(struct bpf *b, int net, int unixok, int pidns)
{
	static const long denied[] = {
		SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev,
		SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_bpf,
		SYS_keyctl, SYS_add_key, SYS_request_key, SYS_perf_event_open,
		SYS_unshare, SYS_setns, SYS_kexec_load, SYS_init_module,
		SYS_finit_module, SYS_delete_module, SYS_open_by_handle_at,
		SYS_name_to_handle_at, SYS_userfaultfd, SYS_swapon,
		SYS_swapoff, SYS_reboot, SYS_syslog, SYS_acct, SYS_quotactl,
		SYS_vhangup, SYS_settimeofday, SYS_clock_settime,
		SYS_adjtimex, SYS_sethostname, SYS_setdomainname,
#ifdef SYS_kexec_file_load
		SYS_kexec_file_load,
#endif
#ifdef SYS_iopl
		SYS_iopl, SYS_ioperm,
#endif
#ifdef SYS_io_uring_setup
		SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
#endif
#ifdef SYS_fsopen
		SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick,
		SYS_move_mount, SYS_open_tree,
#endif
#ifdef SYS_mount_setattr
		SYS_mount_setattr,
#endif
#ifdef SYS_pidfd_getfd
		SYS_pidfd_getfd,
#endif
		-1
	};
	int i, nsflags;

	if (SBX_ARCH == 0)
		return -1;
	b->n = 0;
	op(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch),
	    0, 0);
	op(b, BPF_JMP | BPF_JEQ | BPF_K, SBX_ARCH, 1, 0);
	op(b, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, 0, 0);
	op(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr),
	    0, 0);
#if defined(__x86_64__)
	/* x32 system calls */
	op(b, BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
	op(b, BPF_RET | BPF_K, RET_ERR(EPERM), 0, 0);
#endif
	for (i = 0; denied[i] >= 0; i++)
		deny(b, denied[i], RET_ERR(EPERM));
	if (!pidns) {
		deny(b, SYS_setsid, RET_ERR(EPERM));
		deny(b, SYS_setpgid, RET_ERR(EPERM));
	}
#ifdef SYS_clone3
	deny(b, SYS_clone3, RET_ERR(ENOSYS));
#endif
	/* clone: no namespace flags */
	nsflags = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
	    CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP;
	op(b, BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4);
	op(b, BPF_LD | BPF_W | BPF_ABS, ARGLO(0), 0, 0);
	op(b, BPF_JMP | BPF_JSET | BPF_K, (unsigned int)nsflags, 0, 1);
	op(b, BPF_RET | BPF_K, RET_ERR(EPERM), 0, 0);
	op(b, BPF_RET | BPF_K, RET_OK, 0, 0);
	/* ioctl: no TIOCSTI, no TIOCLINUX */
	op(b, BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 5);
	op(b, BPF_LD | BPF_W | BPF_ABS, ARGLO(1), 0, 0);
	op(b, BPF_JMP | BPF_JEQ | BPF_K, 0x5412, 2, 0);	/* TIOCSTI */
	op(b, BPF_JMP | BPF_JEQ | BPF_K, 0x541c, 1, 0);	/* TIOCLINUX */
	op(b, BPF_RET | BPF_K, RET_OK, 0, 0);
	op(b, BPF_RET | BPF_K, RET_ERR(EPERM), 0, 0);
	/* socket: by family, and no raw or packet sockets */
	op(b, BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 10);
	op(b, BPF_LD | BPF_W | BPF_ABS, ARGLO(0), 0, 0);
	op(b, BPF_JMP | BPF_JEQ | BPF_K, 1 /* AF_UNIX */, 0, 1);
	op(b, BPF_RET | BPF_K, unixok ? RET_OK : RET_ERR(EACCES), 0, 0);
	op(b, BPF_JMP | BPF_JEQ | BPF_K, 2 /* AF_INET */, 1, 0);
	op(b, BPF_JMP | BPF_JEQ | BPF_K, 10 /* AF_INET6 */, 0, 3);
	op(b, BPF_LD | BPF_W | BPF_ABS, ARGLO(1), 0, 0);
	op(b, BPF_ALU | BPF_AND | BPF_K, 0xf, 0, 0);
	op(b, BPF_JMP | BPF_JEQ | BPF_K, 3 /* SOCK_RAW */, 0, 1);
	op(b, BPF_RET | BPF_K, RET_ERR(EACCES), 0, 0);
	op(b, BPF_RET | BPF_K, net ? RET_OK : RET_ERR(EACCES), 0, 0);
	/* socketpair makes nothing reachable from outside */
	op(b, BPF_RET | BPF_K, RET_OK, 0, 0);
	if (b->n > (int)(sizeof b->f / sizeof b->f[0]))
		return -1;
	return 0;
}

static int
seccomp_load(int net, int unixok, int pidns)
{
	struct bpf b;
	struct sock_fprog prog;

	if (mkfilter(&b, net, unixok, pidns) < 0)
		return -1;
	prog.len = (unsigned short)b.n;
	prog.filter = b.f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* the filter as bytes on a pipe, for bwrap --seccomp: read end or -1 */
static int
seccomp_fd(int net, int unixok)
{
	struct bpf b;
	int p[2];

	if (mkfilter(&b, net, unixok, 1) < 0)
		return -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if (oxi_writeall(p[1], b.f, b.n * sizeof b.f[0]) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	return p[0];
}

/* finds prog in a fixed PATH (never the caller's): 0 or -1 */
static int
findbin(const char *prog, char *out, size_t n)
{
	static const char *const dirs[] = { "/usr/bin", "/bin",
		"/usr/local/bin", "/usr/sbin", NULL };
	int i;

	for (i = 0; dirs[i]; i++) {
		if ((size_t)snprintf(out, n, "%s/%s", dirs[i], prog) >= n)
			continue;
		if (access(out, X_OK) == 0)
			return 0;
	}
	out[0] = '\0';
	return -1;
}

static void
closefrom_(int lowfd)
{
	int fd, max;

	if (syscall(SYS_close_range, lowfd, ~0U, 0) == 0)
		return;
	max = (int)sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (fd = lowfd; fd < max; fd++)
		close(fd);
}

static void
setlim(int res, long v, long mult)
{
	struct rlimit r;

	if (v < 0)
		return;
	r.rlim_cur = r.rlim_max = (rlim_t)v * (rlim_t)mult;
	(void)setrlimit(res, &r);
}

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

/*
 * The processes our real uid has: RLIMIT_NPROC counts them all where no
 * user namespace of our own makes a new count.
 */
static long
uidprocs(void)
{
	struct dirent *de;
	struct stat st;
	char path[64];
	uid_t uid = getuid();
	long n = 0;
	DIR *d;

	if (!(d = opendir("/proc")))
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9') {
			snprintf(path, sizeof path, "/proc/%.32s", de->d_name);
			if (stat(path, &st) == 0 && st.st_uid == uid)
				n++;
		}
	closedir(d);
	return n;
}

/* the bwrap command line for argv; the seccomp fd is 3, info fd 4 */
static void
bwrapargs(const struct oxi_sbx *s, const struct lim *l, char *const argv[],
    int sfd, struct strv *a)
{
	char buf[PATH_MAX], num[64];
	const char *home, *ro[3];
	int nro = 0;
	struct stat st;
	ssize_t k;
	size_t i;
	int j;

	etcscan();
	sv_add(a, bwrap);
	sv_add(a, "--unshare-all");
	if (s->net)
		sv_add(a, "--share-net");
	sv_add(a, "--die-with-parent");
	sv_add(a, "--new-session");
	sv_add(a, "--cap-drop");
	sv_add(a, "ALL");
	for (j = 0; sysdirs[j]; j++) {
		if (lstat(sysdirs[j], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode) && (k = readlink(sysdirs[j], buf,
		    sizeof buf - 1)) > 0) {
			buf[k] = '\0';
			sv_add(a, "--symlink");
			sv_add(a, buf);
		} else if (S_ISDIR(st.st_mode)) {
			sv_add(a, "--ro-bind");
			sv_add(a, sysdirs[j]);
		} else
			continue;
		sv_add(a, sysdirs[j]);
	}
	sv_add(a, "--ro-bind");
	sv_add(a, "/etc");
	sv_add(a, "/etc");
	for (i = 0; i < etcmask.n; i++) {
		if (lstat(etcmask.v[i], &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			sv_add(a, "--tmpfs");
			sv_add(a, etcmask.v[i]);
		} else {
			sv_add(a, "--ro-bind");
			sv_add(a, "/dev/null");
			sv_add(a, etcmask.v[i]);
		}
	}
	sv_add(a, "--proc");
	sv_add(a, "/proc");
	/* bwrap's own init is pid 1: its environ is closed as ours is */
	sv_add(a, "--ro-bind");
	sv_add(a, "/dev/null");
	sv_add(a, "/proc/1/environ");
	sv_add(a, "--dev");
	sv_add(a, "/dev");
	sv_add(a, "--tmpfs");
	sv_add(a, "/tmp");
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
		sv_add(a, "--tmpfs");
		sv_add(a, home);
		ro[nro++] = home;
	}
	for (j = 0; s->ro && s->ro[j]; j++) {
		sv_add(a, "--ro-bind");
		sv_add(a, s->ro[j]);
		sv_add(a, s->ro[j]);
	}
	if (s->workspace) {
		sv_add(a, "--bind");
		sv_add(a, s->workspace);
		sv_add(a, s->workspace);
	}
	/* the root and the masks of homes are tmpfs: read-only, so nothing
	 * lands there */
	for (j = 0; j < nro; j++) {
		sv_add(a, "--remount-ro");
		sv_add(a, ro[j]);
	}
	sv_add(a, "--remount-ro");
	sv_add(a, "/");
	sv_add(a, "--chdir");
	sv_add(a, s->cwd ? s->cwd : s->workspace ? s->workspace : "/");
	if (sfd >= 0) {
		sv_add(a, "--seccomp");
		sv_add(a, "3");
	}
	sv_add(a, "--info-fd");
	sv_add(a, "4");
	sv_add(a, "--");
	/* processes counted inside the user namespace: root is exempt */
	if (prlimitbin[0] && l->nproc > 0 && geteuid() != 0) {
		sv_add(a, prlimitbin);
		snprintf(num, sizeof num, "--nproc=%ld:%ld", l->nproc,
		    l->nproc);
		sv_add(a, num);
		sv_add(a, "--");
	}
	for (j = 0; argv[j]; j++)
		sv_add(a, argv[j]);
}

/* a pids cgroup for root, who is exempt from RLIMIT_NPROC */
static char *
cgmake(long nproc)
{
	static unsigned seq;
	char line[PATH_MAX + 256], mnt[PATH_MAX], self[PATH_MAX], dir[PATH_MAX];
	char *p, *q, *fields[12];
	FILE *f;
	int v2, nf, fd, ok;

	if (geteuid() != 0 || nproc <= 0)
		return NULL;
	for (v2 = 1; v2 >= 0; v2--) {
		mnt[0] = self[0] = '\0';
		if (!(f = fopen("/proc/self/mountinfo", "re")))
			return NULL;
		while (fgets(line, sizeof line, f)) {
			for (nf = 0, p = strtok(line, " \n"); p && nf < 12;
			    p = strtok(NULL, " \n"))
				fields[nf++] = p;
			/* id parent dev root mnt opts [tags] - type src sopts */
			for (ok = 6; ok < nf && strcmp(fields[ok], "-"); ok++)
				;
			if (ok + 3 >= nf)
				continue;
			if (v2 && strcmp(fields[ok + 1], "cgroup2") == 0 &&
			    strcmp(fields[3], "/") == 0) {
				snprintf(mnt, sizeof mnt, "%s", fields[4]);
				break;
			}
			if (!v2 && strcmp(fields[ok + 1], "cgroup") == 0 &&
			    strstr(fields[ok + 3], "pids") &&
			    strcmp(fields[3], "/") == 0) {
				snprintf(mnt, sizeof mnt, "%s", fields[4]);
				break;
			}
		}
		fclose(f);
		if (!mnt[0] || !(f = fopen("/proc/self/cgroup", "re")))
			continue;
		while (fgets(line, sizeof line, f)) {
			if (!(p = strchr(line, ':')) || !(q = strchr(p + 1,
			    ':')))
				continue;
			*q++ = '\0';
			q[strcspn(q, "\n")] = '\0';
			if ((v2 && strcmp(p + 1, "") == 0 && line[0] == '0') ||
			    (!v2 && strstr(p + 1, "pids"))) {
				snprintf(self, sizeof self, "%s",
				    strcmp(q, "/") == 0 ? "" : q);
				break;
			}
		}
		fclose(f);
		if ((size_t)snprintf(dir, sizeof dir, "%s%s/oxi-sbx.%ld.%u",
		    mnt, self, (long)getpid(), seq++) >= sizeof dir)
			continue;
		if (mkdir(dir, 0700) < 0)
			continue;
		snprintf(line, sizeof line, "%s/pids.max", dir);
		if ((fd = open(line, O_WRONLY | O_CLOEXEC)) >= 0) {
			snprintf(line, sizeof line, "%ld\n", nproc);
			ok = write(fd, line, strlen(line)) ==
			    (ssize_t)strlen(line);
			close(fd);
			if (ok)
				return xstrdup(dir);
		}
		rmdir(dir);
	}
	return NULL;
}

/* kills every process in cgroup dir until it is empty, removes it */
static void
cgdrop(char *dir)
{
	char path[PATH_MAX], buf[4096], *p;
	long long t0 = oxi_clock_ms();
	ssize_t n;
	int fd, any;

	if (!dir)
		return;
	snprintf(path, sizeof path, "%s/cgroup.kill", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) >= 0) {
		(void)!write(fd, "1", 1);
		close(fd);
	}
	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	do {
		any = 0;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			break;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			break;
		buf[n] = '\0';
		for (p = buf; *p; p += strcspn(p, "\n"), p += *p == '\n') {
			if (atol(p) > 0) {
				kill((pid_t)atol(p), SIGKILL);
				any = 1;
			}
		}
		if (any)
			usleep(2000);
	} while (any && oxi_clock_ms() - t0 < 5000);
	while (rmdir(dir) < 0 && errno == EBUSY && oxi_clock_ms() - t0 < 5000)
		usleep(2000);
	free(dir);
}

/* runs the probe command in the sandbox of mechanism m: 1 if it works */
static int probe(int m);

static void
choose(void)
{
	const char *v = oxi_getenv("OXI_SANDBOX"), *b;
	int want = 0;	/* 0 auto, 1 bwrap, 2 landlock, 3 none */

	if (mech != M_UNKNOWN)
		return;
	if (v && strcmp(v, "bwrap") == 0)
		want = 1;
	else if (v && strcmp(v, "landlock") == 0)
		want = 2;
	else if (v && strcmp(v, "none-available") == 0)
		want = 3;
	else if (v && strcmp(v, "unsafe") == 0)
		oxi_sbx_unsafe = 1;
	else if (v && strcmp(v, "auto") != 0)
		oxi_warn("sandbox: unknown OXI_SANDBOX '%s', taken as auto", v);
	(void)findbin("prlimit", prlimitbin, sizeof prlimitbin);
	llabi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LL_VERSION);
	if (llabi < 0)
		llabi = 0;
	mech = M_NONE;
	if (want == 3)
		return;
	if (want <= 1) {
		if ((b = oxi_getenv("OXI_BWRAP")) && strlen(b) < sizeof bwrap)
			strcpy(bwrap, b);
		else
			(void)findbin("bwrap", bwrap, sizeof bwrap);
		if (bwrap[0] && probe(M_BWRAP)) {
			mech = M_BWRAP;
			return;
		}
		oxi_debug("sandbox: bubblewrap %s", bwrap[0] ?
		    "does not work here" : "not found");
		if (want == 1)
			return;
	}
	if (llabi > 0 && prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 &&
	    SBX_ARCH != 0 && probe(M_LANDLOCK)) {
		mech = M_LANDLOCK;
		return;
	}
	oxi_debug("sandbox: no Landlock (ABI %d) or seccomp", llabi);
}

const char *
oxi_sbx_mechanism(void)
{
	choose();
	switch (mech) {
	case M_BWRAP: return "bwrap";
	case M_LANDLOCK: return "landlock";
	default: return oxi_sbx_unsafe ? "unsafe" : "none";
	}
}

static void kidfree(struct kid *);

static struct kid *
kidget(pid_t pid, int make)
{
	int i;

	for (i = 0; i < MAXKIDS; i++)
		if (kids[i].pid == pid && pid > 0) {
			if (!make)
				return &kids[i];
			/* a child reaped without oxi_sbx_reaped: its pid came
			 * back; what was kept for it goes */
			kidfree(&kids[i]);
		}
	if (!make)
		return NULL;
	for (i = 0; i < MAXKIDS; i++)
		if (kids[i].pid == 0) {
			kids[i].pid = pid;
			kids[i].pidfd = -1;
			return &kids[i];
		}
	return NULL;
}

static int
rmfn(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? 0 : 0;
	(void)unlink(path);
	return 0;
}

static void
kidfree(struct kid *k)
{
	if (!k)
		return;
	if (k->pidfd >= 0)
		close(k->pidfd);
	if (k->tmp) {
		(void)nftw(k->tmp, rmfn, 16, FTW_DEPTH | FTW_PHYS |
		    FTW_MOUNT);
		free(k->tmp);
	}
	cgdrop(k->cg);
	memset(k, 0, sizeof *k);
	k->pidfd = -1;
}

/* waits up to ms for the pidfd to say its process is gone */
static void
pidfdwait(int fd, int ms)
{
	struct pollfd p;

	if (fd < 0)
		return;
	p.fd = fd;
	p.events = POLLIN;
	while (poll(&p, 1, ms) < 0 && errno == EINTR)
		;
}

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
landlock(const struct oxi_sbx *s, const char *tmp, int procok)
{
	static const char *const devs[] = { "/dev/null", "/dev/zero",
		"/dev/full", "/dev/random", "/dev/urandom", NULL };
	struct ll_ruleset_attr ra;
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
	for (i = 0; sysdirs[i]; i++)
		llallow(rs, sysdirs[i], LL_RX, fs);
	for (i = 0; i < (int)etcok.n; i++)
		llallow(rs, etcok.v[i], LL_RX, fs);
	for (i = 0; devs[i]; i++)
		llallow(rs, devs[i], LL_READ_FILE | LL_WRITE_FILE, fs);
	if (procok)
		llallow(rs, "/proc", LL_READ_FILE | LL_READ_DIR, fs);
	for (i = 0; s->ro && s->ro[i]; i++)
		llallow(rs, s->ro[i], LL_RX, fs);
	if (s->workspace)
		llallow(rs, s->workspace, all, fs);
	llallow(rs, tmp ? tmp : "/tmp", all, fs);
	if (syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
		close(rs);
		return -1;
	}
	close(rs);
	return 0;
}

static int
writefile(const char *path, const char *s)
{
	int fd, r;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	r = oxi_writeall(fd, s, strlen(s));
	close(fd);
	return r;
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
llexec(const struct oxi_sbx *s, const struct lim *l, const char *exe,
    char *const argv[], char *const envp[], const char *tmp, int procok,
    int userns, int pidns, int probing)
{
	if (l->nproc > 0 && getuid() != 0)
		setlim(RLIMIT_NPROC, l->nproc + (userns ? 0 : uidprocs()), 1);
	if (chdir(s->cwd ? s->cwd : s->workspace ? s->workspace : "/") < 0)
		_exit(OXI_EX_NOENT);
	dropcaps();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    landlock(s, tmp, procok) < 0)
		_exit(OXI_EX_NOEXEC);
	if (seccomp_load(s->net, 0, pidns) < 0)
		_exit(OXI_EX_NOEXEC);
	if (probing)
		_exit(0);
	execve(exe, argv, envp);
	_exit(errno == ENOENT ? OXI_EX_NOENT : OXI_EX_NOEXEC);
}

/* waits for pid, reaping every other child on the way: its exit code */
static int
reap(pid_t pid)
{
	pid_t w;
	int st;

	for (;;) {
		w = waitpid(-1, &st, 0);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return OXI_EX_TEMP;
		if (w == pid)
			return WIFSIGNALED(st) ? 128 + WTERMSIG(st) :
			    WEXITSTATUS(st);
	}
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
llchild(const struct oxi_sbx *s, const struct lim *l, const char *exe,
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
		(void)writefile("/proc/self/setgroups", "deny");
		if (writefile("/proc/self/uid_map", map) < 0)
			_exit(OXI_EX_NOEXEC);
		snprintf(map, sizeof map, "%ld %ld 1", (long)gid, (long)gid);
		if (writefile("/proc/self/gid_map", map) < 0)
			_exit(OXI_EX_NOEXEC);
	}
	pidns = (ns & CLONE_NEWPID) != 0;
	mntns = (ns & CLONE_NEWNS) != 0;
	if (!pidns) {
		close(statfd);
		llexec(s, l, exe, argv, envp, tmp, 0, userns, 0, probing);
	}
	if ((pid = fork()) < 0)
		_exit(OXI_EX_TEMP);
	if (pid > 0) {
		/* the parent of the namespace: tells its init, relays */
		(void)!write(statfd, &pid, sizeof pid);
		closefrom_(0);
		_exit(reap(pid));
	}
	/* the init of the new pid namespace: its parent is outside, so
	 * getppid() says 0; it dies with that parent */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	close(statfd);
	if (mntns && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0) {
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV |
		    MS_NOEXEC, NULL) == 0)
			procok = 1;
		if (tmp && !undertmp(s) && mount("tmpfs", "/tmp", "tmpfs",
		    MS_NOSUID | MS_NODEV, "mode=1777,size=256m") == 0) {
			/* /tmp is now private; $TMPDIR is made again in it */
			(void)mkdir(tmp, 0700);
			tmp = NULL;
		}
	}
	if ((pid = fork()) < 0)
		_exit(OXI_EX_TEMP);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		llexec(s, l, exe, argv, envp, tmp, procok, userns, 1, probing);
	}
	closefrom_(0);
	_exit(reap(pid));
}

/* argv[0] looked up in the sandbox PATH when it has no slash */
static char *
resolve(const char *prog)
{
	char buf[PATH_MAX];
	const char *p;
	size_t k;

	if (strchr(prog, '/'))
		return xstrdup(prog);
	for (p = SBX_PATH; *p; p += k, p += *p == ':') {
		k = strcspn(p, ":");
		if ((size_t)snprintf(buf, sizeof buf, "%.*s/%s", (int)k, p,
		    prog) >= sizeof buf)
			continue;
		if (access(buf, X_OK) == 0)
			return xstrdup(buf);
	}
	return xstrdup(prog);
}

static pid_t spawn(int m, const struct oxi_sbx *, char *const argv[],
    int *in, int *out, int *err, char *why, size_t n, int probing);

static int
probe(int m)
{
	struct oxi_sbx s = OXI_SBX_INIT;
	char *argv[] = { "/bin/true", NULL }, why[256];
	pid_t pid;
	int code, pfd;

	pid = spawn(m, &s, argv, NULL, NULL, NULL, why, sizeof why, 1);
	if (pid < 0)
		return 0;
	/* a probe that hangs is a failed probe, and is killed, never left
	 * behind holding anything */
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd >= 0) {
		struct pollfd p;
		int r;

		p.fd = pfd;
		p.events = POLLIN;
		while ((r = poll(&p, 1, 10000)) < 0 && errno == EINTR)
			;
		close(pfd);
		if (r == 0) {
			oxi_warn("sandbox: %s probe hung, killed",
			    m == M_BWRAP ? "bubblewrap" : "landlock");
			oxi_sbx_kill(pid);
			return 0;
		}
	}
	code = oxi_sbx_wait(pid);
	if (code != 0)
		oxi_debug("sandbox: %s probe exited %d",
		    m == M_BWRAP ? "bubblewrap" : "landlock", code);
	return code == 0;
}

pid_t
oxi_sbx_spawn(const struct oxi_sbx *s, char *const argv[], int *in,
    int *out, int *err, char *why, size_t n)
{
	choose();
	if (mech == M_NONE && !oxi_sbx_unsafe) {
		snprintf(why, n, "no sandbox works here (no usable bubblewrap, "
		    "Landlock or seccomp): refusing to run '%.64s'; see "
		    "SANDBOX in oxi-tool(1)", argv[0]);
		return -1;
	}
	if (mech == M_NONE)
		oxi_warn("sandbox: unsafe mode: running '%.64s' unconfined",
		    argv[0]);
	return spawn(mech, s, argv, in, out, err, why, n, 0);
}

static pid_t
spawn(int m, const struct oxi_sbx *s, char *const argv[], int *in, int *out,
    int *err, char *why, size_t n, int probing)
{
	struct strv env = { NULL, 0, 0 }, args = { NULL, 0, 0 };
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	int st[2] = { -1, -1 }, sfd = -1, e, nul, merge = err && err == out;
	char *tmp = NULL, *cg = NULL, *exe = NULL, tmpl[PATH_MAX];
	sigset_t all, old;
	struct lim l;
	struct kid *k;
	pid_t pid, init = -1;
	ssize_t r;
	size_t off;
	char info[512], *p;
	long nuid = 0;

	limits(s, &l);
	if ((s->workspace && s->workspace[0] != '/') ||
	    (s->cwd && s->cwd[0] != '/')) {
		snprintf(why, n, "sandbox: workspace and cwd must be absolute");
		return -1;
	}
	if ((in && pipe2(pin, O_CLOEXEC) < 0) ||
	    (out && pipe2(pout, O_CLOEXEC) < 0) ||
	    (err && !merge && pipe2(perr, O_CLOEXEC) < 0) ||
	    pipe2(st, O_CLOEXEC) < 0) {
		snprintf(why, n, "sandbox: pipe: %s", strerror(errno));
		goto fail;
	}
	if (m == M_LANDLOCK) {
		etcscan();
		snprintf(tmpl, sizeof tmpl, "%s/oxi-sbx.XXXXXX",
		    oxi_getenv("TMPDIR") ? oxi_getenv("TMPDIR") : "/tmp");
		if (!(tmp = mkdtemp(tmpl))) {
			snprintf(why, n, "sandbox: private tmp: %s",
			    strerror(errno));
			goto fail;
		}
		tmp = xstrdup(tmp);
	}
	mkenv(s, tmp, &env);
	if (m == M_BWRAP) {
		if ((sfd = seccomp_fd(s->net, !s->net)) < 0)
			oxi_debug("sandbox: no seccomp filter for bubblewrap");
		bwrapargs(s, &l, argv, sfd, &args);
		exe = xstrdup(bwrap);
	} else
		exe = resolve(argv[0]);
	if (!probing)
		cg = cgmake(l.nproc);
	/* counted here: the child allocates nothing once its limits hold */
	if ((m == M_NONE || (m == M_BWRAP && !prlimitbin[0])) &&
	    l.nproc > 0 && getuid() != 0)
		nuid = uidprocs();
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid < 0) {
		e = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		snprintf(why, n, "sandbox: fork: %s", strerror(e));
		goto fail;
	}
	if (pid == 0) {
		for (e = 1; e < NSIG; e++)
			signal(e, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		setsid();
		if (cg) {
			char path[PATH_MAX], num[32];

			snprintf(path, sizeof path, "%s/cgroup.procs", cg);
			snprintf(num, sizeof num, "%ld\n", (long)getpid());
			if (writefile(path, num) < 0)
				_exit(OXI_EX_TEMP);
		}
		nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		/* out of the way of 0 to 4 first, without close-on-exec */
		if ((sfd >= 0 && (sfd = fcntl(sfd, F_DUPFD, 10)) < 0) ||
		    (st[1] = fcntl(st[1], F_DUPFD, 10)) < 0)
			_exit(OXI_EX_TEMP);
		if (dup2(in ? pin[0] : nul, 0) < 0 ||
		    dup2(out ? pout[1] : nul, 1) < 0 ||
		    dup2(merge ? pout[1] : err ? perr[1] : probing ? nul : 2,
		    2) < 0)
			_exit(OXI_EX_TEMP);
		/* bwrap: seccomp on 3, info on 4; else status on 3 */
		if (m == M_BWRAP) {
			if (sfd >= 0 && dup2(sfd, 3) < 0)
				_exit(OXI_EX_TEMP);
			if (sfd < 0)
				dup2(nul, 3);
			if (dup2(st[1], 4) < 0)
				_exit(OXI_EX_TEMP);
			closefrom_(5);
		} else {
			if (dup2(st[1], 3) < 0)
				_exit(OXI_EX_TEMP);
			closefrom_(4);
		}
		setlim(RLIMIT_CPU, l.cpu, 1);
		setlim(RLIMIT_AS, l.mem, 1024 * 1024);
		setlim(RLIMIT_NOFILE, l.nofile, 1);
		setlim(RLIMIT_FSIZE, l.fsize, 1024 * 1024);
		if (m == M_LANDLOCK)
			llchild(s, &l, exe, argv, env.v, tmp, 3, probing);
		if (m == M_NONE) {
			close(3);
			if (s->cwd ? chdir(s->cwd) : chdir(s->workspace ?
			    s->workspace : "/"))
				_exit(OXI_EX_NOENT);
		}
		if ((m == M_NONE || (m == M_BWRAP && !prlimitbin[0])) &&
		    l.nproc > 0 && getuid() != 0)
			setlim(RLIMIT_NPROC, l.nproc + nuid, 1);
		execve(exe, m == M_BWRAP ? args.v : argv, env.v);
		_exit(errno == ENOENT ? OXI_EX_NOENT : OXI_EX_NOEXEC);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(st[1]);
	st[1] = -1;
	/* the pid of the init of the sandbox's pid namespace */
	if (m == M_BWRAP) {
		/* bwrap writes it in pieces, then closes the fd */
		for (off = 0; off < sizeof info - 1; off += r)
			if ((r = read(st[0], info + off, sizeof info - 1 -
			    off)) <= 0 && !(r < 0 && errno == EINTR))
				break;
			else if (r < 0)
				r = 0;
		info[off] = '\0';
		if ((p = strstr(info, "\"child-pid\"")) &&
		    (p = strchr(p, ':')))
			init = (pid_t)atol(p + 1);
	} else if (m == M_LANDLOCK) {
		if (read(st[0], &init, sizeof init) != sizeof init)
			init = -1;
	}
	close(st[0]);
	if (sfd >= 0)
		close(sfd);
	if ((k = kidget(pid, 1))) {
		k->pidfd = (int)syscall(SYS_pidfd_open, init > 0 ? init : pid,
		    0);
		k->tmp = tmp;
		k->cg = cg;
	} else {
		/* more children than we track: no cleanup help for this one */
		free(tmp);
		free(cg);
	}
	if (in) {
		close(pin[0]);
		*in = pin[1];
	}
	if (out) {
		close(pout[1]);
		*out = pout[0];
	}
	if (err && !merge) {
		close(perr[1]);
		*err = perr[0];
	}
	sv_free(&env);
	sv_free(&args);
	free(exe);
	return pid;
fail:
	e = errno;
	if (pin[0] >= 0) {
		close(pin[0]);
		close(pin[1]);
	}
	if (pout[0] >= 0) {
		close(pout[0]);
		close(pout[1]);
	}
	if (perr[0] >= 0) {
		close(perr[0]);
		close(perr[1]);
	}
	if (st[0] >= 0)
		close(st[0]);
	if (st[1] >= 0)
		close(st[1]);
	if (sfd >= 0)
		close(sfd);
	if (tmp) {
		rmdir(tmp);
		free(tmp);
	}
	cgdrop(cg);
	sv_free(&env);
	sv_free(&args);
	free(exe);
	errno = e;
	return -1;
}

/* the exit code of a wait status; 129 to 255 kept: a signal inside */
static int
code(int st)
{
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* waitpid with EINTR retry: the exit code, or -1 */
static int
sbxwait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return code(st);
}

int
oxi_sbx_wait(pid_t pid)
{
	int code = sbxwait(pid);

	kidfree(kidget(pid, 0));
	return code;
}

void
oxi_sbx_reaped(pid_t pid)
{
	kidfree(kidget(pid, 0));
}

int
oxi_sbx_kill(pid_t pid)
{
	struct kid *k = kidget(pid, 0);
	int code;

	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	if (k && k->pidfd >= 0) {
		(void)syscall(SYS_pidfd_send_signal, k->pidfd, SIGKILL, NULL,
		    0);
		pidfdwait(k->pidfd, 5000);
	}
	code = sbxwait(pid);
	kidfree(k);
	return code;
}

/* 1 once our child pid has exited, not reaped yet */
static int
zombie(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != EINTR;
	return si.si_pid == pid;
}

int
oxi_sbx_run(const struct oxi_sbx *s, char *const argv[], const char *in,
    size_t inlen, struct oxi_buf *out, size_t cap, struct oxi_sbx_res *res,
    char *why, size_t n)
{
	struct pollfd p[3];
	struct lim l;
	long long deadline, now, grace = -1, wake;
	char buf[16384];
	size_t off = 0, take;
	ssize_t r;
	pid_t pid;
	int fin = -1, fout = -1, pfd, np, ip, ix, exited = 0, rc;

	limits(s, &l);
	memset(res, 0, sizeof *res);
	pid = oxi_sbx_spawn(s, argv, in ? &fin : NULL, &fout, &fout, why, n);
	if (pid < 0)
		return -1;
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fin >= 0) {
		oxi_fd_nonblock(fin, 1);
		if (inlen == 0) {
			close(fin);
			fin = -1;
		}
	}
	deadline = oxi_clock_ms() + l.timeout;
	for (;;) {
		if (exited && fout < 0)
			break;
		np = 0;
		ip = ix = -1;
		if (fout >= 0) {
			p[np].fd = fout;
			p[np++].events = POLLIN;
		}
		if (fin >= 0) {
			ip = np;
			p[np].fd = fin;
			p[np++].events = POLLOUT;
		}
		if (pfd >= 0 && !exited) {
			ix = np;
			p[np].fd = pfd;
			p[np++].events = POLLIN;
		}
		if (ix < 0 && fout < 0)
			break;	/* no pidfd: waitpid below */
		now = oxi_clock_ms();
		if (now >= deadline) {
			res->timed_out = 1;
			break;
		}
		if (grace >= 0 && now >= grace)
			break;
		wake = grace >= 0 && grace < deadline ? grace : deadline;
		if (poll(p, np, (int)(wake - now)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fout >= 0 && p[0].revents) {
			r = read(fout, buf, sizeof buf);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0) {
				close(fout);
				fout = -1;
			} else {
				take = res->total >= cap ? 0 : cap - res->total;
				if (take > (size_t)r)
					take = r;
				oxi_buf_cat(out, buf, take);
				res->total += r;
			}
		}
		if (ip >= 0 && p[ip].revents) {
			r = write(fin, in + off, inlen - off);
			if (r > 0)
				off += r;
			if ((r < 0 && errno != EAGAIN && errno != EINTR) ||
			    off == inlen) {
				close(fin);
				fin = -1;
			}
		}
		if (ix >= 0 && p[ix].revents) {
			/* the child is gone: what is left of its group goes
			 * too; read what is still in the pipe, a little while */
			exited = 1;
			kill(-pid, SIGKILL);
			grace = oxi_clock_ms() + 1000;
		}
	}
	if (fin >= 0)
		close(fin);
	if (fout >= 0)
		close(fout);
	if (!res->timed_out && !exited) {
		/* no pidfd, or poll failed: wait, not past the deadline */
		while (!zombie(pid) && oxi_clock_ms() < deadline)
			usleep(5000);
		if (zombie(pid))
			kill(-pid, SIGKILL);	/* its pid is still ours */
		else
			res->timed_out = 1;
	}
	/* never kill(-pid) once pid is reaped: it may be someone else's */
	if (res->timed_out)
		rc = oxi_sbx_kill(pid);
	else {
		rc = sbxwait(pid);
		oxi_sbx_reaped(pid);
	}
	if (pfd >= 0)
		close(pfd);
	res->code = rc < 0 ? 128 : rc;
	return 0;
}
