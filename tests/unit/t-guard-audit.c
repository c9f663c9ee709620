/* t-guard-audit.c - the hash-chained audit log: appends from several
 * processes, and each kind of tampering found and named */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"
#include "tap.h"

#include <sodium.h>

static char path[512], errpath[600];

/* the log's lines, NULL-terminated, in *n */
static char **
lines(int *n)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char **v = NULL, *p, *e;

	*n = 0;
	if (oxi_readfile(path, &b, 1 << 26) < 0)
		return NULL;
	for (p = b.s; p && *p; p = e + 1) {
		e = strchr(p, '\n');
		*e = '\0';
		v = realloc(v, (*n + 2) * sizeof *v);
		v[(*n)++] = strdup(p);
	}
	if (v)
		v[*n] = NULL;
	oxi_buf_free(&b);
	return v;
}

static void
put(char **v, int n)
{
	FILE *f = fopen(path, "w");
	int i;

	for (i = 0; i < n; i++)
		if (v[i])
			fprintf(f, "%s\n", v[i]);
	fclose(f);
}

/* verify, with its warnings in errpath: the number of problems */
static long
verify(size_t *n)
{
	long r;

	fflush(stderr);
	if (!freopen(errpath, "w", stderr))
		return -2;
	r = oxi_audit_verify(path, n);
	fflush(stderr);
	return r;
}

/* 1 if the warnings hold s */
static int
said(const char *s)
{
	struct oxi_buf b = OXI_BUF_INIT;
	int r;

	if (oxi_readfile(errpath, &b, 1 << 20) < 0)
		return 0;
	r = b.s && strstr(b.s, s) != NULL;
	if (!r)
		printf("# warnings: %s", b.s ? b.s : "(none)\n");
	oxi_buf_free(&b);
	return r;
}

static void
fill(int k)
{
	int i;

	for (i = 0; i < k; i++)
		oxi_audit("test", JV_OBJECT(jv_string("i"), jv_number(i),
		    jv_string("note"), jv_string("a \"quoted\"\nline")));
}

int
main(void)
{
	char *tmp = getenv("TMPDIR"), **v, *s;
	size_t n;
	int k, i, st, okall;
	pid_t pid;

	plan(25);
	oxi_prog = "t-guard-audit";
	snprintf(path, sizeof path, "%s/t-guard-audit.%ld.log",
	    tmp ? tmp : "/tmp", (long)getpid());
	snprintf(errpath, sizeof errpath, "%s.err", path);
	setenv("OXI_AUDIT_LOG", path, 1);
	unlink(path);

	is_str(oxi_audit_path(), path, "OXI_AUDIT_LOG names the log");
	fill(10);
	is_int(verify(&n), 0, "ten entries: no problem");
	is_int(n, 10, "...ten entries read");
	v = lines(&k);
	ok(k == 10 && strncmp(v[0], "{\"seq\":1,", 9) == 0 &&
	    strstr(v[0], "\"prev\":\"" "0000000000") != NULL &&
	    strstr(v[9], "{\"seq\":10,") == v[9], "seq 1 to 10, the first "
	    "with a prev of zeros");
	ok(strstr(v[3], "\"event\":\"test\"") && strstr(v[3], "\"i\":3") &&
	    strstr(v[3], "\"prog\":\"t-guard-audit\""), "an entry holds its "
	    "event, prog and data");

	/* edited: one byte of the data */
	s = strstr(v[4], "\"i\":4");
	s[4] = '7';
	put(v, k);
	is_int(verify(&n), 1, "an edited entry: one problem");
	ok(said("line 5: seq 5: edited"), "...named by line and seq");
	s[4] = '4';
	put(v, k);
	is_int(verify(&n), 0, "undone: whole again");

	/* removed from the middle */
	free(v[6]);
	v[6] = NULL;
	put(v, k);
	ok(verify(&n) >= 1 && said("line 7: entry seq 7 removed before it"),
	    "a removed entry is named");
	/* moved */
	v = lines(&k);
	s = v[2];
	v[2] = v[3];
	v[3] = s;
	put(v, k);
	ok(verify(&n) >= 1 && said("out of order"), "a moved entry is found");
	ok(said("line 4: seq 3 after seq 4"), "...and named");

	/* cut from the end: the head file knows */
	unlink(path);
	{
		char h[600];

		snprintf(h, sizeof h, "%s.head", path);
		unlink(h);
	}
	fill(5);
	v = lines(&k);
	put(v, k - 2);
	ok(verify(&n) == 1 && said("entries seq 4 to 5 removed from the end"),
	    "entries cut from the end are found");
	put(v, k);
	is_int(verify(&n), 0, "put back: whole");

	/* an edited entry whose hash was made anew: the next one says so */
	{
		char *p = strstr(v[1], "\"i\":1");
		struct oxi_buf b = OXI_BUF_INIT;
		unsigned char h[32];
		char hex[65];
		size_t len;

		p[4] = '9';
		len = strlen(v[1]) - (sizeof ",\"hash\":\"\"}" - 1 + 64);
		crypto_generichash(h, 32, (unsigned char *)v[1], len, NULL, 0);
		sodium_bin2hex(hex, sizeof hex, h, 32);
		oxi_buf_cat(&b, v[1], len);
		oxi_buf_printf(&b, ",\"hash\":\"%s\"}", hex);
		free(v[1]);
		v[1] = b.s;
		put(v, k);
		ok(verify(&n) == 1 && said("line 3: seq 3: the entry before it "
		    "was edited or replaced"), "a rehashed edit breaks the "
		    "chain at the next entry");
	}
	put(v, k - 1);
	(void)verify(&n);
	ok(said("line 3") && said("entry seq 5 removed from the end"), "...and a cut end "
	    "with it");

	/* a torn last line: ended, and the chain goes on */
	unlink(path);
	fill(3);
	{
		FILE *f = fopen(path, "a");

		fputs("{\"seq\":4,\"ts\":\"x", f);
		fclose(f);
	}
	fill(2);
	v = lines(&k);
	is_int(k, 6, "a torn line is ended before the next entry");
	ok(strncmp(v[4], "{\"seq\":4,", 9) == 0, "...which takes the seq "
	    "after the last whole entry");
	ok(verify(&n) == 1 && said("line 4: not an entry"), "verify names the "
	    "torn line alone");
	is_int(n, 5, "...and reads the five entries");

	/* several writers at once share one chain */
	unlink(path);
	for (i = 0; i < 4; i++)
		if ((pid = fork()) == 0) {
			fill(100);
			_exit(0);
		}
	okall = 1;
	for (i = 0; i < 4; i++)
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			okall = 0;
	ok(okall, "four writers ran");
	is_int(verify(&n), 0, "four writers of 100 entries: no problem");
	is_int(n, 400, "...400 entries");

	/* long data is cut; the event fields cannot be overridden */
	unlink(path);
	s = malloc(10000);
	memset(s, 'x', 9999);
	s[9999] = '\0';
	oxi_audit("long", JV_OBJECT(jv_string("text"), jv_string(s),
	    jv_string("seq"), jv_number(99), jv_string("hash"),
	    jv_string("no")));
	free(s);
	v = lines(&k);
	ok(k == 1 && strlen(v[0]) < 2300, "a long string is cut");
	ok(strncmp(v[0], "{\"seq\":1,", 9) == 0 && !strstr(v[0], "\"no\""),
	    "data cannot set seq or hash");
	is_int(verify(&n), 0, "...and the entry verifies");

	unlink(path);
	unlink(errpath);
	{
		char h[600];

		snprintf(h, sizeof h, "%s.head", path);
		unlink(h);
	}
	return done();
}
