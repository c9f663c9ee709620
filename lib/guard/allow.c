/*
 * allow.c - the sender allowlist of oxi-guard in: entries "*",
 * "CHANNEL:*", "CHANNEL:FROM", "*:FROM" or "FROM", from -a, $OXI_ALLOW or
 * a file
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "guard/guard.h"

#define ALLOW_MAXFILE	(1024 * 1024)	/* cap on an allowlist file */

static int
issep(int c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	    c == '\v' || c == '\f';
}

static void
allowbad(struct oxi_allow *a, const char *e, size_t n)
{
	if (a->nbad++ > 0)
		return;
	if (n > sizeof a->bad - 1)
		n = sizeof a->bad - 1;
	memcpy(a->bad, e, n);
	a->bad[n] = '\0';
}

static void
allowadd(struct oxi_allow *a, const char *e, size_t n)
{
	const char *colon;
	size_t i, cn;
	char *ch = NULL, *fr = NULL;

	for (i = 0; i < n; i++)
		if ((unsigned char)e[i] < 0x20 || e[i] == 0x7f) {
			allowbad(a, e, n);
			return;
		}
	if (n == 1 && e[0] == '*')
		;	/* everyone */
	else if (!(colon = memchr(e, ':', n)))
		fr = xstrndup(e, n);
	else {
		cn = colon - e;
		if (cn == 0 || cn == n - 1) {
			allowbad(a, e, n);
			return;
		}
		if (!(cn == 1 && e[0] == '*'))
			ch = xstrndup(e, cn);
		if (!(n - cn - 1 == 1 && colon[1] == '*'))
			fr = xstrndup(colon + 1, n - cn - 1);
	}
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 8;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n].channel = ch;
	a->v[a->n].from = fr;
	a->n++;
}

void
oxi_allow_parse(struct oxi_allow *a, const char *s, size_t len, int comments)
{
	size_t i = 0, b;

	while (i < len) {
		if (issep((unsigned char)s[i])) {
			i++;
			continue;
		}
		if (comments && s[i] == '#') {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		b = i;
		while (i < len && !issep((unsigned char)s[i]))
			i++;
		allowadd(a, s + b, i - b);
	}
}

int
oxi_allow_load(struct oxi_allow *a, const char *path)
{
	struct oxi_buf b = OXI_BUF_INIT;
	int e;

	if (oxi_readfile(path, &b, ALLOW_MAXFILE) < 0) {
		e = errno;
		oxi_buf_free(&b);
		errno = e;
		return -1;
	}
	oxi_allow_parse(a, b.s ? b.s : "", b.len, 1);
	oxi_buf_free(&b);
	return 0;
}

int
oxi_allow_match(const struct oxi_allow *a, const char *channel,
    const char *from)
{
	const struct oxi_allow_ent *e;
	size_t i;
	int r = 0;

	for (i = 0; i < a->n && r < 2; i++) {
		e = &a->v[i];
		if (e->channel &&
		    (!channel || strcmp(e->channel, channel) != 0))
			continue;
		if (e->from && (!from || strcmp(e->from, from) != 0))
			continue;
		r = e->from ? 2 : 1;
	}
	return r;
}

int
oxi_allow_ok(const struct oxi_allow *a, const char *channel, const char *from)
{
	return oxi_allow_match(a, channel, from) > 0;
}

void
oxi_allow_free(struct oxi_allow *a)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		free(a->v[i].channel);
		free(a->v[i].from);
	}
	free(a->v);
	a->v = NULL;
	a->n = a->cap = a->nbad = 0;
	a->bad[0] = '\0';
}
