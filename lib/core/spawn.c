/* spawn.c - children and coprocesses */
#define _GNU_SOURCE

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"

/* makes the pipes flags asks for: 0, or -1 with errno and none open */
int
oxi_pipes_open(struct oxi_pipes *p, int flags)
{
	int e;

	p->in[0] = p->in[1] = p->out[0] = p->out[1] = -1;
	p->err[0] = p->err[1] = -1;
	p->flags = flags;
	if (!(flags & OXI_PIPE_OUT))
		p->flags &= ~OXI_PIPE_MERGE;
	if (p->flags & OXI_PIPE_MERGE)
		p->flags &= ~OXI_PIPE_ERR;
	if (((p->flags & OXI_PIPE_IN) && pipe2(p->in, O_CLOEXEC) < 0) ||
	    ((p->flags & OXI_PIPE_OUT) && pipe2(p->out, O_CLOEXEC) < 0) ||
	    ((p->flags & OXI_PIPE_ERR) && pipe2(p->err, O_CLOEXEC) < 0)) {
		e = errno;
		oxi_pipes_close(p);
		errno = e;
		return -1;
	}
	return 0;
}

/* in the child: its ends onto 0, 1 and 2; an fd with no pipe gets
 * nul[fd] when nul is set and that is >= 0, else stays: 0 or -1 */
int
oxi_pipes_dup(const struct oxi_pipes *p, const int nul[3])
{
	int fd[3], i;

	fd[0] = p->flags & OXI_PIPE_IN ? p->in[0] : nul ? nul[0] : -1;
	fd[1] = p->flags & OXI_PIPE_OUT ? p->out[1] : nul ? nul[1] : -1;
	fd[2] = p->flags & OXI_PIPE_MERGE ? p->out[1] : p->flags &
	    OXI_PIPE_ERR ? p->err[1] : nul ? nul[2] : -1;
	for (i = 0; i < 3; i++)
		if (fd[i] >= 0 && dup2(fd[i], i) < 0)
			return -1;
	return 0;
}

static void
handout(int end[2], int mine, int *to)
{
	if (end[0] < 0)
		return;
	close(end[!mine]);
	*to = end[mine];
	end[0] = end[1] = -1;
}

/* in the parent: closes the child's ends and hands ours to in, out, err */
void
oxi_pipes_parent(struct oxi_pipes *p, int *in, int *out, int *err)
{
	handout(p->in, 1, in);
	handout(p->out, 0, out);
	handout(p->err, 0, err);
}

static void
closeboth(int end[2])
{
	if (end[0] >= 0) {
		close(end[0]);
		close(end[1]);
	}
	end[0] = end[1] = -1;
}

/* closes every end still open */
void
oxi_pipes_close(struct oxi_pipes *p)
{
	closeboth(p->in);
	closeboth(p->out);
	closeboth(p->err);
}

/* fork(2) with every signal blocked across it; the child sets every
 * signal (all) or those oxi catches (PIPE TERM INT HUP CHLD) to its
 * default before the mask is restored, but for a SIGINT ignored since
 * the start (sig.c), which stays ignored as exec would keep it: fork's
 * result */
pid_t
oxi_fork(int all)
{
	static const int caught[] = { SIGPIPE, SIGTERM, SIGINT, SIGHUP,
		SIGCHLD, 0 };
	struct sigaction sa;
	sigset_t mask, old;
	pid_t pid;
	int e, i, noint;

	noint = !all && sigaction(SIGINT, NULL, &sa) == 0 &&
	    sa.sa_handler == SIG_IGN;
	sigfillset(&mask);
	sigprocmask(SIG_BLOCK, &mask, &old);
	pid = fork();
	if (pid == 0) {
		/* default dispositions first: no handler of ours runs here */
		for (i = 1; all && i < NSIG; i++)
			signal(i, SIG_DFL);
		for (i = 0; !all && caught[i]; i++)
			if (caught[i] != SIGINT || !noint)
				signal(caught[i], SIG_DFL);
	}
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return pid;
}

pid_t
oxi_spawn(char *const argv[], int *tochild, int *fromchild, int pgrp)
{
	struct oxi_pipes p;
	pid_t pid;
	int e;

	if (oxi_pipes_open(&p, (tochild ? OXI_PIPE_IN : 0) |
	    (fromchild ? OXI_PIPE_OUT : 0)) < 0)
		return -1;
	if ((pid = oxi_fork(0)) < 0) {
		e = errno;
		oxi_pipes_close(&p);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		if (pgrp)
			setpgid(0, 0);
		if (oxi_pipes_dup(&p, NULL) < 0)
			_exit(OXI_EX_TEMP);
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? OXI_EX_NOENT : OXI_EX_NOEXEC);
	}
	oxi_pipes_parent(&p, tochild, fromchild, NULL);
	return pid;
}

int
oxi_wait_code(int st)
{
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	if (WIFEXITED(st))
		return WEXITSTATUS(st) >= 128 ? 128 : WEXITSTATUS(st);
	return 128;
}

int
oxi_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return oxi_wait_code(st);
}

int
oxi_coproc_start(struct oxi_coproc *c, const char *name, const char *cmd)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char *argv[4];
	int out;

	memset(c, 0, sizeof *c);
	c->pid = -1;
	c->in = -1;
	oxi_buf_printf(&b, "exec %s", cmd);
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = b.s;
	argv[3] = NULL;
	c->pid = oxi_spawn(argv, &c->in, &out, 0);
	if (c->pid < 0) {
		oxi_buf_free(&b);
		return -1;
	}
	c->cmd = b.s;
	c->name = name;
	oxi_fd_nonblock(c->in, 1);
	oxi_nd_init(&c->out, out, name);
	return 0;
}

int
oxi_coproc_flush(struct oxi_coproc *c)
{
	ssize_t w;

	while (c->outq.len > 0) {
		w = write(c->in, c->outq.s, c->outq.len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -1;
		}
		oxi_buf_consume(&c->outq, (size_t)w);
	}
	return 0;
}

int
oxi_coproc_send(struct oxi_coproc *c, jv rec)
{
	if (c->in < 0) {
		jv_free(rec);
		errno = EPIPE;
		return -1;
	}
	oxi_json_dump(&c->outq, rec);
	oxi_buf_putc(&c->outq, '\n');
	jv_free(rec);
	return oxi_coproc_flush(c);
}

int
oxi_coproc_stop(struct oxi_coproc *c)
{
	int code = 0;

	if (c->in >= 0 && c->outq.len > 0) {
		oxi_fd_nonblock(c->in, 0);
		(void)oxi_coproc_flush(c);
	}
	if (c->in >= 0)
		close(c->in);
	c->in = -1;
	if (c->pid > 0)
		code = oxi_wait(c->pid);
	c->pid = -1;
	if (c->out.fd >= 0)
		close(c->out.fd);
	c->out.fd = -1;
	oxi_nd_free(&c->out);
	free(c->cmd);
	c->cmd = NULL;
	oxi_buf_free(&c->outq);
	return code;
}
