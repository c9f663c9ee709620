/* spawn.c - children and coprocesses */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"

pid_t
oxi_spawn(char *const argv[], int *tochild, int *fromchild, int pgrp)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, e;
	pid_t pid;
	sigset_t all, old;

	if (tochild && pipe2(in, O_CLOEXEC) < 0)
		return -1;
	if (fromchild && pipe2(out, O_CLOEXEC) < 0) {
		e = errno;
		goto fail;
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid < 0) {
		e = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		goto fail;
	}
	if (pid == 0) {
		/* child: default dispositions, then exec */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (pgrp)
			setpgid(0, 0);
		if (tochild && dup2(in[0], 0) < 0)
			_exit(OXI_EX_TEMP);
		if (fromchild && dup2(out[1], 1) < 0)
			_exit(OXI_EX_TEMP);
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? OXI_EX_NOENT : OXI_EX_NOEXEC);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (tochild) {
		close(in[0]);
		*tochild = in[1];
	}
	if (fromchild) {
		close(out[1]);
		*fromchild = out[0];
	}
	return pid;
fail:
	if (in[0] >= 0) {
		close(in[0]);
		close(in[1]);
	}
	if (out[0] >= 0) {
		close(out[0]);
		close(out[1]);
	}
	errno = e;
	return -1;
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
	jv s;

	if (c->in < 0) {
		jv_free(rec);
		errno = EPIPE;
		return -1;
	}
	s = jv_dump_string(rec, 0);
	oxi_buf_cat(&c->outq, jv_string_value(s),
	    (size_t)jv_string_length_bytes(jv_copy(s)));
	oxi_buf_putc(&c->outq, '\n');
	jv_free(s);
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
