/*
 * sig.c - signals as flags, plus a self-pipe for poll loops
 *
 * A SIGINT ignored when the program started stays ignored, as a shell
 * leaves it for background jobs and oxi-chat for the stages behind the
 * one reading the keyboard: Ctrl-C then reaches only that one.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"

volatile sig_atomic_t oxi_sig_term;
volatile sig_atomic_t oxi_sig_hup;
volatile sig_atomic_t oxi_sig_chld;

static int selfpipe[2] = { -1, -1 };

static void
onsig(int sig)
{
	int e = errno;

	switch (sig) {
	case SIGTERM: case SIGINT: oxi_sig_term = 1; break;
	case SIGHUP: oxi_sig_hup = 1; break;
	case SIGCHLD: oxi_sig_chld = 1; break;
	}
	if (selfpipe[1] >= 0)
		(void)write(selfpipe[1], "", 1);
	errno = e;
}

static int
catch(int sig)
{
	struct sigaction sa;

	if (sig == SIGINT && sigaction(sig, NULL, &sa) == 0 &&
	    sa.sa_handler == SIG_IGN)
		return 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = onsig;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = sig == SIGCHLD ? SA_NOCLDSTOP : 0;
	return sigaction(sig, &sa, NULL);
}

int
oxi_sig_setup(int flags)
{
	if (selfpipe[0] < 0) {
		if (pipe(selfpipe) < 0)
			return -1;
		oxi_fd_cloexec(selfpipe[0]);
		oxi_fd_cloexec(selfpipe[1]);
		oxi_fd_nonblock(selfpipe[0], 1);
		oxi_fd_nonblock(selfpipe[1], 1);
	}
	if (flags & OXI_SIG_TERM)
		if (catch(SIGTERM) < 0 || catch(SIGINT) < 0)
			return -1;
	if ((flags & OXI_SIG_HUP) && catch(SIGHUP) < 0)
		return -1;
	if ((flags & OXI_SIG_CHLD) && catch(SIGCHLD) < 0)
		return -1;
	if (flags & OXI_SIG_NOPIPE)
		signal(SIGPIPE, SIG_IGN);
	return selfpipe[0];
}

void
oxi_sig_drain(void)
{
	char buf[64];

	if (selfpipe[0] < 0)
		return;
	while (read(selfpipe[0], buf, sizeof buf) > 0)
		;
}
