/*
 * guard.h - the guard wing: senders, secrets, tool calls, the audit log
 */
#ifndef OXI_GUARD_H
#define OXI_GUARD_H

#include "oxi.h"

/*
 * The subcommands of oxi-guard (bin/oxi-guard.c dispatches, one line
 * each): argv[0] is the subcommand's name, options follow; each returns
 * the exit status or dies with its usage.
 */
#define OXI_GUARD_IN_USAGE	"oxi-guard in [-v] [-d fd] [-l maxline] " \
				"[-a allow] [-m maxbytes] [-o owners] " \
				"[-p dmpolicy] [-R rate] [-r rules] [-S self]"
#define OXI_GUARD_OUT_USAGE	"oxi-guard out [-v] [-d fd] [-l maxline] " \
				"[-s secrets] [-r rules] [-m maxbytes]"
#define OXI_GUARD_TOOL_USAGE	"oxi-guard tool [-v] [-d fd] [-l maxline] " \
				"[-p policy] -- command [arg ...]"
#define OXI_GUARD_PAIRING_USAGE	"oxi-guard pairing list | approve code | " \
				"revoke sender | invite [channel]"
#define OXI_GUARD_AUDIT_USAGE	"oxi-guard audit [-v] verify [file]"
int oxi_guard_in(int argc, char *argv[]);	/* cmdin.c */
int oxi_guard_out(int argc, char *argv[]);	/* cmdout.c */
int oxi_guard_tool(int argc, char *argv[]);	/* cmdtool.c */
int oxi_guard_pairing(int argc, char *argv[]);	/* cmdpair.c */
int oxi_guard_audit(int argc, char *argv[]);	/* cmdaudit.c */

/*
 * filter.c: a filter subcommand (in, out): -v, -d fd and -l maxline are
 * taken here, the letters of opts (getopt's form) by opt (-1: a usage
 * error); configure(0) once the options are read, configure(1) on
 * SIGHUP; record as the stage's (its stage's arg is arg); done after
 * the last record.  SIGPIPE is ignored: a reader that goes away ends the
 * filter with 111.  Returns the exit status.
 */
struct oxi_guard_filter {
	const char *usage;
	const char *opts;
	int (*opt)(int c, const char *arg);
	void (*configure)(int reload);
	void (*record)(struct oxi_stage *, jv rec);
	void (*done)(void);
	void *arg;
};
int oxi_guard_filter(const struct oxi_guard_filter *, int argc,
    char *argv[]);

/*
 * audit.c: the hash-chained audit log, shared by every guard (see the
 * file's head).  oxi_audit appends {"seq","ts","prog","event", the keys
 * of data (an object, consumed; strings cut at 2 KiB), "prev","hash"}:
 * 0, or -1 with errno (the caller fails closed).  Never put a secret or
 * a message's text in data: ids, names, verdicts, digests.
 */
const char *oxi_audit_path(void);	/* $OXI_AUDIT_LOG, else audit.log in
					 * the state directory; NULL, errno */
int oxi_audit(const char *event, jv data);
/* checks the log at path: each problem warned (line, seq, what), their
 * number returned, or -1 with errno if it cannot be read; *entries the
 * entries read */
long oxi_audit_verify(const char *path, size_t *entries);

/* allow.c: the sender allowlist (oxi-guard in) */
struct oxi_allow_ent {
	char *channel;		/* channel name, or NULL for any channel */
	char *from;		/* sender id, or NULL for any sender */
};
struct oxi_allow {
	struct oxi_allow_ent *v;	/* entries */
	size_t n;		/* entries used */
	size_t cap;		/* entries allocated */
	size_t nbad;		/* invalid entries skipped */
	char bad[64];		/* the first of them, cut short, for a warning */
};
#define OXI_ALLOW_INIT	{ .v = NULL, .n = 0, .cap = 0, .nbad = 0, .bad = "" }
/*
 * Adds the entries of s[0..len), separated by commas or white space.  An
 * entry is "*" (everyone), "CHANNEL:*", "CHANNEL:FROM", "*:FROM" or a bare
 * "FROM" (any channel); the first colon separates channel from sender.
 * With comments set, a word starting with '#' comments out the rest of
 * its line.  Invalid entries are counted in nbad and skipped.
 */
void oxi_allow_parse(struct oxi_allow *, const char *s, size_t len,
    int comments);
/* adds the entries of a file (with comments): 0, or -1 with errno */
int oxi_allow_load(struct oxi_allow *, const char *path);
/* 1 if some entry admits sender from (may be NULL) on channel, else 0 */
int oxi_allow_ok(const struct oxi_allow *, const char *channel,
    const char *from);
/* 2 if an entry names the sender, 1 if only a wildcard admits it, 0 */
int oxi_allow_match(const struct oxi_allow *, const char *channel,
    const char *from);
void oxi_allow_free(struct oxi_allow *);

/* redact.c: secret values, redaction and hold-back (oxi-guard out) */
#define OXI_SECRET_MIN	8	/* shorter values would redact words */
struct oxi_secret {
	char *s;		/* the value, NUL-terminated */
	size_t len;		/* its length */
};
struct oxi_secrets {
	struct oxi_secret *v;	/* values, longest first, no duplicates */
	size_t n;		/* values used */
	size_t cap;		/* values allocated */
	unsigned char first[256];	/* first bytes of the values */
};
#define OXI_SECRETS_INIT	{ .v = NULL, .n = 0, .cap = 0, .first = { 0 } }
/* adds a copy of s[0..len): 0, or 1 if shorter than OXI_SECRET_MIN */
int oxi_secrets_add(struct oxi_secrets *, const char *s, size_t len);
/*
 * Adds each line of a file (a final CR dropped, blank lines skipped) and
 * wipes the bytes read.  Values too short are counted in *nshort, the
 * first one's line number in *firstshort.  0, or -1 with errno.
 */
int oxi_secrets_load(struct oxi_secrets *, const char *path,
    size_t *nshort, unsigned long *firstshort);
/* wipes and frees every value; the set is empty and usable again */
void oxi_secrets_free(struct oxi_secrets *);
/*
 * Writes s[0..len) into out (reset first) with each occurrence of a
 * value replaced by "[REDACTED]", longest value first.  Returns the
 * number of replacements; out is untouched beyond the reset if 0.
 */
size_t oxi_redact(const struct oxi_secrets *, const char *s, size_t len,
    struct oxi_buf *out);

/*
 * fold.c: Unicode folding before matching, shared by in and out.
 * Invisible characters are stripped: tag characters (U+E0000-E007F),
 * zero-width characters, the soft hyphen, fillers, bidi controls,
 * stray variation selectors and C0/C1 controls but tab, CR and LF.
 * With no OXI_FOLD_* option the rest is copied (the hygiene: a ZWJ
 * inside an emoji sequence, a ZWNJ or ZWJ in the scripts that need
 * them, one variation selector after its character and the tags of a
 * flag emoji are kept and not flagged).  With any of them, every
 * invisible character goes and the options fold the rest for matching.
 */
#define OXI_FOLD_SPACE	0x01	/* Unicode spaces to ' ', separators to LF */
#define OXI_FOLD_WIDTH	0x02	/* NFKC compatibility forms (fullwidth,
				 * mathematical, circled, ligatures) */
#define OXI_FOLD_CONFUSE 0x04	/* lookalikes of other scripts, letters
				 * with diacritics and punctuation
				 * lookalikes to ASCII; combining marks
				 * dropped */
#define OXI_FOLD_LOWER	0x08	/* case folded (ASCII, Latin-1, Greek,
				 * Cyrillic, Armenian) */
#define OXI_FOLD_MAP	0x10	/* fill map */
#define OXI_FOLD_MATCH	0x0f	/* all of the folding */

/* what oxi_fold found (struct oxi_fold.found) */
#define OXI_FOUND_TAG	0x01	/* tag characters */
#define OXI_FOUND_ZW	0x02	/* zero-width, soft hyphen, fillers */
#define OXI_FOUND_BIDI	0x04	/* bidi controls and marks */
#define OXI_FOUND_CTRL	0x08	/* C0 or C1 controls */
#define OXI_FOUND_VS	0x10	/* variation selectors not after a character */
#define OXI_FOUND_MIXED	0x20	/* a word mixing Latin letters and
				 * lookalikes of another script */
#define OXI_FOUND_COMPAT 0x40	/* letters in compatibility forms */
#define OXI_FOUND_BADUTF8 0x80	/* ill-formed UTF-8 (U+FFFD, or '?') */
#define OXI_FOUND_HIDDEN 0x1f	/* what was stripped */

struct oxi_fold {
	struct oxi_buf out;	/* the folded text, NUL-terminated */
	size_t *map;		/* OXI_FOLD_MAP: map[i] is the offset in the
				 * input of the character out.s[i] came from;
				 * map[out.len] is the input's length */
	size_t mapcap;		/* entries allocated */
	struct oxi_buf hidden;	/* ASCII spelled by tag characters and the
				 * bytes spelled by variation selectors,
				 * each run on a line of its own */
	unsigned found;		/* OXI_FOUND_* */
	size_t nstrip;		/* invisible characters stripped */
};
#define OXI_FOLD_INIT	{ .out = OXI_BUF_INIT, .map = NULL, .mapcap = 0, \
	.hidden = OXI_BUF_INIT, .found = 0, .nstrip = 0 }
/* folds s[0..len) into f (reset first) per opts; returns f->found */
unsigned oxi_fold(struct oxi_fold *f, const char *s, size_t len,
    unsigned opts);
/* folds one code point per opts into buf[0..4]: the length (0 when
 * dropped), or -1 when it stays as it is */
int oxi_fold_cp(unsigned long cp, unsigned opts, char buf[5]);
/* the UTF-8 of cp (at most U+10FFFF) into b[0..4): its length */
size_t oxi_fold_utf8(unsigned long cp, char *b);
/* words of flags: "tag zero-width bidi ..." into out (appended) */
void oxi_fold_names(unsigned found, struct oxi_buf *out);
void oxi_fold_free(struct oxi_fold *);

/*
 * inject.c: prompt-injection rules (oxi-guard in), from rule files
 * ("ID warn|block PATTERN" lines, PCRE2 compiled with the JIT), matched
 * on the folded text and on what it decodes to.
 */
#define OXI_RULE_ID	48	/* bytes of a rule id, with the NUL */
#define OXI_SCAN_HITS	8	/* rules noted per text */
#define OXI_INJ_ERROR	(-1)	/* a limit or an error: fail closed */
#define OXI_INJ_CLEAN	0
#define OXI_INJ_WARN	1
#define OXI_INJ_BLOCK	2
struct oxi_rules;
struct oxi_scan {
	int verdict;		/* OXI_INJ_* */
	unsigned found;		/* oxi_fold's flags for the text */
	size_t nhits;		/* rules that matched */
	struct {
		const char *rule;	/* its id (the rule set's memory) */
		const char *via;	/* "" or the variant: "base64", ... */
	} hits[OXI_SCAN_HITS];
	char error[160];	/* OXI_INJ_ERROR: why */
};
struct oxi_rules *oxi_rules_new(void);
/* adds the rules of a file, or of the *.rules files of a directory in
 * name order: 0, or -1 with a message appended to err */
int oxi_rules_load(struct oxi_rules *, const char *path,
    struct oxi_buf *err);
size_t oxi_rules_count(const struct oxi_rules *);
/* scans s[0..len) into *sc: the verdict (OXI_INJ_*) */
int oxi_inject_scan(struct oxi_rules *, const char *s, size_t len,
    struct oxi_scan *sc);
void oxi_rules_free(struct oxi_rules *);

/* foldtab.c: generated by mkfoldtab.py; rows sorted by lo */
struct oxi_foldrow {
	unsigned long lo;	/* first code point */
	unsigned short n;	/* code points after the first */
	unsigned char step;	/* 1: lo + i to to[0] + i; 0: all to to */
	char cls;		/* W compat, D diacritic, H lookalike,
				 * P punctuation, S space */
	char to[5];		/* ASCII, NUL-terminated */
};
extern const struct oxi_foldrow oxi_foldtab[];
extern const size_t oxi_foldtab_len;

#endif
