/*
 * sandbox.h - the sandbox wing: commands run confined
 */
#ifndef OXI_SANDBOX_H
#define OXI_SANDBOX_H

#include "oxi.h"

/*
 * sandbox.c: commands run confined, for the shell tool, plugins and MCP
 * servers.  The mechanism is chosen once per process: bubblewrap when
 * a probe of it works, else Landlock + seccomp + whatever namespaces
 * the kernel grants, else none, and then nothing runs unless unsafe mode
 * is on (-U or OXI_SANDBOX=unsafe), which runs unconfined with a warning
 * per call.  $OXI_SANDBOX picks: auto (default), bwrap, landlock, unsafe,
 * or none-available (a test switch: no mechanism works).  In every mode
 * the child gets a new session and process group, the rlimits, the
 * scrubbed environment, stdin/stdout/stderr as asked, no other fd.
 */
struct oxi_sbx {
	const char *workspace;	/* absolute, bound read-write, or NULL */
	const char *cwd;	/* absolute start directory; NULL: workspace */
	int net;		/* 1: the network is granted */
	long cpu_s;		/* RLIMIT_CPU seconds; 0: 60, -1: none */
	long mem_mb;		/* RLIMIT_AS MiB; 0: 512, -1: none */
	long nproc;		/* processes inside; 0: 64, -1: none */
	long nofile;		/* RLIMIT_NOFILE; 0: 32, -1: none */
	long fsize_mb;		/* RLIMIT_FSIZE MiB; 0: 64, -1: none */
	long timeout_ms;	/* wall clock of oxi_sbx_run; 0: 30 s */
	const char *const *env;	/* extra "NAME=value", NULL-terminated */
	const char *const *ro;	/* extra read-only paths (plugin dirs) */
	const char *const *rw;	/* non-NULL: the workspace is read-only
				 * but these paths in it, after ro */
	/* oxi_sbx_run calls it about every 50 ms while the command runs:
	 * nonzero kills the call (res->watched says so) */
	int (*watch)(void *);
	void *watcharg;
};
#define OXI_SBX_INIT	{ NULL, NULL, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, \
	NULL, NULL }
struct oxi_sbx_res {
	int code;		/* as oxi_sbx_wait; 137 if killed */
	int timed_out;		/* killed by the wall clock */
	size_t total;		/* output bytes made; out holds cap at most */
	char limit[64];		/* the limit that killed it ("the memory
				 * limit of 512 MiB"), or "" */
	int watched;		/* killed because s->watch said so */
};
extern int oxi_sbx_unsafe;	/* -U: run unconfined when nothing works */
/* "bwrap", "landlock", "unsafe" (none, unsafe mode on) or "none" */
const char *oxi_sbx_mechanism(void);
/* 1 if what runs in the sandbox runs confined: always without unsafe
 * mode (where no mechanism works nothing runs), in unsafe mode when a
 * mechanism works; probes only in unsafe mode */
int oxi_sbx_confined(void);
/*
 * Starts argv (argv[0] absolute, or looked up in the sandbox's PATH
 * /usr/local/bin:/usr/bin:/bin) in the sandbox.  Each of in, out, err
 * gets our end of a new pipe (close-on-exec) to the child's stdin,
 * stdout, stderr; NULL gives /dev/null, except err NULL keeps our stderr,
 * and err == out sends stderr into the stdout pipe.  The child leads its
 * own process group.  Returns its pid, or -1 with a one-line reason in
 * why (no mechanism works and unsafe mode is off, fork failed, ...).
 * The timeout of sbx is not enforced here: oxi_sbx_kill the child.
 */
pid_t oxi_sbx_spawn(const struct oxi_sbx *, char *const argv[], int *in,
    int *out, int *err, char *why, size_t n);
/* waits for a child of oxi_sbx_spawn: its exit code as oxi_wait_code
 * gives it (128 + n for signal n, 128 for an exit of 128 or more), but
 * an exit of 128 + n that the sandbox's init relays for signal n inside
 * is kept; or -1 */
int oxi_sbx_wait(pid_t);
/* SIGKILL to the child and everything it started, waits until none is
 * left, reaps it: its exit code (137), or -1 */
int oxi_sbx_kill(pid_t);
/* the caller reaped pid itself (waitpid): frees what the library kept */
void oxi_sbx_reaped(pid_t);
/*
 * Runs argv to completion with in[0..inlen) on its stdin (NULL: none),
 * stdout and stderr together into out (appended, at most cap bytes; the
 * rest is read and counted in res->total), killed with everything it
 * started after sbx->timeout_ms.  0 with res filled, or -1 with a
 * reason in why if it could not start.
 */
int oxi_sbx_run(const struct oxi_sbx *, char *const argv[], const char *in,
    size_t inlen, struct oxi_buf *out, size_t cap, struct oxi_sbx_res *res,
    char *why, size_t n);

#endif
