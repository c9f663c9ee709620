/*
 * mem.c - memory that held secrets, and UTF-8: one validator, one cut
 */
#include <stddef.h>

#include "oxi.h"

void
oxi_wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n-- > 0)
		*v++ = 0;
}

/*
 * The bytes a sequence led by c needs after it (0 for ASCII, -1 if c
 * leads none), and the range its second byte must be in (Unicode's
 * table of well-formed sequences: no overlongs, no surrogates, nothing
 * past U+10FFFF).
 */
static int
lead(unsigned char c, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80, *hi = 0xbf;
	if (c < 0x80)
		return 0;
	if (c >= 0xc2 && c <= 0xdf)
		return 1;
	if (c >= 0xe0 && c <= 0xef) {
		if (c == 0xe0)
			*lo = 0xa0;
		else if (c == 0xed)
			*hi = 0x9f;
		return 2;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (c == 0xf0)
			*lo = 0x90;
		else if (c == 0xf4)
			*hi = 0x8f;
		return 3;
	}
	return -1;
}

/* bytes of the sequence at s that are well formed, at most n */
static size_t
wellformed(const unsigned char *s, size_t n, int *need)
{
	unsigned char lo, hi;
	size_t k;

	if ((*need = lead(s[0], &lo, &hi)) <= 0)
		return *need == 0;
	for (k = 1; k <= (size_t)*need && k < n; k++) {
		if (k == 1 ? s[k] < lo || s[k] > hi : (s[k] & 0xc0) != 0x80)
			return 0;
	}
	return k;
}

size_t
oxi_utf8_seq(const char *s, size_t n)
{
	size_t k;
	int need;

	if (n == 0)
		return 0;
	k = wellformed((const unsigned char *)s, n, &need);
	return need >= 0 && k == (size_t)need + 1 ? k : 0;
}

int
oxi_utf8_valid(const char *s, size_t n, int flags)
{
	size_t i = 0, k;
	int need;

	while (i < n) {
		if (s[i] == '\0' && (flags & OXI_UTF8_NONUL))
			return 0;
		k = wellformed((const unsigned char *)s + i, n - i, &need);
		if (need >= 0 && k == (size_t)need + 1) {
			i += k;
			continue;
		}
		/* the start of a sequence cut short by the end of the text */
		return (flags & OXI_UTF8_TAIL) && k > 0 && i + k == n;
	}
	return 1;
}

size_t
oxi_utf8_cut(const char *s, size_t len, size_t max)
{
	size_t n;

	if (len <= max)
		return len;
	/* s[max] is the first byte left out: back off over continuation
	 * bytes 10xxxxxx to the start of its sequence */
	for (n = max; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
		;
	return n;
}
