/*
 * leak.h - the leak scanner of oxi-guard out, shared by its files only
 * (decode.c known.c srule.c leak.c canary.c cmdout.c) and tests/unit
 *
 * A text is scanned through views of it: the text folded (fold.c), each
 * layer of what it encodes decoded (decode.c), and for the rules its
 * reversal, its ROT13 and its letters spaced apart joined.  Every byte
 * of a view knows the span of the original text it stands for, so that
 * a finding anywhere is redacted where it came from.
 */
#ifndef OXI_LEAK_H
#define OXI_LEAK_H

#include <stdint.h>

#include "oxi.h"

/* view.c and decode.c: views, and the decoders */
#define OXI_DEC_B64	0x01	/* base64, standard or URL-safe, wrapped */
#define OXI_DEC_HEX	0x02	/* hex, bare or with separators, \x, 0x */
#define OXI_DEC_PCT	0x04	/* percent-encoding */
#define OXI_DEC_ESC	0x08	/* \uXXXX \u{X} \UXXXXXXXX \xHH U+XXXX */
#define OXI_DEC_HTML	0x10	/* HTML entities, &#N; &#xH; &name; */
#define OXI_DEC_ALL	0x1f
#define OXI_DEC_DEPTH	10	/* layers decoded at most */

struct oxi_view {
	struct oxi_buf b;	/* the bytes, NUL-terminated */
	uint32_t *lo, *hi;	/* byte i stands for original [lo[i], hi[i]) */
	size_t cap;		/* entries of lo and hi allocated */
	unsigned how;		/* OXI_DEC_* that made it, over all layers */
	int depth;		/* layers decoded */
	size_t *chg;		/* decoding: the bytes it wrote, as pairs
				 * [start, end) in order */
	size_t nchg, capchg;	/* entries used, allocated */
};
#define OXI_VIEW_INIT	{ .b = OXI_BUF_INIT, .lo = NULL, .hi = NULL, \
	.cap = 0, .how = 0, .depth = 0, .chg = NULL, .nchg = 0, .capchg = 0 }
/*
 * What a decoded layer needs scanning again: its decoded runs with ctx
 * bytes either side, each window apart from the next by a NUL (which no
 * match and no piece of a secret crosses), or the whole when they cover
 * most of it.
 */
void oxi_view_window(const struct oxi_view *in, struct oxi_view *out,
    size_t ctx);
/* the span of the original that bytes [a, b) of v stand for (a view may
 * run backwards) */
static inline void
oxi_view_span(const struct oxi_view *v, size_t a, size_t b, uint32_t *lo,
    uint32_t *hi)
{
	if (!v->lo) {
		*lo = (uint32_t)a;
		*hi = (uint32_t)b;
		return;
	}
	*lo = v->lo[a] < v->lo[b - 1] ? v->lo[a] : v->lo[b - 1];
	*hi = v->hi[a] > v->hi[b - 1] ? v->hi[a] : v->hi[b - 1];
}
/* view.c: the building of views, for decode.c: room for extra bytes,
 * bytes that stand for [lo, hi), bytes [i, j) of another view with their
 * spans, an empty view to fill from another (its how and depth) */
void oxi_view_need(struct oxi_view *, size_t extra);
void oxi_view_put(struct oxi_view *, const void *s, size_t n, uint32_t lo,
    uint32_t hi);
void oxi_view_copy(struct oxi_view *, const struct oxi_view *in, size_t i,
    size_t j);
void oxi_view_start(struct oxi_view *out, const struct oxi_view *in);
/* the original text: each byte stands for itself (no lo and hi) */
void oxi_view_root(struct oxi_view *, const char *s, size_t n);
/* out = in folded for matching (no case folding): 0, or -1 */
int oxi_view_fold(const struct oxi_view *in, struct oxi_view *out);
/* one layer of in decoded into out: the decoders that changed something */
unsigned oxi_view_decode(const struct oxi_view *in, struct oxi_view *out,
    unsigned which);
/* the next layer: every decoder; a run an escape touches waits for the
 * layer after, where it is whole */
unsigned oxi_view_decode_next(const struct oxi_view *in, struct oxi_view *out);
/* the reversal (by characters), the ROT13, the spaced letters joined:
 * 1 if out differs from in, else 0 */
int oxi_view_reverse(const struct oxi_view *in, struct oxi_view *out);
int oxi_view_rot13(const struct oxi_view *in, struct oxi_view *out);
int oxi_view_join(const struct oxi_view *in, struct oxi_view *out);
void oxi_view_free(struct oxi_view *);
/* s[0..n) decoded to the end, up to maxdepth layers, into out (reset) */
int oxi_decode_all(const char *s, size_t n, struct oxi_buf *out,
    int maxdepth);

/* a finding: a span of the original text and what it is */
enum { OXI_HIT_SECRET, OXI_HIT_RULE, OXI_HIT_CANARY };
struct oxi_hit {
	uint32_t lo, hi;	/* the original's bytes [lo, hi) */
	int kind;		/* OXI_HIT_* */
	int idx;		/* the value or the rule */
	int depth;		/* layers decoded to find it */
	uint32_t vlo, vhi;	/* where in the view it was found */
};
struct oxi_hits {
	struct oxi_hit *v;
	size_t n, cap;
};
#define OXI_HITS_INIT	{ .v = NULL, .n = 0, .cap = 0 }
void oxi_hits_add(struct oxi_hits *, const struct oxi_hit *);
void oxi_hits_free(struct oxi_hits *);

/* known.c: values known in advance (secrets, canaries), found by their
 * letters and digits in any case, forwards, backwards or in ROT13, whole
 * or by more than half, or by pieces that together cover that much */
struct oxi_known;
struct oxi_known *oxi_known_new(void);
/* adds a value (kind OXI_HIT_SECRET or OXI_HIT_CANARY): its index, or -1
 * if it has too few letters and digits to be found safely */
int oxi_known_add(struct oxi_known *, const char *s, size_t n, int kind);
size_t oxi_known_count(const struct oxi_known *);
/* the longest value, in bytes */
size_t oxi_known_maxlen(const struct oxi_known *);
/*
 * What of the values one reply has shown so far: pieces shown in earlier
 * texts of a reply count towards the share that may not be shown.
 */
struct oxi_shown;
struct oxi_shown *oxi_shown_new(const struct oxi_known *);
void oxi_shown_free(struct oxi_shown *);
void oxi_known_free(struct oxi_known *);

/* one text scanned for the known values, view after view */
struct oxi_piece {
	uint32_t lo, hi;	/* the original's bytes */
	uint32_t val;		/* the value */
	int view;		/* the view it was found in */
	int depth;		/* that view's decoding depth */
	int hit;		/* judged a leak */
};
struct oxi_kscan {
	const struct oxi_known *k;
	const struct oxi_shown *shown;	/* the reply's, or NULL */
	struct oxi_piece *v;	/* the pieces found */
	size_t n, cap;
	unsigned char **cov;	/* per value: the letters found */
	size_t *longest;	/* per value: the longest piece */
	int views;		/* views scanned */
};
void oxi_kscan_init(struct oxi_kscan *, const struct oxi_known *,
    const struct oxi_shown *);
/* the pieces in a view, for one set and another (or NULL): 0, or -1
 * when there are too many to judge */
int oxi_kscan_view(struct oxi_kscan *, struct oxi_kscan *,
    const struct oxi_view *);
/* judges the pieces; those that leak are added to hits */
void oxi_kscan_done(struct oxi_kscan *, struct oxi_hits *);
/* what the text showed before the original's offset cut is now shown */
void oxi_kscan_note(const struct oxi_kscan *, struct oxi_shown *,
    uint32_t cut);
void oxi_kscan_free(struct oxi_kscan *);

/* redact.c: where the configuration of out comes from */
/*
 * The rules file: rflag (-r), $OXI_SECRET_RULES, else "secrets" in
 * $OXI_SHARE_DIR, in ../share/oxi beside the binary (a build tree), or in
 * the installed data directory; NULL for "none" or "".  Static.
 */
const char *oxi_srules_path(const char *rflag);
/*
 * The secret set from the file sflag (-s) or $OXI_SECRETS_FILE, plus the
 * variables named in $OXI_REDACT_ENV.  A file it cannot read is fatal at
 * start-up; on reload, -1 after a warning, with *sec emptied.
 */
int oxi_secrets_config(struct oxi_secrets *, const char *sflag,
    int reload);

/* srule.c: pattern rules in the manner of gitleaks (share/oxi/secrets) */
struct oxi_srules;
/* the rules of a file: NULL with *err (a static message and *line) */
struct oxi_srules *oxi_srules_load(const char *path, const char **err,
    unsigned long *line);
struct oxi_srules *oxi_srules_parse(const char *s, size_t n,
    const char **err, unsigned long *line);
size_t oxi_srules_count(const struct oxi_srules *);
const char *oxi_srules_id(const struct oxi_srules *, int idx);
/* the longest secret a rule may find, for the hold-back of drafts */
size_t oxi_srules_maxlen(const struct oxi_srules *);
/* would a rule's keyword be found in v read forwards (how 0), backwards
 * (1) or in ROT13 (2)?  Rules without keywords are left out, and so are
 * keywords shorter than 3 bytes read backwards or in ROT13. */
int oxi_srules_wants(const struct oxi_srules *, const struct oxi_view *v,
    int how);
/* the rules' findings in v added to hits: 0, or -1 (a match limit: the
 * text could not be judged) */
int oxi_srules_scan(const struct oxi_srules *, const struct oxi_view *v,
    struct oxi_hits *hits);
void oxi_srules_free(struct oxi_srules *);

/* leak.c: a text judged whole */
struct oxi_leak {
	struct oxi_known *known;	/* secrets configured */
	struct oxi_srules *rules;	/* pattern rules, or NULL */
	const char *home;		/* $HOME, redacted to ~ */
};
#define OXI_LEAK_TEXT	0x01	/* a text a person reads: home paths,
				 * markdown links and images */
#define OXI_LEAK_TAINT	0x02	/* the reply holds outside content */
#define OXI_LEAK_DRAFT	0x04	/* a draft: hold back its end */
struct oxi_leak_res {
	struct oxi_buf out;	/* the text to send */
	struct oxi_hits hits;	/* what was found */
	size_t nsecret;		/* secrets and rule findings redacted */
	size_t ncanary;		/* canary findings: the reply is blocked */
	size_t nlinks;		/* links and images removed */
	size_t npaths;		/* home paths redacted */
	size_t held;		/* bytes of the original held back */
	const char *err;	/* why it could not be judged, or NULL */
};
#define OXI_LEAK_RES_INIT	{ .out = OXI_BUF_INIT, .hits = OXI_HITS_INIT, \
	.nsecret = 0, .ncanary = 0, .nlinks = 0, .npaths = 0, .held = 0, \
	.err = NULL }
/*
 * Judges s[0..n): res->out is the text with every finding redacted
 * (OXI_LEAK_TEXT: links removed, home paths shortened; OXI_LEAK_DRAFT:
 * cut before a tail of hold bytes and any unfinished token).  canary:
 * the session's canaries, or NULL; shown: the reply's pieces, or NULL.
 * Returns 1 if out differs from s, 0 if not, -1 if the text could not
 * be judged (res->err says why; never "clean").
 */
int oxi_leak_text(const struct oxi_leak *, const struct oxi_known *canary,
    struct oxi_shown *shown, const char *s, size_t n, unsigned flags,
    size_t hold, struct oxi_leak_res *res);
void oxi_leak_res_free(struct oxi_leak_res *);

/* canary.c: the canary of a session, derived from a key both oxi-loop
 * and oxi-guard out read ($OXI_CANARY_KEY_FILE or STATE/canary.key) */
#define OXI_CANARY_LEN	32	/* 128 bits in hex */
/* loads the key if it is there: 1 loaded, 0 not there (yet), -1 error */
int oxi_canary_load(void);
/* the canary of session into out (OXI_CANARY_LEN + 1): 0, or -1 no key */
int oxi_canary_of(const char *session, char *out);
/* the known set of session's canary, cached; NULL without a key */
const struct oxi_known *oxi_canary_known(const char *session);
void oxi_canary_free(void);

#endif
