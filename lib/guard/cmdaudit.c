/*
 * cmdaudit.c - oxi-guard audit verify [file]: checks the hash chain of
 * the audit log (audit.c) and names each entry edited, removed or moved
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"

int
oxi_guard_audit(int argc, char *argv[])
{
	const char *path;
	size_t n;
	long bad;
	int c;

	while ((c = getopt(argc, argv, "v")) != -1)
		switch (c) {
		case 'v': oxi_verbose++; break;
		default: oxi_usage(OXI_GUARD_AUDIT_USAGE);
		}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc > 2 || strcmp(argv[0], "verify") != 0)
		oxi_usage(OXI_GUARD_AUDIT_USAGE);
	if (argc == 2)
		path = argv[1];
	else if (!(path = oxi_audit_path()))
		oxi_diesys(OXI_EX_USAGE, "unable to find the state directory");
	if ((bad = oxi_audit_verify(path, &n)) < 0)
		oxi_diesys(errno == ENOENT ? OXI_EX_USAGE : OXI_EX_TEMP,
		    "unable to read audit log '%s'", path);
	if (bad > 0) {
		printf("%s: %zu entr%s, %ld problem%s\n", path, n,
		    n == 1 ? "y" : "ies", bad, bad == 1 ? "" : "s");
		oxi_fshut(stdout, "stdout");
		return OXI_EX_FALSE;
	}
	printf("%s: %zu entr%s, the chain is whole\n", path, n,
	    n == 1 ? "y" : "ies");
	oxi_fshut(stdout, "stdout");
	return OXI_EX_OK;
}
