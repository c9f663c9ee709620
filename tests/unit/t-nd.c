/* t-nd.c - the NDJSON reader and writer, buffers, records, ids */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tap.h"

static char dlq[256];

/* feeds s through a pipe in pieces of size step; collects types */
static void
readall(const char *s, size_t step, size_t max, struct oxi_buf *got,
    int *nbad)
{
	int p[2];
	struct oxi_nd in;
	size_t n = strlen(s), off;
	jv rec;
	int r;
	pid_t pid;

	if (pipe(p) < 0)
		exit(2);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		for (off = 0; off < n; off += step) {
			size_t k = n - off < step ? n - off : step;
			(void)oxi_writeall(p[1], s + off, k);
		}
		_exit(0);
	}
	close(p[1]);
	oxi_nd_init(&in, p[0], "test");
	in.max = max;
	*nbad = 0;
	while ((r = oxi_nd_next(&in, &rec)) != OXI_ND_EOF) {
		if (r == OXI_ND_BAD) {
			(*nbad)++;
			oxi_buf_cats(got, "!");
			continue;
		}
		if (r != OXI_ND_OK)
			break;
		oxi_buf_cats(got, oxi_msg_type_peek(rec));
		oxi_buf_putc(got, '[');
		oxi_buf_cat(got, in.line, in.linelen);
		oxi_buf_cats(got, "]");
		jv_free(rec);
	}
	oxi_nd_free(&in);
	close(p[0]);
	waitpid(pid, NULL, 0);
}

static int
count_lines(const char *path)
{
	struct oxi_buf b = OXI_BUF_INIT;
	size_t i;
	int n = 0;

	if (oxi_readfile(path, &b, 1 << 24) < 0)
		return -1;
	for (i = 0; i < b.len; i++)
		n += b.s[i] == '\n';
	oxi_buf_free(&b);
	return n;
}

int
main(void)
{
	const char *in1 = "{\"type\":\"a\"}\n\n{\"type\":\"b\",\"x\":\"\xc3\xa9\"}\r\n"
	    "not json\n[1,2]\n{\"notype\":1}\n{\"type\":\"c\"}";
	const char *want1 = "a[{\"type\":\"a\"}]b[{\"type\":\"b\",\"x\":\"\xc3\xa9\"}]"
	    "!!!c[{\"type\":\"c\"}]";
	struct oxi_buf b = OXI_BUF_INIT, got = OXI_BUF_INIT;
	char big[300], id1[OXI_ID_LEN + 1], id2[OXI_ID_LEN + 1], ts[32];
	size_t step;
	int nbad, allsame = 1, i, sorted = 1;
	const char *why;
	jv r;

	char errf[256];
	int saved, efd;

	plan(25);
	oxi_prog = "t-nd";
	snprintf(dlq, sizeof dlq, "/tmp/t-nd.%d.dlq", (int)getpid());
	setenv("OXI_DEADLETTER", dlq, 1);
	unlink(dlq);
	snprintf(errf, sizeof errf, "/tmp/t-nd.%d.err", (int)getpid());
	saved = dup(2);
	efd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(efd, 2);
	close(efd);

	/* lines split at every size, CRLF, blank lines, last line w/o LF */
	for (step = 1; step <= strlen(in1); step++) {
		oxi_buf_reset(&got);
		readall(in1, step, 1000, &got, &nbad);
		if (strcmp(got.s, want1) != 0 || nbad != 3) {
			allsame = 0;
			printf("# step %zu: %s\n", step, got.s);
		}
	}
	ok(allsame, "records and bad lines are the same for every split size");
	is_int(count_lines(dlq), 3 * (int)strlen(in1),
	    "each bad line gives one dead letter");
	is_int(count_lines(errf), 3 * (int)strlen(in1),
	    "each bad line gives one stderr line");
	unlink(dlq);

	/* over-long lines are reported once and skipped wholly */
	memset(big, 'x', sizeof big);
	big[sizeof big - 1] = '\0';
	oxi_buf_reset(&b);
	oxi_buf_printf(&b, "{\"type\":\"a\"}\n{\"type\":\"%s\"}\n{\"type\":\"b\"}\n"
	    "%s%s%s\n{\"type\":\"c\"}\n", big, big, big, big);
	oxi_buf_reset(&got);
	readall(b.s, 7, 100, &got, &nbad);
	is_str(got.s, "a[{\"type\":\"a\"}]!b[{\"type\":\"b\"}]!c[{\"type\":\"c\"}]",
	    "over-long lines are skipped, neighbours flow");
	is_int(nbad, 2, "two over-long lines reported");
	is_int(count_lines(dlq), 2, "two dead letters for them");
	oxi_buf_reset(&b);
	oxi_readfile(dlq, &b, 1 << 20);
	ok(strstr(b.s, "\"reason\":\"line too long\"") != NULL,
	    "dead letter carries the reason");
	ok(strstr(b.s, "\"line\":2") != NULL, "dead letter carries the line number");
	unlink(dlq);

	/* an over-long last line without newline */
	oxi_buf_reset(&b);
	oxi_buf_printf(&b, "{\"type\":\"a\"}\n%s", big);
	oxi_buf_reset(&got);
	readall(b.s, 4096, 100, &got, &nbad);
	is_str(got.s, "a[{\"type\":\"a\"}]!", "over-long unterminated last line");
	unlink(dlq);

	/* bytes no stage should pass on: bad UTF-8, NUL, a BOM */
	oxi_buf_reset(&got);
	readall("{\"type\":\"\xff\"}\n{\"type\":\"\xc0\xaf\"}\n"
	    "{\"type\":\"\xed\xa0\x80\"}\n{\"type\":\"\xe2\x82\"}\n"
	    "\xef\xbb\xbf{\"type\":\"b\"}\n{\"type\":\"\xf4\x90\x80\x80\"}\n"
	    "{\"type\":\"n\"}\n", 3, 100, &got, &nbad);
	is_int(nbad, 6, "invalid, overlong, surrogate, cut, BOM, >U+10FFFF");
	is_str(got.s, "!!!!!!n[{\"type\":\"n\"}]", "the good line after them");
	unlink(dlq);

	/* a key twice, at any depth; look-alikes in strings are fine */
	oxi_buf_reset(&got);
	readall("{\"type\":\"a\",\"type\":\"b\"}\n"
	    "{\"type\":\"c\",\"o\":[{\"k\":1,\"k\":1}]}\n"
	    "{\"type\":\"d\",\"s\":\"\\\"x\\\":1,\",\"o\":{\"k\" : {\"k\":2}}}\n",
	    5, 1000, &got, &nbad);
	is_str(got.s, "!!d[{\"type\":\"d\",\"s\":\"\\\"x\\\":1,\",\"o\":"
	    "{\"k\" : {\"k\":2}}}]", "duplicate keys are bad lines");
	unlink(dlq);

	/* multi-byte UTF-8 split across reads stays intact */
	oxi_buf_reset(&got);
	readall("{\"type\":\"\xe2\x82\xac\"}\n", 1, 100, &got, &nbad);
	is_str(got.s, "\xe2\x82\xac[{\"type\":\"\xe2\x82\xac\"}]",
	    "UTF-8 split byte by byte");

	/* writer: compact, one line */
	{
		int p[2];
		char out[256];
		ssize_t n;

		if (pipe(p) < 0)
			return 2;
		r = jv_parse("{ \"type\" : \"x\", \"a\" : [1, 2] , \"t\":\"l\\nm\"}");
		ok(oxi_nd_write(p[1], r) == 0, "write succeeds");
		n = read(p[0], out, sizeof out - 1);
		out[n > 0 ? n : 0] = '\0';
		is_str(out, "{\"type\":\"x\",\"a\":[1,2],\"t\":\"l\\nm\"}\n",
		    "written compact with one newline");
		close(p[0]);
		close(p[1]);
	}

	/* record validation */
	r = jv_parse("{\"type\":\"msg.in\",\"id\":\"1\",\"channel\":\"cli\","
	    "\"chat\":\"c\",\"text\":\"hi\"}");
	ok(oxi_msg_check(r, &why) == 0, "valid msg.in passes");
	jv_free(r);
	r = jv_parse("{\"type\":\"msg.in\",\"id\":1,\"channel\":\"cli\","
	    "\"chat\":\"c\",\"text\":\"hi\"}");
	ok(oxi_msg_check(r, &why) < 0 && strstr(why, "\"id\""),
	    "numeric id rejected: %s", why);
	jv_free(r);
	r = jv_parse("{\"type\":\"tool.call\",\"id\":\"c1\",\"name\":\"x\"}");
	ok(oxi_msg_check(r, &why) < 0 && strstr(why, "args"),
	    "tool.call without args rejected");
	jv_free(r);
	r = jv_parse("{\"type\":\"custom.thing\"}");
	ok(oxi_msg_check(r, &why) == 0, "unknown types are not judged");
	jv_free(r);
	r = oxi_msg_idstr(jv_number(123456789012.0));
	is_str(jv_string_value(r), "123456789012", "numeric platform id as string");
	jv_free(r);

	/* ids: 26 chars, Crockford base32, strictly increasing */
	oxi_id_new(id1);
	for (i = 0; i < 1000; i++) {
		oxi_id_new(id2);
		if (strcmp(id1, id2) >= 0)
			sorted = 0;
		memcpy(id1, id2, sizeof id1);
	}
	is_int(strlen(id1), 26, "ULID length");
	ok(strspn(id1, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") == 26, "ULID alphabet");
	ok(sorted, "ids sort in creation order");
	oxi_time_now(ts);
	ok(strlen(ts) == 24 && ts[10] == 'T' && ts[23] == 'Z', "RFC 3339 time %s", ts);

	/* buffers */
	oxi_buf_reset(&b);
	oxi_buf_printf(&b, "%s-%d", "abc", 42);
	oxi_buf_consume(&b, 2);
	is_str(b.s, "c-42", "buf printf and consume");
	oxi_buf_free(&b);
	oxi_buf_free(&got);
	unlink(dlq);
	unlink(errf);
	dup2(saved, 2);
	return done();
}
