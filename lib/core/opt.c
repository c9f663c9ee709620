/* opt.c - options and settings: --help, usage, fd and size arguments,
 * numbers from the environment */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"

void
oxi_std_opts(int argc, char **argv, const char *usage)
{
	const char *p, *nl;
	int first = 1;

	if (argc < 2)
		return;
	if (strcmp(argv[1], "--version") == 0) {
		printf("%s %s\n", oxi_prog, OXI_VERSION);
		oxi_fshut(stdout, "stdout");
		exit(0);
	}
	if (strcmp(argv[1], "-h") != 0 && strcmp(argv[1], "--help") != 0)
		return;
	for (p = usage; *p; p = *nl ? nl + 1 : nl) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		printf("%s%.*s\n", first ? "usage: " : "       ",
		    (int)(nl - p), p);
		first = 0;
	}
	printf("see %s(1)\n", oxi_prog);
	oxi_fshut(stdout, "stdout");
	exit(0);
}

void
oxi_usage(const char *usage)
{
	const char *p, *nl;
	int first = 1;
	struct oxi_buf b = OXI_BUF_INIT;

	for (p = usage; *p; p = *nl ? nl + 1 : nl) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		oxi_buf_printf(&b, "%s%.*s\n", first ? "usage: " : "       ",
		    (int)(nl - p), p);
		first = 0;
	}
	(void)oxi_writeall(2, b.s, b.len);
	exit(OXI_EX_USAGE);
}

int
oxi_fdarg(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *s == '\0' || *end != '\0' || v < 0 || v > INT_MAX)
		oxi_die(OXI_EX_USAGE, "invalid file descriptor '%s'", s);
	return (int)v;
}

size_t
oxi_sizearg(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s == '-' || *s == '\0')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno)
		goto bad;
	switch (*end) {
	case 'k': case 'K': v *= 1024; end++; break;
	case 'm': case 'M': v *= 1024 * 1024; end++; break;
	}
	if (*end != '\0')
		goto bad;
	return (size_t)v;
bad:
	oxi_die(OXI_EX_USAGE, "invalid %s '%s'", what, s);
}

int
oxi_env_ms(const char *name, long dflt, long *ms)
{
	const char *v = oxi_getenv(name);
	char *end;
	double d;

	*ms = dflt;
	if (!v)
		return 0;
	d = strtod(v, &end);
	if (*end || !(d > 0) || d > 86400)
		return -1;
	*ms = (long)(d * 1000 + 0.5);
	return 0;
}

int
oxi_env_int(const char *name, long dflt, long max, long *n)
{
	const char *v = oxi_getenv(name);
	char *end;
	long l;

	*n = dflt;
	if (!v)
		return 0;
	l = strtol(v, &end, 10);
	if (*end || end == v || l < 0 || l > max)
		return -1;
	*n = l;
	return 0;
}
