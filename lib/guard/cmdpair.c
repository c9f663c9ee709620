/*
 * cmdpair.c - oxi-guard pairing: list, approve or revoke pairing requests
 */
#include "oxi.h"
#include "guard/guard.h"

/* not written yet: a usage error */
int
oxi_guard_pairing(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	oxi_usage(OXI_GUARD_PAIRING_USAGE);
}
