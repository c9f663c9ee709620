/*
 * mech.h - the sandbox's private contract: what a mechanism (bwrap.c,
 * landlock.c) offers sandbox.c, and what the wing's files share
 *
 * Included by lib/sandbox/ and tests/unit/ only.  A mechanism exports one
 * const struct sbx_mech; sandbox.c walks { &sbx_bwrap, &sbx_landlock }.
 * A spawn goes: sandbox.c makes the pipes, m->prepare works in the
 * parent, oxi_fork, the child runs sbx_confine (confine.c: session,
 * cgroup, fds, rlimits) then m->exec; the parent reads the pid of the
 * sandbox's init with m->init and frees the job.
 */
#ifndef OXI_SBX_MECH_H
#define OXI_SBX_MECH_H

#include <sys/syscall.h>

#include <stdint.h>

#include "oxi.h"
#include "sandbox/sandbox.h"

#define SBX_PATH	"/usr/local/bin:/usr/bin:/bin"	/* the PATH inside */

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

struct sbx_lim {		/* the limits of oxi_sbx, defaults filled in */
	long cpu, mem, nproc, nofile, fsize, timeout;
	long tmp;		/* MiB of the sandbox's own /tmp tmpfs */
};

struct sbx_strv {		/* growable list of strings */
	char **v;		/* entries, NULL-terminated when used as argv */
	size_t n;		/* used */
	size_t cap;		/* allocated */
};

struct sbx_job {		/* one spawn, as a mechanism sees it */
	const struct oxi_sbx *sbx;
	struct sbx_lim lim;
	char *const *argv;	/* the command */
	struct sbx_strv env;	/* its scrubbed environment */
	struct sbx_strv args;	/* what exe runs (bwrap's command line) */
	char *exe;		/* what the child execs (NULL after prepare:
				 * argv[0] in the sandbox PATH) */
	char *tmp;		/* a private tmp directory, or NULL */
	char *cg[2];		/* pids and memory cgroups, or NULL */
	int st;			/* the status pipe's write end: fd 3 inside */
	int xfd;		/* for fd 4 inside (bwrap's seccomp), or -1 */
	int bfd;		/* for fd 5 inside (bwrap's block fd), or -1 */
	int bw;			/* the parent's end of bfd's pipe, or -1 */
	long nuid;		/* processes of our uid, counted before fork */
	int probing;		/* a probe: stderr to /dev/null, no cgroup */
};

struct sbx_mech {
	const char *name;	/* "bwrap", "landlock": $OXI_SANDBOX picks */
	const char *title;	/* for diagnostics: "bubblewrap" */
	/* 0 if it works here, which try (sandbox.c's, running /bin/true
	 * in m's sandbox: 0 if it works) tells last; run once, by choose() */
	int (*probe)(int (*try)(const struct sbx_mech *m));
	/* in the parent, before fork: exe, args, tmp, xfd, nuid; 0, or -1
	 * with a reason in why */
	int (*prepare)(struct sbx_job *, char *why, size_t n);
	/* in the forked child, after sbx_confine: confine and exec; never
	 * returns */
	void (*exec)(const struct sbx_job *);
	/* in the parent: the pid of the sandbox's init from the status
	 * pipe's read end, or -1 (the sandbox killed if it was blocked and
	 * cannot be limited); NULL: none */
	pid_t (*init)(struct sbx_job *, int fd);
};
extern const struct sbx_mech sbx_bwrap, sbx_landlock;

/* confine.c: the common part */
extern const char *const sbx_sysdirs[];	/* /usr /bin /lib ..., read-only */
extern struct sbx_strv sbx_etcmask;	/* /etc entries masked */
extern struct sbx_strv sbx_etcok;	/* /etc entries Landlock lets read */
void sbx_etcscan(void);			/* fills both, once */
void sbx_sv_add(struct sbx_strv *, const char *);	/* a copy; NULL ends */
void sbx_sv_free(struct sbx_strv *);
void sbx_limits(const struct oxi_sbx *, struct sbx_lim *);
void sbx_mkenv(const struct oxi_sbx *, const char *tmp, struct sbx_strv *);
char *sbx_resolve(const char *prog);	/* in SBX_PATH when no slash */
int sbx_findbin(const char *prog, char *out, size_t n);	/* fixed PATH */
long sbx_uidprocs(void);		/* processes of our real uid */
void sbx_setlim(int res, long v, long mult);	/* v < 0: none */
void sbx_closefrom(int lowfd);
int sbx_writefile(const char *path, const char *s);
/* the child's common part: death with us, a new session, the cgroup,
 * fds 0 to 2 from pipes (else /dev/null), the status pipe on 3, xfd on
 * 4, bfd on 5, no other fd, rlimits; dies OXI_EX_TEMP on failure */
void sbx_confine(struct sbx_job *, const struct oxi_pipes *);
/*
 * The exit code of a wait status: oxi_wait_code (128 + n for signal n,
 * 128 for an exit of 128 or more), but a wrapper's exit of 128 + n (an
 * init inside that relays: bwrap's, ours in landlock.c) is its word for
 * signal n inside, and kept.
 */
int sbx_code(int status, int wrapper);
/* waits for pid, reaping every other child on the way: sbx_code */
int sbx_reap(pid_t pid, int wrapper);

/* seccomp.c: the filter (net: AF_INET and AF_INET6; ns: the CLONE_NEW*
 * flags the sandbox has: with CLONE_NEWPID setsid and setpgid, with
 * CLONE_NEWIPC System V and POSIX IPC are allowed) */
int sbx_seccomp_ok(void);		/* 1 if this kernel and arch have it */
int sbx_seccomp_load(int net, int ns);	/* 0 or -1 */
int sbx_seccomp_fd(int net);		/* bwrap's, on a pipe, or -1 */

/* cgroup.c: for root, whom RLIMIT_NPROC exempts, a pids cgroup, and a
 * memory one bounding what RLIMIT_AS does not count (tmpfs, memfds, the
 * sum over processes): up to two directories (one in v2) in cg, the rest
 * NULL; none when not root or none can be made */
void sbx_cgmake(long nproc, long mem_mb, char *cg[2]);
int sbx_cgjoin(const char *dir);	/* moves the caller in: 0 or -1;
					 * NULL: 0 */
int sbx_cgdrop(char *dir);		/* kills all inside, removes, frees:
					 * 1 if it killed for memory */

/* memuse.c: the bytes the processes of a call hold, from root down
 * (proportional set sizes and open memfds): the fallback memory bound */
long long sbx_memuse(pid_t root);

#endif
