/*
 * cgroup.c - a pids cgroup per sandboxed child, for root, whom the kernel
 * exempts from RLIMIT_NPROC: made under our own cgroup (v2, else the v1
 * pids hierarchy) when we may, joined by the child, emptied and removed
 * when the child is reaped
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

/* a pids cgroup for root, who is exempt from RLIMIT_NPROC */
char *
sbx_cgmake(long nproc)
{
	static unsigned seq;
	char line[PATH_MAX + 256], mnt[PATH_MAX], self[PATH_MAX], dir[PATH_MAX];
	char *p, *q, *fields[12];
	FILE *f;
	int v2, nf, fd, ok;

	if (geteuid() != 0 || nproc <= 0)
		return NULL;
	for (v2 = 1; v2 >= 0; v2--) {
		mnt[0] = self[0] = '\0';
		if (!(f = fopen("/proc/self/mountinfo", "re")))
			return NULL;
		while (fgets(line, sizeof line, f)) {
			for (nf = 0, p = strtok(line, " \n"); p && nf < 12;
			    p = strtok(NULL, " \n"))
				fields[nf++] = p;
			/* id parent dev root mnt opts [tags] - type src sopts */
			for (ok = 6; ok < nf && strcmp(fields[ok], "-"); ok++)
				;
			if (ok + 3 >= nf)
				continue;
			if (v2 && strcmp(fields[ok + 1], "cgroup2") == 0 &&
			    strcmp(fields[3], "/") == 0) {
				snprintf(mnt, sizeof mnt, "%s", fields[4]);
				break;
			}
			if (!v2 && strcmp(fields[ok + 1], "cgroup") == 0 &&
			    strstr(fields[ok + 3], "pids") &&
			    strcmp(fields[3], "/") == 0) {
				snprintf(mnt, sizeof mnt, "%s", fields[4]);
				break;
			}
		}
		fclose(f);
		if (!mnt[0] || !(f = fopen("/proc/self/cgroup", "re")))
			continue;
		while (fgets(line, sizeof line, f)) {
			if (!(p = strchr(line, ':')) || !(q = strchr(p + 1,
			    ':')))
				continue;
			*q++ = '\0';
			q[strcspn(q, "\n")] = '\0';
			if ((v2 && strcmp(p + 1, "") == 0 && line[0] == '0') ||
			    (!v2 && strstr(p + 1, "pids"))) {
				snprintf(self, sizeof self, "%s",
				    strcmp(q, "/") == 0 ? "" : q);
				break;
			}
		}
		fclose(f);
		if ((size_t)snprintf(dir, sizeof dir, "%s%s/oxi-sbx.%ld.%u",
		    mnt, self, (long)getpid(), seq++) >= sizeof dir)
			continue;
		if (mkdir(dir, 0700) < 0)
			continue;
		snprintf(line, sizeof line, "%s/pids.max", dir);
		if ((fd = open(line, O_WRONLY | O_CLOEXEC)) >= 0) {
			snprintf(line, sizeof line, "%ld\n", nproc);
			ok = write(fd, line, strlen(line)) ==
			    (ssize_t)strlen(line);
			close(fd);
			if (ok)
				return xstrdup(dir);
		}
		rmdir(dir);
	}
	return NULL;
}

int
sbx_cgjoin(const char *dir)
{
	char path[PATH_MAX], num[32];
	int fd, r;

	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	snprintf(num, sizeof num, "%ld\n", (long)getpid());
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	r = oxi_writeall(fd, num, strlen(num));
	close(fd);
	return r;
}

/* kills every process in cgroup dir until it is empty, removes it */
void
sbx_cgdrop(char *dir)
{
	char path[PATH_MAX], buf[4096], *p;
	long long t0 = oxi_clock_ms();
	ssize_t n;
	int fd, any;

	if (!dir)
		return;
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
			usleep(2000);
	} while (any && oxi_clock_ms() - t0 < 5000);
	while (rmdir(dir) < 0 && errno == EBUSY && oxi_clock_ms() - t0 < 5000)
		usleep(2000);
	free(dir);
}
