/*
 * diskwatch.c - the disk a shell command takes, sampled while it runs
 *
 * The shell tool's command runs in the wait loop of sandbox.c
 * (oxi_sbx_run), which gives no hook and no pid.  oxi_disk_watch samples
 * beside it, in a thread of its own that wakes every OXI_DISK_MS: once
 * the call is over its bound (oxi_disk_over), the thread kills with
 * SIGKILL the process group of each child of oxi-tool that was not there
 * when the watch began (/proc/self/task/PID/children; oxi-tool is one
 * thread besides, so that is the command: sandbox.c's loop then sees it
 * die and reaps it as it would any other).  The thread makes only system
 * calls, no allocation and no stdio, so that a fork in the main thread
 * meanwhile never inherits a lock; it takes no signal.
 */
#define _GNU_SOURCE

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/disk.h"

#define KIDS_MAX	256	/* children of oxi-tool told apart */

struct oxi_disk_w {
	pthread_t th;		/* the sampling thread */
	int stop[2];		/* a pipe: closing stop[1] ends it */
	struct oxi_disk *d;	/* the call's measure */
	char path[64];		/* /proc/self/task/PID/children */
	pid_t old[KIDS_MAX];	/* children before the command */
	int nold;		/* their number */
};

/* the children of oxi-tool's main thread into v (at most n): their
 * number, or -1 if /proc does not say */
static int
children(const char *path, pid_t *v, int n)
{
	char buf[4096];
	size_t len = 0;
	ssize_t r;
	long pid = 0;
	int fd, k = 0, digit = 0;
	size_t i;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while (len < sizeof buf && ((r = read(fd, buf + len,
	    sizeof buf - len)) > 0 || (r < 0 && errno == EINTR)))
		if (r > 0)
			len += r;
	close(fd);
	/* "PID PID ": a number cut at the end of buf is not taken */
	for (i = 0; i < len && k < n; i++)
		if (buf[i] >= '0' && buf[i] <= '9') {
			pid = pid * 10 + (buf[i] - '0');
			digit = 1;
		} else if (digit) {
			v[k++] = (pid_t)pid;
			pid = 0;
			digit = 0;
		}
	return k;
}

static void *
watch(void *arg)
{
	struct oxi_disk_w *w = arg;
	struct pollfd p;
	pid_t now[KIDS_MAX];
	int i, j, n;

	p.fd = w->stop[0];
	p.events = POLLIN;
	for (;;) {
		n = poll(&p, 1, OXI_DISK_MS);
		if (n > 0 || (n < 0 && errno != EINTR))
			break;
		if (!oxi_disk_over(w->d))
			continue;
		/* every wake while it lasts, in case the command was not
		 * started yet */
		n = children(w->path, now, KIDS_MAX);
		for (i = 0; i < n; i++) {
			for (j = 0; j < w->nold && w->old[j] != now[i]; j++)
				;
			if (j < w->nold)
				continue;
			kill(-now[i], SIGKILL);
			kill(now[i], SIGKILL);
			w->d->killed = 1;
		}
	}
	return NULL;
}

int
oxi_disk_watch(struct oxi_disk *d)
{
	struct oxi_disk_w *w;
	sigset_t all, old;
	int e;

	d->w = NULL;
	if (d->avail0 < 0 || (!d->limit && !d->reserve))
		return 0;
	w = xcalloc(1, sizeof *w);
	w->d = d;
	snprintf(w->path, sizeof w->path, "/proc/self/task/%ld/children",
	    (long)getpid());
	if ((w->nold = children(w->path, w->old, KIDS_MAX)) < 0) {
		free(w);
		errno = ENOENT;
		return -1;
	}
	if (pipe2(w->stop, O_CLOEXEC) < 0) {
		free(w);
		return -1;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&w->th, NULL, watch, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		close(w->stop[0]);
		close(w->stop[1]);
		free(w);
		errno = e;
		return -1;
	}
	d->w = w;
	return 0;
}

void
oxi_disk_unwatch(struct oxi_disk *d)
{
	struct oxi_disk_w *w = d->w;

	if (!w)
		return;
	close(w->stop[1]);
	pthread_join(w->th, NULL);
	close(w->stop[0]);
	free(w);
	d->w = NULL;
}
