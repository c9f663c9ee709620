/*
 * oxi-cron - schedules: msg.in records on time
 *
 * Reads records on stdin: cron.add, cron.list and cron.cancel requests
 * (from oxi-loop: the model's schedule tools, the /remind and /schedules
 * commands) are answered and taken; every other record passes to stdout
 * unchanged, and a msg.out answering a heartbeat has its tokens booked.
 * At each schedule's due time it writes a msg.in in the chat, with the
 * sender and trust, of the schedule's maker to the fire output (-o: a
 * FIFO or fd; stdout by default), recorded in its ledger before it is
 * written.  Between due times it sleeps in poll(2) on a timerfd set to
 * the next one: no work while idle.  The schedules and their times are
 * lib/cron/; this file holds the options, the clock and the poll loop.
 *
 * oxi-cron -n count [-z zone] spec prints the next due times of a spec,
 * oxi-cron -L the schedules, and neither runs the stage.
 *
 * fds: 0 records in, 1 records out, 2 diagnostics, -d fd readiness, -o
 * the fire output.  exit: 0 ok (EOF or SIGTERM), 1 some input records
 * were rejected, 100 usage or config, 111 system failure.
 */
#define _GNU_SOURCE
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/timerfd.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "oxi.h"
#include "cron/cron.h"

#define USAGE "oxi-cron [-v] [-d fd] [-l maxline] [-f db] [-o out] " \
	"[-z zone]\noxi-cron -n count [-z zone] spec\noxi-cron -L [-f db]"

static struct oxi_cron c;
static int status = OXI_EX_OK;

/* the settings of oxi-cron(1), ENVIRONMENT, the heartbeat's with beat;
 * dies 100 if one is bad */
static void
settings(int beat)
{
	const char *why;

	if (oxi_cron_settings(&c, &why) < 0 ||
	    (beat && oxi_cron_beat_load(&c.beat, &why) < 0))
		oxi_die(OXI_EX_USAGE, "%s", why);
}

/* -n: the next count due times of spec, UTC and on the zone's clock */
static int
next(long count, const char *spec)
{
	struct oxi_cron_when wh;
	const char *why;
	char iso[32];
	time_t t = oxi_cron_now(&c);
	int y, mo, d, h, mi, s;
	size_t n;

	if (!(n = oxi_cron_when_parse(spec, c.tz, t, &wh, &why)))
		oxi_die(OXI_EX_USAGE, "cannot read '%s': %s", spec, why);
	if (spec[n])
		oxi_die(OXI_EX_USAGE, "cannot read '%s' past '%.*s'", spec,
		    (int)n, spec);
	while (count-- > 0 && (t = oxi_cron_when_next(&wh, c.tz, t)) >= 0) {
		oxi_cron_iso(t, iso);
		oxi_cron_split(oxi_cron_wall(c.tz, t), &y, &mo, &d, &h, &mi,
		    &s, NULL);
		printf("%s %04d-%02d-%02d %02d:%02d:%02d\n", iso, y, mo, d, h,
		    mi, s);
	}
	oxi_fshut(stdout, "stdout");
	return 0;
}

static void
dbdie(const char *what)
{
	oxi_die(OXI_EX_TEMP, "unable to %s: %s", what, c.err ? c.err : "?");
}

/* the records taken from stdin: requests answered, the rest passed */
static void
take(struct oxi_nd *in, int *ended)
{
	const char *why, *type;
	jv rec;
	int r;

	if (oxi_cron_begin(&c) < 0)
		dbdie("begin a transaction");
	for (;;) {
		r = oxi_nd_take(in, &rec);
		if (r == OXI_ND_AGAIN || r == OXI_ND_EOF) {
			*ended |= r == OXI_ND_EOF;
			break;
		}
		if (r == OXI_ND_BAD) {
			status = OXI_EX_FALSE;
			continue;
		}
		type = oxi_msg_type_peek(rec);
		if (strcmp(type, "cron.add") == 0 || strcmp(type,
		    "cron.list") == 0 || strcmp(type, "cron.cancel") == 0) {
			if ((r = oxi_cron_request(&c, rec, &why)) < 0)
				dbdie("record a request");
			if (r > 0) {
				oxi_nd_reject(in, why);
				status = OXI_EX_FALSE;
			}
			continue;
		}
		if ((r = oxi_cron_seen(&c, rec)) < 0)
			dbdie("book the heartbeat's tokens");
		jv_free(rec);
		if (r == 0)
			oxi_nd_pass(in);
	}
	if (oxi_cron_end(&c) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to write what was answered");
	/* committed and written: the input may let go of it */
	if (oxi_nd_consume(in) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
}

/* the timer at due (the stage's clock), or off */
static void
arm(int tfd, time_t due)
{
	struct itimerspec its;

	memset(&its, 0, sizeof its);
	if (due >= 0) {
		its.it_value.tv_sec = due - (time_t)c.offset;
		if (its.it_value.tv_sec <= 0)
			its.it_value.tv_sec = 1;
	}
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
	    &its, NULL) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set the timer");
}

/* -o: a descriptor number, or a path opened for writing (a FIFO
 * read-write, so that it never blocks for want of a reader) */
static int
output(const char *o)
{
	struct stat st;
	int fd;

	if (!o)
		return 1;
	if (o[0] >= '0' && o[0] <= '9' && !strchr(o, '/'))
		return oxi_fdarg(o);
	fd = open(o, (stat(o, &st) == 0 && S_ISFIFO(st.st_mode) ? O_RDWR :
	    O_WRONLY | O_APPEND | O_CREAT) | O_CLOEXEC, 0600);
	if (fd < 0)
		oxi_diesys(oxi_errtemp(errno), "unable to open '%s'", o);
	return fd;
}

int
main(int argc, char *argv[])
{
	static char path[4096];
	const char *dbpath = NULL, *out = NULL, *dir, *err;
	struct pollfd pfd[3];
	struct oxi_buf b = OXI_BUF_INIT;
	struct oxi_nd in;
	size_t maxline = OXI_MAXLINE_DEFAULT;
	int ch, notif = -1, sigfd, tfd, ended = 0, L = 0, n, ifd;
	long count = 0;
	time_t due, now;
	uint64_t ticks;

	oxi_prog = "oxi-cron";
	oxi_std_opts(argc, argv, USAGE);
	while ((ch = getopt(argc, argv, "d:f:l:Ln:o:vz:")) != -1)
		switch (ch) {
		case 'd': notif = oxi_fdarg(optarg); break;
		case 'f': dbpath = optarg; break;
		case 'l': maxline = oxi_sizearg(optarg, "line limit"); break;
		case 'L': L = 1; break;
		case 'n': count = (long)oxi_sizearg(optarg, "count"); break;
		case 'o': out = optarg; break;
		case 'v': oxi_verbose++; break;
		case 'z': c.tz = optarg; break;
		default: oxi_usage(USAGE);
		}
	c.beat.maker = jv_null();
	if (count > 0) {
		if (optind != argc - 1)
			oxi_usage(USAGE);
		settings(0);
		return next(count, argv[optind]);
	}
	if (optind != argc)
		oxi_usage(USAGE);
	settings(1);
	if (!dbpath) {
		if (!(dir = oxi_state_dir()))
			oxi_diesys(OXI_EX_USAGE, "unable to find a state "
			    "directory (set OXI_HOME)");
		snprintf(path, sizeof path, "%s/cron.db", dir);
		dbpath = path;
	}
	if (!(c.db = oxi_crondb_open(dbpath, &err)))
		oxi_die(oxi_errtemp(errno), "unable to open '%s': %s", dbpath,
		    err);
	if (L) {
		if (oxi_cron_dump(&c, &b) < 0)
			dbdie("list the schedules");
		if (b.len > 0 && oxi_writeall(1, b.s, b.len) < 0)
			oxi_diesys(OXI_EX_TEMP, "unable to write to stdout");
		return 0;
	}
	c.firefd = output(out);
	if (notif >= 0)
		oxi_fd_cloexec(notif);
	if ((sigfd = oxi_sig_setup(OXI_SIG_TERM | OXI_SIG_HUP |
	    OXI_SIG_NOPIPE)) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up signals");
	if ((tfd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK |
	    TFD_CLOEXEC)) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to make a timer");
	oxi_nd_init(&in, 0, "stdin");
	in.max = maxline;
	if (oxi_nd_peek(&in) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up reading stdin");
	/* what a killed stage had recorded: written */
	if (oxi_cron_resend(&c) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to write the fires again");
	oxi_notify(notif);

	while (!oxi_sig_term && !ended) {
		if (oxi_sig_hup) {
			oxi_sig_hup = 0;
			if (oxi_cron_beat_load(&c.beat, &err) < 0)
				oxi_warn("%s: heartbeat off", err);
			else
				oxi_info("reloaded the heartbeat's settings");
		}
		now = oxi_cron_now(&c);
		if ((due = oxi_cron_due(&c)) >= 0 && due <= now) {
			if (oxi_cron_begin(&c) < 0 || oxi_cron_fire(&c, now) < 0)
				dbdie("record a fire");
			if (oxi_cron_end(&c) < 0)
				oxi_diesys(OXI_EX_TEMP, "unable to write a fire");
			due = oxi_cron_due(&c);
			if (due >= 0 && due <= now)
				due = now + 1;	/* never a busy loop */
		}
		arm(tfd, due);
		n = 0;
		pfd[n].fd = sigfd;
		pfd[n++].events = POLLIN;
		pfd[n].fd = tfd;
		pfd[n++].events = POLLIN;
		pfd[ifd = n].fd = 0;
		pfd[n++].events = POLLIN;
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			oxi_diesys(OXI_EX_TEMP, "poll");
		}
		if (pfd[0].revents)
			oxi_sig_drain();
		/* expired, or the clock was set (ECANCELED): look again */
		if (pfd[1].revents && read(tfd, &ticks, sizeof ticks) < 0 &&
		    errno != EAGAIN && errno != ECANCELED)
			oxi_diesys(OXI_EX_TEMP, "unable to read the timer");
		if (pfd[ifd].revents) {
			ssize_t got = oxi_nd_fill(&in);

			if (got < 0 && errno != EAGAIN && errno != EINTR)
				oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
			take(&in, &ended);
		}
	}
	if (oxi_sig_term)
		oxi_info("stopping on SIGTERM");
	oxi_cron_beat_free(&c.beat);
	sqlite3_close(c.db);
	oxi_nd_free(&in);
	oxi_buf_free(&c.outq);
	oxi_buf_free(&c.fireq);
	oxi_buf_free(&c.sent);
	oxi_buf_free(&b);
	return status;
}
