/*
 * fz.h - what the libFuzzer harnesses share: cut points chosen by the
 * input, a check that aborts with a one-line reason, and quiet stderr
 * around code that warns by design (FZ_VERBOSE=1 keeps it)
 *
 * Each harness is one parser facing the outside; tests/fuzz/README says
 * how they are built and run.
 */
#ifndef FZ_H
#define FZ_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/*
 * The k-th cut point in [0, n], taken from bytes 2k and 2k+1 of the input
 * (which are fed like the rest: the fuzzer picks the cuts by mutating the
 * stream's first bytes, and seeds stay real streams).
 */
static inline size_t
fz_cut(const uint8_t *d, size_t n, int k)
{
	size_t i = 2 * (size_t)k;

	if (n == 0)
		return 0;
	return ((size_t)d[i % n] << 8 | d[(i + 1) % n]) % (n + 1);
}

/*
 * stderr to /dev/null (on) or back (off), unless $FZ_VERBOSE is set;
 * sanitizer reports always go to the real stderr
 */
void __sanitizer_set_report_fd(void *);
static inline void
fz_quiet(int on)
{
	static int saved = -1, verbose = -1;
	int fd;

	if (verbose < 0) {
		verbose = getenv("FZ_VERBOSE") != NULL;
		if (!verbose && (saved = dup(2)) >= 0) {
			fcntl(saved, F_SETFD, FD_CLOEXEC);
			__sanitizer_set_report_fd((void *)(intptr_t)saved);
		}
	}
	if (verbose || saved < 0)
		return;
	if (on && (fd = open("/dev/null", O_WRONLY)) >= 0) {
		dup2(fd, 2);
		close(fd);
	} else if (!on)
		dup2(saved, 2);
}

/* a property that must hold: else a one-line reason and abort() */
#define FZ_CHECK(c, what) do {						\
	if (!(c)) {							\
		fz_quiet(0);						\
		fprintf(stderr, "fz: %s:%d: %s\n", __FILE__, __LINE__, what); \
		abort();						\
	}								\
} while (0)


/* two readings a and b (len bytes each) must be equal: else both shown */
static inline void
fz_same(const char *a, size_t alen, const char *b, size_t blen,
    const char *what)
{
	if (alen == blen && (alen == 0 || memcmp(a, b, alen) == 0))
		return;
	fz_quiet(0);
	fprintf(stderr, "fz: whole: %.*s\nfz: other: %.*s\n",
	    (int)(alen > 4000 ? 4000 : alen), a ? a : "",
	    (int)(blen > 4000 ? 4000 : blen), b ? b : "");
	FZ_CHECK(0, what);
}

#endif
