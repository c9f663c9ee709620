/*
 * serve.c - oxi-llm's record mode (-j): llm.request, embed.request and
 * transcribe records read from stdin are started at once, several at a
 * time, and answered on stdout as they end (an llm.delta per text
 * fragment, then one llm.response, embed.response, transcription or
 * error); an llm.cancel of one of ours ends that request without
 * another word; other records pass through byte for byte.  On SIGTERM no more is read or retried, and
 * the requests in flight finish.
 */
#include <sys/resource.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "llm/llm.h"

#define PARALLEL	1024		/* requests in flight, at most: a
					 * thousand chats waiting on a slow
					 * model at once (make bench) */

struct serve {
	struct oxi_http_loop *loop;	/* the transfers */
	struct oxi_llmctl *ctl;		/* the calls */
	struct oxi_nd in;		/* stdin */
	int status;			/* the exit status */
	const char *fatal;		/* what cannot run, or NULL */
};

static void
rdelta(void *arg, const char *id, const char *text, size_t len)
{
	jv r = oxi_msg_new("llm.delta");

	(void)arg;
	r = jv_object_set(r, jv_string("id"), jv_string(id));
	r = jv_object_set(r, jv_string("text"), jv_string_sized(text,
	    (int)len));
	oxi_nd_out(r);
}

static void
rdone(void *arg, const char *id, jv rec)
{
	const char *m;

	(void)arg;
	if (strcmp(oxi_msg_type_peek(rec), "error") == 0) {
		m = oxi_msg_peek(rec, "message");
		oxi_warn("request %s: %s: %s", id, oxi_msg_peek(rec, "code"),
		    m ? m : "");
	} else
		oxi_debug("request %s: answered", id);
	oxi_nd_out(rec);
}

/* one request, or a record to pass on */
static void
request(struct serve *s, jv rec)
{
	const char *m, *type = oxi_msg_type_peek(rec);
	int r;
	jv err;

	if (strcmp(type, "llm.cancel") == 0 && oxi_msg_peek(rec, "ref") &&
	    oxi_llmctl_cancel(s->ctl, oxi_msg_peek(rec, "ref"))) {
		jv_free(rec);
		return;
	}
	if (strcmp(type, "llm.request") != 0 &&
	    strcmp(type, "embed.request") != 0 &&
	    strcmp(type, "transcribe") != 0) {
		oxi_nd_pass(&s->in);
		jv_free(rec);
		return;
	}
	r = oxi_llmctl_start(s->ctl, rec, s->in.line, s->in.linelen, &err);
	if (r != OXI_LLM_STARTED) {
		m = oxi_msg_peek(err, "message");
		if (r == OXI_LLM_BAD) {
			oxi_nd_reject(&s->in, m);
			s->status = OXI_EX_FALSE;
		} else
			oxi_warn("request %s: %s: %s", oxi_msg_peek(rec, "id"),
			    oxi_msg_peek(err, "code"), m);
		oxi_nd_out(err);
	}
	jv_free(rec);
}

/* runs the transfers and the retries that are due */
static void
step(struct serve *s, struct pollfd *pfd, int n)
{
	if (oxi_http_poll(s->loop, pfd, n, oxi_llmctl_timeout(s->ctl)) < 0)
		s->fatal = "unable to run transfers";
	oxi_llmctl_tick(s->ctl);
}

static void
run(struct serve *s, int notif, const char *warm, int max)
{
	struct pollfd pfd[2];
	int sigfd, r, n, reading = 1;
	jv rec;

	if ((sigfd = oxi_sig_setup(OXI_SIG_TERM | OXI_SIG_HUP |
	    OXI_SIG_NOPIPE)) < 0) {
		s->fatal = "unable to set up signals";
		return;
	}
	if (warm && oxi_llmctl_warm(s->ctl, warm) > 0)
		while (oxi_llmctl_warming(s->ctl) > 0 && !oxi_sig_term &&
		    !s->fatal)
			step(s, NULL, 0);
	oxi_nd_hello();
	oxi_notify(notif);
	while (!s->fatal) {
		if (oxi_sig_term && reading) {
			oxi_info("stopping: finishing %d request(s)",
			    oxi_llmctl_running(s->ctl));
			reading = 0;
			oxi_llmctl_drain(s->ctl);
		}
		while (reading && oxi_llmctl_running(s->ctl) < max) {
			r = oxi_nd_take(&s->in, &rec);
			if (r == OXI_ND_AGAIN)
				break;
			if (r == OXI_ND_EOF)
				reading = 0;
			else if (r == OXI_ND_BAD)
				s->status = OXI_EX_FALSE;
			else if (r == OXI_ND_OK)
				request(s, rec);
		}
		if (!reading && oxi_llmctl_running(s->ctl) == 0)
			break;
		n = 0;
		pfd[n].fd = sigfd;
		pfd[n++].events = POLLIN;
		if (reading && oxi_llmctl_running(s->ctl) < max) {
			pfd[n].fd = s->in.fd;
			pfd[n++].events = POLLIN;
		}
		step(s, pfd, n);
		if (pfd[0].revents) {
			oxi_sig_drain();
			oxi_sig_hup = 0;	/* nothing to reload */
		}
		if (reading && !oxi_sig_term && n > 1 && pfd[1].revents &&
		    oxi_nd_fill(&s->in) < 0 && errno != EINTR &&
		    errno != EAGAIN) {
			oxi_warnsys("unable to read stdin");
			reading = 0;
			s->status = OXI_EX_TEMP;
		}
	}
}

/*
 * Room for max connections: the soft limit on open files raised as far
 * as the hard one lets it; max lowered to what that leaves (a few dozen
 * descriptors kept for everything else), never below 1.
 */
static int
fdroom(int max)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)max + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return max;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ||
		    rl.rlim_max > want ? want : rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		oxi_info("%d requests in flight at most: %ld open files "
		    "allowed", rl.rlim_cur > 96 ? (int)rl.rlim_cur - 64 : 32,
		    (long)rl.rlim_cur);
		return rl.rlim_cur > 96 ? (int)rl.rlim_cur - 64 : 32;
	}
	return max;
}

int
oxi_llm_serve(struct oxi_llmctl_cfg *cfg, size_t maxline, int notif,
    int warm, char *why, size_t len)
{
	struct serve s;
	const char *v;
	int max = PARALLEL;

	memset(&s, 0, sizeof s);
	*why = '\0';
	if ((v = oxi_getenv("OXI_LLM_PARALLEL")) && (max = atoi(v)) < 1) {
		snprintf(why, len, "bad OXI_LLM_PARALLEL '%s'", v);
		return OXI_EX_USAGE;
	}
	max = fdroom(max);
	cfg->delta = rdelta;
	cfg->done = rdone;
	if (!(s.loop = oxi_http_loop_new())) {
		snprintf(why, len, "unable to initialise libcurl");
		return OXI_EX_TEMP;
	}
	if (!(s.ctl = oxi_llmctl_new(s.loop, cfg, why, len))) {
		oxi_http_loop_free(s.loop);
		return OXI_EX_USAGE;
	}
	oxi_nd_init(&s.in, 0, "stdin");
	if (maxline > 0)
		s.in.max = maxline;
	run(&s, notif, warm && cfg->model ? cfg->model : NULL, max);
	if (s.fatal) {		/* the caller dies: nothing is freed */
		snprintf(why, len, "%s: %s", s.fatal, strerror(errno));
		return OXI_EX_TEMP;
	}
	oxi_llmctl_free(s.ctl);
	oxi_http_loop_free(s.loop);
	oxi_nd_free(&s.in);
	return s.status;
}
