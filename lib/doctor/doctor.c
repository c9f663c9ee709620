/*
 * doctor.c - the checks, in the order their lines are shown (each check
 * is in the file named in check.h; what they share is dline.c)
 */
#include "oxi.h"
#include "doctor/check.h"

void
oxi_doctor_run(struct oxi_doc *d)
{
	oxi_doc_model(d);
	oxi_doc_prices(d);
	oxi_doc_channels(d);
	oxi_doc_sandbox(d);
	oxi_doc_perms(d);
	oxi_doc_workspace(d);
	oxi_doc_plugins(d);
	oxi_doc_services(d);
	oxi_doc_dead(d);
	oxi_doc_disk(d);
	oxi_doc_libs(d);
}
