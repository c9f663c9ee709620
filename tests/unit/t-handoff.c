/* t-handoff.c - peek, commit, consume: oxi_nd_peek and oxi_nd_consume on
 * pipes, sockets and files, and the stage.up of oxi_nd_hello */
#define _GNU_SOURCE	/* tee(2), pipe2(2) */
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tap.h"

#define R(t)	"{\"type\":\"" t "\"}\n"

/* a reader on fd that peeks */
static void
reader(struct oxi_nd *in, int fd)
{
	oxi_nd_init(in, fd, "in");
	if (oxi_nd_peek(in) < 0)
		exit(2);
}

/* takes every record buffered or readable now; their types, joined */
static void
takeall(struct oxi_nd *in, struct oxi_buf *got)
{
	jv rec;
	int r;

	oxi_buf_reset(got);
	oxi_buf_cats(got, "");
	for (;;) {
		r = oxi_nd_take(in, &rec);
		if (r == OXI_ND_OK) {
			oxi_buf_cats(got, oxi_msg_type_peek(rec));
			jv_free(rec);
			continue;
		}
		if (r != OXI_ND_AGAIN || oxi_nd_fill(in) <= 0)
			return;
	}
}

/* bytes waiting in a pipe or socket */
static int
waiting(int fd)
{
	char buf[65536];
	ssize_t n = recv(fd, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);

	if (n < 0 && errno == ENOTSOCK) {
		int p[2];

		if (pipe(p) < 0)
			return -1;
		n = tee(fd, p[1], sizeof buf, SPLICE_F_NONBLOCK);
		close(p[0]);
		close(p[1]);
	}
	return n < 0 ? 0 : (int)n;
}

int
main(void)
{
	struct oxi_nd a, b;
	struct oxi_buf got = OXI_BUF_INIT;
	char path[256], buf[256];
	int p[2], s[2], fd, r;
	ssize_t n;
	jv rec;

	plan(20);
	oxi_prog = "t-handoff";
	setenv("OXI_DEADLETTER", "/dev/null", 1);

	/* a pipe: what was taken and not consumed is there for the next */
	if (pipe2(p, O_NONBLOCK) < 0)
		return 2;
	(void)!write(p[1], R("a") R("b") R("c"), strlen(R("a") R("b") R("c")));
	reader(&a, p[0]);
	takeall(&a, &got);
	is_str(got.s, "abc", "a pipe, peeked: every record taken");
	is_int(waiting(p[0]), 3 * strlen(R("a")), "and every byte still in the pipe");
	oxi_nd_free(&a);	/* killed before its commit */
	reader(&b, p[0]);
	takeall(&b, &got);
	is_str(got.s, "abc", "a reader after it finds them all again");
	is_int(oxi_nd_consume(&b), 0, "consumed once committed");
	is_int(waiting(p[0]), 0, "and then the pipe is empty");
	oxi_nd_free(&b);

	/* consume takes only what was taken */
	(void)!write(p[1], R("d") R("e"), strlen(R("d") R("e")));
	reader(&a, p[0]);
	(void)oxi_nd_fill(&a);
	r = oxi_nd_take(&a, &rec);
	is_int(r, OXI_ND_OK, "one record of two taken");
	jv_free(rec);
	(void)oxi_nd_consume(&a);
	is_int(waiting(p[0]), strlen(R("e")), "consume leaves the one not taken");
	n = oxi_nd_fill(&a);
	ok(n < 0 && errno == EAGAIN,
	    "nothing new while a whole record waits to be taken: EAGAIN");
	takeall(&a, &got);
	is_str(got.s, "e", "then it is taken from the buffer");
	(void)oxi_nd_consume(&a);

	/* a record in pieces: its head is consumed as it comes, and the
	 * record is whole once the rest arrives */
	(void)!write(p[1], "{\"type\":\"lo", 11);
	n = oxi_nd_fill(&a);
	ok(n == 11 && oxi_nd_take(&a, &rec) == OXI_ND_AGAIN && waiting(p[0]) ==
	    11, "a piece of a record is peeked");
	n = oxi_nd_fill(&a);
	ok(n > 0 && waiting(p[0]) == 0,
	    "alone in the pipe, it is consumed then (a writer may wait)");
	(void)!write(p[1], "ng\"}\n" R("f"), 5 + strlen(R("f")));
	takeall(&a, &got);
	is_str(got.s, "longf", "the record is whole when the rest comes");
	(void)oxi_nd_consume(&a);
	is_int(waiting(p[0]), 0, "and nothing is left over");

	/* the end of input */
	(void)!write(p[1], R("g"), strlen(R("g")));
	close(p[1]);
	takeall(&a, &got);
	is_str(got.s, "g", "the last record before the end");
	(void)oxi_nd_consume(&a);
	ok(oxi_nd_take(&a, &rec) == OXI_ND_AGAIN && oxi_nd_fill(&a) == 0 &&
	    oxi_nd_take(&a, &rec) == OXI_ND_EOF, "then the end");
	oxi_nd_free(&a);
	close(p[0]);

	/* a stream socket: MSG_PEEK */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, s) < 0)
		return 2;
	(void)!write(s[1], R("h") R("i"), strlen(R("h") R("i")));
	reader(&a, s[0]);
	takeall(&a, &got);
	oxi_nd_free(&a);
	reader(&b, s[0]);
	takeall(&b, &got);
	is_str(got.s, "hi", "a socket: a second reader finds what was peeked");
	(void)oxi_nd_consume(&b);
	is_int(waiting(s[0]), 0, "consumed off the socket");
	oxi_nd_free(&b);
	close(s[0]);
	close(s[1]);

	/* a regular file reads as before */
	snprintf(path, sizeof path, "/tmp/t-handoff.%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	(void)!write(fd, R("j") R("k"), strlen(R("j") R("k")));
	(void)lseek(fd, 0, SEEK_SET);
	reader(&a, fd);
	takeall(&a, &got);
	is_str(got.s, "jk", "a file is read as before");
	oxi_nd_free(&a);
	close(fd);

	/* stage.up: on a named FIFO, not on a pipe */
	unlink(path);
	if (mkfifo(path, 0600) < 0 || (fd = open(path, O_RDWR)) < 0)
		return 2;
	r = dup(1);
	dup2(fd, 1);
	oxi_nd_hello();
	dup2(r, 1);
	n = read(fd, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	ok(strstr(buf, "\"type\":\"stage.up\"") && strstr(buf,
	    "\"prog\":\"t-handoff\""), "stage.up on a named FIFO");
	if (pipe(p) < 0)
		return 2;
	dup2(p[1], 1);
	oxi_nd_hello();
	dup2(r, 1);
	close(p[1]);
	is_int(read(p[0], buf, sizeof buf), 0, "nothing on an anonymous pipe");
	close(p[0]);
	close(fd);
	unlink(path);
	oxi_buf_free(&got);
	return done();
}
