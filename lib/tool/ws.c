/*
 * ws.c - file access confined to a workspace directory
 *
 * Every path a tool is given is resolved relative to an open descriptor of
 * the workspace and never outside it.  On Linux 5.6 and later openat2(2)
 * with RESOLVE_BENEATH does the resolution in the kernel, atomically: an
 * absolute path, a ".." above the workspace, or a symbolic link (planted
 * by anyone, at any moment) that leads out of it fails with EXDEV, and
 * RESOLVE_NO_MAGICLINKS refuses /proc-style links.  Where openat2 is
 * missing (ENOSYS, or EPERM from an old container seccomp filter) the path
 * is walked one component at a time with openat(O_NOFOLLOW) from the
 * workspace descriptor: ".." and absolute paths give EXDEV and every
 * symbolic link gives ELOOP.  Both ways hold against races, since no path
 * is ever resolved twice.
 */
#define _GNU_SOURCE

#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"

/* from <linux/openat2.h>, spelled out for older headers */
struct ws_open_how {
	uint64_t flags;		/* open(2) flags */
	uint64_t mode;		/* mode for O_CREAT, else 0 */
	uint64_t resolve;	/* RESOLVE_* */
};
#define WS_RESOLVE_NO_MAGICLINKS	0x02
#define WS_RESOLVE_BENEATH		0x08

int oxi_wsp_beneath = -1;	/* -1 not probed yet, 1 openat2, 0 walk */

const char *
oxi_wsp_path(const char *opt)
{
	static char path[PATH_MAX];
	const char *v, *state;

	if (opt && *opt)
		v = opt;
	else if ((v = oxi_getenv("OXI_WORKSPACE")))
		;
	else {
		if (!(state = oxi_state_dir()))
			return NULL;
		if ((size_t)snprintf(path, sizeof path, "%s/workspace",
		    state) >= sizeof path) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		return path;
	}
	if (strlen(v) >= sizeof path) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(path, v, strlen(v) + 1);
	return path;
}

static int
openat2_(int dirfd, const char *path, int flags, mode_t mode)
{
#ifdef SYS_openat2
	struct ws_open_how how;
	int fd, tries = 0;

	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)(unsigned)flags;
	if (flags & O_CREAT)
		how.mode = mode;
	how.resolve = WS_RESOLVE_BENEATH | WS_RESOLVE_NO_MAGICLINKS;
	do
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
	while (fd < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < 16);
	return fd;
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* decides once, on a real workspace, whether openat2 can be used */
static void
probe(int ws)
{
	int fd;

	if (oxi_wsp_beneath >= 0)
		return;
	fd = openat2_(ws, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd >= 0) {
		close(fd);
		oxi_wsp_beneath = 1;
	} else if (errno == ENOSYS || errno == EPERM)
		oxi_wsp_beneath = 0;
	/* any other error: ask again next time */
}

int
oxi_wsp_open(const char *dir)
{
	int fd;

	if (oxi_mkdirp(dir, 0700) < 0)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		probe(fd);
	return fd;
}

/* after a failed O_NOFOLLOW open of name in dirfd: ELOOP if a symlink */
static int
nofollow_errno(int dirfd, const char *name, int e)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		return ELOOP;
	return e;
}

/* the fallback: one component at a time, no "..", no symlinks */
static int
walk(int ws, const char *path, int flags, mode_t mode)
{
	char name[NAME_MAX + 1];
	const char *p = path, *end, *next;
	size_t n;
	int cur = ws, fd, e, last, dirflag;

	for (;;) {
		while (*p == '/')
			p++;
		end = p + strcspn(p, "/");
		n = end - p;
		next = end;
		while (*next == '/')
			next++;
		last = *next == '\0';
		dirflag = *end == '/' ? O_DIRECTORY : 0;
		if (n == 0 || (n == 1 && p[0] == '.')) {
			if (!last) {
				p = next;
				continue;
			}
			memcpy(name, ".", 2);
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			e = EXDEV;
			goto fail;
		} else if (n > NAME_MAX) {
			e = ENAMETOOLONG;
			goto fail;
		} else {
			memcpy(name, p, n);
			name[n] = '\0';
		}
		if (last)
			fd = openat(cur, name, flags | dirflag | O_NOFOLLOW,
			    mode);
		else
			fd = openat(cur, name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			e = errno;
			if (e == ELOOP || e == ENOTDIR)
				e = nofollow_errno(cur, name, e);
			goto fail;
		}
		if (cur != ws)
			close(cur);
		cur = fd;
		if (last)
			return fd;
		p = next;
	}
fail:
	if (cur != ws)
		close(cur);
	errno = e;
	return -1;
}

int
oxi_wsp_openat(int ws, const char *path, int flags, mode_t mode)
{
	int fd;

	if (*path == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (*path == '/') {
		errno = EXDEV;
		return -1;
	}
	if (strlen(path) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* openat2 takes O_PATH with no other open flag */
	flags |= O_CLOEXEC | (flags & O_PATH ? 0 : O_NOCTTY);
	probe(ws);
	if (oxi_wsp_beneath != 0) {
		fd = openat2_(ws, path, flags, mode);
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM) ||
		    oxi_wsp_beneath == 1)
			return fd;
		oxi_wsp_beneath = 0;
	}
	return walk(ws, path, flags, mode);
}

int
oxi_wsp_opendir(int ws, const char *path, int mk)
{
	char *pre;
	const char *p, *end;
	int fd, parent, e;
	size_t n;

	fd = oxi_wsp_openat(ws, path, O_RDONLY | O_DIRECTORY, 0);
	if (fd >= 0 || !mk || errno != ENOENT)
		return fd;
	/*
	 * Make the missing directories one by one: each prefix is opened
	 * with the same confinement, and mkdirat only ever gets a single
	 * name in a directory already known to be inside the workspace.
	 */
	pre = xstrdup(path);
	parent = openat(ws, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parent < 0)
		goto fail;
	for (p = path; *p; p = end) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		end = p + strcspn(p, "/");
		n = end - path;
		memcpy(pre, path, n);
		pre[n] = '\0';
		fd = oxi_wsp_openat(ws, pre, O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0 && errno == ENOENT) {
			memcpy(pre, p, end - p);
			pre[end - p] = '\0';
			if (mkdirat(parent, pre, 0777) < 0 &&
			    errno != EEXIST)
				goto fail;
			memcpy(pre, path, n);
			pre[n] = '\0';
			fd = oxi_wsp_openat(ws, pre, O_RDONLY | O_DIRECTORY,
			    0);
		}
		if (fd < 0)
			goto fail;
		close(parent);
		parent = fd;
	}
	free(pre);
	return parent;
fail:
	e = errno;
	if (parent >= 0)
		close(parent);
	free(pre);
	errno = e;
	return -1;
}
