/*
 * calls.c - the record loop of oxi-tool: each call in a child of its own,
 * several at once, in order within a session
 *
 * A tool.call belongs to the session its "session" string names; the
 * calls without one form one session together.  A call starts once
 * every call of its session read before it is answered, in a child
 * forked for it (with maxkids 1, in this process), up to maxkids
 * children at once; the others wait in the
 * order read, never dropped, and stdin is not read while QMAX calls and
 * lines wait.  The child runs the call as ever (mw.c: deadline, cap,
 * log line) and sends the parent over a pipe '0' or '1' (is_error), the
 * taint label, a NUL and the content, then exits.  Only the parent
 * writes stdout, one write(2) per record, and only it keeps the cache:
 * it answers a cached call without forking and keeps what a child
 * found.  A child that ends without a whole answer (killed, the
 * watchdog) gets its call an error result.  The tools of MCP servers
 * run in the parent, whose connection to the server they use: while one
 * runs, nothing else is read or answered.  Threads are not used: the
 * tools keep process-wide state (the sandbox's children, libcurl).
 *
 * Any other line written (a record passed through, the answer to an
 * invalid tool.call) waits for the calls read before it.  SIGTERM: the
 * complete lines read are handled, the calls running and waiting are
 * answered, and the loop ends.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"

#define QMAX	256		/* calls and lines waiting: stdin waits */

/* a call, or a line waiting for the calls read before it */
struct job {
	struct job *next;	/* in the order read */
	jv rec;			/* the tool.call; null for a line */
	const char *sess;	/* its session, in rec; "" for none */
	char *line;		/* the line, or NULL for a call */
	size_t len;		/* its length */
	pid_t pid;		/* the child running the call, or 0 */
	int fd;			/* our end of its pipe, or -1 */
	struct oxi_buf buf;	/* what the child sent */
};

static struct job *head, **tailp = &head;	/* in the order read */
static size_t njobs;		/* calls and lines in the list */
static int nkids, maxkids;	/* children running, at most */
static const struct oxi_tool_ctx *ctx;
static struct oxi_buf out = OXI_BUF_INIT;	/* a call run here */

/* appends string s (consumed) to array a (consumed) unless it is there */
static jv
addonce(jv a, jv s)
{
	int i, n = jv_array_length(jv_copy(a));

	for (i = 0; i < n; i++)
		if (jv_equal(jv_array_get(jv_copy(a), i), jv_copy(s))) {
			jv_free(s);
			return a;
		}
	return jv_array_append(a, s);
}

/* the taint of a result: the call's taint strings, plus label */
static jv
taintof(jv rec, const char *label)
{
	jv t = jv_object_get(jv_copy(rec), jv_string("taint")), res, v;
	int i, n;

	res = jv_array();
	if (jv_get_kind(t) == JV_KIND_ARRAY) {
		n = jv_array_length(jv_copy(t));
		for (i = 0; i < n; i++) {
			v = jv_array_get(jv_copy(t), i);
			if (jv_get_kind(v) == JV_KIND_STRING)
				res = addonce(res, v);
			else
				jv_free(v);
		}
	}
	jv_free(t);
	if (label && *label)
		res = addonce(res, jv_string(label));
	return res;
}

/* the tool.result of rec (borrowed) */
static jv
result(jv rec, const char *id, const char *content, size_t len, int iserr,
    const char *label)
{
	jv r = oxi_msg_new("tool.result");

	r = jv_object_set(r, jv_string("id"), jv_string(id));
	r = jv_object_set(r, jv_string("content"),
	    jv_string_sized(content ? content : "", (int)len));
	r = jv_object_set(r, jv_string("is_error"), jv_bool(iserr));
	return jv_object_set(r, jv_string("taint"), taintof(rec, label));
}

static void
append(struct job *j)
{
	j->fd = -1;
	*tailp = j;
	tailp = &j->next;
	njobs++;
}

static void
drop(struct job *j)
{
	struct job **p;

	for (p = &head; *p != j; p = &(*p)->next)
		;
	*p = j->next;
	if (tailp == &j->next)
		tailp = p;
	njobs--;
	jv_free(j->rec);
	free(j->line);
	oxi_buf_free(&j->buf);
	free(j);
}

/* the lines whose turn has come */
static void
flush(void)
{
	while (head && head->line) {
		if (oxi_nd_write_raw(1, head->line, head->len) < 0)
			oxi_diesys(OXI_EX_TEMP, "unable to write to stdout");
		drop(head);
	}
}

/* line[0..len) now, or once the calls read before it are answered */
static void
hold(const char *line, size_t len)
{
	struct job *j;

	if (!head) {
		if (oxi_nd_write_raw(1, line, len) < 0)
			oxi_diesys(OXI_EX_TEMP, "unable to write to stdout");
		return;
	}
	j = xcalloc(1, sizeof *j);
	j->rec = jv_null();
	j->line = xstrndup(line, len);
	j->len = len;
	append(j);
}

/* writes rec (consumed) as hold does */
static void
emit(jv rec)
{
	jv s = jv_dump_string(rec, 0);

	hold(jv_string_value(s), (size_t)jv_string_length_bytes(jv_copy(s)));
	jv_free(s);
}

/* a tool.call without the keys it needs */
static void
badcall(struct oxi_stage *st, jv rec, const char *why)
{
	jv id = oxi_msg_idstr(jv_object_get(jv_copy(rec), jv_string("id")));
	char msg[256];

	oxi_stage_reject(st, why);
	snprintf(msg, sizeof msg, "invalid tool.call: %s", why);
	if (jv_get_kind(id) == JV_KIND_STRING)
		emit(result(rec, jv_string_value(id), msg, strlen(msg), 1,
		    NULL));
	else
		emit(oxi_msg_error(NULL, "bad_record", msg, 0));
	jv_free(id);
}

/* the answer to call j: written, and j gone */
static void
answer(struct job *j, int iserr, const char *label, const char *content,
    size_t len)
{
	oxi_nd_out(result(j->rec, oxi_msg_peek(j->rec, "id"), content, len,
	    iserr, label));
	drop(j);
	flush();
}

/* the child of call j: never returns */
static void
child(struct job *j, int fd, jv args)
{
	struct job *k;
	char label[OXI_TOOL_TAINT];
	int r, nul;

	for (k = head; k; k = k->next)
		if (k->fd >= 0)
			close(k->fd);
	signal(SIGPIPE, SIG_IGN);	/* as in the stage */
	signal(SIGHUP, SIG_IGN);
	/* stdout is the parent's; its grandchildren have pipes of their own */
	if ((nul = open("/dev/null", O_RDWR)) >= 0) {
		(void)dup2(nul, 0);
		(void)dup2(nul, 1);
		if (nul > 1)
			close(nul);
	}
	r = oxi_tool_call(ctx, oxi_msg_peek(j->rec, "id"),
	    oxi_msg_peek(j->rec, "name"), args, &out, label, sizeof label);
	if (oxi_writeall(fd, r < 0 ? "1" : "0", 1) < 0 ||
	    oxi_writeall(fd, label, strlen(label) + 1) < 0 ||
	    oxi_writeall(fd, out.s ? out.s : "", out.len) < 0)
		_exit(OXI_EX_TEMP);
	_exit(OXI_EX_OK);
}

/* starts call j: 1 if it was answered at once (j is gone), else 0 */
static int
start(struct job *j)
{
	const char *id = oxi_msg_peek(j->rec, "id");
	const char *name = oxi_msg_peek(j->rec, "name");
	jv args = jv_object_get(jv_copy(j->rec), jv_string("args"));
	char label[OXI_TOOL_TAINT];
	pid_t pid = -1;
	int p[2], r;

	if (oxi_tool_cached(id, name, args, &out, label, sizeof label)) {
		jv_free(args);
		answer(j, 0, label, out.s, out.len);
		return 1;
	}
	/* one at a time: in this process, as before there were children */
	if (maxkids > 1 && !oxi_tool_here(name) && pipe(p) == 0) {
		oxi_fd_cloexec(p[0]);
		oxi_fd_cloexec(p[1]);
		if ((pid = oxi_fork(0)) == 0)
			child(j, p[1], args);
		close(p[1]);
		if (pid < 0)
			close(p[0]);
	}
	if (pid < 0) {
		/* here, as before: no call is lost for want of a child */
		r = oxi_tool_call(ctx, id, name, args, &out, label,
		    sizeof label);
		answer(j, r < 0, label, out.s, out.len);
		return 1;
	}
	jv_free(args);
	oxi_fd_nonblock(p[0], 1);
	j->pid = pid;
	j->fd = p[0];
	nkids++;
	return 0;
}

/* 1 if no call of j's session read before it waits */
static int
first(const struct job *j)
{
	const struct job *k;

	for (k = head; k != j; k = k->next)
		if (!k->line && strcmp(k->sess, j->sess) == 0)
			return 0;
	return 1;
}

/* starts what may start */
static void
schedule(void)
{
	struct job *j, *next;

	for (j = head; j && nkids < maxkids; j = next) {
		next = j->next;
		if (!j->line && !j->pid && first(j) && start(j))
			next = head;	/* lines may have gone with it */
	}
}

/* call j's child has closed its pipe: its answer, or an error result */
static void
ended(struct job *j)
{
	const char *name = oxi_msg_peek(j->rec, "name");
	char why[64], *nul = NULL, *s = j->buf.s;
	size_t n = j->buf.len;
	int st = 0;

	close(j->fd);
	j->fd = -1;
	while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR)
		;
	nkids--;
	if (n > 0 && (s[0] == '0' || s[0] == '1'))
		nul = memchr(s + 1, '\0', n - 1);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && nul) {
		if (s[0] == '0') {
			jv args = jv_object_get(jv_copy(j->rec),
			    jv_string("args"));

			oxi_tool_keep(name, args, nul + 1, n - (nul + 1 - s),
			    s + 1);
			jv_free(args);
		}
		answer(j, s[0] == '1', s + 1, nul + 1, n - (nul + 1 - s));
		return;
	}
	if (WIFSIGNALED(st))
		snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(why, sizeof why, "exit status %d", WEXITSTATUS(st));
	oxi_tool_lost(oxi_msg_peek(j->rec, "id"), name, why);
	oxi_buf_reset(&out);
	oxi_buf_printf(&out, "%s: the call ended without a result (%s)",
	    name, why);
	answer(j, 1, NULL, out.s, out.len);
}

/* reads what call j's child sent; ended once it is all there */
static void
collect(struct job *j)
{
	char tmp[65536];
	ssize_t r;

	for (;;) {
		r = read(j->fd, tmp, sizeof tmp);
		if (r > 0)
			oxi_buf_cat(&j->buf, tmp, (size_t)r);
		else if (r == 0 || (errno != EINTR && errno != EAGAIN))
			break;
		else if (errno == EAGAIN)
			return;
	}
	ended(j);
}

/* a record taken from stdin (consumed) */
static void
record(struct oxi_stage *st, jv rec)
{
	const char *why;
	struct job *j;

	if (strcmp(oxi_msg_type_peek(rec), "tool.call") != 0)
		hold(st->in.line, st->in.linelen);
	else if (oxi_msg_check(rec, &why) < 0)
		badcall(st, rec, why);
	else {
		j = xcalloc(1, sizeof *j);
		j->rec = rec;
		if (!(j->sess = oxi_msg_peek(rec, "session")))
			j->sess = "";
		append(j);
		return;
	}
	jv_free(rec);
}

int
oxi_tool_stage(struct oxi_stage *st, const struct oxi_tool_ctx *c,
    int kids, int notif)
{
	struct pollfd *pfd;
	struct job *j;
	jv rec;
	int i, n, r;

	ctx = c;
	maxkids = kids > 0 ? kids : 1;
	pfd = xcalloc((size_t)maxkids + 2, sizeof *pfd);
	oxi_nd_hello();
	oxi_notify(notif);
	for (;;) {
		if (oxi_sig_hup) {
			oxi_sig_hup = 0;
			if (st->hup)
				st->hup(st);
		}
		r = OXI_ND_AGAIN;
		while (njobs < QMAX && (r = oxi_nd_take(&st->in, &rec)) !=
		    OXI_ND_AGAIN && r != OXI_ND_EOF) {
			if (r == OXI_ND_OK)
				record(st, rec);
			else
				st->status = OXI_EX_FALSE;
		}
		schedule();
		/* the queue was full and has room again: take what is
		 * already read before waiting for more */
		if (r == OXI_ND_OK && njobs < QMAX && !oxi_sig_term)
			continue;
		/* every complete line read so far is handled, or taken */
		if (!head && (r == OXI_ND_EOF || (r == OXI_ND_AGAIN &&
		    oxi_sig_term)))
			break;
		n = 0;
		pfd[n].fd = oxi_sig_setup(0);	/* the self-pipe */
		pfd[n++].events = POLLIN;
		if (r == OXI_ND_AGAIN && !oxi_sig_term) {
			pfd[n].fd = 0;
			pfd[n++].events = POLLIN;
		}
		for (j = head; j; j = j->next)
			if (j->fd >= 0) {
				pfd[n].fd = j->fd;
				pfd[n++].events = POLLIN;
			}
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			oxi_diesys(OXI_EX_TEMP, "unable to poll");
		}
		if (pfd[0].revents)
			oxi_sig_drain();
		for (i = 1; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == 0) {
				if (!oxi_sig_term &&
				    oxi_nd_fill(&st->in) < 0 &&
				    errno != EINTR && errno != EAGAIN)
					oxi_diesys(OXI_EX_TEMP, "unable to "
					    "read stdin");
				continue;
			}
			for (j = head; j && j->fd != pfd[i].fd; j = j->next)
				;
			if (j)
				collect(j);
		}
	}
	free(pfd);
	return st->status;
}
