/*
 * glob.c - the glob patterns of the file tools (glob, grep's filter)
 *
 * A pattern is split at "/" into segments; a segment is matched against
 * one name by two pointers (*, ?, [set], \\x, a leading . only by a .),
 * and a path against the segments by an automaton whose states are the
 * segments still to match, each state at most once, so that neither
 * many * in a name nor many ** in a path can make a match exponential
 * (fnmatch(3) and a recursive ** both backtrack).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "tool/tooldef.h"

/* a glob split at "/", runs of ** made one: the number of segments */
int
oxi_tool_glob_split(const char *pat, char ***segv)
{
	char **v = NULL, *s = xstrdup(pat), *p, *save = NULL;
	int n = 0;

	for (p = strtok_r(s, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (strcmp(p, ".") == 0)
			continue;
		if (n > 0 && strcmp(p, "**") == 0 &&
		    strcmp(v[n - 1], "**") == 0)
			continue;
		v = xrealloc(v, (n + 2) * sizeof *v);
		v[n++] = xstrdup(p);
	}
	free(s);
	/* a final ** is every file below */
	if (n > 0 && strcmp(v[n - 1], "**") == 0) {
		v = xrealloc(v, (n + 2) * sizeof *v);
		v[n++] = xstrdup("*");
	}
	if (v)
		v[n] = NULL;
	*segv = v;
	return n;
}

void
oxi_tool_glob_free(char **v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* the [set] at p matches byte ch: its length, 0 if no match, -1 if p
 * holds no closing ] (then [ is an ordinary byte) */
static int
bracket(const char *p, unsigned char ch)
{
	static const struct { const char *name; int (*is)(int); } cls[] = {
		{ "alnum", isalnum }, { "alpha", isalpha },
		{ "blank", isblank }, { "cntrl", iscntrl },
		{ "digit", isdigit }, { "graph", isgraph },
		{ "lower", islower }, { "print", isprint },
		{ "punct", ispunct }, { "space", isspace },
		{ "upper", isupper }, { "xdigit", isxdigit }
	};
	const char *q = p + 1, *e;
	unsigned char lo, hi;
	int neg = 0, hit = 0, first = 1;
	size_t k, len;

	if (*q == '!' || *q == '^') {
		neg = 1;
		q++;
	}
	for (; *q && (*q != ']' || first); first = 0) {
		if (q[0] == '[' && q[1] == ':' && (e = strstr(q + 2, ":]"))) {
			len = e - (q + 2);
			for (k = 0; k < sizeof cls / sizeof cls[0]; k++)
				if (strlen(cls[k].name) == len &&
				    strncmp(cls[k].name, q + 2, len) == 0 &&
				    cls[k].is(ch))
					hit = 1;
			q = e + 2;
			continue;
		}
		if (*q == '\\' && q[1])
			q++;
		lo = hi = (unsigned char)*q++;
		if (q[0] == '-' && q[1] && q[1] != ']') {
			q++;
			if (*q == '\\' && q[1])
				q++;
			hi = (unsigned char)*q++;
		}
		if (lo <= ch && ch <= hi)
			hit = 1;
	}
	if (*q != ']')
		return -1;
	return hit != neg ? (int)(q + 1 - p) : 0;
}

/*
 * name matches the glob segment p (*, ?, [set], \x; a leading . only
 * by a pattern's own leading .), byte by byte.  Two pointers, going
 * back only to the last *: at worst the product of the lengths, never
 * the exponential backtracking of fnmatch(3) on many stars.
 */
int
oxi_tool_glob_name(const char *p, const char *s)
{
	const char *sp = NULL, *ss = NULL;
	int k;

	if (*s == '.' && *p != '.')
		return 0;
	while (*s) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			sp = p;
			ss = s;
			continue;
		}
		k = 0;
		if (*p == '?')
			k = 1;
		else if (*p == '[' && (k = bracket(p, *s)) < 0)
			k = *s == '[';
		else if (*p == '\\' && p[1])
			k = p[1] == *s ? 2 : 0;
		else if (*p != '[' && *p)
			k = *p == *s;
		if (k > 0) {
			p += k;
			s++;
		} else if (sp) {
			p = sp;
			s = ++ss;
		} else
			return 0;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

#define ISSTARS(s)	((s)[0] == '*' && (s)[1] == '*' && (s)[2] == '\0')

/* adds to the states set[0..n] those a ** reaches by matching nothing */
static int
closure(char **sv, int n, char *set)
{
	int i, any = 0;

	for (i = 0; i < n; i++)
		if (set[i] && ISSTARS(sv[i]))
			set[i + 1] = 1;
	for (i = 0; i <= n; i++)
		any |= set[i];
	return any;
}

int
oxi_tool_glob_start(char **sv, int n, char *set)
{
	memset(set, 0, n + 1);
	set[0] = 1;
	return closure(sv, n, set);
}

/*
 * From the states set (pattern segments sv[0..n) still to match), the
 * states after one more name: an automaton, each state once, so a
 * pattern of many ** stays linear.  *file is set when the name, not a
 * directory, ends the pattern.  1 if any state is left.
 */
int
oxi_tool_glob_step(char **sv, int n, const char *set, char *next, const char *name,
    int dir, int *file)
{
	int i;

	memset(next, 0, n + 1);
	for (i = 0; i < n; i++) {
		if (!set[i])
			continue;
		if (ISSTARS(sv[i])) {
			if (dir && name[0] != '.')
				next[i] = 1;	/* ** skips hidden directories */
			continue;
		}
		if (!oxi_tool_glob_name(sv[i], name))
			continue;
		if (i == n - 1 && !dir)
			*file = 1;
		else if (i < n - 1 && dir)
			next[i + 1] = 1;
	}
	return closure(sv, n, next);
}

/* path segments pv[0..pn) (the last a file) match pattern sv[0..sn) */
int
oxi_tool_glob_path(char **sv, int sn, char **pv, int pn)
{
	char *a = xmalloc(sn + 1), *b = xmalloc(sn + 1), *t;
	int j, file = 0;

	oxi_tool_glob_start(sv, sn, a);
	for (j = 0; j < pn; j++) {
		if (!oxi_tool_glob_step(sv, sn, a, b, pv[j], j < pn - 1,
		    &file))
			break;
		t = a;
		a = b;
		b = t;
	}
	free(a);
	free(b);
	return file;
}

