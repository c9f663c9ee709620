/*
 * sandbox.c - make bench: the cost of one sandboxed exec of true
 * (oxi_sbx_run) against a bare fork+exec+wait of true, in the mechanism
 * $OXI_SANDBOX picks, the two interleaved and each call timed.  Prints
 * "MECH MEDIAN_MS_PER_CALL BARE_MEDIAN_MS_PER_CALL".
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oxi.h"
#include "sandbox/sandbox.h"

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the median of n times, sorted in place */
static double
median(double *t, int n)
{
	qsort(t, n, sizeof *t, cmp);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int
main(int argc, char *argv[])
{
	struct oxi_sbx s = OXI_SBX_INIT;
	struct oxi_sbx_res res;
	struct oxi_buf out = OXI_BUF_INIT;
	char *tv[] = { "/bin/true", NULL }, why[256];
	double *bare, *sbx, t;
	int i, n = argc > 1 ? atoi(argv[1]) : 200, st;
	pid_t pid;

	oxi_prog = "bench-sandbox";
	if (n < 1)
		n = 1;
	if (argc > 2)
		s.workspace = argv[2];
	oxi_sbx_unsafe = getenv("OXI_SANDBOX") &&
	    strcmp(getenv("OXI_SANDBOX"), "none-available") == 0;
	/* the probe runs once, before the clock starts */
	if (oxi_sbx_run(&s, tv, NULL, 0, &out, 1024, &res, why,
	    sizeof why) < 0 || res.code != 0) {
		printf("%s - -\n", oxi_sbx_mechanism());
		return 0;
	}
	bare = calloc(n, sizeof *bare);
	sbx = calloc(n, sizeof *sbx);
	if (!bare || !sbx)
		return 111;
	/* interleaved, and each call timed alone: the medians are what a
	 * burst of load on a shared machine moves least */
	for (i = 0; i < n; i++) {
		t = now();
		if ((pid = fork()) == 0) {
			execv(tv[0], tv);
			_exit(127);
		}
		waitpid(pid, &st, 0);
		bare[i] = now() - t;
		oxi_buf_reset(&out);
		t = now();
		oxi_sbx_run(&s, tv, NULL, 0, &out, 1024, &res, why, sizeof why);
		sbx[i] = now() - t;
	}
	printf("%s %.3f %.3f\n", oxi_sbx_mechanism(), median(sbx, n),
	    median(bare, n));
	return 0;
}
