/*
 * chopt.c - the channels' settings of two words (OXI_TELEGRAM_GROUPS,
 * OXI_DISCORD_GUILDS, ...), read alike by their receivers
 */
#include <string.h>

#include "oxi.h"
#include "channel/ch.h"

int
ch_choose(const char *name, const char *dflt, const char *const *words)
{
	const char *v = oxi_getenv(name);
	int i;

	if (!v)
		v = dflt;
	for (i = 0; words[i]; i++)
		if (strcmp(v, words[i]) == 0)
			return i;
	oxi_die(OXI_EX_USAGE, "%s must be %s or %s", name, words[0],
	    words[1]);
}
