/*
 * chain.c - where a stage's secret comes from (the environment, a helper
 * command, the vault) and the environment a stage is started with: every
 * secret oxi knows of taken out, exactly the named ones put in
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "oxi.h"
#include "vault/vault.h"

#define HELPERMAX	(64 * 1024)	/* a helper's output we read */

extern char **environ;

/* the key variables of the providers and channels, and the vault's own */
static const char *const known[] = {
	"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
	"OPENROUTER_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY",
	"MISTRAL_API_KEY", "TOGETHER_API_KEY", "XAI_API_KEY",
	"OLLAMA_API_KEY", "LMSTUDIO_API_KEY", "VLLM_API_KEY",
	"LLAMA_API_KEY", "BRAVE_API_KEY", "TAVILY_API_KEY",
	"TELEGRAM_BOT_TOKEN", "OXI_TELEGRAM_WEBHOOK_SECRET",
	"OXI_VAULT_PASSPHRASE", "OXI_VAULT_NEW_PASSPHRASE",
	"OXI_VAULT_KEY_FILE", NULL
};

const char *
oxi_vault_helper(const char *name, char *buf, size_t n, char *why,
    size_t wn)
{
	char path[PATH_MAX];
	struct oxi_buf f = OXI_BUF_INIT;
	const char *file, *dir, *p, *nl, *cmd;
	struct stat st;
	size_t len = strlen(name), l;

	*why = '\0';
	if (!(file = oxi_getenv("OXI_VAULT_HELPERS"))) {
		if (!(dir = oxi_config_dir()))
			return NULL;
		snprintf(path, sizeof path, "%s/vault-helpers", dir);
		file = path;
	}
	if (stat(file, &st) < 0)
		return NULL;
	/* its lines are commands we run: they must be the owner's alone */
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(why, wn, "the helpers file '%s' is writable by others"
		    " or not yours: chmod 600 '%s'", file, file);
		return NULL;
	}
	if (oxi_readfile(file, &f, HELPERMAX) < 0)
		return NULL;
	for (p = f.s ? f.s : ""; *p; p = *nl ? nl + 1 : nl) {
		if (!(nl = strchr(p, '\n')))
			nl = p + strlen(p);
		if (strncmp(p, name, len) != 0 || (p[len] != ' ' &&
		    p[len] != '\t'))
			continue;
		for (cmd = p + len; *cmd == ' ' || *cmd == '\t'; cmd++)
			;
		l = nl - cmd;
		if (l == 0 || l >= n)
			continue;
		memcpy(buf, cmd, l);
		buf[l] = '\0';
		oxi_buf_free(&f);
		return buf;
	}
	oxi_buf_free(&f);
	return NULL;
}

/* runs the helper cmd; its first line of output into out */
static int
runhelper(const char *name, const char *cmd, struct oxi_secret_buf *out,
    char *why, size_t n)
{
	char *const argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	int fd, code;
	ssize_t r;
	pid_t pid;

	if (!(out->p = sodium_malloc(HELPERMAX + 1))) {
		snprintf(why, n, "out of locked memory");
		return -1;
	}
	out->len = 0;
	if ((pid = oxi_spawn(argv, NULL, &fd, 0)) < 0) {
		snprintf(why, n, "unable to run the helper of %s: %s", name,
		    strerror(errno));
		goto fail;
	}
	while (out->len < HELPERMAX && (r = read(fd, out->p + out->len,
	    HELPERMAX - out->len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		out->len += r;
	}
	close(fd);
	code = oxi_wait(pid);
	out->p[out->len] = '\0';
	out->len = strcspn((char *)out->p, "\r\n");
	sodium_memzero(out->p + out->len, HELPERMAX + 1 - out->len);
	if (code != 0 || out->len == 0) {
		snprintf(why, n, "the helper of %s %s", name, code != 0 ?
		    "failed" : "printed nothing");
		goto fail;
	}
	return 0;
fail:
	oxi_secret_free(out);
	return -1;
}

int
oxi_secret_resolve(const struct oxi_vault *v, const char *name,
    struct oxi_secret_buf *out, const char **src, char *why, size_t n)
{
	char cmd[4096], hwhy[300];
	const unsigned char *val;
	const char *e;
	size_t len;

	out->p = NULL;
	out->len = 0;
	if (sodium_init() < 0) {
		snprintf(why, n, "unable to initialise libsodium");
		return -1;
	}
	if ((e = oxi_getenv(name))) {
		*src = "environment";
		val = (const unsigned char *)e;
		len = strlen(e);
	} else if (oxi_vault_helper(name, cmd, sizeof cmd, hwhy,
	    sizeof hwhy)) {
		*src = "helper";
		if (runhelper(name, cmd, out, why, n) == 0)
			return 0;
		oxi_warn("%s; trying the vault", why);
		if (!(val = oxi_vault_get(v, name, &len)))
			return -1;
		*src = "vault";
	} else if (*hwhy) {
		snprintf(why, n, "%s", hwhy);
		return -1;
	} else if ((val = oxi_vault_get(v, name, &len)))
		*src = "vault";
	else {
		snprintf(why, n, "secret '%s' is in none of the environment,"
		    " a helper, %s", name, v ? "the vault" : "a vault (none"
		    " found)");
		return -1;
	}
	if (!(out->p = sodium_malloc(len + 1))) {
		snprintf(why, n, "out of locked memory");
		return -1;
	}
	memcpy(out->p, val, len);
	out->p[len] = '\0';
	out->len = len;
	return 0;
}

/* 1 if name is one of the comma list l */
static int
listed(const char *l, const char *name)
{
	size_t n = strlen(name), k;

	while (l && *l) {
		k = strcspn(l, ", \t");
		if (k == n && strncmp(l, name, n) == 0)
			return 1;
		l += k;
		l += strspn(l, ", \t");
	}
	return 0;
}

int
oxi_secret_known(const struct oxi_vault *v, const char *name)
{
	char cmd[4096], why[300];
	size_t i, len;

	for (i = 0; known[i]; i++)
		if (strcmp(known[i], name) == 0)
			return 1;
	if (oxi_vault_get(v, name, &len))
		return 1;
	if (oxi_vault_helper(name, cmd, sizeof cmd, why, sizeof why))
		return 1;
	return 0;
}

int
oxi_vault_exec(struct oxi_vault *v, const char *names, int redact,
    char *const argv[], int *code, char *why, size_t n)
{
	struct oxi_secret_buf *vals;
	struct oxi_buf rl = OXI_BUF_INIT;
	char **env, name[256], *s;
	const char *p, *src;
	size_t nn = 0, ne, i, k, j;

	*code = OXI_EX_USAGE;
	for (p = names; *p; p += k) {
		p += strspn(p, ", \t");
		if ((k = strcspn(p, ", \t")) > 0)
			nn++;
	}
	vals = xcalloc(nn + 1, sizeof *vals);
	/* resolve first: the environment is the chain's first link */
	for (i = 0, p = names; *p && i < nn; p += k) {
		p += strspn(p, ", \t");
		if ((k = strcspn(p, ", \t")) == 0)
			continue;
		if (k >= sizeof name) {
			snprintf(why, n, "secret name too long");
			goto fail;
		}
		memcpy(name, p, k);
		name[k] = '\0';
		if (!oxi_vault_name_ok(name)) {
			snprintf(why, n, "bad secret name '%s'", name);
			goto fail;
		}
		if (oxi_secret_resolve(v, name, &vals[i], &src, why, n) < 0)
			goto fail;
		oxi_debug("%s from the %s", name, src);
		i++;
	}
	for (ne = 0; environ && environ[ne]; ne++)
		;
	env = xcalloc(ne + nn + 2, sizeof *env);
	for (i = 0, j = 0; i < ne; i++) {
		k = strcspn(environ[i], "=");
		if (k >= sizeof name)
			continue;
		memcpy(name, environ[i], k);
		name[k] = '\0';
		if (oxi_secret_known(v, name) || listed(names, name) ||
		    (redact && strcmp(name, "OXI_REDACT_ENV") == 0))
			continue;
		env[j++] = environ[i];
	}
	for (i = 0, p = names; *p && i < nn; p += k) {
		p += strspn(p, ", \t");
		if ((k = strcspn(p, ", \t")) == 0)
			continue;
		/* NAME=value in locked memory, until exec replaces us */
		if (!(s = sodium_malloc(k + 1 + vals[i].len + 1))) {
			snprintf(why, n, "out of locked memory");
			goto fail;
		}
		memcpy(s, p, k);
		s[k] = '=';
		memcpy(s + k + 1, vals[i].p, vals[i].len + 1);
		env[j++] = s;
		if (redact)
			oxi_buf_printf(&rl, "%s%.*s", rl.len ? "," : "",
			    (int)k, p);
		oxi_secret_free(&vals[i]);
		i++;
	}
	if (redact) {
		/* the names it was told of already come first */
		if ((p = oxi_getenv("OXI_REDACT_ENV"))) {
			struct oxi_buf all = OXI_BUF_INIT;

			oxi_buf_printf(&all, "%s%s%s", p, rl.len ? "," : "",
			    rl.s ? rl.s : "");
			oxi_buf_free(&rl);
			rl = all;
		}
		s = xmalloc(rl.len + 16);
		snprintf(s, rl.len + 16, "OXI_REDACT_ENV=%s", rl.s ? rl.s : "");
		env[j++] = s;
	}
	env[j] = NULL;
	oxi_vault_close(v);
	environ = env;
	execvp(argv[0], argv);
	*code = errno == ENOENT ? OXI_EX_NOENT : OXI_EX_NOEXEC;
	snprintf(why, n, "unable to run '%s': %s", argv[0], strerror(errno));
	return -1;
fail:
	for (i = 0; i < nn; i++)
		oxi_secret_free(&vals[i]);
	free(vals);
	oxi_vault_close(v);
	return -1;
}
