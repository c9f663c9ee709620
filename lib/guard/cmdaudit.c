/*
 * cmdaudit.c - oxi-guard audit: verify the hash-chained audit log
 */
#include "oxi.h"
#include "guard/guard.h"

/* not written yet: a usage error */
int
oxi_guard_audit(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	oxi_usage(OXI_GUARD_AUDIT_USAGE);
}
