/*
 * stage.c - the record loop of a filter stage (mblaze's blaze822_loop,
 * for records)
 *
 * Reads stdin as records and hands each good one to st->record; a bad
 * line is warned about and dead-lettered by nd.c and makes the status 1.
 * SIGHUP calls st->hup between records; SIGTERM stops the loop once every
 * complete line already read is handled.  Dies 111 when stdin cannot be
 * read or polled, as the commands did before it.  stdin is peeked and a
 * record consumed once handled (oxi_nd_peek): a kill loses none.
 */
#include <errno.h>
#include <poll.h>

#include "oxi.h"

void
oxi_stage_init(struct oxi_stage *st, size_t maxline, int nopipe)
{
	int flags = OXI_SIG_TERM | OXI_SIG_HUP;

	oxi_nd_init(&st->in, 0, "stdin");
	if (maxline)
		st->in.max = maxline;
	st->status = OXI_EX_OK;
	st->record = NULL;
	st->hup = NULL;
	st->arg = NULL;
	if (nopipe)
		flags |= OXI_SIG_NOPIPE;
	if (oxi_sig_setup(flags) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up signals");
}

/* what was handled leaves stdin; its outputs are written */
static void
consume(struct oxi_stage *st)
{
	if (oxi_nd_consume(&st->in) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
}

int
oxi_stage_run(struct oxi_stage *st, int notif)
{
	struct pollfd pfd[2];
	jv rec;
	int r;

	/* peek, then consume what was handled: nothing read is lost */
	if (oxi_nd_peek(&st->in) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up reading stdin");
	oxi_notify(notif);
	pfd[0].fd = 0;
	pfd[0].events = POLLIN;
	pfd[1].fd = oxi_sig_setup(0);	/* the self-pipe, made by init */
	pfd[1].events = POLLIN;
	for (;;) {
		if (oxi_sig_hup) {
			oxi_sig_hup = 0;
			if (st->hup)
				st->hup(st);
		}
		r = oxi_nd_take(&st->in, &rec);
		if (r == OXI_ND_OK) {
			st->record(st, rec);
			continue;
		}
		if (r == OXI_ND_BAD) {
			st->status = OXI_EX_FALSE;
			continue;
		}
		if (r == OXI_ND_EOF)
			break;
		/* every complete line read so far is handled */
		consume(st);
		if (oxi_sig_term)
			break;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			oxi_diesys(OXI_EX_TEMP, "unable to poll");
		}
		if (pfd[1].revents)
			oxi_sig_drain();
		if (oxi_sig_term)
			break;	/* nothing more is read */
		if (pfd[0].revents && oxi_nd_fill(&st->in) < 0 &&
		    errno != EINTR && errno != EAGAIN)
			oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
	}
	consume(st);
	return st->status;
}

void
oxi_stage_pass(const struct oxi_stage *st)
{
	oxi_nd_pass(&st->in);
}

void
oxi_stage_reject(struct oxi_stage *st, const char *why)
{
	oxi_nd_reject(&st->in, why);
	st->status = OXI_EX_FALSE;
}
