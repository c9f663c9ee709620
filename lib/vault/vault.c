/*
 * vault.c - the vault file: its header, the box of secrets, the key
 * from a passphrase or a key file, the checks of its modes, and the
 * atomic rewrite (the format is in vault.h)
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "oxi.h"
#include "vault/vault.h"

#define MAGIC		"OXIVAULT"
#define VERSION		1
#define KDF_PASS	1
#define KDF_FILE	2
#define SALTLEN		16
#define NONCELEN	crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define HDRLEN		(8 + 1 + 1 + 2 + 8 + 8 + SALTLEN + NONCELEN)
#define KEYLEN		crypto_aead_xchacha20poly1305_ietf_KEYBYTES
#define TAGLEN		crypto_aead_xchacha20poly1305_ietf_ABYTES
#define MAXFILE		(16 * 1024 * 1024)

struct ent {
	char *name;
	unsigned char *val;	/* sodium_malloc */
	size_t len;
};

struct oxi_vault {
	char *path;
	int kdf;
	unsigned long long ops;
	size_t mem;
	unsigned char salt[SALTLEN];
	unsigned char *key;	/* sodium_malloc, KEYLEN */
	struct ent *v;
	size_t n, cap;
};

static void
put64(unsigned char *p, uint64_t x)
{
	int i;

	for (i = 7; i >= 0; i--, x >>= 8)
		p[i] = x & 0xff;
}

static uint64_t
get64(const unsigned char *p)
{
	uint64_t x = 0;
	int i;

	for (i = 0; i < 8; i++)
		x = x << 8 | p[i];
	return x;
}

const char *
oxi_vault_path(void)
{
	static char path[PATH_MAX];
	const char *v, *dir;

	if ((v = oxi_getenv("OXI_VAULT")))
		return v;
	if (!(dir = oxi_config_dir()))
		return NULL;
	snprintf(path, sizeof path, "%s/vault", dir);
	return path;
}

/* one file or directory: ours, and closed to group and others */
static int
private(const char *what, const char *path, int dir, char *why, size_t n)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		snprintf(why, n, "unable to stat %s '%s': %s", what, path,
		    strerror(errno));
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, n, "%s '%s' is not owned by you (uid %lu):"
		    " chown it", what, path, (unsigned long)st.st_uid);
		return -1;
	}
	if (st.st_mode & 077) {
		snprintf(why, n, "%s '%s' is open to others (mode %04o):"
		    " chmod %s '%s'", what, path,
		    (unsigned)(st.st_mode & 07777), dir ? "700" : "600", path);
		return -1;
	}
	return 0;
}

int
oxi_vault_perms(const char *path, const char *kf, char *why, size_t n)
{
	char dir[PATH_MAX], *s;
	int r = 0;

	snprintf(dir, sizeof dir, "%s", path);
	if ((s = strrchr(dir, '/')))
		s == dir ? (void)(s[1] = '\0') : (void)(*s = '\0');
	else
		snprintf(dir, sizeof dir, ".");
	if (access(path, F_OK) < 0 && errno == ENOENT)
		r = 1;
	else if (private("the vault", path, 0, why, n) < 0)
		return -1;
	if (private("the vault's directory", dir, 1, why, n) < 0)
		return -1;
	if (kf && private("the key file", kf, 0, why, n) < 0)
		return -1;
	return r;
}

int
oxi_vault_name_ok(const char *s)
{
	size_t i;

	if (!s || !*s || strlen(s) > 255 || (*s >= '0' && *s <= '9'))
		return 0;
	for (i = 0; s[i]; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* reads the key file: 32 bytes, or 64 hex digits and a newline */
static int
keyfile(const char *path, unsigned char *out, char *why, size_t n)
{
	unsigned char *buf;
	ssize_t r;
	size_t len = 0, bin = 0;
	int fd, rc = -1;

	if (private("the key file", path, 0, why, n) < 0)
		return -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(why, n, "unable to open the key file '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	buf = sodium_malloc(130);
	while (buf && len < 130 && (r = read(fd, buf + len, 130 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		len += r;
	}
	close(fd);
	if (!buf) {
		snprintf(why, n, "out of locked memory");
		return -1;
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	if (len == KEYLEN) {
		memcpy(out, buf, KEYLEN);
		rc = 0;
	} else if (len == 2 * KEYLEN && sodium_hex2bin(out, KEYLEN,
	    (char *)buf, len, NULL, &bin, NULL) == 0 && bin == KEYLEN)
		rc = 0;
	else
		snprintf(why, n, "the key file '%s' holds no key (32 bytes, or"
		    " 64 hex digits): make one with 'oxi-vault keygen FILE'",
		    path);
	sodium_free(buf);
	return rc;
}

/* the box key of v from the key file or a passphrase */
static int
derive(struct oxi_vault *v, const char *kf, int confirm, const char *env,
    char *why, size_t n)
{
	struct oxi_secret_buf pw = { NULL, 0 };
	unsigned char *fk;

	if (v->kdf == KDF_FILE) {
		if (!kf) {
			snprintf(why, n, "the vault '%s' is opened by a key"
			    " file: set OXI_VAULT_KEY_FILE or use -k", v->path);
			return -1;
		}
		if (!(fk = sodium_malloc(KEYLEN))) {
			snprintf(why, n, "out of locked memory");
			return -1;
		}
		if (keyfile(kf, fk, why, n) < 0) {
			sodium_free(fk);
			return -1;
		}
		crypto_generichash(v->key, KEYLEN, v->salt, SALTLEN, fk, KEYLEN);
		sodium_free(fk);
		return 0;
	}
	if (oxi_vault_pass(env, confirm ? "new vault passphrase" :
	    "vault passphrase", confirm, &pw, why, n) < 0)
		return -1;
	if (crypto_pwhash(v->key, KEYLEN, (char *)pw.p, pw.len, v->salt,
	    v->ops, v->mem, crypto_pwhash_ALG_ARGON2ID13) != 0) {
		oxi_secret_free(&pw);
		snprintf(why, n, "out of memory for Argon2id (%zu MiB)",
		    v->mem >> 20);
		return -1;
	}
	oxi_secret_free(&pw);
	return 0;
}

/* the Argon2id cost of a new key: $OXI_VAULT_KDF */
static int
kdfcost(struct oxi_vault *v, char *why, size_t n)
{
	const char *s = oxi_getenv("OXI_VAULT_KDF");

	if (!s || strcmp(s, "interactive") == 0) {
		v->ops = crypto_pwhash_OPSLIMIT_INTERACTIVE;
		v->mem = crypto_pwhash_MEMLIMIT_INTERACTIVE;
	} else if (strcmp(s, "moderate") == 0) {
		v->ops = crypto_pwhash_OPSLIMIT_MODERATE;
		v->mem = crypto_pwhash_MEMLIMIT_MODERATE;
	} else if (strcmp(s, "sensitive") == 0) {
		v->ops = crypto_pwhash_OPSLIMIT_SENSITIVE;
		v->mem = crypto_pwhash_MEMLIMIT_SENSITIVE;
	} else {
		snprintf(why, n, "bad OXI_VAULT_KDF '%.40s' (interactive,"
		    " moderate or sensitive)", s);
		return -1;
	}
	return 0;
}

static struct oxi_vault *
newvault(const char *path)
{
	struct oxi_vault *v = xcalloc(1, sizeof *v);

	v->path = xstrdup(path);
	if (!(v->key = sodium_malloc(KEYLEN))) {
		free(v->path);
		free(v);
		return NULL;
	}
	return v;
}

/* the entries of a decrypted box */
static int
unpack(struct oxi_vault *v, const unsigned char *p, size_t len)
{
	size_t off = 4, i, nl, vl;
	uint32_t count;
	char name[256];

	if (len < 4)
		return -1;
	count = (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
	for (i = 0; i < count; i++) {
		if (len - off < 2)
			return -1;
		nl = (size_t)p[off] << 8 | p[off + 1];
		off += 2;
		if (nl == 0 || nl > 255 || len - off < nl + 4)
			return -1;
		memcpy(name, p + off, nl);
		name[nl] = '\0';
		off += nl;
		vl = (size_t)p[off] << 24 | (size_t)p[off + 1] << 16 |
		    (size_t)p[off + 2] << 8 | p[off + 3];
		off += 4;
		if (len - off < vl || !oxi_vault_name_ok(name) ||
		    oxi_vault_set(v, name, p + off, vl) < 0)
			return -1;
		off += vl;
	}
	return off == len ? 0 : -1;
}

struct oxi_vault *
oxi_vault_open(const char *path, const char *kf, int flags, int *code,
    char *why, size_t n)
{
	struct oxi_vault *v;
	struct oxi_buf f = OXI_BUF_INIT;
	const unsigned char *h;
	unsigned char *pt = NULL;
	unsigned long long ptlen;
	int r;

	*code = OXI_EX_USAGE;
	if (sodium_init() < 0) {
		snprintf(why, n, "unable to initialise libsodium");
		return NULL;
	}
	if (!kf)
		kf = oxi_getenv("OXI_VAULT_KEY_FILE");
	if ((r = oxi_vault_perms(path, NULL, why, n)) < 0)
		return NULL;
	if (r == 1 && !(flags & OXI_VAULT_CREATE)) {
		snprintf(why, n, "no vault '%s': make one with 'oxi-vault"
		    " init' or 'oxi-vault set NAME'", path);
		return NULL;
	}
	if (!(v = newvault(path))) {
		snprintf(why, n, "out of locked memory");
		*code = OXI_EX_TEMP;
		return NULL;
	}
	if (r == 1) {
		v->kdf = kf ? KDF_FILE : KDF_PASS;
		randombytes_buf(v->salt, SALTLEN);
		if ((!kf && kdfcost(v, why, n) < 0) ||
		    derive(v, kf, 1, "OXI_VAULT_PASSPHRASE", why, n) < 0)
			goto fail;
		return v;
	}
	if (oxi_readfile(path, &f, MAXFILE) < 0) {
		snprintf(why, n, "unable to read the vault '%s': %s", path,
		    strerror(errno));
		*code = oxi_errtemp(errno);
		goto fail;
	}
	h = (const unsigned char *)f.s;
	if (f.len < HDRLEN + TAGLEN || memcmp(h, MAGIC, 8) != 0) {
		snprintf(why, n, "'%s' is not an oxi vault", path);
		goto fail;
	}
	if (h[8] != VERSION || (h[9] != KDF_PASS && h[9] != KDF_FILE)) {
		snprintf(why, n, "the vault '%s' has version %d, kdf %d: this"
		    " oxi-vault reads version %d", path, h[8], h[9], VERSION);
		goto fail;
	}
	v->kdf = h[9];
	v->ops = get64(h + 12);
	v->mem = get64(h + 20);
	/* the header is checked only once the box opens: bound the work
	 * it may ask of us first */
	if (v->kdf == KDF_PASS && (v->ops < crypto_pwhash_OPSLIMIT_MIN ||
	    v->ops > 4 * crypto_pwhash_OPSLIMIT_SENSITIVE ||
	    v->mem < crypto_pwhash_MEMLIMIT_MIN ||
	    v->mem > 4 * (size_t)crypto_pwhash_MEMLIMIT_SENSITIVE)) {
		snprintf(why, n, "the vault '%s' asks for an Argon2id cost out"
		    " of bounds: the file was altered", path);
		goto fail;
	}
	memcpy(v->salt, h + 28, SALTLEN);
	if (derive(v, kf, 0, "OXI_VAULT_PASSPHRASE", why, n) < 0)
		goto fail;
	if (!(pt = sodium_malloc(f.len - HDRLEN))) {
		snprintf(why, n, "out of locked memory");
		*code = OXI_EX_TEMP;
		goto fail;
	}
	if (crypto_aead_xchacha20poly1305_ietf_decrypt(pt, &ptlen, NULL,
	    h + HDRLEN, f.len - HDRLEN, h, HDRLEN, h + 28 + SALTLEN,
	    v->key) != 0) {
		snprintf(why, n, "unable to open the vault '%s': wrong %s, or"
		    " the file was altered", path, v->kdf == KDF_FILE ?
		    "key file" : "passphrase");
		goto fail;
	}
	if (unpack(v, pt, ptlen) < 0) {
		snprintf(why, n, "the vault '%s' is damaged", path);
		goto fail;
	}
	sodium_free(pt);
	oxi_buf_free(&f);
	return v;
fail:
	if (pt)
		sodium_free(pt);
	oxi_buf_free(&f);
	oxi_vault_close(v);
	return NULL;
}

void
oxi_vault_close(struct oxi_vault *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		free(v->v[i].name);
		sodium_free(v->v[i].val);
	}
	free(v->v);
	sodium_free(v->key);
	free(v->path);
	free(v);
}

size_t
oxi_vault_count(const struct oxi_vault *v)
{
	return v ? v->n : 0;
}

const char *
oxi_vault_name(const struct oxi_vault *v, size_t i)
{
	return v && i < v->n ? v->v[i].name : NULL;
}

/* the index of name, or where it would go (*found 0) */
static size_t
find(const struct oxi_vault *v, const char *name, int *found)
{
	size_t lo = 0, hi = v->n, mid;
	int c;

	*found = 0;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if ((c = strcmp(name, v->v[mid].name)) == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

const unsigned char *
oxi_vault_get(const struct oxi_vault *v, const char *name, size_t *len)
{
	size_t i;
	int found;

	if (!v)
		return NULL;
	i = find(v, name, &found);
	if (!found)
		return NULL;
	*len = v->v[i].len;
	return v->v[i].val;
}

int
oxi_vault_set(struct oxi_vault *v, const char *name,
    const unsigned char *val, size_t len)
{
	unsigned char *p;
	size_t i;
	int found;

	if (!oxi_vault_name_ok(name) || len > 0xffffffffUL ||
	    !(p = sodium_malloc(len + 1)))
		return -1;
	memcpy(p, val, len);
	p[len] = '\0';
	i = find(v, name, &found);
	if (found) {
		sodium_free(v->v[i].val);
		v->v[i].val = p;
		v->v[i].len = len;
		return 0;
	}
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 8;
		v->v = xrealloc(v->v, v->cap * sizeof *v->v);
	}
	memmove(v->v + i + 1, v->v + i, (v->n - i) * sizeof *v->v);
	v->v[i].name = xstrdup(name);
	v->v[i].val = p;
	v->v[i].len = len;
	v->n++;
	return 0;
}

int
oxi_vault_rm(struct oxi_vault *v, const char *name)
{
	size_t i;
	int found;

	i = find(v, name, &found);
	if (!found)
		return -1;
	free(v->v[i].name);
	sodium_free(v->v[i].val);
	memmove(v->v + i, v->v + i + 1, (v->n - i - 1) * sizeof *v->v);
	v->n--;
	return 0;
}

/* writes all of p, fsyncs and renames over the vault; code for failures */
static int
replace(const char *path, const unsigned char *p, size_t len, int *code,
    char *why, size_t n)
{
	char tmp[PATH_MAX], dir[PATH_MAX], *s;
	int fd, dfd;

	snprintf(dir, sizeof dir, "%s", path);
	if ((s = strrchr(dir, '/')))
		s == dir ? (void)(s[1] = '\0') : (void)(*s = '\0');
	else
		snprintf(dir, sizeof dir, ".");
	snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0)
		goto sys;
	if (fchmod(fd, 0600) < 0 || oxi_writeall(fd, p, len) < 0 ||
	    fsync(fd) < 0) {
		close(fd);
		unlink(tmp);
		goto sys;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		goto sys;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
sys:
	*code = oxi_errtemp(errno);
	snprintf(why, n, "unable to write the vault '%s': %s", path,
	    strerror(errno));
	return -1;
}

int
oxi_vault_save(struct oxi_vault *v, int *code, char *why, size_t n)
{
	unsigned char *pt, *out, *h;
	size_t len = 4, i, off;
	unsigned long long clen;
	int r;

	for (i = 0; i < v->n; i++)
		len += 2 + strlen(v->v[i].name) + 4 + v->v[i].len;
	if (!(pt = sodium_malloc(len))) {
		*code = OXI_EX_TEMP;
		snprintf(why, n, "out of locked memory");
		return -1;
	}
	pt[0] = v->n >> 24;
	pt[1] = v->n >> 16;
	pt[2] = v->n >> 8;
	pt[3] = v->n;
	for (off = 4, i = 0; i < v->n; i++) {
		size_t nl = strlen(v->v[i].name), vl = v->v[i].len;

		pt[off++] = nl >> 8;
		pt[off++] = nl;
		memcpy(pt + off, v->v[i].name, nl);
		off += nl;
		pt[off++] = vl >> 24;
		pt[off++] = vl >> 16;
		pt[off++] = vl >> 8;
		pt[off++] = vl;
		memcpy(pt + off, v->v[i].val, vl);
		off += vl;
	}
	out = xmalloc(HDRLEN + len + TAGLEN);
	h = out;
	memcpy(h, MAGIC, 8);
	h[8] = VERSION;
	h[9] = v->kdf;
	h[10] = h[11] = 0;
	put64(h + 12, v->kdf == KDF_PASS ? v->ops : 0);
	put64(h + 20, v->kdf == KDF_PASS ? v->mem : 0);
	memcpy(h + 28, v->salt, SALTLEN);
	randombytes_buf(h + 28 + SALTLEN, NONCELEN);
	crypto_aead_xchacha20poly1305_ietf_encrypt(out + HDRLEN, &clen, pt,
	    len, h, HDRLEN, NULL, h + 28 + SALTLEN, v->key);
	sodium_free(pt);
	r = replace(v->path, out, HDRLEN + clen, code, why, n);
	free(out);
	return r;
}

int
oxi_vault_rotate(struct oxi_vault *v, const char *kf, int *code, char *why,
    size_t n)
{
	*code = OXI_EX_USAGE;
	if (kf && access(kf, F_OK) < 0 && oxi_vault_keygen(kf, why, n) < 0)
		return -1;
	randombytes_buf(v->salt, SALTLEN);
	v->kdf = kf ? KDF_FILE : KDF_PASS;
	if ((!kf && kdfcost(v, why, n) < 0) ||
	    derive(v, kf, 1, "OXI_VAULT_NEW_PASSPHRASE", why, n) < 0)
		return -1;
	return oxi_vault_save(v, code, why, n);
}

int
oxi_vault_keygen(const char *path, char *why, size_t n)
{
	unsigned char *k;
	char *hex;
	int fd, e;

	if (sodium_init() < 0 || !(k = sodium_malloc(KEYLEN)) ||
	    !(hex = sodium_malloc(2 * KEYLEN + 2))) {
		snprintf(why, n, "unable to initialise libsodium");
		return -1;
	}
	randombytes_buf(k, KEYLEN);
	sodium_bin2hex(hex, 2 * KEYLEN + 1, k, KEYLEN);
	hex[2 * KEYLEN] = '\n';
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0 || oxi_writeall(fd, hex, 2 * KEYLEN + 1) < 0 ||
	    fsync(fd) < 0) {
		e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		snprintf(why, n, "unable to write the key file '%s': %s",
		    path, strerror(e));
		sodium_free(k);
		sodium_free(hex);
		return -1;
	}
	close(fd);
	sodium_free(k);
	sodium_free(hex);
	return 0;
}
