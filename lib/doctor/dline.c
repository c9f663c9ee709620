/*
 * dline.c - what the doctor's checks share, below them all: their lines
 * and verdict, running an oxi command with a deadline, and finding a
 * secret along the credential chain without showing it
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "doctor/check.h"
#include "vault/vault.h"

void
oxi_doc_say(struct oxi_doc *d, const char *check, int level,
    const char *fix, const char *fmt, ...)
{
	struct oxi_doc_res *r;
	va_list ap;

	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 16;
		d->v = xrealloc(d->v, d->cap * sizeof *d->v);
	}
	r = &d->v[d->n++];
	snprintf(r->check, sizeof r->check, "%s", check);
	r->level = level;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof r->msg, fmt, ap);
	va_end(ap);
	snprintf(r->fix, sizeof r->fix, "%s", fix ? fix : "");
}

const char *
oxi_doc_level(int level)
{
	static const char *const names[] = { "ok", "skip", "warn", "error" };

	return level >= 0 && level <= OXI_DOC_ERROR ? names[level] : "?";
}

int
oxi_doctor_status(const struct oxi_doc *d)
{
	int worst = OXI_DOC_OK;
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].level > worst)
			worst = d->v[i].level;
	return worst == OXI_DOC_ERROR ? OXI_EX_USAGE :
	    worst == OXI_DOC_WARN ? OXI_EX_FALSE : OXI_EX_OK;
}

void
oxi_doctor_free(struct oxi_doc *d)
{
	oxi_vault_close(d->vault);
	d->vault = NULL;
	free(d->v);
	d->v = NULL;
	d->n = d->cap = 0;
}

/* the path of the oxi command name: beside our executable, else name */
static void
binpath(const char *name, char *buf, size_t n)
{
	char exe[PATH_MAX], *s;
	ssize_t k;

	if ((k = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
		exe[k] = '\0';
		if ((s = strrchr(exe, '/'))) {
			*s = '\0';
			snprintf(buf, n, "%s/%s", exe, name);
			if (access(buf, X_OK) == 0)
				return;
		}
	}
	snprintf(buf, n, "%s", name);
}

int
oxi_doc_cmd(const char *name, const char *const args[], int secs,
    const char *setname, const char *setval, struct oxi_buf *out)
{
	char path[PATH_MAX + 64], buf[4096];
	const char *argv[32];
	int p[2], fd, i;
	ssize_t r;
	pid_t pid;

	binpath(name, path, sizeof path);
	argv[0] = path;
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	if (pipe(p) < 0)
		return -1;
	if ((pid = oxi_fork(0)) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		if ((fd = open("/dev/null", O_RDONLY)) < 0 || dup2(fd, 0) < 0 ||
		    dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
			_exit(OXI_EX_TEMP);
		if (setname && setenv(setname, setval, 1) < 0)
			_exit(OXI_EX_TEMP);
		alarm(secs);	/* outlives exec: SIGALRM ends it */
		execvp(path, (char *const *)argv);
		_exit(errno == ENOENT ? OXI_EX_NOENT : OXI_EX_NOEXEC);
	}
	close(p[1]);
	while ((r = read(p[0], buf, sizeof buf)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (out->len < 65536)
			oxi_buf_cat(out, buf, r);
	}
	close(p[0]);
	return oxi_wait(pid);
}

/* the line at l, to its newline, if it holds word */
static int
has(const char *l, const char *word)
{
	const char *m = strstr(l, word);

	return m && m < l + strcspn(l, "\n");
}

void
oxi_doc_lastline(const struct oxi_buf *out, char *buf, size_t n)
{
	const char *s = out->s ? out->s : "", *l, *fatal = NULL,
	    *warn = NULL, *last = NULL, *line, *m;
	size_t len;

	for (l = s; *l; l += len + (l[len] == '\n')) {
		if ((len = strcspn(l, "\n")) == 0)
			continue;
		last = l;
		if (has(l, ": fatal: "))
			fatal = l;
		else if (has(l, ": warning: "))
			warn = l;
	}
	if (!(line = fatal ? fatal : warn ? warn : last)) {
		snprintf(buf, n, "no output");
		return;
	}
	len = strcspn(line, "\n");
	m = line;
	if (has(line, ": fatal: "))
		m = strstr(line, ": fatal: ") + 9;
	else if (has(line, ": warning: "))
		m = strstr(line, ": warning: ") + 11;
	snprintf(buf, n, "%.*s", (int)(len - (m - line)), m);
}

const char *
oxi_doc_secret(struct oxi_doc *d, const char *name,
    struct oxi_secret_buf *val, char *why, size_t n)
{
	char cmd[4096];
	static char verr[300];
	const char *path, *src = NULL;
	size_t len;
	int code;

	*why = '\0';
	if (val) {
		val->p = NULL;
		val->len = 0;
	}
	if (oxi_getenv(name))
		src = "environment";
	else if (oxi_vault_helper(name, cmd, sizeof cmd, why, n))
		src = "helper";
	else if (*why)
		return NULL;
	if (src && (!val || (*src == 'h' && !d->online)))
		return src;
	if (src)
		return oxi_secret_resolve(d->vault, name, val, &src, why,
		    n) == 0 ? src : NULL;
	/* the vault: opened without asking when a key is at hand */
	if (!d->vtried && (path = oxi_vault_path()) &&
	    access(path, F_OK) == 0) {
		d->vtried = 1;
		if (!oxi_getenv("OXI_VAULT_KEY_FILE") &&
		    !oxi_getenv("OXI_VAULT_PASSPHRASE") && !isatty(0))
			snprintf(verr, sizeof verr, "the vault is not opened:"
			    " no OXI_VAULT_KEY_FILE or OXI_VAULT_PASSPHRASE");
		else
			d->vault = oxi_vault_open(path, NULL, 0, &code, verr,
			    sizeof verr);
	}
	if (!d->vault && *verr) {
		snprintf(why, n, "%s", verr);
		return NULL;
	}
	if (!oxi_vault_get(d->vault, name, &len))
		return NULL;
	if (val && oxi_secret_resolve(d->vault, name, val, &src, why, n) < 0)
		return NULL;
	return "vault";
}
