/*
 * chwait.c - what the channels' HTTP clients share (tgapi.c, dcapi.c):
 * waiting for a transfer on their loop, a pause that SIGTERM cuts short,
 * a download written to a temporary file renamed into place; and the
 * loop of a sender (tgsend.c, dcsend.c): records taken, calls started
 * and their answers read, until the input ends or SIGTERM
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/ch.h"

void
ch_http_wait(struct oxi_http_loop *loop, int sigfd, int termstop,
    int *stop, const int *flag)
{
	struct pollfd p;

	while (!*flag) {
		if (termstop && oxi_sig_term)
			*stop = 1;
		p.fd = sigfd;
		p.events = POLLIN;
		p.revents = 0;
		if (oxi_http_poll(loop, &p, sigfd >= 0, -1) < 0) {
			/* libcurl failed: end the transfer, which calls
			 * done at the next poll */
			*stop = 1;
			continue;
		}
		if (sigfd >= 0 && (p.revents & POLLIN))
			oxi_sig_drain();
	}
}

void
ch_pause(int sigfd, int termstop, long ms)
{
	long long end = oxi_clock_ms() + ms, left;
	struct pollfd p;

	while (!(termstop && oxi_sig_term) &&
	    (left = end - oxi_clock_ms()) > 0) {
		p.fd = sigfd;
		p.events = POLLIN;
		p.revents = 0;
		if (poll(&p, sigfd >= 0, (int)left) > 0)
			oxi_sig_drain();
	}
}

int
ch_write(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += w;
		n -= w;
	}
	return 0;
}

int
ch_file_open(const char *dest, struct oxi_buf *tmp, int *temp, char *err,
    size_t len)
{
	int fd, e;

	oxi_buf_printf(tmp, "%s.tmp", dest);
	if ((fd = open(tmp->s, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) < 0) {
		e = errno;
		snprintf(err, len, "download: unable to create '%s': %s",
		    tmp->s, strerror(e));
		*temp = oxi_errtemp(e) == OXI_EX_TEMP;
	}
	return fd;
}

int
ch_file_done(int fd, struct oxi_buf *tmp, const char *dest, int ok,
    char *err, size_t len)
{
	if (close(fd) < 0 && ok) {
		ok = 0;
		snprintf(err, len, "download: unable to write '%s': %s",
		    tmp->s, strerror(errno));
	}
	if (ok && rename(tmp->s, dest) < 0) {
		ok = 0;
		snprintf(err, len, "download: unable to rename '%s': %s",
		    tmp->s, strerror(errno));
	}
	if (!ok)
		unlink(tmp->s);
	oxi_buf_free(tmp);
	return ok;
}

int
ch_sent_run(struct ch_sent *sent, struct oxi_nd *in,
    const struct ch_sink *sink, const struct ch_out *out,
    struct oxi_http_loop *loop, int sigfd)
{
	struct pollfd pfd[2];
	long long pruned = oxi_clock_ms();
	long wait;
	int status = 0, n;

	for (;;) {
		status |= ch_sent_take(sent, in, sink);
		if (oxi_sig_term && !*out->stopping) {
			oxi_info("stopping: %d call(s) in flight",
			    *out->inflight);
			*out->stopping = 1;
		}
		wait = out->due(out->arg);
		if (*out->stopping ? *out->inflight == 0 :
		    in->eof && !out->busy(out->arg))
			break;
		if (oxi_clock_ms() - pruned > CH_PRUNE_MS) {
			ch_sent_prune(sent);
			pruned = oxi_clock_ms();
		}
		n = 0;
		pfd[n].fd = sigfd;
		pfd[n++].events = POLLIN;
		if (!in->eof && !*out->stopping) {
			pfd[n].fd = in->fd;
			pfd[n++].events = POLLIN;
		}
		pfd[0].revents = pfd[1].revents = 0;
		if (oxi_http_poll(loop, pfd, n, (int)wait) < 0)
			oxi_die(OXI_EX_TEMP, "unable to run the HTTP calls");
		if (pfd[0].revents)
			oxi_sig_drain();
		if (n > 1 && pfd[1].revents && oxi_nd_fill(in) < 0 &&
		    errno != EINTR && errno != EAGAIN)
			oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
	}
	return status;
}
