/*
 * t-ws.c - workspace confinement, both with openat2 and with the walk
 * that replaces it on kernels without openat2; the output cap of tools
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"
#include "tap.h"

static char top[256], wsdir[300], outside[300];

static void
mkfile(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) == EOF || fclose(f) == EOF) {
		perror(path);
		exit(2);
	}
}

static int
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* opens path under ws: the fd closed, 0 or the errno */
static int
try(int ws, const char *path)
{
	int fd = oxi_wsp_openat(ws, path, O_RDONLY, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int
trydir(int ws, const char *path, int mk)
{
	int fd = oxi_wsp_opendir(ws, path, mk);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void
both(int ws, const char *mode)
{
	int walk = oxi_wsp_beneath == 0;
	char p[400];

	is_int(try(ws, "a.txt"), 0, "%s: a file inside", mode);
	is_int(try(ws, "./sub//b.txt"), 0, "%s: ./ and // inside", mode);
	is_int(try(ws, "sub/"), 0, "%s: a directory with a trailing /", mode);
	is_int(try(ws, "../outside/secret"), EXDEV, "%s: ../ refused", mode);
	is_int(try(ws, "/etc/passwd"), EXDEV, "%s: absolute refused", mode);
	is_int(try(ws, "sub/../../outside/secret"), EXDEV,
	    "%s: dir/../../x refused", mode);
	is_int(try(ws, "etc/passwd"), walk ? ELOOP : EXDEV,
	    "%s: through a symlink to /etc refused", mode);
	is_int(try(ws, "out"), walk ? ELOOP : EXDEV,
	    "%s: a relative symlink to a file outside refused", mode);
	is_int(try(ws, "abs"), walk ? ELOOP : EXDEV,
	    "%s: an absolute symlink to a file outside refused", mode);
	is_int(try(ws, "sub/../a.txt"), walk ? EXDEV : 0,
	    "%s: .. that stays inside", mode);
	is_int(try(ws, "in"), walk ? ELOOP : 0,
	    "%s: a symlink that stays inside", mode);
	is_int(try(ws, "nope"), ENOENT, "%s: missing file", mode);
	is_int(try(ws, ""), ENOENT, "%s: empty path", mode);

	is_int(trydir(ws, "etc/new", 1), walk ? ELOOP : EXDEV,
	    "%s: no directory made through a symlink", mode);
	ok(!exists("/etc/new"), "%s: nothing made in /etc", mode);
	is_int(trydir(ws, "outdir/new", 1), walk ? ELOOP : EXDEV,
	    "%s: no directory made through a symlink to a dir", mode);
	snprintf(p, sizeof p, "%s/new", outside);
	ok(!exists(p), "%s: nothing made outside", mode);
	is_int(trydir(ws, "../made", 1), EXDEV, "%s: ../ not made", mode);
	snprintf(p, sizeof p, "%s/made", top);
	ok(!exists(p), "%s: nothing made next to the workspace", mode);
	snprintf(p, sizeof p, "%s-n1/n2", mode);
	is_int(trydir(ws, p, 1), 0, "%s: nested directories made", mode);
	snprintf(p, sizeof p, "%s/%s-n1/n2", wsdir, mode);
	ok(exists(p), "%s: they are inside the workspace", mode);
	is_int(trydir(ws, "a.txt", 0), ENOTDIR, "%s: a file is no dir", mode);
}

int
main(void)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char p[400], cmd[600];
	const char *tmp = getenv("TMPDIR");
	int ws;

	plan(2 * 22 + 9);
	snprintf(top, sizeof top, "%s/t-ws.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(wsdir, sizeof wsdir, "%s/ws", top);
	snprintf(outside, sizeof outside, "%s/outside", top);
	mkdir(outside, 0700);
	snprintf(p, sizeof p, "%s/secret", outside);
	mkfile(p, "secret\n");

	ws = oxi_wsp_open(wsdir);
	ok(ws >= 0, "workspace made and opened");
	snprintf(p, sizeof p, "%s/a.txt", wsdir);
	mkfile(p, "a\n");
	snprintf(p, sizeof p, "%s/sub", wsdir);
	mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/sub/b.txt", wsdir);
	mkfile(p, "b\n");
	snprintf(p, sizeof p, "%s/etc", wsdir);
	if (symlink("/etc", p) < 0)
		perror(p);
	snprintf(p, sizeof p, "%s/out", wsdir);
	if (symlink("../outside/secret", p) < 0)
		perror(p);
	snprintf(p, sizeof p, "%s/abs", wsdir);
	snprintf(cmd, sizeof cmd, "%s/secret", outside);
	if (symlink(cmd, p) < 0)
		perror(p);
	snprintf(p, sizeof p, "%s/outdir", wsdir);
	if (symlink(outside, p) < 0)
		perror(p);
	snprintf(p, sizeof p, "%s/in", wsdir);
	if (symlink("a.txt", p) < 0)
		perror(p);

	if (oxi_wsp_beneath == 1)
		both(ws, "openat2");
	else {
		/* no openat2 here: the walk twice, to keep the plan */
		printf("# openat2 unavailable, testing the walk only\n");
		both(ws, "walk0");
	}
	oxi_wsp_beneath = 0;
	both(ws, "walk");

	/* the output cap */
	oxi_buf_cats(&b, "abcdef");
	oxi_tool_cap(&b, 10, b.len);
	is_str(b.s, "abcdef", "cap: short output untouched");
	oxi_tool_cap(&b, 3, b.len);
	is_str(b.s, "abc\n[output truncated: 3 of 6 bytes shown]",
	    "cap: marker with shown and total bytes");
	oxi_buf_reset(&b);
	oxi_buf_cats(&b, "a\xc3\xa9\xc3\xa9");	/* a é é */
	oxi_tool_cap(&b, 4, b.len);
	is_str(b.s, "a\xc3\xa9\n[output truncated: 3 of 5 bytes shown]",
	    "cap: never splits a UTF-8 sequence");
	oxi_buf_reset(&b);
	oxi_buf_cats(&b, "abc");
	oxi_tool_cap(&b, 3, 100);
	is_str(b.s, "abc\n[output truncated: 3 of 100 bytes shown]",
	    "cap: total larger than what was kept");

	/* a tool through the walk: a symlink is refused, not followed */
	{
		struct oxi_tool_ctx ctx = { ws, 1024 };
		char taint[OXI_TOOL_TAINT];
		int r;

		r = oxi_tool_call(&ctx, NULL, "read_file", jv_parse(
		    "{\"path\":\"out\"}"), &b, taint, sizeof taint);
		ok(r < 0 && strstr(b.s, "symbolic link") && !taint[0],
		    "read_file refuses a symlink in the walk: %s", b.s);
		r = oxi_tool_call(&ctx, NULL, "read_file", jv_parse(
		    "{\"path\":\"sub/b.txt\"}"), &b, taint, sizeof taint);
		ok(r == 0 && strcmp(b.s, "b\n") == 0 &&
		    strcmp(taint, "workspace") == 0,
		    "read_file reads through the walk");
		r = oxi_tool_call(&ctx, NULL, "write_file", jv_parse(
		    "{\"path\":\"x/y/z.txt\",\"content\":\"z\"}"), &b, taint,
		    sizeof taint);
		snprintf(p, sizeof p, "%s/x/y/z.txt", wsdir);
		ok(r == 0 && exists(p), "write_file makes parents: %s", b.s);
		r = oxi_tool_call(&ctx, NULL, "write_file", jv_parse(
		    "{\"path\":\"outdir/z.txt\",\"content\":\"z\"}"), &b,
		    taint, sizeof taint);
		snprintf(p, sizeof p, "%s/z.txt", outside);
		ok(r < 0 && !exists(p), "write_file through a symlinked "
		    "directory refused: %s", b.s);
	}
	oxi_buf_free(&b);
	close(ws);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	if (system(cmd) != 0)
		printf("# unable to remove %s\n", top);
	return done();
}
