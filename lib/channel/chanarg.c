/*
 * chanarg.c - what oxi-recv, oxi-send and bin/oxi-chan share before a
 * channel runs: the options of each direction and their defaults, the
 * run of one channel, and the way from the two commands to oxi-chan.
 *
 * oxi-recv and oxi-send run the terminal (cli) in-process and link only
 * core and it; every other channel runs in oxi-chan, the one program
 * that links the network libraries (and the table of chan.c), which they
 * execv(2) with their own argv: no extra process, and oxi-chan parses
 * the same options here, as the command argv[0] names.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "channel/channel.h"

#ifndef OXI_LIBEXECDIR
#define OXI_LIBEXECDIR	"/usr/local/libexec/oxi"
#endif
#define CHAN_PROG	"oxi-chan"

#define RECV_USAGE "oxi-recv [-v] [-a account] [-d fd] [-l maxline] " \
	"[-c chat] [-t thread] [-u user] [-m text] [-r fd] [-w [addr:]port] " \
	"channel"
#define SEND_USAGE "oxi-send [-Dv] [-a account] [-d fd] [-e fd] " \
	"[-l maxline] [-r fd] channel"

void
oxi_chan_opts_init(struct oxi_chan_opts *o)
{
	const char *v;

	memset(o, 0, sizeof *o);
	o->notif = -1;
	o->rcptfd = -1;
	o->errfd = -1;
	o->max = OXI_MAXLINE_DEFAULT;
	if ((v = oxi_getenv("OXI_MAXLINE")))
		o->max = oxi_sizearg(v, "OXI_MAXLINE");
}

int
oxi_chan_fdarg(const char *arg, const char *what)
{
	int fd = oxi_fdarg(arg);

	if (fcntl(fd, F_GETFD) < 0)
		oxi_die(OXI_EX_USAGE, "%s fd %d is not open", what, fd);
	return fd;
}

const char *
oxi_chan_namearg(const char *arg, const char *what)
{
	if (*arg == '\0')
		oxi_die(OXI_EX_USAGE, "empty %s", what);
	return arg;
}

/* the options of oxi-recv */
static void
recvopts(int argc, char *argv[], struct oxi_chan_opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "a:c:d:l:m:r:t:u:vw:")) != -1)
		switch (c) {
		case 'a':
			o->account = oxi_chan_namearg(optarg, "account");
			break;
		case 'c':
			o->chat = oxi_chan_namearg(optarg, "chat id");
			break;
		case 'd':
			o->notif = oxi_fdarg(optarg);
			break;
		case 'l':
			o->max = oxi_sizearg(optarg, "maxline");
			break;
		case 'm':
			o->first = oxi_chan_namearg(optarg, "message");
			break;
		case 'r':
			o->rcptfd = oxi_chan_fdarg(optarg, "receipt");
			break;
		case 't':
			o->thread = oxi_chan_namearg(optarg, "thread id");
			break;
		case 'u':
			o->user = oxi_chan_namearg(optarg, "user name");
			break;
		case 'v':
			oxi_verbose++;
			break;
		case 'w':
			o->webhook = oxi_chan_namearg(optarg,
			    "webhook address");
			break;
		default:
			oxi_usage(RECV_USAGE);
		}
}

/* the options of oxi-send */
static void
sendopts(int argc, char *argv[], struct oxi_chan_opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "Da:d:e:l:r:v")) != -1)
		switch (c) {
		case 'a':
			o->account = oxi_chan_namearg(optarg, "account");
			break;
		case 'D':
			o->drafts = 1;
			break;
		case 'd':
			o->notif = oxi_fdarg(optarg);
			break;
		case 'e':
			o->errfd = oxi_chan_fdarg(optarg, "diagnostics");
			break;
		case 'l':
			o->max = oxi_sizearg(optarg, "maxline");
			break;
		case 'r':
			o->rcptfd = oxi_chan_fdarg(optarg, "receipt");
			break;
		case 'v':
			oxi_verbose++;
			break;
		default:
			oxi_usage(SEND_USAGE);
		}
}

const char *
oxi_chan_args(int argc, char *argv[], int dir, struct oxi_chan_opts *o)
{
	const char *usage = dir == OXI_CHAN_SEND ? SEND_USAGE : RECV_USAGE;

	oxi_std_opts(argc, argv, usage);
	oxi_chan_opts_init(o);
	if (dir == OXI_CHAN_SEND)
		sendopts(argc, argv, o);
	else
		recvopts(argc, argv, o);
	if (argc - optind != 1)
		oxi_usage(usage);
	if (o->max == 0 || o->max > 1 << 30)
		oxi_die(OXI_EX_USAGE, "invalid maxline: 1 to 1024m bytes");
	return argv[optind];
}

int
oxi_chan_call(oxi_chan_fn fn, const struct oxi_chan_opts *o)
{
	const char *what = "";
	int r;

	if ((r = fn(o, &what)) < 0)
		oxi_diesys(OXI_EX_TEMP, "%s", what);
	return r;
}

/* path: oxi-chan in the directory of the running program; -1 if none */
static int
besideme(char *path, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0)
		return -1;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return -1;
	*slash = '\0';
	if ((size_t)snprintf(path, size, "%s/%s", exe, CHAN_PROG) >= size)
		return -1;
	return access(path, X_OK);
}

void
oxi_chan_exec(char *argv[], const char *name)
{
	char path[PATH_MAX];
	const char *p;

	if (!(p = oxi_getenv("OXI_CHAN_EXEC"))) {
		p = path;
		if (besideme(path, sizeof path) < 0)
			p = OXI_LIBEXECDIR "/" CHAN_PROG;
	}
	/* which command oxi-chan is: argv[0] may not say it (valgrind
	 * passes the file's path) */
	if (setenv("OXI_CHAN_AS", oxi_prog, 1) < 0)
		oxi_diesys(OXI_EX_TEMP, "setenv");
	execv(p, argv);
	oxi_diesys(errno == ENOENT || errno == EACCES || errno == ENOEXEC ?
	    OXI_EX_USAGE : OXI_EX_TEMP, "unable to run '%s' for channel '%s'",
	    p, name);
}
