/*
 * registry.c - the built-in tools of oxi-tool: their definitions (name,
 * description, JSON Schema of the arguments) and the code that runs them
 *
 * Every tool works inside the workspace through ws.c, writes its answer
 * (or its error message) into a buffer, and never prints or exits: any
 * problem, from a wrong argument to a refused path, becomes an error
 * result that the model can read and act on.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tool.h"

#define CHUNK	65536

static int readfile(const struct oxi_tool_ctx *, jv, struct oxi_buf *);
static int writefile(const struct oxi_tool_ctx *, jv, struct oxi_buf *);
static int listdir(const struct oxi_tool_ctx *, jv, struct oxi_buf *);

const struct oxi_tool oxi_tools_fs[] = {
	{ "read_file",
	  "Read a UTF-8 text file in the workspace and return its text, "
	  "or a range of its lines. Paths are relative to the workspace. "
	  "Long output is cut, with a note saying how much was shown; "
	  "read the rest with offset and limit.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":"
	  "\"File path, relative to the workspace\"},"
	  "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"description\":"
	  "\"Number of lines to skip at the start (default 0)\"},"
	  "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
	  "\"Maximum number of lines to return (default: all)\"}},"
	  "\"required\":[\"path\"],\"additionalProperties\":false}",
	  "path offset limit", "workspace", readfile, 0 },
	{ "write_file",
	  "Write a text file in the workspace, replacing it atomically if "
	  "it exists and creating missing parent directories. Paths are "
	  "relative to the workspace.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":"
	  "\"File path, relative to the workspace\"},"
	  "\"content\":{\"type\":\"string\",\"description\":"
	  "\"The complete new content of the file\"}},"
	  "\"required\":[\"path\",\"content\"],"
	  "\"additionalProperties\":false}",
	  "path content", NULL, writefile, 0 },
	{ "list_dir",
	  "List a directory in the workspace: one entry per line, sorted; "
	  "directories end with /, symbolic links with @.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":"
	  "\"Directory path, relative to the workspace (default \\\".\\\", "
	  "the workspace itself)\"}},"
	  "\"additionalProperties\":false}",
	  "path", "workspace", listdir, 0 },
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0 }
};

/* every table of built-in tools; each ends with a NULL name */
static const struct oxi_tool *const tables[] = {
	oxi_tools_fs, oxi_tools_find, oxi_tools_shell, oxi_tools_web, NULL
};

/* tools that are not built in: plugins, MCP servers */
#define NSRC	8
static const struct oxi_tool_src *srcs[NSRC];

int
oxi_tool_src_add(const struct oxi_tool_src *s)
{
	int i;

	for (i = 0; i < NSRC; i++)
		if (!srcs[i]) {
			srcs[i] = s;
			return 0;
		}
	errno = ENOSPC;
	return -1;
}

/* the source of tool name, or NULL */
static const struct oxi_tool_src *
srcof(const char *name)
{
	int i;

	for (i = 0; i < NSRC && srcs[i]; i++)
		if (srcs[i]->has(srcs[i]->arg, name))
			return srcs[i];
	return NULL;
}

const struct oxi_tool *
oxi_tool_find(const char *name)
{
	const struct oxi_tool *t;
	int i;

	for (i = 0; tables[i]; i++)
		for (t = tables[i]; t->name; t++)
			if (strcmp(t->name, name) == 0)
				return t;
	return NULL;
}

int
oxi_tool_enabled(const struct oxi_tool *t)
{
	return !(t->flags & OXI_TOOL_OFF) || oxi_tool_on(t->name);
}

jv
oxi_tool_defs(void)
{
	const struct oxi_tool *t;
	jv a = jv_array(), d;
	int i;

	for (i = 0; tables[i]; i++)
		for (t = tables[i]; t->name; t++) {
			if (!oxi_tool_ready(t))
				continue;
			d = jv_object();
			d = jv_object_set(d, jv_string("name"),
			    jv_string(t->name));
			d = jv_object_set(d, jv_string("description"),
			    jv_string(t->desc));
			d = jv_object_set(d, jv_string("parameters"),
			    jv_parse(t->params));
			a = jv_array_append(a, d);
		}
	for (i = 0; i < NSRC && srcs[i]; i++)
		a = srcs[i]->defs(srcs[i]->arg, a);
	return a;
}

void
oxi_tool_cap(struct oxi_buf *out, size_t max, size_t total)
{
	size_t n;

	if (total <= max && out->len <= max)
		return;
	n = out->len < max ? out->len : max;
	n = oxi_utf8_cut(out->s, out->len, n);
	out->len = n;
	if (out->s)
		out->s[n] = '\0';
	oxi_buf_printf(out, "\n[output truncated: %zu of %zu bytes shown]",
	    n, total > n ? total : n);
}

int
oxi_tool_fail(struct oxi_buf *out, const char *tool, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	oxi_buf_reset(out);
	oxi_buf_printf(out, "%s: %s", tool, msg);
	return -1;
}

int
oxi_tool_failpath(struct oxi_buf *out, const char *tool, const char *path, int e)
{
	const char *why;

	switch (e) {
	case EXDEV: why = "is outside the workspace"; break;
	case ELOOP: why = "leads through a symbolic link, not followed"; break;
	case ENOENT: why = "no such file or directory"; break;
	case ENOTDIR: why = "not a directory"; break;
	case EISDIR: why = "is a directory"; break;
	case EACCES: why = "permission denied"; break;
	case ENAMETOOLONG: why = "name too long"; break;
	default: why = strerror(e); break;
	}
	return oxi_tool_fail(out, tool, "'%s': %s", path, why);
}

int
oxi_tool_keys(jv args, const char *keys, struct oxi_buf *out, const char *tool)
{
	const char *k, *p;
	size_t n;
	int it, ok;
	jv key;

	for (it = jv_object_iter(args); jv_object_iter_valid(args, it);
	    it = jv_object_iter_next(args, it)) {
		key = jv_object_iter_key(args, it);
		k = jv_string_value(key);
		n = strlen(k);
		ok = 0;
		for (p = keys; *p; p += strcspn(p, " "), p += *p == ' ')
			if (strncmp(p, k, n) == 0 && (p[n] == ' ' ||
			    p[n] == '\0') && n > 0) {
				ok = 1;
				break;
			}
		if (!ok) {
			oxi_tool_fail(out, tool, "unknown argument '%.100s'", k);
			jv_free(key);
			return -1;
		}
		jv_free(key);
	}
	return 0;
}

int
oxi_tool_argstr(jv args, const char *key, const char **s, size_t *len,
    struct oxi_buf *out, const char *tool)
{
	jv v = jv_object_get(jv_copy(args), jv_string(key));
	jv_kind k = jv_get_kind(v);

	if (k == JV_KIND_INVALID || k == JV_KIND_NULL) {
		jv_free(v);
		return 0;
	}
	if (k != JV_KIND_STRING) {
		jv_free(v);
		return oxi_tool_fail(out, tool, "argument '%s' must be a string", key);
	}
	/* args holds a reference: the bytes outlive v */
	*s = jv_string_value(v);
	*len = (size_t)jv_string_length_bytes(jv_copy(v));
	jv_free(v);
	return 1;
}

int
oxi_tool_argpath(jv args, const char *key, const char **s, struct oxi_buf *out,
    const char *tool)
{
	size_t len;
	int r;

	if ((r = oxi_tool_argstr(args, key, s, &len, out, tool)) <= 0)
		return r;
	if (len == 0)
		return oxi_tool_fail(out, tool, "argument '%s' is empty", key);
	if (strlen(*s) != len)
		return oxi_tool_fail(out, tool, "argument '%s' holds a NUL byte", key);
	return 1;
}

int
oxi_tool_argint(jv args, const char *key, long long min, long long *val,
    struct oxi_buf *out, const char *tool)
{
	jv v = jv_object_get(jv_copy(args), jv_string(key));
	jv_kind k = jv_get_kind(v);
	double d;

	if (k == JV_KIND_INVALID || k == JV_KIND_NULL) {
		jv_free(v);
		return 0;
	}
	d = k == JV_KIND_NUMBER ? jv_number_value(v) : -1e300;
	jv_free(v);
	if (k != JV_KIND_NUMBER || d != (double)(long long)d || d < min ||
	    d > 9e15)
		return oxi_tool_fail(out, tool, "argument '%s' must be an integer "
		    ">= %lld", key, min);
	*val = (long long)d;
	return 1;
}

static int
readfile(const struct oxi_tool_ctx *ctx, jv args, struct oxi_buf *out)
{
	static const char T[] = "read_file";
	char *buf = NULL;
	const char *path, *p, *e, *q, *nl;
	long long offset = 0, limit = -1, skip, left;
	size_t keep, total = 0, n;
	ssize_t r;
	struct stat st;
	int fd, a, early = 0, ret = -1;

	if ((a = oxi_tool_argpath(args, "path", &path, out, T)) <= 0)
		return a < 0 ? -1 : oxi_tool_fail(out, T, "missing argument 'path'");
	if (oxi_tool_argint(args, "offset", 0, &offset, out, T) < 0 ||
	    oxi_tool_argint(args, "limit", 1, &limit, out, T) < 0)
		return -1;
	fd = oxi_ws_openat(ctx->ws, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return oxi_tool_failpath(out, T, path, errno);
	if (fstat(fd, &st) < 0) {
		oxi_tool_failpath(out, T, path, errno);
		goto done;
	}
	if (S_ISDIR(st.st_mode)) {
		oxi_tool_fail(out, T, "'%s' is a directory (use list_dir)", path);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		oxi_tool_fail(out, T, "'%s' is not a regular file", path);
		goto done;
	}
	buf = xmalloc(CHUNK);
	keep = ctx->maxout + 4;	/* a little more, to cut on a boundary */
	skip = offset;
	left = limit;
	for (;;) {
		r = read(fd, buf, CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			oxi_tool_failpath(out, T, path, errno);
			goto done;
		}
		if (r == 0)
			break;
		if (memchr(buf, '\0', r)) {
			oxi_tool_fail(out, T, "'%s' is a binary file (it holds NUL "
			    "bytes)", path);
			goto done;
		}
		for (p = buf, e = buf + r; p < e && left != 0; p = q) {
			if (skip > 0) {
				if (!(nl = memchr(p, '\n', e - p)))
					break;
				skip--;
				q = nl + 1;
				continue;
			}
			q = e;
			if (left > 0 && (nl = memchr(p, '\n', e - p))) {
				q = nl + 1;
				left--;
			}
			n = q - p;
			if (out->len < keep)
				oxi_buf_cat(out, p, n < keep - out->len ?
				    n : keep - out->len);
			total += n;
		}
		if (left == 0)
			break;
		if (offset == 0 && limit < 0 && out->len >= keep) {
			early = 1;	/* the size says the rest */
			break;
		}
	}
	if (early && (size_t)st.st_size > total)
		total = st.st_size;
	n = out->len < ctx->maxout ? out->len : ctx->maxout;
	n = oxi_utf8_cut(out->s, out->len, n);
	if (!oxi_utf8_valid(out->s, n, 0)) {
		oxi_tool_fail(out, T, "'%s' is not UTF-8 text", path);
		goto done;
	}
	oxi_tool_cap(out, ctx->maxout, total);
	ret = 0;
done:
	free(buf);
	close(fd);
	return ret;
}

static int
writefile(const struct oxi_tool_ctx *ctx, jv args, struct oxi_buf *out)
{
	static const char T[] = "write_file";
	char tmp[64], id[OXI_ID_LEN + 1], *dir;
	const char *path, *content, *base;
	size_t len, plen;
	struct stat st;
	int r, dfd, fd, e, havemode = 0;
	mode_t mode = 0;

	if ((r = oxi_tool_argpath(args, "path", &path, out, T)) <= 0)
		return r < 0 ? -1 : oxi_tool_fail(out, T, "missing argument 'path'");
	if ((r = oxi_tool_argstr(args, "content", &content, &len, out, T)) <= 0)
		return r < 0 ? -1 : oxi_tool_fail(out, T, "missing argument 'content'");
	if (path[0] == '/')
		return oxi_tool_failpath(out, T, path, EXDEV);
	plen = strlen(path);
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (*base == '\0' || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0)
		return oxi_tool_fail(out, T, "'%s' names a directory, not a file",
		    path);
	if (strlen(base) > NAME_MAX)
		return oxi_tool_failpath(out, T, path, ENAMETOOLONG);
	if (base == path)
		dfd = oxi_ws_opendir(ctx->ws, ".", 0);
	else {
		dir = xstrndup(path, plen - strlen(base));
		dfd = oxi_ws_opendir(ctx->ws, dir, 1);
		free(dir);
	}
	if (dfd < 0)
		return oxi_tool_failpath(out, T, path, errno);
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode)) {
			close(dfd);
			return oxi_tool_failpath(out, T, path, EISDIR);
		}
		if (S_ISLNK(st.st_mode)) {
			close(dfd);
			return oxi_tool_fail(out, T, "'%s' is a symbolic link, not "
			    "replaced", path);
		}
		if (S_ISREG(st.st_mode)) {
			mode = st.st_mode & 07777;
			havemode = 1;
		}
	}
	oxi_id_new(id);
	snprintf(tmp, sizeof tmp, ".oxi-tool.%s.tmp", id);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0666);
	if (fd < 0) {
		e = errno;
		close(dfd);
		return oxi_tool_failpath(out, T, path, e);
	}
	if ((havemode && fchmod(fd, mode) < 0) ||
	    oxi_writeall(fd, content, len) < 0 || fsync(fd) < 0) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) < 0 || renameat(dfd, tmp, dfd, base) < 0) {
		e = errno;
		goto fail;
	}
	close(dfd);
	oxi_buf_printf(out, "wrote %zu byte%s to '%s'", len,
	    len == 1 ? "" : "s", path);
	return 0;
fail:
	(void)unlinkat(dfd, tmp, 0);
	close(dfd);
	return oxi_tool_failpath(out, T, path, e);
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
listdir(const struct oxi_tool_ctx *ctx, jv args, struct oxi_buf *out)
{
	static const char T[] = "list_dir";
	const char *path = ".";
	char **names = NULL, *s, suffix;
	size_t n = 0, cap = 0, i, len;
	struct dirent *de;
	struct stat st;
	unsigned char *u;
	DIR *d;
	int fd, r, type;

	if ((r = oxi_tool_argstr(args, "path", &path, &len, out, T)) < 0)
		return -1;
	if (r == 0 || len == 0)
		path = ".";	/* the workspace itself */
	else if (strlen(path) != len)
		return oxi_tool_fail(out, T, "argument 'path' holds a NUL byte");
	if ((fd = oxi_ws_opendir(ctx->ws, path, 0)) < 0)
		return oxi_tool_failpath(out, T, path, errno);
	if (!(d = fdopendir(fd))) {
		r = errno;
		close(fd);
		return oxi_tool_failpath(out, T, path, r);
	}
	while ((errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		type = de->d_type;
		if (type == DT_UNKNOWN && fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0)
			type = S_ISDIR(st.st_mode) ? DT_DIR :
			    S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		suffix = type == DT_DIR ? '/' : type == DT_LNK ? '@' : 0;
		s = xmalloc(strlen(de->d_name) + 2);
		strcpy(s, de->d_name);
		if (suffix)
			strcat(s, suffix == '/' ? "/" : "@");
		/* keep every name on its own line */
		for (u = (unsigned char *)s; *u; u++)
			if (*u < 0x20 || *u == 0x7f)
				*u = '?';
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = xrealloc(names, cap * sizeof *names);
		}
		names[n++] = s;
	}
	r = errno;
	closedir(d);
	if (r) {
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return oxi_tool_failpath(out, T, path, r);
	}
	if (n > 0)
		qsort(names, n, sizeof *names, cmpstr);
	for (i = 0; i < n; i++) {
		if (i > 0)
			oxi_buf_putc(out, '\n');
		oxi_buf_cats(out, names[i]);
		free(names[i]);
	}
	free(names);
	oxi_tool_cap(out, ctx->maxout, out->len);
	return 0;
}

/* through the middleware of toolmw.c: timeout, cache, cap, log */
int
oxi_tool_run(const struct oxi_tool_ctx *ctx, const char *name, jv args,
    struct oxi_buf *out, const char **taint)
{
	return oxi_tool_call(ctx, NULL, name, args, out, taint);
}

int
oxi_tool_dispatch(const struct oxi_tool_ctx *ctx, const char *name, jv args,
    struct oxi_buf *out, const char **taint)
{
	const struct oxi_tool *t;
	const struct oxi_tool_src *s;
	jv names;
	int r, i, n;

	oxi_buf_reset(out);
	oxi_buf_cats(out, "");
	*taint = NULL;
	if ((!(t = oxi_tool_find(name)) || !oxi_tool_enabled(t)) &&
	    (s = srcof(name))) {
		r = s->run(s->arg, ctx, name, args, out, taint);
		jv_free(args);
		return r < 0 ? -1 : 0;
	}
	if (!t || !oxi_tool_enabled(t)) {
		jv_free(args);
		oxi_buf_printf(out, "unknown tool '%.100s'; the tools are",
		    name);
		names = oxi_tool_defs();
		n = jv_array_length(jv_copy(names));
		for (i = 0; i < n; i++) {
			jv d = jv_array_get(jv_copy(names), i);

			oxi_buf_printf(out, "%s %s", i == 0 ? "" : ",",
			    oxi_msg_peek(d, "name"));
			jv_free(d);
		}
		jv_free(names);
		return -1;
	}
	if (jv_get_kind(args) != JV_KIND_OBJECT) {
		jv_free(args);
		return oxi_tool_fail(out, t->name,
		    "arguments must be a JSON object");
	}
	r = oxi_tool_keys(args, t->keys, out, t->name);
	oxi_tool_settaint(NULL);
	if (r == 0)
		r = t->run(ctx, args, out);
	jv_free(args);
	if (r == 0)
		*taint = oxi_tool_gettaint(t->taint);
	return r < 0 ? -1 : 0;
}

int
oxi_tool_on(const char *name)
{
	const char *v = oxi_getenv("OXI_TOOLS_ON"), *p;
	size_t n = strlen(name), k;

	for (p = v; p && *p; p += k) {
		p += strspn(p, ", \t");
		k = strcspn(p, ", \t");
		if (k == n && strncmp(p, name, n) == 0)
			return 1;
	}
	return 0;
}
