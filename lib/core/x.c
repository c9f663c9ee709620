/* x.c - allocation that dies with 111 on ENOMEM */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oxi_die(OXI_EX_TEMP, "out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (!p)
		oxi_die(OXI_EX_TEMP, "out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oxi_die(OXI_EX_TEMP, "out of memory");
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p;
	size_t len = strnlen(s, n);

	p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}
