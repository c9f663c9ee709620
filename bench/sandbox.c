/*
 * sandbox.c - make bench: the cost of one sandboxed exec of true
 * (oxi_sbx_run) against a bare fork+exec+wait of true, in the mechanism
 * $OXI_SANDBOX picks.  Prints "MECH MS_PER_CALL BARE_MS_PER_CALL".
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "sandbox/sandbox.h"

int
main(int argc, char *argv[])
{
	struct oxi_sbx s = OXI_SBX_INIT;
	struct oxi_sbx_res res;
	struct oxi_buf out = OXI_BUF_INIT;
	char *tv[] = { "/bin/true", NULL }, why[256];
	long long t0, t1, t2;
	int i, n = argc > 1 ? atoi(argv[1]) : 200, st;
	pid_t pid;

	oxi_prog = "bench-sandbox";
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
	t0 = oxi_clock_ms();
	for (i = 0; i < n; i++) {
		if ((pid = fork()) == 0) {
			execv(tv[0], tv);
			_exit(127);
		}
		waitpid(pid, &st, 0);
	}
	t1 = oxi_clock_ms();
	for (i = 0; i < n; i++) {
		oxi_buf_reset(&out);
		oxi_sbx_run(&s, tv, NULL, 0, &out, 1024, &res, why, sizeof why);
	}
	t2 = oxi_clock_ms();
	printf("%s %.3f %.3f\n", oxi_sbx_mechanism(), (double)(t2 - t1) / n,
	    (double)(t1 - t0) / n);
	return 0;
}
