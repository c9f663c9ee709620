/* tap.h - a tiny TAP producer for C unit tests, run by prove */
#ifndef TAP_H
#define TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_fail;

#define plan(n)	printf("1..%d\n", (n))
#define ok(c, ...) do { \
	int ok_ = !!(c); \
	printf("%sok %d - ", ok_ ? "" : "not ", ++tap_n); \
	printf(__VA_ARGS__); \
	printf("\n"); \
	if (!ok_) { \
		tap_fail++; \
		printf("#   at %s line %d\n", __FILE__, __LINE__); \
	} \
	fflush(stdout); \
} while (0)
#define is_int(a, b, ...) do { \
	long long a_ = (a), b_ = (b); \
	ok(a_ == b_, __VA_ARGS__); \
	if (a_ != b_) \
		printf("#   got %lld, expected %lld\n", a_, b_); \
} while (0)
#define is_str(a, b, ...) do { \
	const char *a_ = (a), *b_ = (b); \
	int e_ = a_ && b_ && strcmp(a_, b_) == 0; \
	ok(e_, __VA_ARGS__); \
	if (!e_) \
		printf("#   got '%s'\n#   expected '%s'\n", \
		    a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
} while (0)
#define done()	(fflush(stdout), tap_fail ? 1 : 0)

#endif
