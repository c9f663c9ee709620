/*
 * doctor.h - the doctor wing's face, what bin/oxi-doctor.c uses: the
 * checks, each one line with its level and a fix, and their verdict
 *
 * The doctor sits above every other wing: it looks at the model and its
 * prices through llm/, the tools' trust through oxi-tool, the sandbox
 * through sandbox/, the channels' tokens through net/, the vault through
 * vault/.  It reads and reports; it changes nothing.
 */
#ifndef OXI_DOCTOR_H
#define OXI_DOCTOR_H

#include "oxi.h"

enum { OXI_DOC_OK, OXI_DOC_SKIP, OXI_DOC_WARN, OXI_DOC_ERROR };

/* one check's line */
struct oxi_doc_res {
	char check[16];		/* "model", "telegram", "disk", ... */
	int level;		/* OXI_DOC_* */
	char msg[512];		/* what was found; never a secret */
	char fix[400];		/* what to do, or "" */
};

struct oxi_vault;
struct oxi_doc {
	int online;		/* --online: cheap real calls */
	const char *svc;	/* -s: a service tree (oxi-svc), or NULL */
	const char *model;	/* -m, else OXI_MODEL, else the default */
	struct oxi_doc_res *v;	/* the lines, in the order found */
	size_t n, cap;
	struct oxi_vault *vault;	/* opened when a key needs it */
	int vtried;		/* an open was tried */
};
#define OXI_DOC_INIT	{ 0, NULL, NULL, NULL, 0, 0, NULL, 0 }

/* runs every check in order, each adding its line to d */
void oxi_doctor_run(struct oxi_doc *d);
/* 0 when every line is ok or skipped, 1 with warnings, 100 with errors */
int oxi_doctor_status(const struct oxi_doc *d);
/* "ok", "skip", "warn", "error" */
const char *oxi_doc_level(int level);
void oxi_doctor_free(struct oxi_doc *d);

#endif
