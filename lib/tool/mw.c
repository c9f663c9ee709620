/*
 * mw.c - what every tool call goes through, whatever runs it
 *
 * oxi_tool_call looks the tool up (a built-in tool, or a plugin's or an
 * MCP server's) and wraps its dispatch in four layers:
 *
 * - a deadline: the time limit from now, $OXI_TOOL_TIMEOUT ("30" for
 *   every tool, "grep=5" for one) or else the tool's timeout_ms (ten
 *   minutes for sources and tools without one: shell, plugins, MCP).
 *   It travels in the call; tools read what is left with oxi_tool_left
 *   (the web tools hand it to libcurl, grep and glob check it between
 *   files, a sandboxed child is killed at it).  As a
 *   last resort a watchdog (alarm(2)) ends the process, with one fatal
 *   line and exit 111, if a call overruns its deadline by WATCHDOG
 *   seconds: in oxi-tool that is the call's own child (calls.c), whose
 *   call gets an error result.
 * - a cache for OXI_TOOL_CACHE tools: successful results keyed by the
 *   tool's name and its arguments as canonical JSON (keys sorted), kept
 *   for $OXI_TOOL_CACHE_TTL seconds (default 300, 0 turns it off) in an
 *   LRU list bounded by $OXI_TOOL_CACHE_MAX bytes (default 16 MiB).
 *   The calls of oxi-tool run in children: its parent asks the cache
 *   before it forks (oxi_tool_cached) and keeps what a child answered
 *   (oxi_tool_keep), so the cache is the process's, not the child's.
 * - the output cap: every result, error or not, is cut at ctx->maxout
 *   with the "[output truncated: ...]" marker, unless the tool already
 *   did so.
 * - one log line per call (with -v), at info level: the call's id, the
 *   tool, ok or error, milliseconds, bytes of content, and "cached" for
 *   a cache hit.  Never arguments or content.
 */
#include <sys/types.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "tool/tooldef.h"

#define TTL_DEFAULT	300			/* seconds */
#define CACHE_DEFAULT	(16UL * 1024 * 1024)	/* bytes */
#define WATCHDOG	5			/* seconds past a deadline */
#define MARKER		"\n[output truncated: "
#define LIMIT_DEFAULT	600000			/* ms, without timeout_ms */

static char fatal[256];		/* the watchdog's last words */
static size_t fatallen;		/* their length */

/* a cached result */
struct ent {
	struct ent *prev, *next;	/* most recent first */
	char *key;		/* name, NUL, canonical arguments */
	size_t keylen;		/* its length */
	char *content;		/* the result */
	size_t len;		/* its length */
	char *taint;		/* its taint label, or NULL */
	long long expires;	/* monotonic ms */
	size_t size;		/* bytes it counts for */
};

static struct ent *head, *tail;	/* the LRU list */
static size_t cachebytes;	/* sum of sizes */

/* seconds as a decimal number into ms: 1, or 0 if s is not one */
static int
seconds(const char *s, size_t n, long *ms)
{
	char buf[32], *end;
	double d;

	if (n == 0 || n >= sizeof buf)
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	d = strtod(buf, &end);
	if (*end != '\0' || !(d > 0) || d > 86400)
		return 0;
	*ms = (long)(d * 1000);
	if (*ms < 1)
		*ms = 1;
	return 1;
}

/* the time limit of tool name in ms: $OXI_TOOL_TIMEOUT, or dflt (its
 * timeout_ms), or ten minutes */
static long
limit(const char *name, long dflt)
{
	const char *v = oxi_getenv("OXI_TOOL_TIMEOUT"), *p, *eq;
	size_t k, n = strlen(name);
	long ms, all = 0, mine = 0;

	for (p = v; p && *p; p += k) {
		p += strspn(p, ", \t");
		k = strcspn(p, ", \t");
		eq = memchr(p, '=', k);
		if (!eq) {
			if (seconds(p, k, &ms))
				all = ms;
		} else if ((size_t)(eq - p) == n && strncmp(p, name, n) == 0 &&
		    seconds(eq + 1, k - (eq + 1 - p), &ms))
			mine = ms;
	}
	if (mine)
		return mine;
	if (all)
		return all;
	return dflt > 0 ? dflt : LIMIT_DEFAULT;
}

/* a size with an optional k or m suffix, or dflt */
static size_t
sizeenv(const char *name, size_t dflt)
{
	const char *v = oxi_getenv(name);
	unsigned long long n;
	char *end;

	if (!v)
		return dflt;
	n = strtoull(v, &end, 10);
	if (end == v)
		return dflt;
	if (*end == 'k' || *end == 'K')
		n <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		n <<= 20, end++;
	return *end ? dflt : (size_t)n;
}

static void
unlink_(struct ent *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		tail = e->prev;
	e->prev = e->next = NULL;
}

static void
drop(struct ent *e)
{
	unlink_(e);
	cachebytes -= e->size;
	free(e->key);
	free(e->content);
	free(e->taint);
	free(e);
}

void
oxi_tool_cache_clear(void)
{
	while (head)
		drop(head);
}

static struct ent *
lookup(const char *key, size_t keylen)
{
	struct ent *e;

	for (e = head; e; e = e->next)
		if (e->keylen == keylen && memcmp(e->key, key, keylen) == 0)
			break;
	if (!e)
		return NULL;
	if (oxi_clock_ms() >= e->expires) {
		drop(e);
		return NULL;
	}
	unlink_(e);
	e->next = head;
	if (head)
		head->prev = e;
	head = e;
	if (!tail)
		tail = e;
	return e;
}

static void
store(const char *key, size_t keylen, const char *content, size_t len,
    const char *taint, long ttl, size_t max)
{
	struct ent *e;
	size_t size = keylen + len + sizeof *e + 64;

	if (size > max)
		return;
	while (tail && cachebytes + size > max)
		drop(tail);
	e = xcalloc(1, sizeof *e);
	e->key = xmalloc(keylen);
	memcpy(e->key, key, keylen);
	e->keylen = keylen;
	e->content = xstrndup(content ? content : "", len);
	e->len = len;
	e->taint = taint ? xstrdup(taint) : NULL;
	e->expires = oxi_clock_ms() + ttl * 1000LL;
	e->size = size;
	e->next = head;
	if (head)
		head->prev = e;
	head = e;
	if (!tail)
		tail = e;
	cachebytes += size;
}

/* the cap, unless the tool already put the marker within it */
static void
capout(struct oxi_buf *out, size_t max)
{
	const char *m, *tailp;
	size_t from;

	if (out->len <= max)
		return;
	from = out->len > 128 ? out->len - 128 : 0;
	tailp = out->s + from;
	if ((m = strstr(tailp, MARKER)) && (size_t)(m - out->s) <= max &&
	    out->len > 12 && strcmp(out->s + out->len - 12, "bytes shown]") == 0)
		return;
	oxi_tool_cap(out, max, out->len);
}

static void
onalarm(int sig)
{
	(void)sig;
	(void)!write(2, fatal, fatallen);
	_exit(OXI_EX_TEMP);
}

/* a copy of s fit for a log line: printable ASCII, at most 64 bytes */
static void
clean(char *dst, size_t len, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i < len - 1; i++)
		dst[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >=
		    0x7f || s[i] == '\'' ? '?' : s[i];
	dst[i] = '\0';
}

/* the settings of the cache: 0 if a call of t with args is not cached */
static int
cacheon(const struct oxi_tool *t, jv args, long *ttl, size_t *max)
{
	*ttl = (long)sizeenv("OXI_TOOL_CACHE_TTL", TTL_DEFAULT);
	*max = sizeenv("OXI_TOOL_CACHE_MAX", CACHE_DEFAULT);
	return t && (t->flags & OXI_TOOL_CACHE) && *ttl > 0 && *max > 0 &&
	    jv_get_kind(args) == JV_KIND_OBJECT;
}

/* the key of a call: name, NUL, the arguments (borrowed) sorted */
static jv
keyof(const char *name, jv args)
{
	return jv_string_concat(jv_string_sized(name, strlen(name) + 1),
	    jv_dump_string(jv_copy(args), JV_PRINT_SORTED));
}

static void
logcall(const char *id, const char *name, int r, long long t0, size_t len,
    int cached)
{
	char cid[65], cname[65];

	clean(cid, sizeof cid, id ? id : "-");
	clean(cname, sizeof cname, name);
	oxi_info("call '%s' %s %s %lld ms %zu bytes%s", cid, cname,
	    r < 0 ? "error" : "ok", oxi_clock_ms() - t0, len,
	    cached ? " cached" : "");
}

int
oxi_tool_cached(const char *id, const char *name, jv args,
    struct oxi_buf *out, char *taint, size_t len)
{
	const struct oxi_tool_src *src;
	const struct oxi_tool *t = oxi_tool_lookup(name, &src);
	struct ent *e = NULL;
	long long t0 = oxi_clock_ms();
	size_t max;
	long ttl;
	jv key;

	if (cacheon(t, args, &ttl, &max)) {
		key = keyof(name, args);
		e = lookup(jv_string_value(key),
		    (size_t)jv_string_length_bytes(jv_copy(key)));
		jv_free(key);
	}
	if (!e)
		return 0;
	oxi_buf_reset(out);
	oxi_buf_cat(out, e->content, e->len);
	oxi_buf_cats(out, "");
	snprintf(taint, len, "%s", e->taint ? e->taint : "");
	logcall(id, name, 0, t0, out->len, 1);
	return 1;
}

void
oxi_tool_keep(const char *name, jv args, const char *content, size_t len,
    const char *taint)
{
	const struct oxi_tool_src *src;
	const struct oxi_tool *t = oxi_tool_lookup(name, &src);
	size_t max;
	long ttl;
	jv key;

	if (!cacheon(t, args, &ttl, &max))
		return;
	key = keyof(name, args);
	store(jv_string_value(key), (size_t)jv_string_length_bytes(
	    jv_copy(key)), content, len, taint && *taint ? taint : NULL, ttl,
	    max);
	jv_free(key);
}

void
oxi_tool_lost(const char *id, const char *name, const char *why)
{
	char cid[65], cname[65];

	clean(cid, sizeof cid, id ? id : "-");
	clean(cname, sizeof cname, name);
	oxi_warn("call '%s' %s: its child ended without a result (%s), "
	    "answered with an error", cid, cname, why);
}

int
oxi_tool_here(const char *name)
{
	const struct oxi_tool_src *src;
	const struct oxi_tool *t = oxi_tool_lookup(name, &src);

	if (!t && src && src->here)
		return 1;
	if ((t && (t->flags & OXI_TOOL_SANDBOX)) || (!t && src))
		(void)oxi_sbx_mechanism();	/* chosen once, here */
	return 0;
}

int
oxi_tool_call(const struct oxi_tool_ctx *ctx, const char *id,
    const char *name, jv args, struct oxi_buf *out, char *taint, size_t len)
{
	static int alarmset;
	const struct oxi_tool_src *src;
	const struct oxi_tool *t = oxi_tool_lookup(name, &src);
	struct oxi_tool_call c;
	char cid[65], cname[65];
	long long t0 = oxi_clock_ms();
	int r;

	if (oxi_tool_cached(id, name, args, out, taint, len)) {
		jv_free(args);
		return 0;
	}
	clean(cid, sizeof cid, id ? id : "-");
	clean(cname, sizeof cname, name);
	memset(&c, 0, sizeof c);
	c.ctx = ctx;
	c.name = name;
	c.args = args;
	c.out = out;
	c.limit = limit(name, t ? t->timeout_ms : 0);
	if (!alarmset) {
		signal(SIGALRM, onalarm);
		alarmset = 1;
	}
	fatallen = (size_t)snprintf(fatal, sizeof fatal, "%s: fatal: call "
	    "'%s' %s ran %d s past its time limit\n", oxi_prog, cid, cname,
	    WATCHDOG);
	if (fatallen >= sizeof fatal)
		fatallen = sizeof fatal - 1;
	c.deadline = t0 + c.limit;
	alarm((unsigned)((c.limit + 999) / 1000 + WATCHDOG));
	r = oxi_tool_dispatch(t, src, &c);
	alarm(0);
	capout(out, ctx->maxout);
	if (r == 0)
		oxi_tool_keep(name, args, out->s, out->len, c.taint);
	snprintf(taint, len, "%s", c.taint);
	logcall(id, name, r, t0, out->len, 0);
	jv_free(args);
	return r;
}
