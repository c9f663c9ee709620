/*
 * filter.c - what the filter subcommands of oxi-guard share: the options
 * -v -d -l, the stage loop, SIGHUP reloads, and a downstream that goes
 * away (exit 111, never death by SIGPIPE)
 */
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"

static const struct oxi_guard_filter *cur;	/* the running filter */

static void
hup(struct oxi_stage *st)
{
	(void)st;
	cur->configure(1);
}

int
oxi_guard_filter(const struct oxi_guard_filter *f, int argc, char *argv[])
{
	struct oxi_stage stage;
	char opts[32] = "d:l:v";
	int c, dflag = -1, r;
	size_t lflag = 0, n;

	n = strlen(opts);
	if (f->opts && n + strlen(f->opts) < sizeof opts)
		memcpy(opts + n, f->opts, strlen(f->opts) + 1);
	while ((c = getopt(argc, argv, opts)) != -1)
		switch (c) {
		case 'd': dflag = oxi_fdarg(optarg); break;
		case 'l': lflag = oxi_sizearg(optarg, "maxline"); break;
		case 'v': oxi_verbose++; break;
		default:
			if (c == '?' || !f->opt || f->opt(c, optarg) < 0)
				oxi_usage(f->usage);
		}
	if (optind != argc)
		oxi_usage(f->usage);
	cur = f;
	oxi_stage_init(&stage, lflag, 1);
	stage.record = f->record;
	stage.hup = hup;
	stage.arg = f->arg;
	f->configure(0);
	r = oxi_stage_run(&stage, dflag);
	/* SIGTERM: the records already read are finished, nothing more */
	if (f->done)
		f->done();
	oxi_nd_free(&stage.in);
	return oxi_sig_term ? OXI_EX_OK : r;
}
