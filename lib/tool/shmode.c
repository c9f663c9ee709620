/*
 * shmode.c - the shell tool's mode, from $OXI_SHELL_POLICY, and its
 * limits, from $OXI_SHELL_LIMITS
 *
 * "sandbox" (or unset: the default) runs the command line with
 * /bin/sh -c inside the sandbox, which is the boundary.  "strict", and
 * its two flavours "allowlist" (the same) and "denylist", split the line
 * into words and judge them by the argv policy of shpolicy.c.  Strict is
 * forced when no sandbox mechanism works and unsafe mode would run the
 * shell unconfined; that is said once, in one warning.  The limits are
 * "key=value" entries separated by commas or spaces: the rlimits of the
 * sandbox (shell.c) and disk=, the disk one call may take (disk.c).
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "tool/tool.h"

int
oxi_shell_mode(void)
{
	static int warned;
	const char *v = oxi_getenv("OXI_SHELL_POLICY");

	if (v && strcmp(v, "sandbox") != 0) {
		if (strcmp(v, "strict") == 0 || strcmp(v, "allowlist") == 0 ||
		    strcmp(v, "denylist") == 0)
			return OXI_SHELL_STRICT;
		if (!warned++)
			oxi_warn("shell: unknown OXI_SHELL_POLICY '%.32s': the "
			    "shell tool refuses every command", v);
		return -1;
	}
	if (oxi_sbx_confined())
		return OXI_SHELL_SANDBOX;
	if (!warned++)
		oxi_warn("shell: no sandbox works and unsafe mode is on: the "
		    "shell tool runs no shell, under the strict policy");
	return OXI_SHELL_STRICT;
}

long
oxi_shell_limit(const char *key)
{
	const char *p = oxi_getenv("OXI_SHELL_LIMITS"), *eq;
	size_t k, n = strlen(key);
	long v, r = 0;

	for (; p && *p; p += k) {
		p += strspn(p, ", \t");
		k = strcspn(p, ", \t");
		if (!(eq = memchr(p, '=', k)) || (size_t)(eq - p) != n ||
		    strncmp(p, key, n) != 0)
			continue;
		v = atol(eq + 1);
		if (v == 0 && eq[1] != '0')
			continue;
		r = v <= 0 ? -1 : v;	/* 0 or less: no limit; the last wins */
	}
	return r;
}
