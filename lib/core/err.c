/* err.c - diagnostics: one line each on stderr, "prog: level: message" */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"

const char *oxi_prog = "oxi";
int oxi_verbose;

/* write(2) until done, retrying on EINTR and EAGAIN: err.c stands alone,
 * below io.c and buf.c, which die through it */
static void
put(const char *s, size_t n)
{
	struct pollfd pfd = { 2, POLLOUT, 0 };
	ssize_t w;

	while (n > 0) {
		w = write(2, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				(void)poll(&pfd, 1, -1);
				continue;
			}
			return;
		}
		s += w;
		n -= w;
	}
}

/*
 * Formats into a bounded buffer, turns control characters (a newline in
 * hostile input, an escape sequence) into spaces so that every diagnostic
 * stays one line, and writes it with one write(2).
 */
static void
vmsg(const char *level, int sys, const char *fmt, va_list ap)
{
	char buf[1024];
	int e = errno, n, m;
	unsigned char *p;

	n = snprintf(buf, sizeof buf, "%s: %s: ", oxi_prog, level);
	if (n < 0 || (size_t)n >= sizeof buf)
		n = 0;
	m = vsnprintf(buf + n, sizeof buf - n, fmt, ap);
	if (m < 0)
		m = 0;
	n += m;
	if ((size_t)n >= sizeof buf - 1)
		n = sizeof buf - 2;
	if (sys) {
		m = snprintf(buf + n, sizeof buf - n, ": %s", strerror(e));
		if (m > 0)
			n += m;
		if ((size_t)n >= sizeof buf - 1)
			n = sizeof buf - 2;
	}
	for (p = (unsigned char *)buf; p < (unsigned char *)buf + n; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = ' ';
	buf[n++] = '\n';
	put(buf, n);
	errno = e;
}

void
oxi_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("fatal", 0, fmt, ap);
	va_end(ap);
	exit(code);
}

void
oxi_diesys(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("fatal", 1, fmt, ap);
	va_end(ap);
	exit(code);
}

void
oxi_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", 0, fmt, ap);
	va_end(ap);
}

void
oxi_warnsys(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", 1, fmt, ap);
	va_end(ap);
}

void
oxi_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("info", 0, fmt, ap);
	va_end(ap);
}

void
oxi_debug(const char *fmt, ...)
{
	va_list ap;

	if (oxi_verbose <= 0)
		return;
	va_start(ap, fmt);
	vmsg("debug", 0, fmt, ap);
	va_end(ap);
}

int
oxi_errtemp(int e)
{
	switch (e) {
	case EINTR: case EAGAIN: case ENOMEM: case ENOSPC: case EIO:
	case EMFILE: case ENFILE: case ETIMEDOUT: case ECONNREFUSED:
	case ECONNRESET: case EPIPE: case EBUSY: case ENOBUFS: case EDQUOT:
	case EHOSTUNREACH: case ENETUNREACH: case ENETDOWN:
		return OXI_EX_TEMP;
	default:
		return OXI_EX_USAGE;
	}
}
