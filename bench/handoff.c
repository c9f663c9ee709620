/*
 * bench/handoff.c - what the hand-off costs a record: N records of B
 * bytes through a pipe, read by liboxi's reader plain (read(2)) and peeked
 * (tee(2), then consumed), consumed after each record (a stage that
 * commits each) and after each batch (a filter, a loop's wake-up).
 * Prints "mode ns-per-record" lines for bench/run.
 */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oxi.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* mode 0 plain, 1 peek and consume per record, 2 peek, per batch */
static double
run(int mode, long n, size_t bytes)
{
	struct oxi_nd in;
	char *line = xmalloc(bytes + 1);
	int p[2];
	long got = 0;
	pid_t pid;
	double t0;
	jv rec;
	int r;

	memset(line, 'x', bytes);
	memcpy(line, "{\"type\":\"t\",\"x\":\"", 17);
	memcpy(line + bytes - 3, "\"}\n", 3);
	if (pipe(p) < 0)
		exit(111);
	t0 = now();
	if ((pid = fork()) == 0) {
		close(p[0]);
		for (long i = 0; i < n; i++)
			if (oxi_writeall(p[1], line, bytes) < 0)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	oxi_nd_init(&in, p[0], "bench");
	if (mode && oxi_nd_peek(&in) < 0)
		exit(111);
	for (;;) {
		r = oxi_nd_take(&in, &rec);
		if (r == OXI_ND_OK) {
			jv_free(rec);
			got++;
			if (mode == 1)
				(void)oxi_nd_consume(&in);
			continue;
		}
		if (r == OXI_ND_EOF)
			break;
		if (mode)
			(void)oxi_nd_consume(&in);
		if (oxi_nd_fill(&in) < 0)
			exit(111);
	}
	waitpid(pid, NULL, 0);
	oxi_nd_free(&in);
	close(p[0]);
	free(line);
	if (got != n)
		exit(111);
	return (now() - t0) / n * 1e9;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	size_t b = argc > 2 ? (size_t)atol(argv[2]) : 300;
	double best[3] = { 1e18, 1e18, 1e18 }, t;
	int m, k;

	oxi_prog = "bench";
	for (k = 0; k < 5; k++)
		for (m = 0; m < 3; m++)
			if ((t = run(m, n, b)) < best[m])
				best[m] = t;
	printf("plain %.0f\nrecord %.0f\nbatch %.0f\n", best[0], best[1],
	    best[2]);
	return 0;
}
