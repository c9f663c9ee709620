/*
 * vault.h - the vault wing's face: secrets encrypted at rest, the
 * credential chain of a secret, and the environment a stage is started
 * with (bin/oxi-vault.c, and lib/doctor/ for the checks)
 *
 * The file: a header in clear, authenticated as associated data, then
 * one XChaCha20-Poly1305 box of the names and values:
 *
 *	"OXIVAULT"  version (1)  kdf (1: Argon2id passphrase, 2: key file)
 *	2 bytes 0   opslimit (u64 BE)  memlimit (u64 BE)  salt (16)
 *	nonce (24)  box (count u32, then per secret: name length u16,
 *	name, value length u32, value; all big endian)
 *
 * A passphrase becomes the key through crypto_pwhash (Argon2id, with the
 * salt and limits of the header); a key file (32 bytes, or 64 hex
 * digits) through BLAKE2b keyed by it over the salt.  Every rewrite takes
 * a new nonce and goes through a temporary file, fsync and rename.
 *
 * Values, keys and passphrases live only in sodium_malloc memory (locked,
 * left out of core dumps, wiped when freed).  Functions return 0 or -1
 * with a message in why; where a code is asked for, it is the exit code
 * the failure deserves (100: wrong key, altered file, bad mode; 111: I/O).
 */
#ifndef OXI_VAULT_H
#define OXI_VAULT_H

#include "oxi.h"

struct oxi_vault;

/* the vault: $OXI_VAULT, else "vault" in the configuration directory;
 * static, or NULL when no directory is known */
const char *oxi_vault_path(void);
/* -1 (why) if path, its directory or the key file kf (may be NULL) is
 * open to others or not ours; 1 if path does not exist; else 0 */
int oxi_vault_perms(const char *path, const char *kf, char *why, size_t n);

#define OXI_VAULT_CREATE	1	/* make an empty one when missing */
/*
 * Opens and decrypts the vault at path.  The key: the key file kf (NULL:
 * $OXI_VAULT_KEY_FILE) for a key-file vault; a passphrase for the other
 * ($OXI_VAULT_PASSPHRASE, taken out of the environment once read, else
 * asked on the terminal).  A new vault is a key-file one when a key file
 * is named.  NULL with *code and why on failure.
 */
struct oxi_vault *oxi_vault_open(const char *path, const char *kf,
    int flags, int *code, char *why, size_t n);
/* wipes and frees every value and key */
void oxi_vault_close(struct oxi_vault *);
/* writes the vault back: tmp, fsync, rename; -1 with *code and why */
int oxi_vault_save(struct oxi_vault *, int *code, char *why, size_t n);
size_t oxi_vault_count(const struct oxi_vault *);
/* the i-th name (sorted), borrowed; NULL past the end */
const char *oxi_vault_name(const struct oxi_vault *, size_t i);
/* the value of name, borrowed (locked memory); NULL if absent */
const unsigned char *oxi_vault_get(const struct oxi_vault *,
    const char *name, size_t *len);
/* copies val in; -1 if the name is not [A-Za-z_][A-Za-z0-9_]* */
int oxi_vault_set(struct oxi_vault *, const char *name,
    const unsigned char *val, size_t len);
/* 0, or -1 if absent */
int oxi_vault_rm(struct oxi_vault *, const char *name);
/* a new key: the key file kf (made if missing), else a new passphrase
 * ($OXI_VAULT_NEW_PASSPHRASE, else asked twice); saved at once */
int oxi_vault_rotate(struct oxi_vault *, const char *kf, int *code,
    char *why, size_t n);
/* a new key file at path (0600, must not exist): 0 or -1 */
int oxi_vault_keygen(const char *path, char *why, size_t n);
/* 1 if s is a good secret name */
int oxi_vault_name_ok(const char *s);

/* vkey.c: the key material; sodium_malloc'd, freed by oxi_secret_free */
struct oxi_secret_buf {
	unsigned char *p;	/* sodium_malloc, NUL-terminated */
	size_t len;
};
/* reads a passphrase: the variable env (wiped from the environment),
 * else the terminal (twice when confirm); -1 with why */
int oxi_vault_pass(const char *env, const char *prompt, int confirm,
    struct oxi_secret_buf *out, char *why, size_t n);
void oxi_secret_free(struct oxi_secret_buf *);
/* overwrites the value of the variable name in this process's
 * environment (what /proc/self/environ shows too), then unsets it */
void oxi_env_wipe(const char *name);

/* chain.c: where a stage's secret comes from */
/* the helper command for name in $OXI_VAULT_HELPERS, else the file
 * vault-helpers of the configuration directory ("NAME command" lines),
 * copied into buf; NULL if none (why "") or if the file is open to
 * others (why says so) */
const char *oxi_vault_helper(const char *name, char *buf, size_t n,
    char *why, size_t wn);
/*
 * The value of name: the environment, else its helper command (its
 * first line of output), else the vault v (may be NULL).  *src says
 * which ("environment", "helper", "vault").  -1 with why if none has it.
 */
int oxi_secret_resolve(const struct oxi_vault *v, const char *name,
    struct oxi_secret_buf *out, const char **src, char *why, size_t n);
/* 1 if name is a secret oxi knows of: a key variable of a provider or a
 * channel, a vault variable, a name in the vault or the helpers file */
int oxi_secret_known(const struct oxi_vault *v, const char *name);
/*
 * Runs argv with the environment of this process minus every secret it
 * knows of, plus exactly the secrets names (a comma list) resolved by
 * the chain; redact also names them in OXI_REDACT_ENV (oxi-guard out).
 * v (may be NULL) is closed first.  Returns only on failure: *code (100
 * a secret missing, 127/126 exec) and why.
 */
int oxi_vault_exec(struct oxi_vault *v, const char *names, int redact,
    char *const argv[], int *code, char *why, size_t n);

#endif
