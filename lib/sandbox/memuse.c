/*
 * memuse.c - the memory a sandboxed call holds, measured from outside:
 * the fallback bound where no memory cgroup can be had (not root, or no
 * cgroup to be made), which oxi_sbx_run samples while the call runs
 *
 * The call's processes are found from its first one down through
 * /proc/PID/task/TID/children (at most SBX_MAXPROCS).  Each counts its
 * proportional set size (Pss of smaps_rollup: pages shared between
 * processes are split, tmpfs and memfd pages it maps are counted), and
 * every memfd held open counts its blocks once (one written but never
 * mapped is in no process's Pss; one that is also mapped is counted
 * twice, which errs on the side of the bound).  Exports sbx_memuse.
 */
#define _GNU_SOURCE

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "sandbox/sandbox.h"
#include "sandbox/mech.h"

#define SBX_MAXPROCS	1024
#define SBX_MAXMEMFD	512

/* the Pss of pid in bytes, 0 when it cannot be read (gone, or closed) */
static long long
pss(pid_t pid)
{
	char path[64], line[256];
	long long kb = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/smaps_rollup", (long)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "Pss:", 4) == 0) {
			kb = atoll(line + 4);
			break;
		}
	fclose(f);
	return kb * 1024;
}

/* adds the memfds pid holds, each inode once (seen, *nseen), to *bytes */
static void
memfds(pid_t pid, ino_t *seen, int *nseen, long long *bytes)
{
	char dir[64], path[96], to[64];
	struct dirent *de;
	struct stat st;
	ssize_t k;
	DIR *d;
	int i;

	snprintf(dir, sizeof dir, "/proc/%ld/fd", (long)pid);
	if (!(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%.16s", dir, de->d_name);
		if ((k = readlink(path, to, sizeof to - 1)) < 7 ||
		    strncmp(to, "/memfd:", 7) != 0 || stat(path, &st) < 0)
			continue;
		for (i = 0; i < *nseen && seen[i] != st.st_ino; i++)
			;
		if (i < *nseen)
			continue;
		if (*nseen < SBX_MAXMEMFD)
			seen[(*nseen)++] = st.st_ino;
		*bytes += (long long)st.st_blocks * 512;
	}
	closedir(d);
}

/* appends the children of every thread of pid to v (*n of cap) */
static void
children(pid_t pid, pid_t *v, int *n, int cap)
{
	char dir[64], path[128], buf[4096], *p, *e;
	struct dirent *de;
	ssize_t r;
	DIR *d;
	int fd;
	long c;

	snprintf(dir, sizeof dir, "/proc/%ld/task", (long)pid);
	if (!(d = opendir(dir)))
		return;
	while ((de = readdir(d)) && *n < cap) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%.16s/children", dir,
		    de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		r = read(fd, buf, sizeof buf - 1);
		close(fd);
		buf[r > 0 ? r : 0] = '\0';
		for (p = buf; *n < cap && (c = strtol(p, &e, 10)) > 0; p = e)
			v[(*n)++] = (pid_t)c;
	}
	closedir(d);
}

long long
sbx_memuse(pid_t root)
{
	static pid_t v[SBX_MAXPROCS];
	static ino_t seen[SBX_MAXMEMFD];
	long long bytes = 0;
	int n = 0, i, nseen = 0;

	v[n++] = root;
	for (i = 0; i < n; i++) {
		children(v[i], v, &n, SBX_MAXPROCS);
		bytes += pss(v[i]);
		memfds(v[i], seen, &nseen, &bytes);
	}
	return bytes;
}
