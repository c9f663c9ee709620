/*
 * vkey.c - passphrases: from a variable, which is then wiped out of the
 * environment, or from the terminal without echo; and the locked buffers
 * that hold them
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <sodium.h>

#include "oxi.h"
#include "vault/vault.h"

#define PASSMAX	1024

extern char **environ;

void
oxi_env_wipe(const char *name)
{
	size_t n = strlen(name);
	char **e;

	for (e = environ; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			oxi_wipe(*e + n + 1, strlen(*e + n + 1));
	unsetenv(name);
}

void
oxi_secret_free(struct oxi_secret_buf *b)
{
	if (b->p)
		sodium_free(b->p);	/* wipes */
	b->p = NULL;
	b->len = 0;
}

/* one line from the terminal fd, echo off; -1 at end or error */
static int
readline(int fd, const char *prompt, unsigned char *p, size_t *len)
{
	struct termios t, old;
	int on, r = 0;
	char c;
	ssize_t k;

	on = tcgetattr(fd, &old) == 0;
	if (on) {
		t = old;
		t.c_lflag &= ~(ECHO | ECHONL);
		t.c_lflag |= ICANON;
		(void)tcsetattr(fd, TCSAFLUSH, &t);
	}
	(void)oxi_writeall(fd, prompt, strlen(prompt));
	(void)oxi_writeall(fd, ": ", 2);
	*len = 0;
	for (;;) {
		k = read(fd, &c, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r = -1;
			break;
		}
		if (c == '\n' || c == '\r')
			break;
		if (*len < PASSMAX)
			p[(*len)++] = c;
	}
	oxi_wipe(&c, 1);
	p[*len] = '\0';
	if (on)
		(void)tcsetattr(fd, TCSAFLUSH, &old);
	(void)oxi_writeall(fd, "\n", 1);
	return r;
}

int
oxi_vault_pass(const char *env, const char *prompt, int confirm,
    struct oxi_secret_buf *out, char *why, size_t n)
{
	const char *v;
	unsigned char *again;
	size_t alen;
	int fd;

	out->p = NULL;
	out->len = 0;
	if (sodium_init() < 0 || !(out->p = sodium_malloc(PASSMAX + 1))) {
		snprintf(why, n, "out of locked memory");
		return -1;
	}
	if (env && (v = oxi_getenv(env))) {
		out->len = strlen(v);
		if (out->len > PASSMAX) {
			snprintf(why, n, "%s is longer than %d bytes", env,
			    PASSMAX);
			goto fail;
		}
		memcpy(out->p, v, out->len + 1);
		oxi_env_wipe(env);
		return 0;
	}
	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		if (env)
			snprintf(why, n, "no passphrase: set %s or"
			    " OXI_VAULT_KEY_FILE, or run on a terminal", env);
		else
			snprintf(why, n, "no terminal to ask on");
		goto fail;
	}
	if (readline(fd, prompt, out->p, &out->len) < 0) {
		close(fd);
		snprintf(why, n, "no passphrase read from the terminal");
		goto fail;
	}
	if (confirm) {
		if (!(again = sodium_malloc(PASSMAX + 1))) {
			close(fd);
			snprintf(why, n, "out of locked memory");
			goto fail;
		}
		if (readline(fd, "again", again, &alen) < 0 || alen !=
		    out->len || sodium_memcmp(again, out->p, alen) != 0) {
			sodium_free(again);
			close(fd);
			snprintf(why, n, "the passphrases differ");
			goto fail;
		}
		sodium_free(again);
	}
	close(fd);
	if (out->len == 0) {
		snprintf(why, n, "empty passphrase");
		goto fail;
	}
	return 0;
fail:
	oxi_secret_free(out);
	return -1;
}
