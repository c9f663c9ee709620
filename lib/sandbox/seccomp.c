/*
 * seccomp.c - the sandbox's seccomp filter, plain BPF built here: a few
 * dozen instructions did not need libseccomp
 *
 * It refuses sockets (socketpair makes none a host listener can see):
 * AF_UNIX always, since a socket file in the workspace or a path bound
 * in may lead to a host listener and seccomp cannot see the path; AF_INET
 * and AF_INET6 but when the network is granted, and never raw ones;
 * ptrace, process_vm_*, mount and the new mount API, bpf,
 * keyctl, add_key, request_key, what sets host-global state (hostname,
 * domain name, clock, swap, reboot, syslog, acct, quotas),
 * perf_event_open, unshare, setns, clone
 * with namespace flags (clone3 says ENOSYS so libc falls back to clone),
 * io_uring, modules, kexec, TIOCSTI and TIOCLINUX; without a pid
 * namespace also setsid and setpgid, so that killing the process group
 * leaves no survivor; without an IPC namespace (Landlock without user
 * namespaces) System V and POSIX message queue calls, which would reach
 * the host's; without a mount namespace made read-only (Landlock's
 * degraded path) chmod, chown, utime and xattr calls; and always a mode
 * with the set-user-ID or set-group-ID bit (chmod, open, mkdir...), so
 * that no such file outlives a call in the workspace.  Landlock loads it in the child; bubblewrap reads
 * it from a pipe (--seccomp).
 */
#define _GNU_SOURCE

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sched.h>

#include "oxi.h"
#include "sandbox/sandbox.h"
#include "sandbox/mech.h"

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

/* System V IPC and POSIX message queues: the IPC namespace's */
static const long ipccalls[] = {
	SYS_shmget, SYS_shmat, SYS_shmctl, SYS_shmdt, SYS_msgget, SYS_msgsnd,
	SYS_msgrcv, SYS_msgctl, SYS_semget, SYS_semop, SYS_semctl,
	SYS_semtimedop, SYS_mq_open, SYS_mq_unlink, SYS_mq_timedsend,
	SYS_mq_timedreceive, SYS_mq_notify, SYS_mq_getsetattr, -1
};

/* what changes a file's mode, owner, times or xattrs: Landlock does not
 * govern them, a read-only mount does (without one, they are refused) */
static const long metacalls[] = {
	SYS_chmod, SYS_fchmod, SYS_fchmodat, SYS_chown, SYS_fchown,
	SYS_lchown, SYS_fchownat, SYS_utime, SYS_utimes, SYS_futimesat,
	SYS_utimensat, SYS_setxattr, SYS_lsetxattr, SYS_fsetxattr,
	SYS_removexattr, SYS_lremovexattr, SYS_fremovexattr,
#ifdef SYS_fchmodat2
	SYS_fchmodat2,
#endif
	-1
};

/* calls that give a file a mode, and which argument holds it: none may
 * set the set-user-ID or set-group-ID bit, which would outlive the call
 * in the workspace (a set-user-ID root file, for root) */
static const struct {
	long nr;
	int arg;
} modecalls[] = {
#ifdef SYS_chmod
	{ SYS_chmod, 1 },
#endif
#ifdef SYS_open
	{ SYS_open, 2 },
#endif
#ifdef SYS_creat
	{ SYS_creat, 1 },
#endif
#ifdef SYS_fchmodat2
	{ SYS_fchmodat2, 2 },
#endif
	{ SYS_fchmod, 1 }, { SYS_fchmodat, 2 }, { SYS_openat, 3 },
	{ SYS_mkdirat, 2 }, { SYS_mknodat, 2 },
	{ -1, 0 }
};

/* if syscall nr has a bit of bits in argument arg, EPERM; the
 * accumulator holds nr before and after */
static void
denybits(struct bpf *b, long nr, int arg, unsigned int bits)
{
	op(b, BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr, 0, 4);
	op(b, BPF_LD | BPF_W | BPF_ABS, ARGLO(arg), 0, 0);
	op(b, BPF_JMP | BPF_JSET | BPF_K, bits, 0, 1);
	op(b, BPF_RET | BPF_K, RET_ERR(EPERM), 0, 0);
	op(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr),
	    0, 0);
}

/*
 * The filter: net grants AF_INET and AF_INET6 (not raw); ns holds the
 * CLONE_NEW* flags the sandbox has: CLONE_NEWPID keeps setsid and
 * setpgid, CLONE_NEWIPC System V IPC and message queues.  0, or -1 when
 * this architecture is unknown.
 */
static int
mkfilter(struct bpf *b, int net, int ns)
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
		SYS_adjtimex, SYS_clock_adjtime, SYS_sethostname,
		SYS_setdomainname, SYS_lookup_dcookie,
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
	if (!(ns & CLONE_NEWPID)) {
		deny(b, SYS_setsid, RET_ERR(EPERM));
		deny(b, SYS_setpgid, RET_ERR(EPERM));
	}
	for (i = 0; !(ns & CLONE_NEWIPC) && ipccalls[i] >= 0; i++)
		deny(b, ipccalls[i], RET_ERR(EPERM));
	for (i = 0; !(ns & CLONE_NEWNS) && metacalls[i] >= 0; i++)
		deny(b, metacalls[i], RET_ERR(EPERM));
	for (i = 0; modecalls[i].nr >= 0; i++)
		denybits(b, modecalls[i].nr, modecalls[i].arg, 06000);
#ifdef SYS_openat2
	/* its mode lies behind a pointer: libc falls back to openat */
	deny(b, SYS_openat2, RET_ERR(ENOSYS));
#endif
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
	op(b, BPF_RET | BPF_K, RET_ERR(EACCES), 0, 0);
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

int
sbx_seccomp_load(int net, int ns)
{
	struct bpf b;
	struct sock_fprog prog;

	if (mkfilter(&b, net, ns) < 0)
		return -1;
	prog.len = (unsigned short)b.n;
	prog.filter = b.f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* the filter as bytes on a pipe, for bwrap --seccomp: read end or -1 */
int
sbx_seccomp_fd(int net)
{
	struct bpf b;
	int p[2];

	/* bubblewrap always makes pid, IPC and mount namespaces
	 * (--unshare-all), its root read-only */
	if (mkfilter(&b, net, CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNS) < 0)
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

int
sbx_seccomp_ok(void)
{
	return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 && SBX_ARCH != 0;
}
