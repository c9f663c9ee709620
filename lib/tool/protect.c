/*
 * protect.c - the protected configuration: paths no tool may write
 *
 * The configuration directory (mcp.json, tools/, system.md, allow, the
 * trust file), the state directory (databases, ledgers, logs), the
 * approval stores, $OXI_MCP_CONFIG and $OXI_TOOL_PATH, ~/.ssh,
 * ~/.gnupg and the start-up files of the shells and the desktop are
 * written by the user only, even when the workspace holds them.  Each is
 * kept resolved (realpath of what exists, the rest appended), and a path
 * is judged after the kernel resolved it: the real path of the directory
 * descriptor the write goes through, so links and ".." change nothing.
 * A protected path that holds the workspace itself (the default
 * workspace lies in the state directory) protects nothing inside it.
 * The sandbox keeps them read-only by carving the workspace around them
 * (oxi_protect_carve), the same plan for bubblewrap's binds and for
 * Landlock's rules.
 */
#define _GNU_SOURCE

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"

#define PMAX	64

static const char *const homefiles[] = {
	".ssh", ".gnupg", ".bashrc", ".bash_profile", ".bash_login",
	".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile",
	".zlogin", ".zlogout", ".login", ".logout", ".cshrc", ".tcshrc",
	".kshrc", ".mkshrc", ".pam_environment", ".gitconfig",
	".config/oxi", ".local/share/oxi", ".config/fish", ".config/git",
	".config/autostart", ".config/systemd", ".config/environment.d",
	NULL
};

static char *prot[PMAX + 1];
static int nprot = -1;

/* realpath of what exists of p, the rest appended: 0 or -1 */
static int
rpath(const char *p, char *out, size_t n, int depth)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash, *base;

	if (p[0] != '/' || depth > 64)
		return -1;
	if (realpath(p, real))
		return (size_t)snprintf(out, n, "%s", real) < n ? 0 : -1;
	if (errno != ENOENT && errno != ENOTDIR)
		return -1;
	slash = strrchr(p, '/');
	base = slash + 1;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return -1;
	snprintf(dir, sizeof dir, "%.*s", slash == p ? 1 : (int)(slash - p),
	    p);
	if (rpath(dir, real, sizeof real, depth + 1) < 0)
		return -1;
	return (size_t)snprintf(out, n, "%s/%s", strcmp(real, "/") ? real :
	    "", base) < n ? 0 : -1;
}

static void
add(const char *p)
{
	char r[PATH_MAX];

	if (!p || p[0] != '/' || nprot >= PMAX || rpath(p, r, sizeof r, 0) < 0)
		return;
	prot[nprot++] = xstrdup(r);
}

static void
addf(const char *a, const char *b)
{
	char p[PATH_MAX];

	if (a && (size_t)snprintf(p, sizeof p, "%s/%s", a, b) < sizeof p)
		add(p);
}

const char *const *
oxi_protect_list(void)
{
	const char *v, *e;
	char dir[PATH_MAX];
	int i;

	if (nprot >= 0)
		return (const char *const *)prot;
	nprot = 0;
	add(oxi_config_dir());
	add(oxi_state_dir());
	for (i = 0; i < 2; i++) {	/* the shell's and the guard's */
		add(v = oxi_approved_path(i));
		if (v && (size_t)snprintf(dir, sizeof dir, "%s-once", v) <
		    sizeof dir)
			add(dir);
	}
	add(oxi_getenv("OXI_MCP_CONFIG"));
	for (v = oxi_getenv("OXI_TOOL_PATH"); v && *v; v = *e ? e + 1 : e) {
		e = v + strcspn(v, ":");
		if ((size_t)(e - v) < sizeof dir) {
			snprintf(dir, sizeof dir, "%.*s", (int)(e - v), v);
			add(dir);
		}
	}
	v = getenv("HOME");
	for (i = 0; v && v[0] == '/' && homefiles[i]; i++)
		addf(v, homefiles[i]);
	prot[nprot] = NULL;
	return (const char *const *)prot;
}

/* 1 if path is p or inside it */
static int
under(const char *path, const char *p)
{
	size_t n = strlen(p);

	return !strcmp(p, "/") || (!strncmp(path, p, n) && (path[n] == '/' ||
	    path[n] == '\0'));
}

int
oxi_protected(const char *real, const char *wsreal)
{
	const char *const *l = oxi_protect_list();
	int i;

	for (i = 0; l[i]; i++)
		if (under(real, l[i]) && !(wsreal && under(wsreal, l[i])))
			return 1;
	return 0;
}

/* the path of an open descriptor: 0 or -1 */
static int
fdpath(int fd, char *buf, size_t n)
{
	char link[64];
	ssize_t k;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if ((k = readlink(link, buf, n - 1)) <= 0 || buf[0] != '/')
		return -1;
	buf[k] = '\0';
	return 0;
}

int
oxi_protected_at(int ws, int dfd, const char *base)
{
	char ws_[PATH_MAX], d[PATH_MAX], p[PATH_MAX];

	if (fdpath(ws, ws_, sizeof ws_) < 0 || fdpath(dfd, d, sizeof d) < 0 ||
	    (size_t)snprintf(p, sizeof p, "%s/%s", strcmp(d, "/") ? d : "",
	    base) >= sizeof p)
		return 1;	/* what cannot be judged is refused */
	return oxi_protected(!strcmp(base, ".") ? d : p, ws_);
}

/* 1 if a component of p is ".." */
static int
dotdot(const char *p)
{
	size_t n;

	for (; *p; p += n) {
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 1;
	}
	return 0;
}

int
oxi_protected_path(int ws, const char *path)
{
	char *pre = xstrdup(path), *s, *rest;
	int fd, r;

	/* the longest prefix that exists, resolved as the open would */
	for (;;) {
		fd = oxi_wsp_openat(ws, *pre ? pre : ".", O_PATH, 0);
		if (fd >= 0 || errno != ENOENT)
			break;
		if (!(s = strrchr(pre, '/')))
			s = pre;
		*s = '\0';
	}
	if (fd < 0) {
		free(pre);
		return 0;	/* the open itself will fail */
	}
	rest = (char *)path + strlen(pre);
	while (*rest == '/')
		rest++;
	/* what does not exist yet has no link in it; ".." would fail */
	if (dotdot(rest))
		r = 1;
	else
		r = oxi_protected_at(ws, fd, *rest ? rest : ".");
	close(fd);
	free(pre);
	return r;
}

static int
bylen(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);

	return x < y ? -1 : x > y;
}

/* a growable NULL-terminated list of paths */
struct plist {
	char **v;
	size_t n, cap;
};

static void
padd(struct plist *l, const char *p)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], p))
			return;
	if (l->n + 2 > l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = xstrdup(p);
	l->v[l->n] = NULL;
}

static int
pin(const struct plist *l, const char *p)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], p))
			return 1;
	return 0;
}

static void
pclear(struct plist *l)
{
	while (l->n > 0)
		free(l->v[--l->n]);
	if (l->v)
		l->v[0] = NULL;
}

#define CARVEMAX	1024	/* entries re-opened in closed directories */

static struct plist cro, crw;	/* oxi_protect_carve's lists */
static const char *const none[] = { NULL };

/* the entries of closed directory d that are neither closed nor
 * protected: regular files and directories, never a link (which could
 * lead outside); 0, or -1 past CARVEMAX */
static int
reopen(const char *d, const char *wsreal, const struct plist *closed)
{
	char p[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int r = 0;

	if (!(dir = opendir(d)))
		return 0;
	while (r == 0 && (de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (size_t)snprintf(p, sizeof p, "%s/%s", strcmp(d, "/") ? d :
		    "", de->d_name) >= sizeof p)
			continue;
		if (pin(closed, p) || oxi_protected(p, wsreal) || lstat(p,
		    &st) < 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			continue;
		if (crw.n >= CARVEMAX)
			r = -1;
		else
			padd(&crw, p);
	}
	closedir(dir);
	return r;
}

/*
 * The workspace carved around the protected paths strictly inside it:
 * each directory from the workspace down to the nearest existing parent
 * of one is closed (read-only: nothing new appears in it, nothing in it
 * is renamed or removed), the protected paths that exist are read-only,
 * and every other entry of a closed directory is read-write again.  A
 * missing configuration directory inside the workspace is made first
 * (mode 0700).  Both lists NULL-terminated and shortest first, static;
 * empty when nothing is protected inside; 0, or -1 with *ro NULL when
 * more than CARVEMAX entries would be re-opened.
 */
int
oxi_protect_carve(const char *wsreal, const char *const **ro,
    const char *const **rw)
{
	const char *const *l = oxi_protect_list();
	struct plist closed = { NULL, 0, 0 };
	char p[PATH_MAX], *s, cfg[PATH_MAX];
	struct stat st;
	size_t i;
	int r = 0;

	pclear(&cro);
	pclear(&crw);
	if (wsreal && oxi_config_dir() && rpath(oxi_config_dir(), cfg,
	    sizeof cfg, 0) == 0 && under(cfg, wsreal) && !under(wsreal, cfg))
		(void)oxi_mkdirp(cfg, 0700);
	for (i = 0; wsreal && l[i]; i++) {
		if (!under(l[i], wsreal) || under(wsreal, l[i]))
			continue;
		if (lstat(l[i], &st) == 0)
			padd(&cro, l[i]);
		snprintf(p, sizeof p, "%s", l[i]);
		while ((s = strrchr(p, '/')) && s > p) {
			*s = '\0';
			if (!under(p, wsreal))
				break;
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
				padd(&closed, p);
		}
	}
	for (i = 0; r == 0 && i < closed.n; i++)
		r = reopen(closed.v[i], wsreal, &closed);
	for (i = 0; i < closed.n; i++)
		padd(&cro, closed.v[i]);
	pclear(&closed);
	free(closed.v);
	if (cro.v)
		qsort(cro.v, cro.n, sizeof *cro.v, bylen);
	if (crw.v)
		qsort(crw.v, crw.n, sizeof *crw.v, bylen);
	*ro = r < 0 ? NULL : cro.v ? (const char *const *)cro.v : none;
	*rw = crw.v ? (const char *const *)crw.v : none;
	return r;
}

/* path with $HOME as "~"; static */
static const char *
tilde(const char *path)
{
	static char buf[PATH_MAX];
	const char *h = getenv("HOME");
	size_t n = h ? strlen(h) : 0;

	if (n > 1 && !strncmp(path, h, n) && path[n] == '/') {
		snprintf(buf, sizeof buf, "~%s", path + n);
		return buf;
	}
	return path;
}

const char **
oxi_protect_sbx(struct oxi_sbx *s, const char *const *extra, char *why,
    size_t n)
{
	const char *const *in = NULL, *const *rw = NULL;
	const char **ro;
	char real[PATH_MAX];
	size_t i, k = 0, m = 0;

	s->rw = NULL;
	if (s->workspace && realpath(s->workspace, real) &&
	    oxi_protect_carve(real, &in, &rw) < 0) {
		snprintf(why, n, "refused: the workspace (%s) holds protected "
		    "configuration and more than %d entries beside it, too "
		    "many to keep the rest writable; choose a smaller "
		    "workspace", tilde(real), CARVEMAX);
		return NULL;
	}
	for (i = 0; in && in[i]; i++)
		m++;
	for (i = 0; extra && extra[i]; i++)
		m++;
	ro = xmalloc((m + 1) * sizeof *ro);
	for (i = 0; extra && extra[i]; i++)
		ro[k++] = extra[i];
	for (i = 0; in && in[i]; i++)
		ro[k++] = in[i];
	ro[k] = NULL;
	s->ro = ro;
	/* carved: the workspace itself is closed, only these writable */
	if (in && in[0])
		s->rw = rw;
	return ro;
}
