/*
 * fs.c - built-in tools: read_file, write_file and list_dir (the files
 * of the workspace, read, written and listed)
 *
 * Every path goes through ws.c and never resolves outside the
 * workspace.  read_file returns UTF-8 text only, a range of lines if
 * asked; write_file replaces a file atomically (a temporary file, fsync,
 * rename), keeping its permission bits but never a set-user-ID,
 * set-group-ID or sticky bit, and never through a symbolic link, and
 * only within the disk bounds of disk.c.
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
#include "tool/disk.h"

#define CHUNK		65536
#define TIMEOUT_MS	60000	/* each call, unless OXI_TOOL_TIMEOUT */

static int readfile(struct oxi_tool_call *);
static int writefile(struct oxi_tool_call *);
static int listdir(struct oxi_tool_call *);

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
	  "path offset limit", "workspace", TIMEOUT_MS, 0, NULL, readfile },
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
	  "path content", NULL, TIMEOUT_MS, 0, NULL, writefile },
	{ "list_dir",
	  "List a directory in the workspace: one entry per line, sorted; "
	  "directories end with /, symbolic links with @.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":"
	  "\"Directory path, relative to the workspace (default \\\".\\\", "
	  "the workspace itself)\"}},"
	  "\"additionalProperties\":false}",
	  "path", "workspace", TIMEOUT_MS, 0, NULL, listdir },
	{ NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL }
};

static int
readfile(struct oxi_tool_call *c)
{
	const struct oxi_tool_ctx *ctx = c->ctx;
	struct oxi_buf *out = c->out;
	char *buf = NULL;
	const char *path, *p, *e, *q, *nl;
	long long offset = 0, limit = -1, skip, left;
	size_t keep, total = 0, n;
	ssize_t r;
	struct stat st;
	int fd, a, early = 0, ret = -1;

	if ((a = oxi_tool_argpath(c, "path", &path)) <= 0)
		return a < 0 ? -1 : oxi_tool_fail(c, "missing argument 'path'");
	if (oxi_tool_argint(c, "offset", 0, &offset) < 0 ||
	    oxi_tool_argint(c, "limit", 1, &limit) < 0)
		return -1;
	fd = oxi_wsp_openat(ctx->ws, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return oxi_tool_failpath(c, path, errno);
	if (fstat(fd, &st) < 0) {
		oxi_tool_failpath(c, path, errno);
		goto done;
	}
	if (S_ISDIR(st.st_mode)) {
		oxi_tool_fail(c, "'%s' is a directory (use list_dir)", path);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		oxi_tool_fail(c, "'%s' is not a regular file", path);
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
			oxi_tool_failpath(c, path, errno);
			goto done;
		}
		if (r == 0)
			break;
		if (oxi_tool_expired(c)) {
			oxi_tool_fail(c, "timed out after %ld ms", c->limit);
			goto done;
		}
		if (memchr(buf, '\0', r)) {
			oxi_tool_fail(c, "'%s' is a binary file (it holds NUL "
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
		oxi_tool_fail(c, "'%s' is not UTF-8 text", path);
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
protected(struct oxi_tool_call *c, const char *path)
{
	return oxi_tool_fail(c, "refused: '%s' is protected configuration, "
	    "which no tool writes", path);
}

static int
writefile(struct oxi_tool_call *c)
{
	const struct oxi_tool_ctx *ctx = c->ctx;
	struct oxi_buf *out = c->out;
	char tmp[64], id[OXI_ID_LEN + 1], *dir;
	const char *path, *content, *base;
	size_t len, plen;
	struct stat st;
	struct oxi_disk disk;
	int r, dfd, fd, e, havemode = 0;
	mode_t mode = 0;

	if ((r = oxi_tool_argpath(c, "path", &path)) <= 0)
		return r < 0 ? -1 : oxi_tool_fail(c, "missing argument 'path'");
	if (oxi_tool_needstr(c, "content", &content, &len) < 0)
		return -1;
	if (path[0] == '/')
		return oxi_tool_failpath(c, path, EXDEV);
	plen = strlen(path);
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (*base == '\0' || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0)
		return oxi_tool_fail(c, "'%s' names a directory, not a file",
		    path);
	if (strlen(base) > NAME_MAX)
		return oxi_tool_failpath(c, path, ENAMETOOLONG);
	/* judged before a directory is made, and again once resolved */
	if (oxi_protected_path(ctx->ws, path))
		return protected(c, path);
	if (base == path)
		dfd = oxi_wsp_opendir(ctx->ws, ".", 0);
	else {
		dir = xstrndup(path, plen - strlen(base));
		dfd = oxi_wsp_opendir(ctx->ws, dir, 1);
		free(dir);
	}
	if (dfd < 0)
		return oxi_tool_failpath(c, path, errno);
	if (oxi_protected_at(ctx->ws, dfd, base)) {
		close(dfd);
		return protected(c, path);
	}
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode)) {
			close(dfd);
			return oxi_tool_failpath(c, path, EISDIR);
		}
		if (S_ISLNK(st.st_mode)) {
			close(dfd);
			return oxi_tool_fail(c, "'%s' is a symbolic link, not "
			    "replaced", path);
		}
		if (S_ISREG(st.st_mode)) {
			mode = st.st_mode & 0777;	/* no special bits */
			havemode = 1;
		}
	}
	if (oxi_disk_begin(c, &disk, (long long)len) < 0) {
		close(dfd);
		return -1;
	}
	oxi_id_new(id);
	snprintf(tmp, sizeof tmp, ".oxi-tool.%s.tmp", id);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0666);
	if (fd < 0) {
		e = errno;
		close(dfd);
		return oxi_tool_failpath(c, path, e);
	}
	/* the mode after the write, on the descriptor: nothing the
	 * workspace left there survives as a special bit */
	if (oxi_writeall(fd, content, len) < 0 ||
	    (havemode && fchmod(fd, mode) < 0) || fsync(fd) < 0) {
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
	oxi_disk_end(&disk, out);
	return 0;
fail:
	(void)unlinkat(dfd, tmp, 0);
	close(dfd);
	return oxi_tool_failpath(c, path, e);
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
listdir(struct oxi_tool_call *c)
{
	const struct oxi_tool_ctx *ctx = c->ctx;
	struct oxi_buf *out = c->out;
	struct oxi_buf nb = OXI_BUF_INIT;
	const char *path = ".";
	char **names = NULL, *s, suffix;
	size_t n = 0, cap = 0, i, len;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, r, type;

	if ((r = oxi_tool_argstr(c, "path", &path, &len)) < 0)
		return -1;
	if (r == 0 || len == 0)
		path = ".";	/* the workspace itself */
	else if (strlen(path) != len)
		return oxi_tool_fail(c, "argument 'path' holds a NUL byte");
	if ((fd = oxi_wsp_opendir(ctx->ws, path, 0)) < 0)
		return oxi_tool_failpath(c, path, errno);
	if (!(d = fdopendir(fd))) {
		r = errno;
		close(fd);
		return oxi_tool_failpath(c, path, r);
	}
	while ((errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (n % 4096 == 4095 && oxi_tool_expired(c)) {
			errno = ETIME;
			break;
		}
		type = de->d_type;
		if (type == DT_UNKNOWN && fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0)
			type = S_ISDIR(st.st_mode) ? DT_DIR :
			    S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		suffix = type == DT_DIR ? '/' : type == DT_LNK ? '@' : 0;
		/* every name on its own line, no control reaching a
		 * terminal: escaped (oxi_tool_catname) */
		oxi_buf_reset(&nb);
		oxi_tool_catname(&nb, de->d_name, strlen(de->d_name));
		if (suffix)
			oxi_buf_putc(&nb, suffix);
		s = xstrdup(nb.s);
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = xrealloc(names, cap * sizeof *names);
		}
		names[n++] = s;
	}
	r = errno;
	closedir(d);
	oxi_buf_free(&nb);
	if (r) {
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return oxi_tool_failpath(c, path, r);
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
