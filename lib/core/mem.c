/*
 * mem.c - memory that held secrets, wiped so the compiler cannot drop it
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
