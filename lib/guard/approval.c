/*
 * approval.c - oxi-guard tool: the owner's approvals of held calls
 *
 * A held call's approval line names it by the digest of its name and
 * arguments; oxi-loop(1) writes the line to the guard's stores on the
 * owner's yes (guard-approved: always; guard-approved-once: once, used
 * up here by the call it allows, under the lock oxi-loop writes with).
 * When the tool stage holds for the owner a call the owner approved at
 * the guard (oxi-tool's strict shell, in unsafe mode), the yes is
 * passed on to the shell's one-shot store, as oxi-loop would write it,
 * so that the owner is asked once a call.
 */
#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/policy.h"

#define STORE_MAX	(16 << 20)	/* bytes of an approval store */
#define WHAT_MAX	200		/* bytes of a call's summary */

void
oxi_digest(const char *s, size_t n, char out[65])
{
	unsigned char h[32];

	crypto_generichash(h, sizeof h, (const unsigned char *)s, n, NULL, 0);
	sodium_bin2hex(out, 65, h, sizeof h);
}

/* the digest of a call: of [name,args], keys sorted */
static void
digest(jv call, char out[65])
{
	jv s = jv_dump_string(JV_ARRAY(oxi_jget(call, "name"),
	    oxi_jget(call, "args")), JV_PRINT_SORTED);

	oxi_digest(jv_string_value(s), (size_t)jv_string_length_bytes(
	    jv_copy(s)), out);
	jv_free(s);
}

/* s on one line, control characters as ' ', cut at max bytes */
static jv
oneline(const char *s, size_t max)
{
	struct oxi_buf b = OXI_BUF_INIT;
	size_t n = strlen(s), k = oxi_utf8_cut(s, n, max), i;
	jv r;

	for (i = 0; i < k; i++)
		oxi_buf_putc(&b, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ?
		    ' ' : s[i]);
	if (k < n)
		oxi_buf_cats(&b, "...");
	r = jv_string_sized(b.s ? b.s : "", (int)b.len);
	oxi_buf_free(&b);
	return r;
}

char *
oxi_approval_line(jv call, const char *why)
{
	char d[65], *line;
	const char *name = oxi_msg_peek(call, "name");
	jv a = jv_dump_string(oxi_jget(call, "args"), 0), what, l;

	digest(call, d);
	what = oneline(jv_string_value(a), WHAT_MAX);
	jv_free(a);
	what = jv_string_concat(jv_string_fmt("%s ", name ? name : "?"), what);
	l = JV_OBJECT(jv_string("digest"), jv_string(d), jv_string("guard"),
	    jv_string("tool"), jv_string("name"), jv_string(name ? name : ""),
	    jv_string("what"), what, jv_string("why"), oneline(why, 400));
	l = jv_dump_string(l, JV_PRINT_SORTED);
	line = xstrdup(jv_string_value(l));
	jv_free(l);
	return line;
}

/*
 * Looks for the line of name and digest d in the store at path, under
 * its lock; consume removes it.  1 found, 0 not.
 */
static int
lookup(const char *path, const char *name, const char *d, int consume)
{
	struct oxi_buf b = OXI_BUF_INIT, keep = OXI_BUF_INIT;
	char *p, *e;
	int fd, found = 0;
	ssize_t r;
	jv v;

	if ((fd = open(path, (consume ? O_RDWR : O_RDONLY) | O_CLOEXEC |
	    O_NOFOLLOW)) < 0)
		return 0;
	while (flock(fd, consume ? LOCK_EX : LOCK_SH) < 0)
		if (errno != EINTR)
			goto out;
	for (;;) {
		oxi_buf_grow(&b, 4096);
		r = read(fd, b.s + b.len, b.cap - b.len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || b.len + (size_t)r > STORE_MAX)
			goto out;
		if (r == 0)
			break;
		b.len += (size_t)r;
	}
	for (p = b.s; p && p < b.s + b.len; p = e + 1) {
		if (!(e = memchr(p, '\n', b.s + b.len - p)))
			e = b.s + b.len;
		if (!found && *p == '{') {
			v = oxi_json_parse(p, (size_t)(e - p));
			if (jv_get_kind(v) == JV_KIND_OBJECT &&
			    oxi_msg_peek(v, "guard") &&
			    !strcmp(oxi_msg_peek(v, "guard"), "tool") &&
			    oxi_msg_peek(v, "name") &&
			    !strcmp(oxi_msg_peek(v, "name"), name) &&
			    oxi_msg_peek(v, "digest") &&
			    !strcmp(oxi_msg_peek(v, "digest"), d))
				found = 1;
			jv_free(v);
			if (found)
				continue;
		}
		oxi_buf_cat(&keep, p, (size_t)(e - p));
		if (e < b.s + b.len)
			oxi_buf_putc(&keep, '\n');
	}
	if (found && consume && (ftruncate(fd, 0) < 0 || pwrite(fd,
	    keep.s ? keep.s : "", keep.len, 0) != (ssize_t)keep.len))
		found = 0;	/* not removed: not used either */
out:
	close(fd);
	oxi_buf_free(&b);
	oxi_buf_free(&keep);
	return found;
}

int
oxi_approval_found(jv call)
{
	const char *store = oxi_approved_path(1), *name;
	char d[65], once[4200];

	if (!store || !(name = oxi_msg_peek(call, "name")))
		return 0;
	digest(call, d);
	if (lookup(store, name, d, 0))
		return 1;
	if ((size_t)snprintf(once, sizeof once, "%s-once", store) >=
	    sizeof once)
		return 0;
	return lookup(once, name, d, 1);
}

int
oxi_approval_pass(const char *id, const char *call, const char *held)
{
	char path[4200];
	const char *store = oxi_approved_path(0), *nl = strrchr(held, '\n');
	jv v, a, c;
	int fd, ok, r;

	/* the shell's line, the last of its held result, as oxi-loop(1)
	 * takes it: argv and cwd */
	v = nl ? oxi_json_parse(nl + 1, strlen(nl + 1)) : jv_null();
	a = oxi_jget(v, "argv");
	c = oxi_jget(v, "cwd");
	ok = jv_get_kind(a) == JV_KIND_ARRAY && jv_array_length(jv_copy(a)) >
	    0 && jv_get_kind(c) == JV_KIND_STRING;
	jv_free(a);
	jv_free(c);
	jv_free(v);
	if (!ok || !store || (size_t)snprintf(path, sizeof path, "%s-once",
	    store) >= sizeof path) {
		errno = ok ? ENAMETOOLONG : EINVAL;
		return -1;
	}
	/* audited first: an approval passed on that cannot be is not */
	v = oxi_json_parse(call, strlen(call));
	a = JV_OBJECT(jv_string("id"), jv_string(id), jv_string("name"),
	    oxi_policy_get(v, "name"), jv_string("why"), jv_string("the "
	    "tool stage held the call the owner approved: the approval "
	    "passed on"));
	jv_free(v);
	if (oxi_audit("tool.passed", a) < 0 || (fd = open(path, O_WRONLY |
	    O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		return -1;
	/* the tool stage rewrites the store under this lock */
	while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
		;
	r = oxi_writeall(fd, nl + 1, strlen(nl + 1)) < 0 ||
	    oxi_writeall(fd, "\n", 1) < 0 ? -1 : 0;
	if (close(fd) < 0)
		r = -1;
	return r;
}
