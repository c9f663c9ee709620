/*
 * cgroup.c - cgroups per sandboxed child, for root: a pids cgroup (the
 * kernel exempts root from RLIMIT_NPROC) and a memory cgroup (what
 * RLIMIT_AS does not count: tmpfs files, memfds, the sum over processes),
 * made under our own cgroup (v2: one for both, else the v1 pids and
 * memory hierarchies) when we may, joined by the child, emptied and
 * removed when the child is reaped
 */
#define _GNU_SOURCE

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "sandbox/sandbox.h"
#include "sandbox/mech.h"

/*
 * The directory of our cgroup in the v2 hierarchy (ctl NULL) or in the
 * v1 one of controller ctl, into out: 0, or -1 if there is none.
 */
static int
cgbase(const char *ctl, char *out, size_t n)
{
	char line[PATH_MAX + 256], mnt[PATH_MAX];
	char *p, *q, *fields[12];
	FILE *f;
	int nf, i;

	mnt[0] = '\0';
	if (!(f = fopen("/proc/self/mountinfo", "re")))
		return -1;
	while (fgets(line, sizeof line, f)) {
		for (nf = 0, p = strtok(line, " \n"); p && nf < 12;
		    p = strtok(NULL, " \n"))
			fields[nf++] = p;
		/* id parent dev root mnt opts [tags] - type src sopts */
		for (i = 6; i < nf && strcmp(fields[i], "-"); i++)
			;
		if (i + 3 >= nf || strcmp(fields[3], "/") != 0)
			continue;
		if ((!ctl && strcmp(fields[i + 1], "cgroup2") == 0) ||
		    (ctl && strcmp(fields[i + 1], "cgroup") == 0 &&
		    strstr(fields[i + 3], ctl))) {
			snprintf(mnt, sizeof mnt, "%s", fields[4]);
			break;
		}
	}
	fclose(f);
	if (!mnt[0] || !(f = fopen("/proc/self/cgroup", "re")))
		return -1;
	i = -1;
	while (fgets(line, sizeof line, f)) {
		if (!(p = strchr(line, ':')) || !(q = strchr(p + 1, ':')))
			continue;
		*q++ = '\0';
		q[strcspn(q, "\n")] = '\0';
		if ((!ctl && strcmp(p + 1, "") == 0 && line[0] == '0') ||
		    (ctl && strstr(p + 1, ctl))) {
			i = (size_t)snprintf(out, n, "%s%s", mnt, strcmp(q,
			    "/") == 0 ? "" : q) >= n ? -1 : 0;
			break;
		}
	}
	fclose(f);
	return i;
}

/* writes v to file in dir: 0 or -1 */
static int
cgset(const char *dir, const char *file, long long v)
{
	char path[PATH_MAX], num[32];
	int fd, r;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (v < 0)
		snprintf(num, sizeof num, "max\n");
	else
		snprintf(num, sizeof num, "%lld\n", v);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	r = oxi_writeall(fd, num, strlen(num));
	close(fd);
	return r;
}

/*
 * cgbase, once per process for each of v2, v1 pids and v1 memory (our
 * own cgroup does not move under us): 0 with the directory in out, or
 * -1; a v2 base found to offer neither controller counts as none from
 * then on (cgnone)
 */
static char cgdirs[3][PATH_MAX];
static int cgstate[3];		/* 0 unknown, 1 found, -1 none */

static int
cgcached(int k, char *out, size_t n)
{
	static const char *const ctl[] = { NULL, "pids", "memory" };

	if (cgstate[k] == 0)
		cgstate[k] = cgbase(ctl[k], cgdirs[k], sizeof cgdirs[k]) == 0 ?
		    1 : -1;
	if (cgstate[k] < 0 || strlen(cgdirs[k]) >= n)
		return -1;
	strcpy(out, cgdirs[k]);
	return 0;
}

/* a new cgroup under base: its directory, or NULL */
static char *
cgnew(const char *base)
{
	static unsigned seq;
	char dir[PATH_MAX];

	if ((size_t)snprintf(dir, sizeof dir, "%s/oxi-sbx.%ld.%u", base,
	    (long)getpid(), seq++) >= sizeof dir || mkdir(dir, 0700) < 0)
		return NULL;
	return xstrdup(dir);
}

/* the memory limits of a cgroup in v2 (file names differ in v1) */
static int
cgmem(const char *dir, int v2, long long bytes)
{
	if (cgset(dir, v2 ? "memory.max" : "memory.limit_in_bytes",
	    bytes) < 0)
		return -1;
	/* no swap to spill into; and an overflow kills the whole call */
	if (v2) {
		(void)cgset(dir, "memory.swap.max", 0);
		(void)cgset(dir, "memory.oom.group", 1);
	} else
		(void)cgset(dir, "memory.memsw.limit_in_bytes", bytes);
	return 0;
}

void
sbx_cgmake(long nproc, long mem_mb, char *cg[2])
{
	char base[PATH_MAX];
	long long mem = mem_mb > 0 ? (long long)mem_mb << 20 : -1;
	int need = 0, done = 0;
	char *d;

	cg[0] = cg[1] = NULL;
	if (geteuid() != 0)
		return;
	need = (nproc > 0 ? 1 : 0) | (mem > 0 ? 2 : 0);
	if (need && cgcached(0, base, sizeof base) == 0 &&
	    (d = cgnew(base))) {
		if ((need & 1) && cgset(d, "pids.max", nproc) == 0)
			done |= 1;
		if ((need & 2) && cgmem(d, 1, mem) == 0)
			done |= 2;
		if (done)
			cg[0] = d;
		else {
			/* a hybrid host: v2 without these controllers */
			cgstate[0] = -1;
			rmdir(d);
			free(d);
		}
	}
	if ((need & ~done & 1) && cgcached(1, base, sizeof base) == 0 &&
	    (d = cgnew(base))) {
		if (cgset(d, "pids.max", nproc) == 0)
			cg[cg[0] ? 1 : 0] = d;
		else {
			rmdir(d);
			free(d);
		}
	}
	if ((need & ~done & 2) && cgcached(2, base, sizeof base) == 0 &&
	    (d = cgnew(base))) {
		if (cgmem(d, 0, mem) == 0)
			cg[cg[0] ? 1 : 0] = d;
		else {
			rmdir(d);
			free(d);
		}
	}
}

int
sbx_cgjoin(const char *dir)
{
	char path[PATH_MAX], num[32];
	int fd, r;

	if (!dir)
		return 0;
	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	snprintf(num, sizeof num, "%ld\n", (long)getpid());
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	r = oxi_writeall(fd, num, strlen(num));
	close(fd);
	return r;
}

/* 1 if the memory cgroup dir killed a process for want of memory */
static int
cgoom(const char *dir)
{
	static const char *const files[] = { "memory.events",
		"memory.oom_control", NULL };
	char path[PATH_MAX], buf[1024], *p;
	ssize_t n;
	int fd, i;

	for (i = 0; files[i]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		if ((p = strstr(buf, "oom_kill ")) && atol(p + 9) > 0)
			return 1;
	}
	return 0;
}

/* sleeps us, and the next wait: twice as long, up to 2 ms */
static useconds_t
backoff(useconds_t us)
{
	usleep(us);
	return us < 1000 ? us * 2 : 2000;
}

/* kills every process in cgroup dir until it is empty, removes it */
int
sbx_cgdrop(char *dir)
{
	char path[PATH_MAX], buf[4096], *p;
	long long t0 = oxi_clock_ms();
	useconds_t nap = 100;	/* dying tasks are gone in well under 1 ms */
	ssize_t n;
	int fd, any, oom;

	if (!dir)
		return 0;
	oom = cgoom(dir);
	snprintf(path, sizeof path, "%s/cgroup.kill", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) >= 0) {
		(void)!write(fd, "1", 1);
		close(fd);
	}
	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	do {
		any = 0;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			break;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			break;
		buf[n] = '\0';
		for (p = buf; *p; p += strcspn(p, "\n"), p += *p == '\n') {
			if (atol(p) > 0) {
				kill((pid_t)atol(p), SIGKILL);
				any = 1;
			}
		}
		if (any)
			nap = backoff(nap);
	} while (any && oxi_clock_ms() - t0 < 5000);
	while (rmdir(dir) < 0 && errno == EBUSY && oxi_clock_ms() - t0 < 5000)
		nap = backoff(nap);
	free(dir);
	return oom;
}
