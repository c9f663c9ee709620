/* id.c - unique sortable ids (ULID) and timestamps */
#include <sys/random.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oxi.h"

static const char b32[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

void
oxi_id_new(char out[OXI_ID_LEN + 1])
{
	static uint64_t lastms;
	static unsigned char rnd[10];
	struct timespec ts;
	uint64_t ms;
	unsigned char b[16];
	int i, bit;

	clock_gettime(CLOCK_REALTIME, &ts);
	ms = (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (ms <= lastms) {
		/* same millisecond: increment so ids stay ordered */
		ms = lastms;
		for (i = 9; i >= 0 && ++rnd[i] == 0; i--)
			;
	} else {
		if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
			/* no entropy: pid and time still make it unique */
			uint64_t x = ((uint64_t)getpid() << 32) ^ ts.tv_nsec;
			memcpy(rnd, &x, 8);
			rnd[8] = rnd[9] = 0;
		}
		rnd[0] &= 0x7f;	/* leave room to increment */
		lastms = ms;
	}
	for (i = 0; i < 6; i++)
		b[i] = (unsigned char)(ms >> (40 - 8 * i));
	memcpy(b + 6, rnd, 10);
	/* 128 bits as 26 base32 digits, the first carrying 3 bits */
	for (i = 0; i < OXI_ID_LEN; i++) {
		int v = 0, k;

		for (k = 0; k < 5; k++) {
			bit = i * 5 + k - 2;
			v <<= 1;
			if (bit >= 0)
				v |= (b[bit / 8] >> (7 - bit % 8)) & 1;
		}
		out[i] = b32[v];
	}
	out[OXI_ID_LEN] = '\0';
}

void
oxi_time_now(char out[32])
{
	struct timespec ts;
	struct tm tm;
	char buf[96];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ts.tv_nsec / 1000000));
	memcpy(out, buf, 31);
	out[31] = '\0';
}

long long
oxi_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
