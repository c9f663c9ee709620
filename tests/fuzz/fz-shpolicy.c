/*
 * fz-shpolicy.c - the shell tool's command line and policy
 * (tool/shpolicy.c), what every shell call of a model passes: a line
 * that splits has no NUL in it, a verdict is one of three with a reason
 * unless it is ALLOW, a command that runs was found at an absolute path,
 * and its approval line is one JSON object.  The line is handed with a
 * NUL after it, as shell.c hands a jv string (oxi_sh_parse looks for a
 * NUL inside with strlen)
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "tool/tool.h"
#if defined(__has_include)
#if __has_include("tool/tooldef.h")
#include "tool/tooldef.h"	/* the shell policy, if it moves there */
#endif
#endif
#include "fz.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	unsetenv("OXI_SHELL_POLICY");
	unsetenv("OXI_SHELL_ALLOW");
	unsetenv("OXI_SHELL_DENY");
	unsetenv("OXI_SANDBOX_ENV");
	setenv("PATH", "/usr/bin:/bin", 1);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct oxi_sh sh = OXI_SH_INIT;
	char *s, *line;
	jv v;
	int i, verdict;

	s = malloc(n + 1);
	memcpy(s, d, n);
	s[n] = '\0';
	if (oxi_sh_parse(&sh, s, n) < 0) {
		FZ_CHECK(sh.verdict == OXI_SH_DENY && sh.why[0] != '\0',
		    "a line refused without DENY and a reason");
		oxi_sh_free(&sh);
		free(s);
		return 0;
	}
	FZ_CHECK(memchr(s, '\0', n) == NULL, "a line with a NUL splits");
	FZ_CHECK(sh.argc > 0 && sh.argv && sh.argv[sh.argc] == NULL,
	    "words not NULL-terminated");
	for (i = 0; i < sh.argc; i++)
		FZ_CHECK(sh.argv[i] != NULL, "a NULL word");
	verdict = oxi_sh_check(&sh);
	FZ_CHECK(verdict == sh.verdict, "two verdicts");
	FZ_CHECK(verdict == OXI_SH_ALLOW || verdict == OXI_SH_ASK ||
	    verdict == OXI_SH_DENY, "a verdict out of range");
	FZ_CHECK(verdict == OXI_SH_ALLOW || sh.why[0] != '\0',
	    "held or refused without a reason");
	FZ_CHECK(verdict != OXI_SH_ALLOW ||
	    (sh.exe && sh.exe[0] == '/' && sh.real && sh.real[0] == '/'),
	    "a command runs that was not found at an absolute path");
	if (sh.real) {
		line = oxi_sh_approval(&sh, ".");
		FZ_CHECK(line != NULL, "no approval line");
		v = oxi_json_parse(line, strlen(line));
		FZ_CHECK(jv_get_kind(v) == JV_KIND_OBJECT,
		    "an approval line that is not a JSON object");
		jv_free(v);
		free(line);
	}
	oxi_sh_free(&sh);
	free(s);
	return 0;
}
