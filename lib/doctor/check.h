/*
 * check.h - the doctor's pieces, shared by the files of lib/doctor/ only:
 * the line of a check, the commands it runs, the secrets it looks for
 */
#ifndef OXI_DOCTOR_CHECK_H
#define OXI_DOCTOR_CHECK_H

#include "doctor/doctor.h"

/* adds the line of check at level, with fix (NULL: none) */
void oxi_doc_say(struct oxi_doc *, const char *check, int level,
    const char *fix, const char *fmt, ...) OXI_PRINTF(5, 6);
/*
 * Runs the oxi command name (beside oxi-doctor, else on PATH) with args
 * (NULL-ended), stdin /dev/null, stdout and stderr into out, killed
 * after secs; the variable setname=setval added to its environment when
 * setname is set (a secret, never written anywhere else).  Returns its
 * exit code, or -1 if it could not start.
 */
int oxi_doc_cmd(const char *name, const char *const args[], int secs,
    const char *setname, const char *setval, struct oxi_buf *out);
/* the last line of out that says "fatal:" or "warning:", less the
 * "prog: level: " lead, cut to fit; else its last line */
void oxi_doc_lastline(const struct oxi_buf *out, char *buf, size_t n);
/*
 * Where the secret name is: "environment", "helper", "vault", or NULL
 * (then *why, if not empty, says why the vault could not be looked in).
 * With val, its value (sodium memory, freed with oxi_secret_free) when
 * it can be had without asking anyone: the environment or the vault;
 * a helper is run only online.
 */
struct oxi_secret_buf;
const char *oxi_doc_secret(struct oxi_doc *, const char *name,
    struct oxi_secret_buf *val, char *why, size_t n);

/* dmodel.c */
void oxi_doc_model(struct oxi_doc *);		/* the model and its key */
void oxi_doc_prices(struct oxi_doc *);		/* prices and budgets */
/* dchan.c */
void oxi_doc_channels(struct oxi_doc *);	/* each channel's token */
/* dfiles.c */
void oxi_doc_perms(struct oxi_doc *);		/* config, state, vault */
void oxi_doc_workspace(struct oxi_doc *);	/* not over them */
void oxi_doc_dead(struct oxi_doc *);		/* dead letters waiting */
void oxi_doc_disk(struct oxi_doc *);		/* room for the databases */
/* dsys.c */
void oxi_doc_sandbox(struct oxi_doc *);		/* it works here */
void oxi_doc_plugins(struct oxi_doc *);		/* trusted, unchanged */
void oxi_doc_services(struct oxi_doc *);	/* the tree's stages */
void oxi_doc_libs(struct oxi_doc *);		/* library versions */

#endif
