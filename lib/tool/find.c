/*
 * find.c - built-in tools: edit_file, glob and grep (files of the
 * workspace found and changed)
 *
 * Like the tools of fs.c, these work inside the workspace only: a path
 * is opened with oxi_wsp_openat or oxi_wsp_opendir, and a walk goes down
 * from a descriptor already inside, one name at a time, with O_NOFOLLOW,
 * so that it never follows a symbolic link (in or out) nor climbs out;
 * an edit is written within the disk bounds of disk.c.
 * Names starting with "." are skipped by the walks unless a pattern asks
 * for them.  grep runs PCRE2 with match, depth and heap limits; a match
 * that hits one fails the whole call (fail closed, never a silent "no
 * match").
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

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "oxi.h"
#include "tool/tooldef.h"
#include "tool/disk.h"

#define EDIT_MAX	(16 * 1024 * 1024)	/* largest file edit_file takes */
#define GREP_FILEMAX	(32 * 1024 * 1024)	/* larger files are skipped */
#define GREP_LINEMAX	400	/* bytes of a matching line shown */
#define GREP_DEFAULT	100	/* matches shown by default */
#define GREP_MAX	10000	/* the most max_results may ask */
#define GLOB_SHOWN	1000	/* paths shown */
#define GLOB_KEEP	100000	/* paths collected, to count the rest */
#define MAXDEPTH	64	/* directory levels walked */
#define MATCH_LIMIT	1000000	/* pcre2_set_match_limit */
#define DEPTH_LIMIT	100000	/* pcre2_set_depth_limit */
#define HEAP_LIMIT	65536	/* pcre2_set_heap_limit, KiB */

#define TIMEOUT_MS	60000	/* each call, unless OXI_TOOL_TIMEOUT */

static int editfile(struct oxi_tool_call *);
static int globfiles(struct oxi_tool_call *);
static int grep(struct oxi_tool_call *);

const struct oxi_tool oxi_tools_find[] = {
	{ "edit_file",
	  "Edit a text file in the workspace by replacing an exact string. "
	  "old_string must occur exactly once in the file (include enough "
	  "surrounding lines to make it unique), unless replace_all is "
	  "true, which replaces every occurrence. The file is replaced "
	  "atomically. Read the file first to copy old_string exactly, "
	  "white space included.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":"
	  "\"File path, relative to the workspace\"},"
	  "\"old_string\":{\"type\":\"string\",\"description\":"
	  "\"The exact text to replace\"},"
	  "\"new_string\":{\"type\":\"string\",\"description\":"
	  "\"The text to put in its place (may be empty)\"},"
	  "\"replace_all\":{\"type\":\"boolean\",\"description\":"
	  "\"Replace every occurrence (default false)\"}},"
	  "\"required\":[\"path\",\"old_string\",\"new_string\"],"
	  "\"additionalProperties\":false}",
	  "path old_string new_string replace_all", NULL, TIMEOUT_MS, 0, NULL,
	  editfile },
	{ "glob",
	  "Find files in the workspace whose paths match a glob pattern: "
	  "* and ? match within a name, [abc] a character of a set, ** any "
	  "number of directories (\"**/*.c\", \"src/**/test_*.py\"). Names "
	  "starting with a dot match only a pattern that starts with a "
	  "dot. Returns the paths, one per line, sorted.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"pattern\":{\"type\":\"string\",\"description\":"
	  "\"Glob pattern, relative to path\"},"
	  "\"path\":{\"type\":\"string\",\"description\":"
	  "\"Directory to search, relative to the workspace (default: "
	  "the workspace)\"}},"
	  "\"required\":[\"pattern\"],\"additionalProperties\":false}",
	  "pattern path", "workspace", TIMEOUT_MS, 0, NULL, globfiles },
	{ "grep",
	  "Search the text files of the workspace for a regular expression "
	  "(PCRE2, Perl syntax), line by line. Returns matching lines as "
	  "path:line:text, sorted by path. Binary files and names starting "
	  "with a dot are skipped.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"pattern\":{\"type\":\"string\",\"description\":"
	  "\"Regular expression (PCRE2)\"},"
	  "\"path\":{\"type\":\"string\",\"description\":"
	  "\"File or directory to search, relative to the workspace "
	  "(default: the workspace)\"},"
	  "\"glob\":{\"type\":\"string\",\"description\":"
	  "\"Only files whose name (or, with a /, path) matches this glob, "
	  "e.g. \\\"*.c\\\"\"},"
	  "\"ignore_case\":{\"type\":\"boolean\",\"description\":"
	  "\"Match without regard to case (default false)\"},"
	  "\"max_results\":{\"type\":\"integer\",\"minimum\":1,"
	  "\"maximum\":10000,\"description\":"
	  "\"Most matching lines to return (default 100)\"}},"
	  "\"required\":[\"pattern\"],\"additionalProperties\":false}",
	  "pattern path glob ignore_case max_results", "workspace", TIMEOUT_MS,
	  0, NULL, grep },
	{ NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL }
};

/*
 * Opens the directory holding path and points *base at its last name:
 * a descriptor, or -1 with the error in out.
 */
static int
parent(struct oxi_tool_call *c, const char *path, const char **base)
{
	int ws = c->ctx->ws;
	const char *b;
	char *dir;
	int fd;

	if (path[0] == '/')
		return oxi_tool_failpath(c, path, EXDEV);
	b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (*b == '\0' || strcmp(b, ".") == 0 || strcmp(b, "..") == 0)
		return oxi_tool_fail(c, "'%s' names a directory, not a "
		    "file", path);
	if (strlen(b) > NAME_MAX)
		return oxi_tool_failpath(c, path, ENAMETOOLONG);
	if (b == path)
		fd = oxi_wsp_opendir(ws, ".", 0);
	else {
		dir = xstrndup(path, b - path);
		fd = oxi_wsp_opendir(ws, dir, 0);
		free(dir);
	}
	if (fd < 0)
		return oxi_tool_failpath(c, path, errno);
	*base = b;
	return fd;
}

/* reads all of fd, at most max bytes: 0, 1 if over max, or -1 */
static int
slurp(int fd, struct oxi_buf *b, size_t max)
{
	ssize_t r;

	oxi_buf_reset(b);
	for (;;) {
		oxi_buf_grow(b, 65536);
		r = read(fd, b->s + b->len, 65536);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		b->len += r;
		if (b->len > max)
			return 1;
	}
	b->s[b->len] = '\0';
	return 0;
}

static int
editfile(struct oxi_tool_call *c)
{
	struct oxi_buf *out = c->out;
	struct oxi_buf text = OXI_BUF_INIT, res = OXI_BUF_INIT;
	const char *path, *old, *new, *base = NULL, *p, *q, *end;
	char tmp[64], id[OXI_ID_LEN + 1];
	size_t oldlen, newlen, count = 0;
	struct stat st;
	struct oxi_disk disk;
	int all = 0, dfd, fd = -1, e, r, ret = -1;

	if ((r = oxi_tool_argpath(c, "path", &path)) <= 0)
		return r < 0 ? -1 : oxi_tool_fail(c, "missing argument "
		    "'path'");
	if (oxi_tool_needstr(c, "old_string", &old, &oldlen) < 0 ||
	    oxi_tool_needstr(c, "new_string", &new, &newlen) < 0 ||
	    oxi_tool_argbool(c, "replace_all", &all) < 0)
		return -1;
	if (oldlen == 0)
		return oxi_tool_fail(c, "old_string is empty; use "
		    "write_file to make a file");
	if (oldlen == newlen && memcmp(old, new, oldlen) == 0)
		return oxi_tool_fail(c, "old_string and new_string are "
		    "the same");
	if ((dfd = parent(c, path, &base)) < 0)
		return -1;
	if (oxi_protected_at(c->ctx->ws, dfd, base)) {
		oxi_tool_fail(c, "refused: '%s' is protected configuration, "
		    "which no tool writes", path);
		goto done;
	}
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		e = errno;
		if ((e == ELOOP || e == EMLINK) && fstatat(dfd, base, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			oxi_tool_fail(c, "'%s' is a symbolic link, not "
			    "edited", path);
		else
			oxi_tool_failpath(c, path, e);
		goto done;
	}
	if (fstat(fd, &st) < 0) {
		oxi_tool_failpath(c, path, errno);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		oxi_tool_fail(c, "'%s' is not a regular file", path);
		goto done;
	}
	if ((r = slurp(fd, &text, EDIT_MAX)) != 0) {
		if (r < 0)
			oxi_tool_failpath(c, path, errno);
		else
			oxi_tool_fail(c, "'%s' is over %d MiB, too large "
			    "to edit", path, EDIT_MAX >> 20);
		goto done;
	}
	if (memchr(text.s, '\0', text.len)) {
		oxi_tool_fail(c, "'%s' is a binary file (it holds NUL "
		    "bytes)", path);
		goto done;
	}
	end = text.s + text.len;
	for (p = text.s; (q = memmem(p, end - p, old, oldlen));
	    p = q + oldlen)
		if (++count % 65536 == 0 && oxi_tool_expired(c)) {
			oxi_tool_fail(c, "timed out after %ld ms", c->limit);
			goto done;
		}
	if (count == 0) {
		oxi_tool_fail(c, "old_string not found in '%s' (it must "
		    "match exactly, white space included)", path);
		goto done;
	}
	if (count > 1 && !all) {
		oxi_tool_fail(c, "old_string occurs %zu times in '%s'; "
		    "include more context to make it unique, or set "
		    "replace_all", count, path);
		goto done;
	}
	/* the size of the result before it is built: an edit makes no
	 * file larger than one it would take */
	if (newlen > oldlen && (newlen - oldlen > EDIT_MAX ||
	    count > (EDIT_MAX - text.len) / (newlen - oldlen))) {
		oxi_tool_fail(c, "the result would be over %d MiB (%zu "
		    "occurrence%s of old_string), too large to write",
		    EDIT_MAX >> 20, count, count == 1 ? "" : "s");
		goto done;
	}
	oxi_buf_grow(&res, text.len - count * oldlen + count * newlen + 1);
	for (p = text.s; (q = memmem(p, end - p, old, oldlen));
	    p = q + oldlen) {
		oxi_buf_cat(&res, p, q - p);
		oxi_buf_cat(&res, new, newlen);
	}
	oxi_buf_cat(&res, p, end - p);
	oxi_buf_cats(&res, "");
	close(fd);
	fd = -1;
	if (oxi_disk_begin(c, &disk, (long long)res.len) < 0)
		goto done;
	/* the same atomic replacement as write_file */
	oxi_id_new(id);
	snprintf(tmp, sizeof tmp, ".oxi-tool.%s.tmp", id);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd < 0) {
		oxi_tool_failpath(c, path, errno);
		goto done;
	}
	/* its permission bits, after the write and never a special bit
	 * (set-user-ID, set-group-ID, sticky), as write_file */
	if (oxi_writeall(fd, res.s, res.len) < 0 ||
	    fchmod(fd, st.st_mode & 0777) < 0 || fsync(fd) < 0) {
		e = errno;
		close(fd);
		fd = -1;
		(void)unlinkat(dfd, tmp, 0);
		oxi_tool_failpath(c, path, e);
		goto done;
	}
	e = close(fd) < 0 ? errno : 0;
	fd = -1;
	if (e || renameat(dfd, tmp, dfd, base) < 0) {
		e = e ? e : errno;
		(void)unlinkat(dfd, tmp, 0);
		oxi_tool_failpath(c, path, e);
		goto done;
	}
	oxi_buf_reset(out);
	oxi_buf_printf(out, "replaced %zu occurrence%s in '%s'", count,
	    count == 1 ? "" : "s", path);
	oxi_disk_end(&disk, out);
	ret = 0;
done:
	if (fd >= 0)
		close(fd);
	close(dfd);
	oxi_buf_free(&text);
	oxi_buf_free(&res);
	return ret;
}

/* a directory entry */
struct dent {
	char *name;		/* its name */
	int dir;		/* a directory (not a link to one) */
	int reg;		/* a regular file (not a link to one) */
};

static int
cmpdent(const void *a, const void *b)
{
	return strcmp(((const struct dent *)a)->name,
	    ((const struct dent *)b)->name);
}

static void
freedents(struct dent *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* the entries of directory dfd (not closed), sorted: 0 or -1 */
static int
readents(int dfd, struct dent **vp, size_t *np)
{
	struct dent *v = NULL;
	struct dirent *de;
	struct stat st;
	size_t n = 0, cap = 0;
	DIR *d;
	int fd, type, e;

	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -1;
	}
	while ((errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		type = de->d_type;
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR :
			    S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			v = xrealloc(v, cap * sizeof *v);
		}
		v[n].name = xstrdup(de->d_name);
		v[n].dir = type == DT_DIR;
		v[n].reg = type == DT_REG;
		n++;
	}
	e = errno;
	closedir(d);
	if (e) {
		freedents(v, n);
		errno = e;
		return -1;
	}
	if (n > 0)
		qsort(v, n, sizeof *v, cmpdent);
	*vp = v;
	*np = n;
	return 0;
}

/* opens subdirectory name of dfd without following a link: fd or -1 */
static int
subdir(int dfd, const char *name)
{
	return openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
}

/* a pattern that stays in the workspace: 0, or -1 with why in out */
static int
relpattern(struct oxi_tool_call *c, const char *pat, size_t len,
    const char *key)
{
	char **sv;
	int n, i, bad = 0;

	if (len == 0)
		return oxi_tool_fail(c, "argument '%s' is empty", key);
	if (strlen(pat) != len)
		return oxi_tool_fail(c, "argument '%s' holds a NUL byte",
		    key);
	n = oxi_tool_glob_split(pat, &sv);
	for (i = 0; i < n; i++)
		if (strcmp(sv[i], "..") == 0)
			bad = 1;
	oxi_tool_glob_free(sv, n);
	if (pat[0] == '/' || bad)
		return oxi_tool_fail(c, "'%s' is outside the workspace: "
		    "a pattern is relative, without ..", pat);
	if (n == 0)
		return oxi_tool_fail(c, "argument '%s' matches nothing",
		    key);
	return 0;
}

/* what a walk collects */
struct walk {
	char **v;		/* paths found */
	size_t n, cap;		/* used, allocated */
	size_t more;		/* found past GLOB_KEEP */
	int timeout;		/* the deadline passed */
	struct oxi_tool_call *call;	/* the glob call */
	char **sv;		/* the pattern's segments */
	int sn;			/* their number */
};

static void
found(struct walk *w, const struct oxi_buf *rel)
{
	if (w->n >= GLOB_KEEP) {
		w->more++;
		return;
	}
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->v = xrealloc(w->v, w->cap * sizeof *w->v);
	}
	w->v[w->n++] = xstrdup(rel->s);
}

/* matches the states set (of w->sv) below directory dfd, path rel */
static void
globwalk(struct walk *w, int dfd, const char *set, struct oxi_buf *rel,
    int depth)
{
	struct dent *v;
	size_t ne, k, len = rel->len;
	char *next;
	int fd, file;

	if (w->timeout || depth > MAXDEPTH)
		return;
	if (oxi_tool_expired(w->call)) {
		w->timeout = 1;
		return;
	}
	if (readents(dfd, &v, &ne) < 0)
		return;	/* unreadable: nothing found there */
	next = xmalloc(w->sn + 1);
	for (k = 0; k < ne && !w->timeout; k++) {
		if (oxi_tool_expired(w->call)) {
			w->timeout = 1;
			break;
		}
		file = 0;
		if (!oxi_tool_glob_step(w->sv, w->sn, set, next, v[k].name, v[k].dir,
		    &file) && !file)
			continue;
		oxi_buf_printf(rel, "%s%s", len ? "/" : "", v[k].name);
		if (file)
			found(w, rel);
		else if (v[k].dir && (fd = subdir(dfd, v[k].name)) >= 0) {
			globwalk(w, fd, next, rel, depth + 1);
			close(fd);
		}
		rel->len = len;
		rel->s[len] = '\0';
	}
	free(next);
	freedents(v, ne);
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the path argument as a directory: an fd and its prefix for results */
static int
startdir(struct oxi_tool_call *c, struct oxi_buf *prefix, const char **pathp)
{
	const char *path = ".";
	size_t len;
	int r, fd;

	if ((r = oxi_tool_argstr(c, "path", &path, &len)) < 0)
		return -1;
	if (r == 0 || len == 0)
		path = ".";
	else if (strlen(path) != len)
		return oxi_tool_fail(c, "argument 'path' holds a NUL "
		    "byte");
	*pathp = path;
	if ((fd = oxi_wsp_opendir(c->ctx->ws, path, 0)) < 0)
		return oxi_tool_failpath(c, path, errno);
	oxi_buf_reset(prefix);
	oxi_buf_cats(prefix, path);
	while (prefix->len > 0 && prefix->s[prefix->len - 1] == '/')
		prefix->s[--prefix->len] = '\0';
	while (prefix->len >= 2 && prefix->s[0] == '.' && prefix->s[1] == '/') {
		memmove(prefix->s, prefix->s + 2, prefix->len - 1);
		prefix->len -= 2;
	}
	if (strcmp(prefix->s, ".") == 0)
		oxi_buf_reset(prefix);
	return fd;
}

static int
globfiles(struct oxi_tool_call *c)
{
	struct oxi_buf *out = c->out;
	struct oxi_buf rel = OXI_BUF_INIT;
	struct walk w;
	const char *pat, *path;
	char *set;
	size_t len, i, j;
	int n, fd;

	if (oxi_tool_needstr(c, "pattern", &pat, &len) < 0 ||
	    relpattern(c, pat, len, "pattern") < 0)
		return -1;
	if ((fd = startdir(c, &rel, &path)) < 0)
		return -1;
	memset(&w, 0, sizeof w);
	w.call = c;
	w.sn = n = oxi_tool_glob_split(pat, &w.sv);
	set = xmalloc(n + 1);
	oxi_tool_glob_start(w.sv, n, set);
	oxi_buf_cats(&rel, "");
	globwalk(&w, fd, set, &rel, 0);
	close(fd);
	free(set);
	oxi_tool_glob_free(w.sv, n);
	oxi_buf_free(&rel);
	if (w.timeout) {
		for (i = 0; i < w.n; i++)
			free(w.v[i]);
		free(w.v);
		return oxi_tool_fail(c, "timed out after %ld ms; narrow "
		    "the pattern or the path", c->limit);
	}
	if (w.n > 0)
		qsort(w.v, w.n, sizeof *w.v, cmpstr);
	/* ** can reach a path twice: keep one */
	for (i = j = 0; i < w.n; i++)
		if (j > 0 && strcmp(w.v[j - 1], w.v[i]) == 0)
			free(w.v[i]);
		else
			w.v[j++] = w.v[i];
	w.n = j;
	oxi_buf_reset(out);
	if (w.n == 0)
		oxi_buf_printf(out, "no files match '%s'", pat);
	for (i = 0; i < w.n; i++) {
		if (i < GLOB_SHOWN) {
			if (i)
				oxi_buf_putc(out, '\n');
			oxi_tool_catname(out, w.v[i], strlen(w.v[i]));
		}
		free(w.v[i]);
	}
	if (w.n + w.more > GLOB_SHOWN)
		oxi_buf_printf(out, "\n[%zu more paths not shown; narrow the "
		    "pattern]", w.n + w.more - GLOB_SHOWN);
	free(w.v);
	oxi_buf_cats(out, "");
	return 0;
}

/* a grep in progress */
struct grep {
	pcre2_code *re;		/* the pattern */
	pcre2_match_data *md;	/* its match data */
	pcre2_match_context *mc;	/* limits */
	char **gv;		/* glob segments, or NULL */
	int gn;			/* their number */
	int base;		/* match the glob against the name only */
	struct oxi_buf text;	/* the file being searched */
	struct oxi_buf *out;	/* results */
	long long max;		/* matches wanted */
	long long hits;		/* matches found */
	size_t files;		/* files searched */
	size_t big;		/* files skipped as too large */
	int stop;		/* 1 max reached, -1 failed (message in err) */
	struct oxi_tool_call *call;	/* the grep call */
	struct oxi_buf err;	/* the failure */
};

/* the path rel matches the glob filter */
static int
wanted(struct grep *g, const char *rel, const char *name)
{
	char **pv;
	int pn, r;

	if (!g->gv)
		return 1;
	if (g->base)
		return oxi_tool_glob_name(g->gv[0], name);
	pn = oxi_tool_glob_split(rel, &pv);
	r = oxi_tool_glob_path(g->gv, g->gn, pv, pn);
	oxi_tool_glob_free(pv, pn);
	return r;
}

static void
grepfail(struct grep *g, const char *rel, unsigned long line, int rc)
{
	PCRE2_UCHAR msg[256];

	g->stop = -1;
	oxi_buf_reset(&g->err);
	switch (rc) {
	case PCRE2_ERROR_MATCHLIMIT:
	case PCRE2_ERROR_DEPTHLIMIT:
	case PCRE2_ERROR_HEAPLIMIT:
	case PCRE2_ERROR_JIT_STACKLIMIT:
		oxi_buf_printf(&g->err, "the pattern is too costly: it hit "
		    "the match limit at '%s' line %lu; make it simpler (no "
		    "nested repeats)", rel, line);
		break;
	default:
		pcre2_get_error_message(rc, msg, sizeof msg);
		oxi_buf_printf(&g->err, "matching failed at '%s' line %lu: "
		    "%s", rel, line, (char *)msg);
	}
}

/* one file, fd consumed; rel is its path as shown (escaped) */
static void
grepfile(struct grep *g, int fd, const char *rel)
{
	const char *p, *e, *nl;
	unsigned long line = 0;
	size_t n, show;
	struct stat st;
	int rc, r;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	if (st.st_size > GREP_FILEMAX) {
		g->big++;
		close(fd);
		return;
	}
	r = slurp(fd, &g->text, GREP_FILEMAX);
	close(fd);
	if (r != 0)
		return;
	g->files++;
	/* binary: a NUL in the first 8 KiB, as git and grep decide */
	if (memchr(g->text.s, '\0', g->text.len < 8192 ? g->text.len : 8192))
		return;
	for (p = g->text.s, e = p + g->text.len; p < e; p = nl + 1) {
		if (!(nl = memchr(p, '\n', e - p)))
			nl = e;
		line++;
		n = nl - p;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (line % 4096 == 0 && oxi_tool_expired(g->call)) {
			g->stop = -1;
			oxi_buf_reset(&g->err);
			oxi_buf_printf(&g->err, "timed out after %ld ms (at "
			    "'%s'); narrow the path or the glob",
			    g->call->limit, rel);
			return;
		}
		rc = pcre2_match(g->re, (PCRE2_SPTR)p, n, 0, 0, g->md, g->mc);
		if (rc == PCRE2_ERROR_NOMATCH)
			continue;
		if (rc < 0) {
			grepfail(g, rel, line, rc);
			return;
		}
		if (g->hits >= g->max) {
			g->stop = 1;
			return;
		}
		g->hits++;
		show = n;
		if (show > GREP_LINEMAX) {
			show = oxi_utf8_cut(p, n, GREP_LINEMAX);
		}
		oxi_buf_printf(g->out, "%s%s:%lu:", g->out->len ? "\n" : "",
		    rel, line);
		oxi_buf_cat(g->out, p, show);
		if (show < n)
			oxi_buf_cats(g->out, "...");
	}
}

/* the files below dfd, whose path is rel */
static void
grepdir(struct grep *g, int dfd, struct oxi_buf *rel, int depth)
{
	struct dent *v;
	size_t ne, k, len = rel->len;
	char *shown;
	int fd;

	if (depth > MAXDEPTH || readents(dfd, &v, &ne) < 0)
		return;
	for (k = 0; k < ne && !g->stop; k++) {
		if (v[k].name[0] == '.' || (!v[k].dir && !v[k].reg))
			continue;	/* hidden, links, devices */
		if (oxi_tool_expired(g->call)) {
			g->stop = -1;
			oxi_buf_reset(&g->err);
			oxi_buf_printf(&g->err, "timed out after %ld ms; narrow "
			    "the path or the glob", g->call->limit);
			break;
		}
		oxi_buf_printf(rel, "%s%s", len ? "/" : "", v[k].name);
		if (v[k].dir) {
			if ((fd = subdir(dfd, v[k].name)) >= 0) {
				grepdir(g, fd, rel, depth + 1);
				close(fd);
			}
		} else if (wanted(g, rel->s, v[k].name) &&
		    (fd = openat(dfd, v[k].name, O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) >= 0) {
			shown = oxi_tool_showname(rel->s);
			grepfile(g, fd, shown);
			free(shown);
		}
		rel->len = len;
		rel->s[len] = '\0';
	}
	freedents(v, ne);
}

static int
grep(struct oxi_tool_call *c)
{
	const struct oxi_tool_ctx *ctx = c->ctx;
	struct oxi_buf *out = c->out;
	struct oxi_buf rel = OXI_BUF_INIT, res = OXI_BUF_INIT;
	pcre2_jit_stack *js = NULL;
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	struct grep g;
	struct stat st;
	const char *pat, *glob = NULL, *path = ".", *v;
	char *shown;
	size_t len, glen = 0, plen = 1;
	int icase = 0, err, fd, r, ret = -1;

	memset(&g, 0, sizeof g);
	g.call = c;
	g.max = GREP_DEFAULT;
	if (oxi_tool_needstr(c, "pattern", &pat, &len) < 0 ||
	    oxi_tool_argbool(c, "ignore_case", &icase) < 0 ||
	    oxi_tool_argint(c, "max_results", 1, &g.max) < 0 ||
	    (r = oxi_tool_argstr(c, "glob", &glob, &glen)) < 0 ||
	    (r > 0 && relpattern(c, glob, glen, "glob") < 0) ||
	    oxi_tool_argstr(c, "path", &path, &plen) < 0)
		return -1;
	if (g.max > GREP_MAX)
		return oxi_tool_fail(c, "argument 'max_results' must be "
		    "at most %d", GREP_MAX);
	if (len == 0)
		return oxi_tool_fail(c, "argument 'pattern' is empty");
	g.re = pcre2_compile((PCRE2_SPTR)pat, len, PCRE2_UTF |
	    PCRE2_MATCH_INVALID_UTF | PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C |
	    (icase ? PCRE2_CASELESS : 0), &err, &off, NULL);
	if (!g.re) {
		pcre2_get_error_message(err, msg, sizeof msg);
		return oxi_tool_fail(c, "bad pattern at offset %zu: %s",
		    (size_t)off, (char *)msg);
	}
	/* JIT where it works; not under valgrind, which cannot see into
	 * JIT code and reports it as reading uninitialised memory */
	if (!(v = getenv("LD_PRELOAD")) || !strstr(v, "vgpreload"))
		(void)pcre2_jit_compile(g.re, PCRE2_JIT_COMPLETE);
	g.md = pcre2_match_data_create_from_pattern(g.re, NULL);
	g.mc = pcre2_match_context_create(NULL);
	if (!g.md || !g.mc) {
		oxi_tool_fail(c, "out of memory");
		goto done;
	}
	pcre2_set_match_limit(g.mc, MATCH_LIMIT);
	pcre2_set_depth_limit(g.mc, DEPTH_LIMIT);
	pcre2_set_heap_limit(g.mc, HEAP_LIMIT);
	if ((js = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL)))
		pcre2_jit_stack_assign(g.mc, NULL, js);
	if (glob && glen > 0) {
		g.gn = oxi_tool_glob_split(glob, &g.gv);
		g.base = strchr(glob, '/') == NULL;
	}
	g.out = &res;
	oxi_buf_cats(&res, "");
	/* a file, or a directory to walk */
	fd = -1;
	if (path && plen > 0 && path[0] != '/' && strlen(path) == plen)
		fd = oxi_wsp_openat(ctx->ws, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) {
		if (!S_ISREG(st.st_mode)) {
			close(fd);
			oxi_tool_fail(c, "'%s' is not a regular file", path);
			goto done;
		}
		shown = oxi_tool_showname(path);
		grepfile(&g, fd, shown);
		free(shown);
	} else {
		if (fd >= 0)
			close(fd);
		if ((fd = startdir(c, &rel, &path)) < 0)
			goto done;
		oxi_buf_cats(&rel, "");
		grepdir(&g, fd, &rel, 0);
		close(fd);
	}
	if (g.stop < 0) {
		oxi_tool_fail(c, "%s", g.err.s);
		goto done;
	}
	oxi_buf_reset(out);
	if (g.hits == 0)
		oxi_buf_printf(out, "no matches (%zu file%s searched)", g.files,
		    g.files == 1 ? "" : "s");
	else
		oxi_buf_cat(out, res.s, res.len);
	if (g.stop > 0)
		oxi_buf_printf(out, "\n[stopped after %lld matches; narrow the "
		    "search or raise max_results]", g.hits);
	if (g.big)
		oxi_buf_printf(out, "\n[%zu file%s over %d MiB not searched]",
		    g.big, g.big == 1 ? "" : "s", GREP_FILEMAX >> 20);
	oxi_buf_cats(out, "");
	ret = 0;
done:
	if (g.gv)
		oxi_tool_glob_free(g.gv, g.gn);
	if (js)
		pcre2_jit_stack_free(js);
	pcre2_match_context_free(g.mc);
	pcre2_match_data_free(g.md);
	pcre2_code_free(g.re);
	oxi_buf_free(&g.text);
	oxi_buf_free(&g.err);
	oxi_buf_free(&rel);
	oxi_buf_free(&res);
	return ret;
}
