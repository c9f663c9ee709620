/* io.c - file descriptors, files, directories */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"

int
oxi_writeall(int fd, const void *p, size_t n)
{
	const char *s = p;
	ssize_t w;
	struct pollfd pfd;

	while (n > 0) {
		w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				pfd.fd = fd;
				pfd.events = POLLOUT;
				(void)poll(&pfd, 1, -1);
				continue;
			}
			return -1;
		}
		s += w;
		n -= w;
	}
	return 0;
}

int
oxi_fd_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);

	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

int
oxi_fd_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl);
}

int
oxi_readfile(const char *path, struct oxi_buf *b, size_t max)
{
	int fd, e;
	ssize_t r;
	size_t got = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	for (;;) {
		oxi_buf_grow(b, 4096);
		r = read(fd, b->s + b->len, b->cap - b->len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		got += r;
		if (got > max) {
			close(fd);
			errno = EFBIG;
			return -1;
		}
		b->len += r;
		b->s[b->len] = '\0';
	}
	close(fd);
	return 0;
}

void
oxi_fshut(FILE *f, const char *name)
{
	int bad = 0;

	if (fflush(f) == EOF)
		bad = 1;
	if (ferror(f))
		bad = 1;
	if (bad)
		oxi_diesys(OXI_EX_TEMP, "unable to write to %s", name);
}

int
oxi_mkdirp(const char *path, mode_t mode)
{
	char *p, *s;
	int e;

	s = xstrdup(path);
	for (p = s + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(s, mode) < 0 && errno != EEXIST)
			goto fail;
		*p = '/';
	}
	if (mkdir(s, mode) < 0 && errno != EEXIST)
		goto fail;
	free(s);
	return 0;
fail:
	e = errno;
	free(s);
	errno = e;
	return -1;
}

const char *
oxi_getenv(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static const char *
xdgdir(char *out, size_t n, const char *own, const char *xdg,
    const char *fallback)
{
	const char *v, *home;

	if ((v = oxi_getenv(own)))
		snprintf(out, n, "%s", v);
	else if ((v = oxi_getenv(xdg)) && v[0] == '/')
		snprintf(out, n, "%s/oxi", v);
	else if ((home = oxi_getenv("HOME")))
		snprintf(out, n, "%s/%s/oxi", home, fallback);
	else {
		errno = ENOENT;
		return NULL;
	}
	if (oxi_mkdirp(out, 0700) < 0)
		return NULL;
	return out;
}

const char *
oxi_state_dir(void)
{
	static char path[PATH_MAX];

	return xdgdir(path, sizeof path, "OXI_HOME", "XDG_STATE_HOME",
	    ".local/state");
}

const char *
oxi_config_dir(void)
{
	static char path[PATH_MAX];

	return xdgdir(path, sizeof path, "OXI_CONFIG_DIR", "XDG_CONFIG_HOME",
	    ".config");
}

const char *
oxi_approved_path(int guard)
{
	static char path[2][PATH_MAX];
	const char *v = oxi_getenv(guard ? "OXI_GUARD_APPROVED" :
	    "OXI_SHELL_APPROVED"), *d;

	guard = !!guard;
	if (v)
		return v;
	if (!(d = oxi_config_dir()))
		return NULL;
	if ((size_t)snprintf(path[guard], sizeof path[guard], "%s/%s", d,
	    guard ? "guard-approved" : "shell-approved") >= sizeof path[guard])
		return NULL;
	return path[guard];
}

void
oxi_notify(int fd)
{
	if (fd < 0)
		return;
	if (oxi_writeall(fd, "\n", 1) < 0)
		oxi_warnsys("unable to write readiness to fd %d", fd);
	close(fd);
}
