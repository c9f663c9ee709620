/*
 * trust.c - plugins and MCP servers run only when pinned
 *
 * "oxi-tool trust NAME" records, in the trust file of the configuration
 * directory (one JSON object a line, mode 0600), the SHA-256 of a
 * plugin's file, or of an MCP server's command (resolved as the sandbox
 * finds it) and of its configuration entry (canonical JSON, keys
 * sorted).  At load, a plugin or server whose hashes are not there (or
 * differ) is left out with one warning saying how to trust it; every
 * later start (each call of a plugin, each restart of a server) is
 * checked again, hashes and trust file read anew, and refused the same
 * way.  Nothing is cached: a file's status (size, times, inode) does not
 * show a change written through a shared mapping, and a check costs
 * little beside a start (15 us for a script, 19 ms for a 7 MB binary,
 * 0.3 s for node's 99 MB).  A trust file that is not a regular file
 * owned by us, or that others may write, trusts nothing.
 */
#define _GNU_SOURCE

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "oxi.h"
#include "tool/tooldef.h"

#define TRUST_MAX	(1 << 20)

static const char *
trustfile(void)
{
	static char path[PATH_MAX];
	const char *d = oxi_config_dir();

	if (!d || (size_t)snprintf(path, sizeof path, "%s/trust", d) >=
	    sizeof path)
		return NULL;
	return path;
}

static void
hex(const unsigned char *h, char out[65])
{
	int i;

	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
}

/* the SHA-256 of a file's content, in hex: 0 or -1 */
static int
filehash(const char *path, char out[65])
{
	crypto_hash_sha256_state st;
	unsigned char buf[65536], h[32];
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return -1;
	crypto_hash_sha256_init(&st);
	while ((r = read(fd, buf, sizeof buf)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			return -1;
		}
		crypto_hash_sha256_update(&st, buf, (size_t)r);
	}
	close(fd);
	crypto_hash_sha256_final(&st, h);
	hex(h, out);
	return 0;
}

/* a command as the sandbox finds it, resolved; caller frees, or NULL */
static char *
cmdpath(const char *cmd)
{
	static const char *const dirs[] = { "/usr/local/bin", "/usr/bin",
	    "/bin", NULL };
	char p[PATH_MAX];
	int i;

	if (strchr(cmd, '/'))
		return realpath(cmd, NULL);
	for (i = 0; dirs[i]; i++)
		if ((size_t)snprintf(p, sizeof p, "%s/%s", dirs[i], cmd) <
		    sizeof p && access(p, X_OK) == 0)
			return realpath(p, NULL);
	return NULL;
}

/* the pin of a plugin (entry null) or a server: an object, or invalid */
static jv
pin(const char *kind, const char *name, const char *file, jv entry)
{
	char h[65], c[65], *path;
	unsigned char d[32];
	jv r, cmd, s;

	if (jv_get_kind(entry) == JV_KIND_NULL) {
		jv_free(entry);
		if (!(path = realpath(file, NULL)))
			return jv_invalid();
		if (filehash(path, h) < 0) {
			free(path);
			return jv_invalid();
		}
	} else {
		path = NULL;
		cmd = oxi_jget(entry, "command");
		path = jv_get_kind(cmd) == JV_KIND_STRING ?
		    cmdpath(jv_string_value(cmd)) : NULL;
		jv_free(cmd);
		if (!path || filehash(path, h) < 0) {
			free(path);
			jv_free(entry);
			return jv_invalid();
		}
		free(path);
		path = NULL;
		s = jv_dump_string(entry, JV_PRINT_SORTED);
		crypto_hash_sha256(d,
		    (const unsigned char *)jv_string_value(s),
		    (unsigned long long)jv_string_length_bytes(jv_copy(s)));
		jv_free(s);
		hex(d, c);
	}
	r = jv_object();
	r = jv_object_set(r, jv_string("kind"), jv_string(kind));
	r = jv_object_set(r, jv_string("name"), jv_string(name));
	r = jv_object_set(r, jv_string("sha256"), jv_string(h));
	if (strcmp(kind, "mcp") == 0)
		r = jv_object_set(r, jv_string("config"), jv_string(c));
	else {
		r = jv_object_set(r, jv_string("path"), jv_string(path));
		free(path);
	}
	return r;
}

/* kind as a warning names it */
static const char *
shown(const char *kind)
{
	return strcmp(kind, "mcp") ? "plugin" : "mcp server";
}

/* the records of the trust file: an array (empty if missing or unsafe) */
static jv
records(int quiet)
{
	const char *path = trustfile();
	struct oxi_buf b = OXI_BUF_INIT;
	struct stat st;
	const char *p, *e;
	jv a = jv_array(), v;

	if (!path || lstat(path, &st) < 0)
		return a;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		if (!quiet)
			oxi_warn("trust file '%s' is not a file only its owner "
			    "writes, ignored", path);
		return a;
	}
	if (oxi_readfile(path, &b, TRUST_MAX) < 0) {
		oxi_warnsys("unable to read trust file '%s'", path);
		return a;
	}
	for (p = b.s ? b.s : ""; *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, "\n");
		if (e == p)
			continue;
		v = oxi_json_parse(p, e - p);
		if (jv_get_kind(v) == JV_KIND_OBJECT)
			a = jv_array_append(a, v);
		else
			jv_free(v);
	}
	oxi_buf_free(&b);
	return a;
}

/* 1 if rec pins the same thing as want: kind, name and a plugin's path */
static int
same(jv rec, jv want)
{
	static const char *const keys[] = { "kind", "name", "path", NULL };
	int i, r = 1;

	jv a, b;

	for (i = 0; keys[i] && r; i++) {
		a = oxi_jget(rec, keys[i]);
		b = oxi_jget(want, keys[i]);
		r = jv_is_valid(a) == jv_is_valid(b) && (!jv_is_valid(a) ||
		    jv_equal(jv_copy(a), jv_copy(b)));
		jv_free(a);
		jv_free(b);
	}
	return r;
}

int
oxi_trust_ok(const char *kind, const char *name, const char *file,
    jv entry)
{
	jv want = pin(kind, name, file, entry), all, rec;
	int i, n, ok = 0;

	if (!jv_is_valid(want)) {
		oxi_warn("%s '%s': its %s cannot be found or read, left out",
		    shown(kind), name, strcmp(kind, "mcp") ? "file" :
		    "command");
		return 0;
	}
	all = records(0);

	n = jv_array_length(jv_copy(all));
	for (i = 0; jv_is_valid(want) && i < n && !ok; i++) {
		rec = jv_array_get(jv_copy(all), i);
		ok = jv_equal(jv_copy(rec), jv_copy(want));
		jv_free(rec);
	}
	jv_free(all);
	jv_free(want);
	if (!ok)
		oxi_warn("%s '%s' is not trusted (or changed since): run "
		    "'oxi-tool trust %s'", shown(kind), name, name);
	return ok;
}

int
oxi_trust_start(struct oxi_tool_call *c, const char *kind, const char *name,
    const char *file, jv entry)
{
	if (oxi_trust_ok(kind, name, file, entry))
		return 0;
	return oxi_tool_fail(c, "refused: %s '%s' changed since it was "
	    "trusted (or is no longer trusted): run 'oxi-tool trust %s'. "
	    "Nothing was run.", shown(kind), name, name);
}

/* replaces or adds rec (consumed) in the trust file: 0, or -1 with why */
static int
record(jv rec, char *why, size_t len)
{
	const char *path = trustfile(), *d = oxi_config_dir();
	char tmp[PATH_MAX];
	struct oxi_buf b = OXI_BUF_INIT;
	jv all = records(1), r, s;
	int i, n, fd, e;

	n = jv_array_length(jv_copy(all));
	for (i = 0; i < n; i++) {
		r = jv_array_get(jv_copy(all), i);
		if (!same(r, rec)) {
			s = jv_dump_string(r, JV_PRINT_SORTED);
			oxi_buf_printf(&b, "%s\n", jv_string_value(s));
			jv_free(s);
		} else
			jv_free(r);
	}
	jv_free(all);
	s = jv_dump_string(rec, JV_PRINT_SORTED);
	oxi_buf_printf(&b, "%s\n", jv_string_value(s));
	jv_free(s);
	if (!path || oxi_mkdirp(d, 0700) < 0 ||
	    (size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path,
	    (long)getpid()) >= sizeof tmp ||
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) < 0)
		goto fail;
	if (fchmod(fd, 0600) < 0 || oxi_writeall(fd, b.s, b.len) < 0 ||
	    fsync(fd) < 0) {
		e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		goto fail;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		errno = e;
		goto fail;
	}
	oxi_buf_free(&b);
	return 0;
fail:
	snprintf(why, len, "unable to write trust file '%s': %s",
	    path ? path : "(none)", strerror(errno));
	oxi_buf_free(&b);
	return -1;
}

int
oxi_trust(const char *name, const char *file, jv entry, char *why,
    size_t len)
{
	jv rec;
	int found = 0;

	if (file) {
		rec = pin("plugin", name, file, jv_null());
		if (!jv_is_valid(rec)) {
			snprintf(why, len, "unable to read plugin '%s'", file);
			goto bad;
		}
		if (record(rec, why, len) < 0)
			goto bad;
		oxi_info("trusted plugin '%s' (%s)", name, file);
		found = 1;
	}
	if (jv_is_valid(entry)) {
		rec = pin("mcp", name, NULL, jv_copy(entry));
		if (!jv_is_valid(rec)) {
			snprintf(why, len, "mcp server '%s': its command "
			    "cannot be found or read", name);
			goto bad;
		}
		if (record(rec, why, len) < 0)
			goto bad;
		oxi_info("trusted mcp server '%s'", name);
		found = 1;
	}
	jv_free(entry);
	if (!found) {
		snprintf(why, len, "no plugin or MCP server named '%s'", name);
		errno = ENOENT;
		return -1;
	}
	return 0;
bad:
	jv_free(entry);
	errno = EINVAL;
	return -1;
}
