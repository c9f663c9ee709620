/*
 * dsys.c - the doctor's system checks: the sandbox runs a command here,
 * plugins and MCP servers are trusted and unchanged (as oxi-tool finds
 * them), the service tree's stages are up and ready, and the libraries
 * found at run time are no older than those built against
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <microhttpd.h>
#include <sodium.h>
#include <sqlite3.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "oxi.h"
#include "doctor/check.h"
#include "sandbox/sandbox.h"

void
oxi_doc_sandbox(struct oxi_doc *d)
{
	const char *m = oxi_sbx_mechanism();
	char *const argv[] = { "true", NULL };
	char dir[] = "/tmp/oxi-doctor.XXXXXX", why[300];
	struct oxi_sbx s = OXI_SBX_INIT;
	pid_t pid;
	int code;

	if (strcmp(m, "none") == 0 || strcmp(m, "unsafe") == 0) {
		oxi_doc_say(d, "sandbox", strcmp(m, "none") == 0 ?
		    OXI_DOC_ERROR : OXI_DOC_WARN, "install bubblewrap, or"
		    " allow unprivileged user namespaces (Landlock needs Linux"
		    " 5.13)", "no sandbox mechanism works here%s",
		    *m == 'n' ? ": oxi-tool runs no command" : ": commands run"
		    " unconfined (unsafe mode)");
		return;
	}
	if (!mkdtemp(dir)) {
		oxi_doc_say(d, "sandbox", OXI_DOC_ERROR, "check /tmp", "unable"
		    " to make a directory to try the sandbox in");
		return;
	}
	s.workspace = dir;
	s.timeout_ms = 10000;
	if ((pid = oxi_sbx_spawn(&s, argv, NULL, NULL, NULL, why,
	    sizeof why)) < 0)
		oxi_doc_say(d, "sandbox", OXI_DOC_ERROR, "run oxi-tool -v and"
		    " read why", "%s was chosen but cannot start a command:"
		    " %s", m, why);
	else if ((code = oxi_sbx_wait(pid)) != 0)
		oxi_doc_say(d, "sandbox", OXI_DOC_ERROR, "run oxi-tool -v and"
		    " read why", "%s was chosen but a command in it failed"
		    " (exit %d)", m, code);
	else
		oxi_doc_say(d, "sandbox", OXI_DOC_OK, NULL, "%s runs commands"
		    " here", m);
	rmdir(dir);
}

void
oxi_doc_plugins(struct oxi_doc *d)
{
	const char *args[] = { "--list", NULL };
	struct oxi_buf out = OXI_BUF_INIT;
	char line[512];
	int code;

	code = oxi_doc_cmd("oxi-tool", args, 60, NULL, NULL, &out);
	oxi_doc_lastline(&out, line, sizeof line);
	if (code != 0)
		oxi_doc_say(d, "plugins", OXI_DOC_ERROR, "run oxi-tool --list"
		    " and read why", "oxi-tool --list failed (exit %d): %s",
		    code, line);
	else if (out.s && (strstr(out.s, "is not trusted") ||
	    strstr(out.s, "trust file") || strstr(out.s, "cannot be found"
	    " or read")))
		oxi_doc_say(d, "plugins", OXI_DOC_ERROR, "check it, then"
		    " oxi-tool trust NAME", "%s", line);
	else
		oxi_doc_say(d, "plugins", OXI_DOC_OK, NULL, "every plugin and"
		    " MCP server found is trusted and unchanged");
	oxi_buf_free(&out);
}

void
oxi_doc_services(struct oxi_doc *d)
{
	static const char *const stages[] = { "fifos", "recv", "guard-in",
		"loop", "guard-out", "send", "llm", "tool", NULL };
	char path[PATH_MAX], fix[2 * PATH_MAX + 80], f[PATH_MAX + 32];
	struct oxi_buf out = OXI_BUF_INIT;
	const char *args[5];
	int i, s6, bad = 0, code;

	if (!d->svc) {
		oxi_doc_say(d, "services", OXI_DOC_SKIP, NULL, "no service"
		    " tree named (oxi-doctor -s DIR)");
		return;
	}
	snprintf(f, sizeof f, "%s/loop/notification-fd", d->svc);
	s6 = access(f, F_OK) == 0;
	for (i = 0; stages[i] && !bad; i++) {
		snprintf(path, sizeof path, "%s/%s", d->svc, stages[i]);
		snprintf(f, sizeof f, "%s/run", path);
		if (access(f, F_OK) < 0) {
			oxi_doc_say(d, "services", OXI_DOC_ERROR, "write the"
			    " tree with oxi-svc", "'%s' is not a stage of a"
			    " service tree", path);
			return;
		}
		oxi_buf_reset(&out);
		if (s6) {
			args[0] = "-o";
			args[1] = "up,ready";
			args[2] = path;
			args[3] = NULL;
			code = oxi_doc_cmd("s6-svstat", args, 10, NULL, NULL,
			    &out);
		} else {
			args[0] = "status";
			args[1] = path;
			args[2] = NULL;
			code = oxi_doc_cmd("sv", args, 10, NULL, NULL, &out);
		}
		snprintf(fix, sizeof fix, "start the tree (%s %s), else read"
		    " %s/log/main/current", s6 ? "s6-svscan" : "runsvdir",
		    d->svc, path);
		if (code != 0) {
			oxi_doc_say(d, "services", OXI_DOC_ERROR, fix, "the"
			    " stage %s is not supervised (the tree is not"
			    " running)", stages[i]);
			bad = 1;
		} else if (s6 ? strncmp(out.s, "true ", 5) != 0 :
		    strncmp(out.s, "run:", 4) != 0) {
			oxi_doc_say(d, "services", OXI_DOC_ERROR, fix, "the"
			    " stage %s is down", stages[i]);
			bad = 1;
		} else if (s6 && strcmp(stages[i], "fifos") != 0 &&
		    strncmp(out.s, "true true", 9) != 0) {
			oxi_doc_say(d, "services", OXI_DOC_WARN, fix, "the"
			    " stage %s is up but not ready", stages[i]);
			bad = 1;
		}
	}
	if (!bad)
		oxi_doc_say(d, "services", OXI_DOC_OK, NULL, "every stage of"
		    " '%s' is up%s", d->svc, s6 ? " and ready" : "");
	oxi_buf_free(&out);
}

/* a.b.c as one number, for versions given only as strings */
static unsigned long
vnum(const char *s)
{
	unsigned long v = 0, part;
	int i;
	char *e;

	for (i = 0; i < 3; i++) {
		part = s && *s ? strtoul(s, &e, 10) : 0;
		v = v * 1000 + part;
		s = s && *e == '.' ? e + 1 : NULL;
	}
	return v;
}

void
oxi_doc_libs(struct oxi_doc *d)
{
	const curl_version_info_data *c = curl_version_info(CURLVERSION_NOW);
	char pcre[64] = "?", old[300] = "";
	size_t o;

	pcre2_config(PCRE2_CONFIG_VERSION, pcre);
/* MHD_VERSION 0x00097500 is 0.9.75: a byte's hex digits read as decimal */
#define BCD(b)	((unsigned long)((b) >> 4 & 0xf) * 10 + ((b) & 0xf))
#define OLDER(name, run, built) do {					\
	if ((run) < (built) && (o = strlen(old)) < sizeof old - 80)	\
		snprintf(old + o, sizeof old - o, "%s%s", o ? ", " : "",	\
		    name);						\
} while (0)
	OLDER("SQLite", (unsigned long)sqlite3_libversion_number(),
	    (unsigned long)SQLITE_VERSION_NUMBER);
	OLDER("libcurl", (unsigned long)c->version_num,
	    (unsigned long)LIBCURL_VERSION_NUM);
	OLDER("libsodium", (unsigned long)sodium_library_version_major() *
	    1000 + sodium_library_version_minor(),
	    (unsigned long)SODIUM_LIBRARY_VERSION_MAJOR * 1000 +
	    SODIUM_LIBRARY_VERSION_MINOR);
	OLDER("PCRE2", vnum(pcre), (unsigned long)PCRE2_MAJOR * 1000000 +
	    PCRE2_MINOR * 1000);
	OLDER("libmicrohttpd", vnum(MHD_get_version()),
	    BCD(MHD_VERSION >> 24) * 1000000UL + BCD(MHD_VERSION >> 16) *
	    1000UL + BCD(MHD_VERSION >> 8));
#undef OLDER
#undef BCD
	if (*old)
		oxi_doc_say(d, "libraries", OXI_DOC_ERROR, "install the"
		    " libraries built against (make deps), or rebuild",
		    "older at run time than built against: %s (SQLite %s,"
		    " libcurl %s, libsodium %s)", old, sqlite3_libversion(),
		    c->version, sodium_version_string());
	else
		oxi_doc_say(d, "libraries", OXI_DOC_OK, NULL, "SQLite %s,"
		    " libcurl %s, libsodium %s, PCRE2 %.20s,"
		    " libmicrohttpd %s", sqlite3_libversion(), c->version,
		    sodium_version_string(), pcre, MHD_get_version());
}
