/*
 * oxi-doctor - says what is wrong with this oxi, one line a check, each
 * with a fix
 *
 * checks the model and its key, every configured channel's token, the
 * sandbox, the price table and budgets, the modes of the configuration,
 * the state and the vault, the workspace, plugins and MCP servers, a
 * service tree's stages, dead letters, disk space and the libraries
 * (lib/doctor/).  With --online it makes cheap real calls: one short
 * answer from the model, Telegram's getMe.  It changes nothing.
 * exit: 0 all is well, 1 warnings, 100 errors (or usage).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "doctor/doctor.h"

#define USAGE "oxi-doctor [-jo] [-m model] [-s servicedir]"

static const struct option longopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "online", no_argument, NULL, 'o' },
	{ "model", required_argument, NULL, 'm' },
	{ "service", required_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 }
};

/* one line of text: "error  prices: ... (fix: ...)" */
static void
text(const struct oxi_doc_res *r)
{
	printf("%-5s %s: %s", oxi_doc_level(r->level), r->check, r->msg);
	if (*r->fix && r->level >= OXI_DOC_WARN)
		printf(" (fix: %s)", r->fix);
	putchar('\n');
}

/* one record: {"type":"doctor.check","check","status","message","fix"} */
static void
json(const struct oxi_doc_res *r)
{
	jv rec = jv_object();

	rec = jv_object_set(rec, jv_string("type"),
	    jv_string("doctor.check"));
	rec = jv_object_set(rec, jv_string("check"), jv_string(r->check));
	rec = jv_object_set(rec, jv_string("status"),
	    jv_string(oxi_doc_level(r->level)));
	rec = jv_object_set(rec, jv_string("message"), jv_string(r->msg));
	rec = jv_object_set(rec, jv_string("fix"), *r->fix ?
	    jv_string(r->fix) : jv_null());
	fflush(stdout);
	oxi_nd_out(rec);
}

int
main(int argc, char *argv[])
{
	struct oxi_doc d = OXI_DOC_INIT;
	size_t i;
	int c, jflag = 0, status;

	oxi_prog = "oxi-doctor";
	oxi_std_opts(argc, argv, USAGE);
	while ((c = getopt_long(argc, argv, "jm:os:", longopts, NULL)) != -1)
		switch (c) {
		case 'j': jflag = 1; break;
		case 'm': d.model = optarg; break;
		case 'o': d.online = 1; break;
		case 's': d.svc = optarg; break;
		default: oxi_usage(USAGE);
		}
	if (optind != argc)
		oxi_usage(USAGE);
	oxi_doctor_run(&d);
	for (i = 0; i < d.n; i++)
		jflag ? json(&d.v[i]) : text(&d.v[i]);
	status = oxi_doctor_status(&d);
	if (jflag) {
		jv rec = jv_object_set(jv_object(), jv_string("type"),
		    jv_string("doctor.status"));

		rec = jv_object_set(rec, jv_string("exit"),
		    jv_number(status));
		oxi_nd_out(rec);
	}
	oxi_doctor_free(&d);
	oxi_fshut(stdout, "stdout");
	return status;
}
