/*
 * disk.c - the disk space a tool call may take: per call, per workspace,
 * and a reserve kept free
 *
 * What a call takes is measured by the free space of the filesystem
 * holding the workspace, fstatvfs(3), in O(1): the drop since the call
 * began (other writers on that filesystem count too).  Three bounds:
 *
 * - one call: disk=MiB in $OXI_SHELL_LIMITS (default 1024, 0 none).  A
 *   write of known size over it (write_file, edit_file) is refused before
 *   anything is written; a command (the shell tool; a plugin, child.c) is
 *   sampled every OXI_DISK_MS while it runs and killed with its process
 *   group once the drop is over it, so it overshoots by what it writes
 *   in one interval.  Its files stay.
 * - the reserve: $OXI_DISK_RESERVE MiB (default 256, 0 none) that no call
 *   takes: a call that writes is refused while less is free, a write
 *   that would go under it too, and a command is killed when it does.
 * - the workspace: $OXI_WORKSPACE_MAX MiB (default 0: none) bounds its
 *   size, st_blocks of every name walked from the workspace (no symbolic
 *   link followed, no mount point crossed, a file of several names
 *   counted once), at most WALK_MAX entries in WALK_MS: a walk cut short
 *   gives what it found, a lower bound.  It is walked before a call that
 *   writes when the figure kept is unknown, WALK_AGE old or over the
 *   bound (files may have gone since), and after the call (its drop
 *   would count other writers on that disk).  A call that
 *   writes is refused while the workspace is over; one that takes it over
 *   ends with a note.  Tools that only read never look.
 */
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/disk.h"

#define MIB		(1024LL * 1024)
#define LIMIT_DEFAULT	1024	/* MiB one call may take */
#define RESERVE_DEFAULT	256	/* MiB kept free */
#define MIB_MAX		(1L << 30)	/* the largest setting, MiB */
#define WALK_MAX	1000000	/* entries a walk of the workspace counts */
#define WALK_MS		2000	/* the time it may take */
#define WALK_DEPTH	64	/* directory levels it goes down */
#define WALK_AGE	60000	/* ms a figure is trusted */

/* the last figure of the workspace */
static struct {
	dev_t dev;		/* the workspace it is of */
	ino_t ino;
	long long bytes;	/* its size, or -1: unknown */
	long long when;		/* monotonic ms of its walk */
} fig = { 0, 0, -1, 0 };

/* a file of several names, counted once */
struct link {
	ino_t ino;		/* its inode */
	long long bytes;	/* its blocks, in bytes */
};

/* a walk of the workspace */
struct walk {
	dev_t dev;		/* its filesystem: no other is entered */
	long long bytes;	/* blocks so far, in bytes */
	long n;			/* entries seen */
	long long end;		/* monotonic ms to stop at */
	int stop;		/* out of entries or time */
	struct link *ln;	/* files of several names */
	size_t nln, lncap;	/* their number, room */
};

/* $name in MiB as bytes; dflt if unset, with a warning if bad */
static long long
mibenv(const char *name, long dflt)
{
	long v;

	if (oxi_env_int(name, dflt, MIB_MAX, &v) < 0)
		oxi_warn("disk: invalid %s '%.32s', using %ld MiB", name,
		    oxi_getenv(name), dflt);
	return v * MIB;
}

/* the bytes of the filesystem of fd free to others than root, or -1 */
static long long
avail(int fd)
{
	struct statvfs v;

	if (fd < 0 || fstatvfs(fd, &v) < 0)
		return -1;
	return (long long)v.f_bavail * (long long)(v.f_frsize ? v.f_frsize :
	    v.f_bsize);
}

static double
mib(long long bytes)
{
	return (double)bytes / MIB;
}

void
oxi_disk_start(struct oxi_disk *d, int ws)
{
	long v = oxi_shell_limit("disk");

	memset(d, 0, sizeof *d);
	d->ws = ws;
	d->limit = v < 0 ? 0 : (v ? v : LIMIT_DEFAULT) * MIB;
	d->reserve = mibenv("OXI_DISK_RESERVE", RESERVE_DEFAULT);
	d->avail0 = avail(ws);
}

int
oxi_disk_over(struct oxi_disk *d)
{
	long long a;

	if (d->over || d->avail0 < 0 || (a = avail(d->ws)) < 0)
		return d->over != 0;
	d->drop = d->avail0 - a;
	if (d->limit && d->drop > d->limit)
		d->over = OXI_DISK_LIMIT;
	else if (d->reserve && a < d->reserve && d->drop > 0)
		d->over = OXI_DISK_LOW;
	return d->over != 0;
}

char *
oxi_disk_why(const struct oxi_disk *d, char *buf, size_t n)
{
	if (d->over == OXI_DISK_LIMIT)
		snprintf(buf, n, "wrote over the disk limit of %lld MiB for "
		    "one call", d->limit / MIB);
	else if (d->over == OXI_DISK_LOW)
		snprintf(buf, n, "the disk of the workspace fell under the "
		    "%lld MiB kept free (OXI_DISK_RESERVE)", d->reserve / MIB);
	else
		snprintf(buf, n, "%s", "");
	return buf;
}

static void
addlink(struct walk *w, const struct stat *st)
{
	if (w->nln == w->lncap) {
		w->lncap = w->lncap ? w->lncap * 2 : 64;
		w->ln = xrealloc(w->ln, w->lncap * sizeof *w->ln);
	}
	w->ln[w->nln].ino = st->st_ino;
	w->ln[w->nln++].bytes = st->st_blocks * 512LL;
}

static int
cmplink(const void *a, const void *b)
{
	const struct link *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* adds what directory dfd (consumed) holds to w */
static void
walkdir(struct walk *w, int dfd, int depth)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return;
	}
	while (!w->stop && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (++w->n > WALK_MAX || (w->n % 256 == 0 &&
		    oxi_clock_ms() >= w->end)) {
			w->stop = 1;
			break;
		}
		if (fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != w->dev)
			continue;	/* gone, or a mount point */
		if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
			addlink(w, &st);
			continue;
		}
		w->bytes += st.st_blocks * 512LL;
		if (S_ISDIR(st.st_mode) && depth < WALK_DEPTH &&
		    (fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) >= 0)
			walkdir(w, fd, depth + 1);
	}
	closedir(d);
}

/* the size of workspace ws, walked for at most ms: bytes, or -1 */
static long long
wswalk(int ws, const struct stat *st, long ms)
{
	struct walk w;
	size_t i;
	int fd;

	if ((fd = openat(ws, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	memset(&w, 0, sizeof w);
	w.dev = st->st_dev;
	w.bytes = st->st_blocks * 512LL;
	w.end = oxi_clock_ms() + ms;
	walkdir(&w, fd, 0);
	if (w.nln > 0)
		qsort(w.ln, w.nln, sizeof *w.ln, cmplink);
	for (i = 0; i < w.nln; i++)
		if (i == 0 || w.ln[i].ino != w.ln[i - 1].ino)
			w.bytes += w.ln[i].bytes;
	free(w.ln);
	if (w.stop)
		oxi_debug("disk: the walk of the workspace stopped after %ld "
		    "entries: %.1f MiB at least", w.n, mib(w.bytes));
	return w.bytes;
}

/* the figure of the workspace, walked again when unknown, old or over
 * max: bytes, or -1 */
static long long
wssize(struct oxi_tool_call *c, long long max)
{
	struct stat st;
	long long now = oxi_clock_ms();
	long ms = oxi_tool_left(c, 2 * WALK_MS) / 2;

	if (fstat(c->ctx->ws, &st) < 0)
		return -1;
	if (fig.bytes < 0 || fig.dev != st.st_dev || fig.ino != st.st_ino ||
	    now - fig.when > WALK_AGE || fig.bytes > max) {
		fig.dev = st.st_dev;
		fig.ino = st.st_ino;
		fig.bytes = wswalk(c->ctx->ws, &st, ms < WALK_MS ? ms :
		    WALK_MS);
		fig.when = oxi_clock_ms();
	}
	return fig.bytes;
}

int
oxi_disk_begin(struct oxi_tool_call *c, struct oxi_disk *d, long long want)
{
	const char *none = want < 0 ? "Nothing was run." :
	    "Nothing was written.";
	long long max, size;

	oxi_disk_start(d, c->ctx->ws);
	if (d->avail0 >= 0 && d->reserve && d->avail0 < d->reserve)
		return oxi_tool_fail(c, "refused: the disk of the workspace "
		    "has %.1f MiB free, under the %lld MiB kept free "
		    "(OXI_DISK_RESERVE). %s Free space on that disk, or lower "
		    "OXI_DISK_RESERVE.", mib(d->avail0), d->reserve / MIB,
		    none);
	max = mibenv("OXI_WORKSPACE_MAX", 0);
	if (max > 0 && (size = wssize(c, max)) > max)
		return oxi_tool_fail(c, "refused: the workspace holds %.1f "
		    "MiB, over its bound of %lld MiB (OXI_WORKSPACE_MAX). %s "
		    "Until files in it are deleted or OXI_WORKSPACE_MAX is "
		    "raised, calls that write are refused; tools that read "
		    "still work.", mib(size), max / MIB, none);
	if (want >= 0 && d->limit && want > d->limit)
		return oxi_tool_fail(c, "refused: %.1f MiB to write, over the "
		    "disk limit of %lld MiB for one call (disk= in "
		    "OXI_SHELL_LIMITS). %s", mib(want), d->limit / MIB, none);
	if (want >= 0 && d->avail0 >= 0 && d->reserve &&
	    d->avail0 - want < d->reserve)
		return oxi_tool_fail(c, "refused: writing %.1f MiB would leave "
		    "the disk of the workspace under the %lld MiB kept free "
		    "(OXI_DISK_RESERVE). %s", mib(want), d->reserve / MIB,
		    none);
	return 0;
}

void
oxi_disk_end(struct oxi_disk *d, struct oxi_buf *note)
{
	long long a, max;
	struct stat st;

	if (d->avail0 < 0 || (a = avail(d->ws)) < 0)
		return;
	d->drop = d->avail0 - a;
	max = mibenv("OXI_WORKSPACE_MAX", 0);
	/* with a bound, what the call left is walked: the drop of free
	 * space counts every other writer on that disk too (and a call
	 * runs in a child of its own, whose figure no later call sees) */
	if (max > 0 && fstat(d->ws, &st) == 0) {
		fig.dev = st.st_dev;
		fig.ino = st.st_ino;
		fig.bytes = wswalk(d->ws, &st, WALK_MS);
		fig.when = oxi_clock_ms();
	} else if (fig.bytes >= 0)
		fig.bytes = fig.bytes + d->drop > 0 ? fig.bytes + d->drop : 0;
	if (fig.bytes < 0)
		return;
	if (max > 0 && fig.bytes > max)
		oxi_buf_printf(note, "\n[note: the workspace now holds %.1f "
		    "MiB, over its bound of %lld MiB (OXI_WORKSPACE_MAX): calls "
		    "that write are refused until files in it are deleted]",
		    mib(fig.bytes), max / MIB);
}

int
oxi_disk_watch(void *arg)
{
	struct oxi_disk *d = arg;

	if (!oxi_disk_over(d))
		return 0;
	d->killed = 1;
	return 1;
}
