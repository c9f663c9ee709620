/*
 * peer.c - the stages oxi-loop drives, oxi-llm and oxi-tool: a coprocess
 * it starts from a shell command, or a FIFO pair that a supervisor's
 * services read and write ("fifo:REQUESTS,REPLIES").
 *
 * A coprocess that exits fails the turns that waited on it, and the next
 * record starts it again.  A FIFO pair is opened read-write at both ends,
 * so that neither side ever sees an end of file while the other
 * restarts; a stage that starts on a FIFO says so with a stage.up record
 * (oxi_nd_hello), and the turns that waited on it send their requests
 * again (oxi_loop_restarted).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "loop/loop.h"
#include "loop/memory.h"

void
oxi_peer_init(struct oxi_peer *p, const char *name, int stage,
    const char *spec, size_t maxline)
{
	struct oxi_coproc c = OXI_COPROC_INIT;

	p->c = c;
	p->name = name;
	p->stage = stage;
	p->spec = spec;
	p->fifo = spec && strncmp(spec, "fifo:", 5) == 0;
	p->up = 0;
	p->maxline = maxline;
}

/* opens path O_RDWR, non-blocking, close-on-exec; dies 100 if it is not
 * a FIFO */
static int
fifo(const char *path, const char *name)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		oxi_diesys(oxi_errtemp(errno), "unable to open the %s stage's "
		    "FIFO '%s'", name, path);
	return fd;
}

int
oxi_peer_ensure(struct oxi_peer *p)
{
	char *req, *rep;

	if (p->up)
		return 0;
	if (p->fifo) {
		req = xstrdup(p->spec + 5);
		if (!(rep = strchr(req, ',')) || rep == req || !rep[1])
			oxi_die(OXI_EX_USAGE, "bad %s stage '%s': want "
			    "fifo:REQUESTS,REPLIES", p->name, p->spec);
		*rep++ = '\0';
		p->c.in = fifo(req, p->name);
		oxi_nd_init(&p->c.out, fifo(rep, p->name), p->name);
		p->c.name = p->name;
		free(req);
	} else if (oxi_coproc_start(&p->c, p->name, p->spec) < 0) {
		oxi_warnsys("unable to start %s '%s'", p->name, p->spec);
		return -1;
	} else
		oxi_fd_nonblock(p->c.out.fd, 1);
	p->c.out.max = p->maxline;
	p->up = 1;
	oxi_debug("%s %s: %s", p->fifo ? "opened" : "started", p->name,
	    p->spec);
	return 0;
}

int
oxi_peer_send(struct oxi_peer *p, jv rec)
{
	if (oxi_peer_ensure(p) < 0) {
		jv_free(rec);
		return -1;
	}
	return oxi_coproc_send(&p->c, rec);
}

/* the stage is gone: reap it and fail what waited on it */
static int
lost(struct oxi_peer *p, struct oxi_loop *l)
{
	int code = oxi_coproc_stop(&p->c);

	p->up = 0;
	oxi_warn("%s stage exited with code %d", p->name, code);
	return p->stage == OXI_LOOP_MEM ? oxi_memory_lost(l, 0) :
	    oxi_loop_lost(l, p->stage);
}

int
oxi_peer_flush(struct oxi_peer *p, struct oxi_loop *l)
{
	if (oxi_coproc_flush(&p->c) == 0)
		return 0;
	if (p->fifo && errno == EAGAIN)
		return 0;
	if (p->fifo)
		oxi_diesys(OXI_EX_TEMP, "unable to write to the %s stage",
		    p->name);
	return lost(p, l);
}

int
oxi_peer_drain(struct oxi_peer *p, struct oxi_loop *l)
{
	int (*fn)(struct oxi_loop *, jv) = p->stage == OXI_LOOP_LLM ?
	    oxi_loop_llm : p->stage == OXI_LOOP_TOOL ? oxi_loop_tool :
	    oxi_loop_mem;
	struct oxi_nd *in = &p->c.out;
	const char *s;
	size_t off, len;
	ssize_t n;
	jv rec;
	int r;

	for (;;) {
		off = in->off;
		r = oxi_nd_take(in, &rec);
		if (r == OXI_ND_OK) {
			if (strcmp(oxi_msg_type_peek(rec), "stage.up") == 0) {
				oxi_info("%s stage (re)started: what it had in "
				    "hand is sent again", p->name);
				r = p->stage == OXI_LOOP_MEM ? oxi_memory_lost(l,
				    (long long)oxi_jnum(rec, "up_ms", 1)) :
				    oxi_loop_restarted(l, p->stage, (long long)
				    oxi_jnum(rec, "up_ms", 0));
				jv_free(rec);
			} else
				r = fn(l, rec);
			if (r < 0)
				return -1;
			continue;
		}
		if (r == OXI_ND_BAD) {
			/* the bad line is the first after off, still in the
			 * buffer: its head names the turn it was for */
			s = in->buf.s + off;
			len = in->buf.len - off;
			while (len > 0 && (*s == '\n' || *s == ' ')) {
				s++;
				len--;
			}
			if (p->stage != OXI_LOOP_MEM && oxi_loop_bad(l,
			    p->stage, s, len > 4096 ? 4096 : len) < 0)
				return -1;
			continue;
		}
		if (r == OXI_ND_EOF)
			return p->fifo ? 0 : lost(p, l);
		n = oxi_nd_fill(in);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n < 0 && p->fifo)
			oxi_diesys(OXI_EX_TEMP, "unable to read from the %s "
			    "stage", p->name);
		if (n <= 0)
			return lost(p, l);
	}
}

void
oxi_peer_stop(struct oxi_peer *p)
{
	if (!p->up)
		return;
	if (p->fifo) {
		close(p->c.in);
		p->c.in = -1;
		close(p->c.out.fd);
		oxi_nd_free(&p->c.out);
	} else
		(void)oxi_coproc_stop(&p->c);
	oxi_buf_free(&p->c.outq);
	p->up = 0;
}
