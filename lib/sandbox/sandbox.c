/*
 * sandbox.c - commands run confined: the choice of a mechanism, the
 * common part of a spawn, run, wait and kill, and the children kept
 *
 * The mechanism is chosen once per process: the first of mechs[] whose
 * probe works (bwrap.c, else landlock.c), or the one $OXI_SANDBOX names;
 * else nothing runs, unless unsafe mode is on, which runs unconfined
 * with a warning per call.  Every mode: a new session (so no TIOCSTI
 * into our terminal), rlimits, the environment scrubbed, no fd but 0, 1
 * and 2, and death with oxi-tool (confine.c).  The seccomp filter is in
 * seccomp.c, the pids cgroup for root in cgroup.c.  A child is killed
 * with everything it started: its process group, and through a pidfd
 * the init of its pid namespace, whose death empties the namespace.
 */
#define _GNU_SOURCE

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "sandbox/sandbox.h"
#include "sandbox/mech.h"

#define MAXKIDS		64

int oxi_sbx_unsafe;

/* the mechanisms, best first */
static const struct sbx_mech *const mechs[] = { &sbx_bwrap, &sbx_landlock,
	NULL };
static const struct sbx_mech *mech;	/* the chosen one, or NULL */
static int chosen;

#define SBX_SAMPLE_MS	50	/* memory sampled this often, without a
				 * memory cgroup */

/* what the library keeps about a child until it is reaped */
struct kid {
	pid_t pid;		/* our child, or 0 */
	int pidfd;		/* the sandbox's init or our child, or -1 */
	char *tmp;		/* a private tmp directory to remove, or NULL */
	char *cg[2];		/* cgroup directories to remove, or NULL */
	int relay;		/* an init relays its exit (sbx_code) */
};
static struct kid kids[MAXKIDS];

/* unsafe mode: no confinement but confine.c's */
static int
noneprep(struct sbx_job *j, char *why, size_t n)
{
	(void)why;
	(void)n;
	/* counted here: the child allocates nothing once its limits hold */
	if (j->lim.nproc > 0 && getuid() != 0)
		j->nuid = sbx_uidprocs();
	return 0;
}

static void
nonerun(const struct sbx_job *j)
{
	const struct oxi_sbx *s = j->sbx;

	close(3);
	if (s->cwd ? chdir(s->cwd) : chdir(s->workspace ? s->workspace : "/"))
		_exit(OXI_EX_NOENT);
	if (j->lim.nproc > 0 && getuid() != 0)
		sbx_setlim(RLIMIT_NPROC, j->lim.nproc + j->nuid, 1);
	execve(j->exe, j->argv, j->env.v);
	_exit(errno == ENOENT ? OXI_EX_NOENT : OXI_EX_NOEXEC);
}

static const struct sbx_mech unconfined = {
	.name = "unsafe",
	.title = "unconfined",
	.prepare = noneprep,
	.exec = nonerun,
};

static int try(const struct sbx_mech *);

static void
choose(void)
{
	const char *v = oxi_getenv("OXI_SANDBOX");
	const struct sbx_mech *want = NULL;	/* NULL: auto */
	int i;

	if (chosen)
		return;
	chosen = 1;
	if (v && strcmp(v, "none-available") == 0)
		return;
	if (v && strcmp(v, "unsafe") == 0)
		oxi_sbx_unsafe = 1;
	else if (v && strcmp(v, "auto") != 0) {
		for (i = 0; mechs[i] && strcmp(v, mechs[i]->name) != 0; i++)
			;
		if (!(want = mechs[i]))
			oxi_warn("sandbox: unknown OXI_SANDBOX '%s', taken as "
			    "auto", v);
	}
	for (i = 0; mechs[i]; i++)
		if ((!want || want == mechs[i]) && mechs[i]->probe(try) == 0) {
			mech = mechs[i];
			return;
		}
}

const char *
oxi_sbx_mechanism(void)
{
	choose();
	if (mech)
		return mech->name;
	return oxi_sbx_unsafe ? "unsafe" : "none";
}

int
oxi_sbx_confined(void)
{
	const char *v = oxi_getenv("OXI_SANDBOX");

	if (!oxi_sbx_unsafe && !(v && strcmp(v, "unsafe") == 0))
		return 1;
	return strcmp(oxi_sbx_mechanism(), "unsafe") != 0;
}

static int kidfree(struct kid *);

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

/* frees what was kept of a child: 1 if its memory cgroup killed */
static int
kidfree(struct kid *k)
{
	int oom;

	if (!k)
		return 0;
	if (k->pidfd >= 0) {
		/* the init may outlive its wrapper by a moment: its exit,
		 * not a sleep, is what the cgroup's removal waits for */
		if (k->cg[0] || k->cg[1])
			pidfdwait(k->pidfd, 100);
		close(k->pidfd);
	}
	if (k->tmp) {
		(void)nftw(k->tmp, rmfn, 16, FTW_DEPTH | FTW_PHYS |
		    FTW_MOUNT);
		free(k->tmp);
	}
	oom = sbx_cgdrop(k->cg[0]);
	oom |= sbx_cgdrop(k->cg[1]);
	memset(k, 0, sizeof *k);
	k->pidfd = -1;
	return oom;
}



static pid_t spawn(const struct sbx_mech *, const struct oxi_sbx *,
    char *const argv[], int *in, int *out, int *err, char *why, size_t n,
    int probing);

/* runs /bin/true in m's sandbox: 0 if it works */
static int
try(const struct sbx_mech *m)
{
	struct oxi_sbx s = OXI_SBX_INIT;
	char *argv[] = { "/bin/true", NULL }, why[256];
	pid_t pid;
	int code, pfd;

	pid = spawn(m, &s, argv, NULL, NULL, NULL, why, sizeof why, 1);
	if (pid < 0)
		return -1;
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
			oxi_warn("sandbox: %s probe hung, killed", m->title);
			oxi_sbx_kill(pid);
			return -1;
		}
	}
	code = oxi_sbx_wait(pid);
	if (code != 0)
		oxi_debug("sandbox: %s probe exited %d", m->title, code);
	return code == 0 ? 0 : -1;
}

pid_t
oxi_sbx_spawn(const struct oxi_sbx *s, char *const argv[], int *in,
    int *out, int *err, char *why, size_t n)
{
	choose();
	if (!mech && !oxi_sbx_unsafe) {
		snprintf(why, n, "no sandbox works here (no usable bubblewrap, "
		    "Landlock or seccomp): refusing to run '%.64s'; see "
		    "SANDBOX in oxi-tool(1)", argv[0]);
		return -1;
	}
	if (!mech)
		oxi_warn("sandbox: unsafe mode: running '%.64s' unconfined",
		    argv[0]);
	return spawn(mech ? mech : &unconfined, s, argv, in, out, err, why, n,
	    0);
}

/* the pipes, m's preparation, fork, confine.c's part and m's in the
 * child; then the init's pid, kept with what to clean up */
static pid_t
spawn(const struct sbx_mech *m, const struct oxi_sbx *s, char *const argv[],
    int *in, int *out, int *err, char *why, size_t n, int probing)
{
	struct sbx_job j;
	struct oxi_pipes p;
	struct kid *k;
	int st[2] = { -1, -1 }, e;
	pid_t pid, init = -1;

	memset(&j, 0, sizeof j);
	j.sbx = s;
	j.argv = argv;
	j.st = j.xfd = j.bfd = j.bw = -1;
	j.probing = probing;
	sbx_limits(s, &j.lim);
	if ((s->workspace && s->workspace[0] != '/') ||
	    (s->cwd && s->cwd[0] != '/')) {
		snprintf(why, n, "sandbox: workspace and cwd must be absolute");
		return -1;
	}
	if (oxi_pipes_open(&p, (in ? OXI_PIPE_IN : 0) | (out ? OXI_PIPE_OUT :
	    0) | (err ? err == out ? OXI_PIPE_MERGE : OXI_PIPE_ERR : 0)) < 0) {
		snprintf(why, n, "sandbox: pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(st, O_CLOEXEC) < 0) {
		snprintf(why, n, "sandbox: pipe: %s", strerror(errno));
		goto fail;
	}
	if (m->prepare && m->prepare(&j, why, n) < 0)
		goto fail;
	sbx_mkenv(s, j.tmp, &j.env);
	if (!j.exe)
		j.exe = sbx_resolve(argv[0]);
	if (!probing)
		sbx_cgmake(j.lim.nproc, j.lim.mem, j.cg);
	j.st = st[1];
	if ((pid = oxi_fork(1)) < 0) {
		snprintf(why, n, "sandbox: fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		sbx_confine(&j, &p);
		m->exec(&j);
		_exit(OXI_EX_NOEXEC);	/* not reached */
	}
	close(st[1]);
	if (j.bfd >= 0)
		close(j.bfd);
	j.bfd = -1;
	if (m->init)
		init = m->init(&j, st[0]);
	close(st[0]);
	if (j.bw >= 0)
		close(j.bw);
	if (j.xfd >= 0)
		close(j.xfd);
	if ((k = kidget(pid, 1))) {
		k->pidfd = (int)syscall(SYS_pidfd_open, init > 0 ? init : pid,
		    0);
		k->tmp = j.tmp;
		k->cg[0] = j.cg[0];
		k->cg[1] = j.cg[1];
		k->relay = init > 0;
	} else {
		/* more children than we track: no cleanup help for this one */
		free(j.tmp);
		free(j.cg[0]);
		free(j.cg[1]);
	}
	oxi_pipes_parent(&p, in, out, err);
	sbx_sv_free(&j.env);
	sbx_sv_free(&j.args);
	free(j.exe);
	return pid;
fail:
	e = errno;
	oxi_pipes_close(&p);
	if (st[0] >= 0) {
		close(st[0]);
		close(st[1]);
	}
	if (j.xfd >= 0)
		close(j.xfd);
	if (j.bfd >= 0)
		close(j.bfd);
	if (j.bw >= 0)
		close(j.bw);
	if (j.tmp) {
		rmdir(j.tmp);
		free(j.tmp);
	}
	(void)sbx_cgdrop(j.cg[0]);
	(void)sbx_cgdrop(j.cg[1]);
	sbx_sv_free(&j.env);
	sbx_sv_free(&j.args);
	free(j.exe);
	errno = e;
	return -1;
}

/* waitpid with EINTR retry: the exit code (sbx_code), or -1 */
static int
sbxwait(pid_t pid, const struct kid *k)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return sbx_code(st, k && k->relay);
}

/* waits for pid, killing it and all it started first if killit: its
 * exit code or -1; *oom says if its memory cgroup killed in it */
static int
endkid(pid_t pid, int killit, int *oom)
{
	struct kid *k = kidget(pid, 0);
	int code;

	if (killit) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	if (killit && k && k->pidfd >= 0) {
		(void)syscall(SYS_pidfd_send_signal, k->pidfd, SIGKILL, NULL,
		    0);
		pidfdwait(k->pidfd, 5000);
	}
	code = sbxwait(pid, k);
	*oom = kidfree(k);
	return code;
}

int
oxi_sbx_wait(pid_t pid)
{
	int oom;

	return endkid(pid, 0, &oom);
}

void
oxi_sbx_reaped(pid_t pid)
{
	(void)kidfree(kidget(pid, 0));
}

int
oxi_sbx_kill(pid_t pid)
{
	int oom;

	return endkid(pid, 1, &oom);
}

/* 1 if k has a memory cgroup to bound it */
static int
memcg(const struct kid *k)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; k && i < 2; i++)
		if (k->cg[i] && (snprintf(path, sizeof path, "%s/memory.max",
		    k->cg[i]), access(path, F_OK) == 0 || (snprintf(path,
		    sizeof path, "%s/memory.limit_in_bytes", k->cg[i]),
		    access(path, F_OK) == 0)))
			return 1;
	return 0;
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
	struct sbx_lim l;
	long long deadline, now, grace = -1, wake, sample = -1;
	char buf[16384];
	size_t off = 0, take;
	ssize_t r;
	pid_t pid;
	int fin = -1, fout = -1, pfd, np, ip, ix, exited = 0, rc, oom = 0;
	int overmem = 0, memw;

	sbx_limits(s, &l);
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
	/* no memory cgroup: the call's memory is sampled instead; and the
	 * caller's watch */
	memw = l.mem > 0 && !memcg(kidget(pid, 0));
	if (memw || s->watch)
		sample = oxi_clock_ms() + SBX_SAMPLE_MS;
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
		if (sample >= 0 && now >= sample && !exited) {
			if (memw && sbx_memuse(pid) > (long long)l.mem << 20) {
				overmem = 1;
				break;
			}
			if (s->watch && s->watch(s->watcharg)) {
				res->watched = 1;
				break;
			}
			sample = now + SBX_SAMPLE_MS;
		}
		wake = grace >= 0 && grace < deadline ? grace : deadline;
		if (sample >= 0 && !exited && sample < wake)
			wake = sample;
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
	if (!res->timed_out && !exited && !overmem && !res->watched) {
		/* no pidfd, or poll failed: wait, not past the deadline */
		while (!zombie(pid) && oxi_clock_ms() < deadline)
			usleep(5000);
		if (zombie(pid))
			kill(-pid, SIGKILL);	/* its pid is still ours */
		else
			res->timed_out = 1;
	}
	/* never kill(-pid) once pid is reaped: it may be someone else's */
	rc = endkid(pid, res->timed_out || overmem || res->watched, &oom);
	if (pfd >= 0)
		close(pfd);
	res->code = rc < 0 ? 128 : rc;
	if (overmem || res->watched)
		res->code = 128 + SIGKILL;
	if (oom || overmem)
		snprintf(res->limit, sizeof res->limit, "the memory limit "
		    "of %ld MiB", l.mem);
	else if (res->code == 128 + SIGXFSZ && l.fsize > 0)
		snprintf(res->limit, sizeof res->limit, "the file size "
		    "limit of %ld MiB", l.fsize);
	return 0;
}
