/*
 * t-sandbox.c - the sandbox's exit codes (sbx_code: execline's mapping,
 * a wrapper's 128 + n kept), the mechanism table, the limits' defaults,
 * and core's pipes of a child (oxi_pipes, oxi_fork)
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "sandbox/sandbox.h"
#include "sandbox/mech.h"
#include "tap.h"

/* a wait status for an exit of code, or a death by signal sig */
static int
status(int code, int sig)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (sig) {
			signal(sig, SIG_DFL);
			raise(sig);
		}
		_exit(code);
	}
	waitpid(pid, &st, 0);
	return st;
}

int
main(void)
{
	struct oxi_sbx s = OXI_SBX_INIT;
	struct oxi_pipes p;
	struct sbx_lim l;
	char buf[16];
	int out = -1, err = -1;
	ssize_t n;
	pid_t pid;

	plan(17);
	is_int(sbx_code(status(0, 0), 0), 0, "exit 0");
	is_int(sbx_code(status(3, 0), 0), 3, "exit 3");
	is_int(sbx_code(status(127, 0), 0), 127, "exit 127");
	is_int(sbx_code(status(128, 0), 0), 128, "exit 128");
	is_int(sbx_code(status(200, 0), 0), 128, "exit 200 reads 128");
	is_int(sbx_code(status(137, 0), 0), 128,
	    "exit 137 of the command itself reads 128");
	is_int(sbx_code(status(0, SIGKILL), 0), 137, "SIGKILL reads 137");
	is_int(sbx_code(status(0, SIGTERM), 1), 143,
	    "a wrapper killed by SIGTERM reads 143");
	is_int(sbx_code(status(137, 0), 1), 137,
	    "a wrapper's 137 is SIGKILL inside, kept");
	is_int(sbx_code(status(200, 0), 1), 128,
	    "a wrapper's 200 names no signal: 128");
	is_int(sbx_code(status(3, 0), 1), 3, "a wrapper's 3 is 3");

	is_str(sbx_bwrap.name, "bwrap", "bwrap's table");
	is_str(sbx_landlock.name, "landlock", "landlock's table");

	sbx_limits(&s, &l);
	ok(l.cpu == 60 && l.mem == 512 && l.nproc == 64 && l.nofile == 32 &&
	    l.fsize == 64 && l.timeout == 30000, "the limits' defaults");

	/* stdout and stderr into one pipe */
	if (oxi_pipes_open(&p, OXI_PIPE_OUT | OXI_PIPE_MERGE) < 0)
		return 1;
	if ((pid = oxi_fork(1)) == 0) {
		if (oxi_pipes_dup(&p, NULL) < 0)
			_exit(111);
		(void)!write(1, "out ", 4);
		(void)!write(2, "err", 3);
		_exit(0);
	}
	oxi_pipes_parent(&p, NULL, &out, &err);
	ok(out >= 0 && err == -1 && p.out[0] == -1,
	    "merged: one pipe handed out");
	n = read(out, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	while (n > 0 && n < 7) {
		ssize_t k = read(out, buf + n, sizeof buf - 1 - n);

		if (k <= 0)
			break;
		n += k;
		buf[n] = '\0';
	}
	is_str(buf, "out err", "stdout and stderr in the pipe");
	is_int(oxi_wait(pid), 0, "the child exits 0");
	close(out);
	return done();
}
