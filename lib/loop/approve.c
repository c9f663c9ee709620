/*
 * approve.c - approvals in the chat: what oxi-loop reads in a held shell
 * result, the question it puts to the owner, the store it writes when
 * the owner says yes, and the paths it hides from the model
 *
 * oxi-tool holds a shell call that needs the owner's approval with an
 * error result "shell: needs approval: ...", whose last line is the
 * approval line (a JSON object: argv, bin, cwd, env, and "network":true
 * when the call asks for the network).  The owner's "once" appends that
 * line to the one-shot store, "always" to the store; oxi-tool reads both
 * (oxi-tool(1), APPROVAL).  The question shown to the owner is made from
 * the line itself, so what the owner approves is what the line allows.
 * oxi-guard tool holds a call of any tool the same way, "guard: needs
 * approval: ...", its line {"digest","guard":"tool","name","what","why"}
 * going to the guard's stores (oxi-guard(1), TOOL POLICY).
 */
#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "loop/loop.h"

#define HELD "shell: needs approval: "
#define GHELD "guard: needs approval: "

/* 1 if line (a parsed approval line, borrowed) is the guard's */
static int
guardline(jv v)
{
	const char *g = oxi_msg_peek(v, "guard");

	return g && strcmp(g, "tool") == 0 && oxi_msg_peek(v, "digest") &&
	    oxi_msg_peek(v, "name") && oxi_msg_peek(v, "what");
}

char *
oxi_loop_held(const char *name, const char *content)
{
	const char *nl;
	jv v, a, c;
	int ok;

	if (!name || !content || !(nl = strrchr(content, '\n')))
		return NULL;
	if (strncmp(content, GHELD, sizeof GHELD - 1) == 0) {
		nl++;
		v = oxi_json_parse(nl, strlen(nl));
		ok = jv_get_kind(v) == JV_KIND_OBJECT && guardline(v) &&
		    strcmp(oxi_msg_peek(v, "name"), name) == 0;
		jv_free(v);
		return ok ? xstrdup(nl) : NULL;
	}
	if (strcmp(name, "shell") != 0 ||
	    strncmp(content, HELD, sizeof HELD - 1) != 0)
		return NULL;
	nl++;
	v = oxi_json_parse(nl, strlen(nl));
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return NULL;
	}
	a = jv_object_get(jv_copy(v), jv_string("argv"));
	c = jv_object_get(jv_copy(v), jv_string("cwd"));
	ok = jv_get_kind(a) == JV_KIND_ARRAY && jv_array_length(jv_copy(a)) >
	    0 && jv_get_kind(c) == JV_KIND_STRING;
	jv_free(a);
	jv_free(c);
	jv_free(v);
	return ok ? xstrdup(nl) : NULL;
}

/* s on one line, control characters as '?', at most max bytes */
static void
plain(struct oxi_buf *b, const char *s, size_t max)
{
	size_t n = strlen(s), i;

	if (n > max)
		n = oxi_utf8_cut(s, n, max);
	for (i = 0; i < n; i++)
		oxi_buf_putc(b, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ?
		    '?' : s[i]);
	if (n < strlen(s))
		oxi_buf_cats(b, "...");
}

jv
oxi_loop_ask_text(const char *line)
{
	struct oxi_buf b = OXI_BUF_INIT, cmd = OXI_BUF_INIT;
	jv v = oxi_json_parse(line, strlen(line)), a, s, net;
	const char *cwd;
	int i, n;

	if (guardline(v)) {
		/* "Allow web_fetch {...}? (it fetches a URL ...)" */
		oxi_buf_cats(&b, "Allow ");
		plain(&b, oxi_msg_peek(v, "what"), 220);
		oxi_buf_cats(&b, "? ");
		if (oxi_msg_peek(v, "why")) {
			oxi_buf_cats(&b, "(");
			plain(&b, oxi_msg_peek(v, "why"), 300);
			oxi_buf_cats(&b, ")");
		}
		jv_free(v);
		s = jv_string(b.s);
		oxi_buf_free(&b);
		return s;
	}
	a = jv_object_get(jv_copy(v), jv_string("argv"));
	n = jv_get_kind(a) == JV_KIND_ARRAY ? jv_array_length(jv_copy(a)) : 0;
	if (n == 3 && jv_equal(jv_array_get(jv_copy(a), 0),
	    jv_string("/bin/sh")) && jv_equal(jv_array_get(jv_copy(a), 1),
	    jv_string("-c"))) {
		s = jv_array_get(jv_copy(a), 2);
		if (jv_get_kind(s) == JV_KIND_STRING)
			oxi_buf_cats(&cmd, jv_string_value(s));
		jv_free(s);
	} else
		for (i = 0; i < n; i++) {
			s = jv_array_get(jv_copy(a), i);
			if (i > 0)
				oxi_buf_putc(&cmd, ' ');
			if (jv_get_kind(s) == JV_KIND_STRING)
				oxi_buf_cats(&cmd, jv_string_value(s));
			jv_free(s);
		}
	jv_free(a);
	oxi_buf_cats(&b, "Run '");
	plain(&b, cmd.s ? cmd.s : "", 200);
	cwd = oxi_msg_peek(v, "cwd");
	if (!cwd || strcmp(cwd, ".") == 0)
		oxi_buf_cats(&b, "' in the workspace");
	else {
		oxi_buf_cats(&b, "' in '");
		plain(&b, cwd, 100);
		oxi_buf_cats(&b, "' of the workspace");
	}
	net = jv_object_get(jv_copy(v), jv_string("network"));
	if (jv_get_kind(net) == JV_KIND_TRUE)
		oxi_buf_cats(&b, ", with the network");
	jv_free(net);
	oxi_buf_putc(&b, '?');
	jv_free(v);
	s = jv_string(b.s);
	oxi_buf_free(&b);
	oxi_buf_free(&cmd);
	return s;
}

int
oxi_loop_store(const char *line, int always)
{
	char path[4096];
	const char *store;
	struct oxi_buf b = OXI_BUF_INIT;
	int fd, r;
	jv v = oxi_json_parse(line, strlen(line));

	store = oxi_approved_path(guardline(v));
	jv_free(v);

	if (!store) {
		errno = ENOENT;
		return -1;
	}
	r = snprintf(path, sizeof path, "%s%s", store, always ? "" : "-once");
	if (r < 0 || (size_t)r >= sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOFOLLOW, 0600)) < 0)
		return -1;
	/* the guard rewrites a -once store under this lock */
	while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
		;
	oxi_buf_printf(&b, "%s\n", line);
	r = oxi_writeall(fd, b.s, b.len) < 0 ? -1 : 0;
	oxi_buf_free(&b);
	if (close(fd) < 0)
		r = -1;
	return r;
}

/* replaces each occurrence of dir (no trailing slash) in s by "~" */
static jv
tilde1(jv s, const char *dir)
{
	struct oxi_buf b = OXI_BUF_INIT;
	const char *p, *q;
	size_t n;
	jv r;

	if (!dir || (n = strlen(dir)) < 2 || dir[0] != '/')
		return s;
	while (n > 1 && dir[n - 1] == '/')
		n--;
	p = jv_string_value(s);
	if (!strstr(p, dir))
		return s;
	while ((q = strstr(p, dir))) {
		/* a whole path: not /home/al inside /home/alice */
		if (q[n] != '\0' && q[n] != '/' && q[n] != '\'' &&
		    q[n] != '"' && q[n] != ' ' && q[n] != '\n' &&
		    q[n] != ':') {
			oxi_buf_cat(&b, p, q - p + n);
			p = q + n;
			continue;
		}
		oxi_buf_cat(&b, p, q - p);
		oxi_buf_putc(&b, '~');
		p = q + n;
	}
	oxi_buf_cats(&b, p);
	r = jv_string_sized(b.s ? b.s : "", (int)b.len);
	oxi_buf_free(&b);
	jv_free(s);
	return r;
}

jv
oxi_loop_tilde(jv s)
{
	const char *home = getenv("HOME"), *d[2];
	size_t n = home ? strlen(home) : 0;
	int i;

	/* a configuration or state directory outside the home directory is
	 * "~" too; inside it, it reads "~/.config/oxi" */
	d[0] = oxi_config_dir();
	d[1] = oxi_state_dir();
	for (i = 0; i < 2; i++)
		if (d[i] && !(n > 1 && strncmp(d[i], home, n) == 0 &&
		    (d[i][n] == '/' || d[i][n] == '\0')))
			s = tilde1(s, d[i]);
	return tilde1(s, home);
}
