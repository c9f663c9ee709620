/*
 * oxi-vault - secrets encrypted at rest, and each stage started with
 * only its own
 *
 * keeps NAME=value secrets in one file (XChaCha20-Poly1305 under a key
 * from a passphrase through Argon2id, or from a key file); "exec" starts
 * a command with every secret oxi knows of taken out of its environment
 * and exactly the named ones put in, each from the environment, else its
 * helper command, else the vault (lib/vault/vault.h).  Values are read
 * from stdin or the terminal, never from arguments, and written only by
 * "get", to stdout.
 * exit: 0 ok, 1 a name is not in the vault, 100 usage, wrong key, an
 * altered file or one open to others, 111 I/O; exec: the command's own.
 */
#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "oxi.h"
#include "vault/vault.h"

#define USAGE "oxi-vault [-v] [-f vault] [-k keyfile] init | list\n" \
	"oxi-vault [-v] [-f vault] [-k keyfile] get | set name\n" \
	"oxi-vault [-v] [-f vault] [-k keyfile] rm name ...\n" \
	"oxi-vault [-v] [-f vault] [-k keyfile] rotate [-K newkeyfile]\n" \
	"oxi-vault [-v] [-f vault] [-k keyfile] exec [-ar] [-s name,...]" \
	" command [arg ...]\n" \
	"oxi-vault keygen file"

#define VALMAX	(64 * 1024)	/* a value read by set */

static const char *vpath, *kflag;
static char why[600];

static void
usage(void)
{
	oxi_usage(USAGE);
}

/* takes the vault's directory lock for a rewrite (flock on the
 * directory: no lock file to leave behind) */
static void
lock(void)
{
	char dir[4096], *s;
	int fd;

	snprintf(dir, sizeof dir, "%s", vpath);
	if ((s = strrchr(dir, '/')))
		s == dir ? (void)(s[1] = '\0') : (void)(*s = '\0');
	else
		snprintf(dir, sizeof dir, ".");
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		oxi_diesys(oxi_errtemp(errno), "unable to open '%s'", dir);
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			oxi_diesys(OXI_EX_TEMP, "unable to lock '%s'", dir);
}

static struct oxi_vault *
vopen(int flags)
{
	struct oxi_vault *v;
	int code;

	if (!(v = oxi_vault_open(vpath, kflag, flags, &code, why,
	    sizeof why)))
		oxi_die(code, "%s", why);
	return v;
}

static void
vsave(struct oxi_vault *v)
{
	int code;

	if (oxi_vault_save(v, &code, why, sizeof why) < 0)
		oxi_die(code, "%s", why);
}

/* the value for set: the terminal (asked twice, not echoed), else all
 * of stdin less one final newline */
static void
readvalue(const char *name, struct oxi_secret_buf *b)
{
	char prompt[300];
	ssize_t r;

	if (isatty(0)) {
		snprintf(prompt, sizeof prompt, "value of %s", name);
		if (oxi_vault_pass(NULL, prompt, 1, b, why, sizeof why) < 0)
			oxi_die(OXI_EX_USAGE, "%s", why);
		return;
	}
	if (!(b->p = sodium_malloc(VALMAX + 1)))
		oxi_die(OXI_EX_TEMP, "out of locked memory");
	b->len = 0;
	while ((r = read(0, b->p + b->len, VALMAX + 1 - b->len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
		if ((b->len += r) > VALMAX)
			oxi_die(OXI_EX_USAGE, "the value is longer than %d"
			    " bytes", VALMAX);
	}
	if (b->len > 0 && b->p[b->len - 1] == '\n')
		b->len--;
	if (b->len > 0 && b->p[b->len - 1] == '\r')
		b->len--;
	b->p[b->len] = '\0';
	if (b->len == 0)
		oxi_die(OXI_EX_USAGE, "empty value for '%s' on stdin", name);
}

static int
cmd_get(struct oxi_vault *v, const char *name)
{
	const unsigned char *val;
	unsigned char *out;
	size_t len;

	if (!(val = oxi_vault_get(v, name, &len))) {
		oxi_warn("no secret '%s' in the vault", name);
		return OXI_EX_FALSE;
	}
	/* one write from locked memory: no stdio buffer keeps a copy */
	if (!(out = sodium_malloc(len + 1)))
		oxi_die(OXI_EX_TEMP, "out of locked memory");
	memcpy(out, val, len);
	out[len] = '\n';
	if (oxi_writeall(1, out, len + 1) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to write stdout");
	sodium_free(out);
	return 0;
}

/* 1 if nm is one of the comma list l (may be NULL) */
static int
named(const char *l, const char *nm)
{
	size_t n = strlen(nm), k;

	for (; l && *l; l += k + (l[k] == ',')) {
		k = strcspn(l, ",");
		if (k == n && strncmp(l, nm, n) == 0)
			return 1;
	}
	return 0;
}

static int
cmd_exec(int argc, char **argv)
{
	struct oxi_vault *v = NULL;
	struct oxi_buf names = OXI_BUF_INIT;
	int c, aflag = 0, rflag = 0, sflag = 0, code, r;
	const char *nm;
	size_t i;

	optind = 1;
	while ((c = getopt(argc, argv, "+ars:")) != -1)
		switch (c) {
		case 'a': aflag = 1; break;
		case 'r': rflag = 1; break;
		case 's':
			if (*optarg)
				oxi_buf_printf(&names, "%s%s", names.len ?
				    "," : "", optarg);
			sflag = 1;
			break;
		default: usage();
		}
	argc -= optind;
	argv += optind;
	if (argc < 1 || (!aflag && !sflag))
		usage();
	/* the vault, when there is one: it names the secrets to withhold */
	if ((r = oxi_vault_perms(vpath, NULL, why, sizeof why)) < 0)
		oxi_die(OXI_EX_USAGE, "%s", why);
	if (r == 0)
		v = vopen(0);
	else if (aflag)
		oxi_die(OXI_EX_USAGE, "-a: no vault '%s'", vpath);
	/* -a: every name of the vault not named already */
	for (i = 0; aflag && i < oxi_vault_count(v); i++)
		if (!named(names.s, nm = oxi_vault_name(v, i)))
			oxi_buf_printf(&names, "%s%s", names.len ? "," : "",
			    nm);
	oxi_vault_exec(v, names.s ? names.s : "", rflag, argv, &code, why,
	    sizeof why);
	oxi_die(code, "%s", why);
}

int
main(int argc, char *argv[])
{
	struct oxi_vault *v;
	struct oxi_secret_buf b;
	const char *cmd, *nk = NULL;
	int c, i, status = 0, code;

	oxi_prog = "oxi-vault";
	oxi_std_opts(argc, argv, USAGE);
	while ((c = getopt(argc, argv, "+f:k:v")) != -1)
		switch (c) {
		case 'f': vpath = optarg; break;
		case 'k': kflag = optarg; break;
		case 'v': oxi_verbose++; break;
		default: usage();
		}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	cmd = argv[0];
	if (strcmp(cmd, "keygen") == 0) {
		if (argc != 2 || vpath || kflag)
			usage();
		if (oxi_vault_keygen(argv[1], why, sizeof why) < 0)
			oxi_die(OXI_EX_USAGE, "%s", why);
		return 0;
	}
	if (sodium_init() < 0)
		oxi_die(OXI_EX_TEMP, "unable to initialise libsodium");
	if (!vpath && !(vpath = oxi_vault_path()))
		oxi_diesys(OXI_EX_USAGE, "no configuration directory");
	if (strcmp(cmd, "exec") == 0)
		return cmd_exec(argc, argv);
	if (strcmp(cmd, "init") == 0 || strcmp(cmd, "list") == 0) {
		if (argc != 1)
			usage();
		if (*cmd == 'i') {
			lock();
			if (access(vpath, F_OK) == 0)
				oxi_die(OXI_EX_USAGE, "the vault '%s' exists",
				    vpath);
			vsave(vopen(OXI_VAULT_CREATE));
			return 0;
		}
		v = vopen(0);
		for (i = 0; (size_t)i < oxi_vault_count(v); i++)
			printf("%s\n", oxi_vault_name(v, i));
		oxi_fshut(stdout, "stdout");
	} else if (strcmp(cmd, "get") == 0 || strcmp(cmd, "set") == 0) {
		if (argc != 2)
			usage();
		if (!oxi_vault_name_ok(argv[1]))
			oxi_die(OXI_EX_USAGE, "bad secret name '%s' (letters,"
			    " digits and _)", argv[1]);
		if (*cmd == 'g')
			return cmd_get(v = vopen(0), argv[1]);
		readvalue(argv[1], &b);
		lock();
		v = vopen(OXI_VAULT_CREATE);
		if (oxi_vault_set(v, argv[1], b.p, b.len) < 0)
			oxi_die(OXI_EX_TEMP, "out of locked memory");
		oxi_secret_free(&b);
		vsave(v);
	} else if (strcmp(cmd, "rm") == 0) {
		if (argc < 2)
			usage();
		lock();
		v = vopen(0);
		for (i = 1; i < argc; i++)
			if (oxi_vault_rm(v, argv[i]) < 0) {
				oxi_warn("no secret '%s' in the vault", argv[i]);
				status = OXI_EX_FALSE;
			}
		vsave(v);
	} else if (strcmp(cmd, "rotate") == 0) {
		optind = 1;
		while ((c = getopt(argc, argv, "K:")) != -1)
			switch (c) {
			case 'K': nk = optarg; break;
			default: usage();
			}
		if (optind != argc)
			usage();
		lock();
		v = vopen(0);
		if (oxi_vault_rotate(v, nk, &code, why, sizeof why) < 0)
			oxi_die(code, "%s", why);
	} else
		usage();
	oxi_vault_close(v);
	return status;
}
