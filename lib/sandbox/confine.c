/*
 * confine.c - what every mechanism gives the child: the scrubbed
 * environment, the rlimits, fds 0 to 2 and no other, a new session,
 * death with us, the /etc secrets to mask, and the reaping of an init
 *
 * The environment is PATH, HOME (the workspace), TMPDIR, LANG, LC_ALL,
 * LC_CTYPE, TERM, TZ, the names in $OXI_SANDBOX_ENV (not those that look
 * like secrets) and the profile's own.  /etc is split into what is masked
 * (the secrets, and every entry others may not read) and, for Landlock,
 * what may be read.
 */
#define _GNU_SOURCE

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
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

const char *const sbx_sysdirs[] = {
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

void
sbx_sv_add(struct sbx_strv *s, const char *x)
{
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n++] = x ? xstrdup(x) : NULL;
	s->v[s->n] = NULL;
}

void
sbx_sv_free(struct sbx_strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

/* /etc split into what is masked and, for Landlock, what may be read */
struct sbx_strv sbx_etcmask, sbx_etcok;
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

/* walks dir: masked entries go to sbx_etcmask; returns how many were
 * found, and when none, leaves nothing of dir's own in sbx_etcok */
static int
etcwalk(const char *dir, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	size_t mark = sbx_etcok.n;
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
				sbx_sv_add(&sbx_etcmask, path);
			n++;
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth < 4 &&
		    (k = etcwalk(path, depth + 1)) > 0) {
			n += k;
			continue;
		}
		sbx_sv_add(&sbx_etcok, path);
	}
	closedir(d);
	if (n == 0) {
		while (sbx_etcok.n > mark)
			free(sbx_etcok.v[--sbx_etcok.n]);
		if (sbx_etcok.v)
			sbx_etcok.v[sbx_etcok.n] = NULL;
	}
	return n;
}

void
sbx_etcscan(void)
{
	if (etcdone)
		return;
	etcdone = 1;
	if (etcwalk("/etc", 0) == 0)
		sbx_sv_add(&sbx_etcok, "/etc");
}

void
sbx_limits(const struct oxi_sbx *s, struct sbx_lim *l)
{
	l->cpu = s->cpu_s ? s->cpu_s : 60;
	l->mem = s->mem_mb ? s->mem_mb : 512;
	l->nproc = s->nproc ? s->nproc : 64;
	l->nofile = s->nofile ? s->nofile : 32;
	l->fsize = s->fsize_mb ? s->fsize_mb : 64;
	l->timeout = s->timeout_ms > 0 ? s->timeout_ms : 30000;
	l->tmp = oxi_getenv("OXI_SANDBOX_TMP_MAX") ?
	    atol(oxi_getenv("OXI_SANDBOX_TMP_MAX")) : 0;
	if (l->tmp <= 0 || l->tmp > 1L << 20)
		l->tmp = 256;
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
envset(struct sbx_strv *e, const char *name, const char *val)
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
	sbx_sv_add(e, b.s);
	oxi_buf_free(&b);
}

void
sbx_mkenv(const struct oxi_sbx *s, const char *tmp, struct sbx_strv *e)
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

/* finds prog in a fixed PATH (never the caller's): 0 or -1 */
int
sbx_findbin(const char *prog, char *out, size_t n)
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

void
sbx_closefrom(int lowfd)
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

void
sbx_setlim(int res, long v, long mult)
{
	struct rlimit r;

	if (v < 0)
		return;
	r.rlim_cur = r.rlim_max = (rlim_t)v * (rlim_t)mult;
	(void)setrlimit(res, &r);
}

/*
 * The processes our real uid has: RLIMIT_NPROC counts them all where no
 * user namespace of our own makes a new count.
 */
long
sbx_uidprocs(void)
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


int
sbx_writefile(const char *path, const char *s)
{
	int fd, r;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	r = oxi_writeall(fd, s, strlen(s));
	close(fd);
	return r;
}


/* argv[0] looked up in the sandbox PATH when it has no slash */
char *
sbx_resolve(const char *prog)
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


int
sbx_code(int st, int wrapper)
{
	if (wrapper && WIFEXITED(st) && WEXITSTATUS(st) > 128 &&
	    WEXITSTATUS(st) < 128 + NSIG)
		return WEXITSTATUS(st);
	return oxi_wait_code(st);
}

int
sbx_reap(pid_t pid, int wrapper)
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
			return sbx_code(st, wrapper);
	}
}

void
sbx_confine(struct sbx_job *j, const struct oxi_pipes *p)
{
	int nul, std[3];

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	setsid();
	if (sbx_cgjoin(j->cg[0]) < 0 || sbx_cgjoin(j->cg[1]) < 0)
		_exit(OXI_EX_TEMP);
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	/* out of the way of 0 to 5 first, without close-on-exec */
	if ((j->xfd >= 0 && (j->xfd = fcntl(j->xfd, F_DUPFD, 10)) < 0) ||
	    (j->bfd >= 0 && (j->bfd = fcntl(j->bfd, F_DUPFD, 10)) < 0) ||
	    (j->st = fcntl(j->st, F_DUPFD, 10)) < 0)
		_exit(OXI_EX_TEMP);
	std[0] = std[1] = nul;
	std[2] = j->probing ? nul : -1;
	if ((nul < 0 && (p->flags & (OXI_PIPE_IN | OXI_PIPE_OUT)) !=
	    (OXI_PIPE_IN | OXI_PIPE_OUT)) || oxi_pipes_dup(p, std) < 0)
		_exit(OXI_EX_TEMP);
	/* the status pipe on 3 (bwrap's info fd), xfd on 4, bfd on 5 */
	if (dup2(j->st, 3) < 0 || (j->xfd >= 0 && dup2(j->xfd, 4) < 0) ||
	    (j->bfd >= 0 && dup2(j->bfd, 5) < 0))
		_exit(OXI_EX_TEMP);
	sbx_closefrom(j->bfd >= 0 ? 6 : j->xfd >= 0 ? 5 : 4);
	sbx_setlim(RLIMIT_CPU, j->lim.cpu, 1);
	sbx_setlim(RLIMIT_AS, j->lim.mem, 1024 * 1024);
	sbx_setlim(RLIMIT_NOFILE, j->lim.nofile, 1);
	sbx_setlim(RLIMIT_FSIZE, j->lim.fsize, 1024 * 1024);
}
