/*
 * in.h - the pieces of oxi-guard in: who may talk (sender.c), pairing
 * (pair.c) and the rate of each sender (rate.c); used by cmdin.c and
 * cmdpair.c only
 */
#ifndef OXI_GUARD_IN_H
#define OXI_GUARD_IN_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "oxi.h"
#include "guard/ac.h"
#include "guard/guard.h"

/* rules.c, inject.c: the rule set behind struct oxi_rules */
struct oxi_rule {
	char id[OXI_RULE_ID];	/* e.g. "override.ignore" */
	int block;		/* 1: block, 0: warn */
	int points;		/* +N: a weak signal worth N points (then
				 * block is 0), 0: a rule of its own */
	int always;		/* no literal cover: runs on every text */
	pcre2_code *re;		/* the compiled pattern */
};

struct oxi_rules {
	struct oxi_rule *v;	/* rules, in the order loaded */
	size_t n;		/* rules used */
	size_t cap;		/* rules allocated */
	pcre2_match_context *mc;	/* the limits */
	pcre2_jit_stack *js;	/* the JIT's stack */
	pcre2_match_data *md;	/* match data, reused */
	struct oxi_fold f;	/* the text folded, reused */
	struct oxi_fold g;	/* a variant folded, reused */
	struct oxi_buf dec;	/* a decoded variant, reused */
	struct oxi_buf raw;	/* the text with invisibles stripped */
	struct oxi_buf defs;	/* "NAME\0PATTERN\0" for each @NAME */
	size_t nvar;		/* variants scanned for this text */
	struct oxi_ac ac;	/* the rules' covers: rule index per string */
	int built;		/* ac is built for the rules loaded */
	unsigned char *want;	/* per rule: 1 if its cover is in a text */
	unsigned char *seen;	/* per weak rule: 1 if it matched the text */
	const char **seenvia;	/* and the variant where it did */
	int points;		/* the weak rules' points for the text */
};
/*
 * cover.c: strings of which every match of PCRE2 pattern pat[0..len)
 * holds one, in lower case, appended to out as "s\0s\0...": their
 * number, 0 when the pattern has no such cover
 */
size_t oxi_cover(const char *pat, size_t len, struct oxi_buf *out);
/* rules.c: the rules whose cover s[0..len) holds, or that have none:
 * r->want[i] is 1 for each rule i that must run on the text */
void oxi_rules_want(struct oxi_rules *, const char *s, size_t len);

/* sender.c: the sender policy */
enum oxi_trust {
	OXI_TRUST_NONE,		/* not let in */
	OXI_TRUST_EXTERNAL,	/* let in by a wildcard or an open DM policy */
	OXI_TRUST_ALLOWED,	/* named on the allowlist, or paired */
	OXI_TRUST_OWNER		/* named on the owner list */
};
enum oxi_dm {
	OXI_DM_ALLOWLIST,	/* strangers are dropped */
	OXI_DM_PAIRING,		/* strangers are offered pairing */
	OXI_DM_OPEN		/* strangers are let in, as external */
};
#define OXI_DM_CHANNELS	16	/* channels with a policy of their own */
struct oxi_senders {
	struct oxi_allow allow;	/* who may talk */
	struct oxi_allow owners;	/* the owner's ids (none: the
					 * allowlist's named entries) */
	struct oxi_allow self;	/* the assistant's own ids: echoes */
	enum oxi_dm dmall;	/* the DM policy of other channels */
	size_t ndm;		/* channels with their own policy */
	struct {
		char channel[32];	/* its name */
		enum oxi_dm dm;		/* its policy */
	} dm[OXI_DM_CHANNELS];
};
/*
 * Parses a DM policy: "pairing", or per channel "telegram:pairing
 * cli:allowlist" (commas or blanks between), a bare word for the other
 * channels.  0, or -1 with the bad word cut into bad[0..n).
 */
int oxi_dm_parse(struct oxi_senders *, const char *spec, char *bad,
    size_t n);
enum oxi_dm oxi_dm_of(const struct oxi_senders *, const char *channel);
const char *oxi_dm_name(enum oxi_dm);
/* 1 if rec (borrowed) is a direct message: its "chat_type" is private,
 * dm, direct or im, or it has none and its chat is its sender */
int oxi_sender_isdm(jv rec);
/* how far channel:from is trusted by the lists (pairing aside) */
enum oxi_trust oxi_sender_trust(const struct oxi_senders *,
    const char *channel, const char *from);
/* 1 if channel:from is the assistant itself */
int oxi_sender_self(const struct oxi_senders *, const char *channel,
    const char *from);
const char *oxi_trust_name(enum oxi_trust);
void oxi_senders_free(struct oxi_senders *);

/* pair.c: pairing codes and paired senders, in a SQLite database */
#define OXI_PAIR_CODELEN	8	/* characters of a code, 40 bits */
#define OXI_PAIR_TTL		900	/* seconds a code lives */
#define OXI_PAIR_TRIES		5	/* wrong codes before a lockout */
#define OXI_PAIR_LOCK		86400	/* seconds a lockout lasts */
#define OXI_PAIR_MAX		1000	/* rows of pending and tries, each */
enum oxi_pair_res {
	OXI_PAIR_ERROR = -1,	/* the database failed: deny */
	OXI_PAIR_QUIET,		/* nothing to say (asked already) */
	OXI_PAIR_PENDING,	/* a code was issued: say it */
	OXI_PAIR_OK,		/* an invitation was redeemed: paired */
	OXI_PAIR_WRONG,		/* a wrong code */
	OXI_PAIR_LOCKED,	/* too many wrong codes */
	OXI_PAIR_FULL		/* the tables are full: try later */
};
struct oxi_pair;
/* opens (creating) the database: NULL with a message in *err */
struct oxi_pair *oxi_pair_open(const char *path, const char **err);
void oxi_pair_close(struct oxi_pair *);
/* the database's default path, $OXI_STATE_DIR/pairing.db */
const char *oxi_pair_path(void);
/* 1 if paired, 0 if not, -1 on error */
int oxi_pair_known(struct oxi_pair *, const char *channel,
    const char *from);
/*
 * A stranger's direct message under the pairing policy.  A text that is
 * a code ("/pair CODE", or the code alone) redeems an invitation; any
 * other text asks for pairing, and the first time (or once the last
 * code expired) gets a code in *code for the reply.
 */
enum oxi_pair_res oxi_pair_request(struct oxi_pair *, const char *channel,
    const char *from, const char *name, const char *text, long long now,
    char code[OXI_PAIR_CODELEN + 2], int *left);
/* approves the pending request with code: 1 (who gets "channel:from"),
 * 0 no such code alive, -1 error */
int oxi_pair_approve(struct oxi_pair *, const char *code, long long now,
    char *who, size_t n);
/* a new invitation for channel (NULL: any): 0, or -1 */
int oxi_pair_invite(struct oxi_pair *, const char *channel, long long now,
    char code[OXI_PAIR_CODELEN + 2]);
/* forgets a paired sender ("channel:from"), its lockout and requests:
 * the rows removed, or -1 */
int oxi_pair_revoke(struct oxi_pair *, const char *who);
/* calls fn for each row: kind "paired", "pending", "invite", "locked" */
int oxi_pair_list(struct oxi_pair *, long long now,
    void (*fn)(const char *kind, const char *who, const char *name,
    const char *code, long long t, void *arg), void *arg);
/* "ABCD-EFGH" from the 8 characters of a code */
void oxi_pair_show(const char *code, char out[OXI_PAIR_CODELEN + 2]);

/* rate.c: a token bucket per sender, in a bounded table */
struct oxi_rate_slot;
struct oxi_rate {
	double count;		/* messages allowed per period */
	double secs;		/* the period */
	struct oxi_rate_slot *v;	/* the table */
	size_t n;		/* its slots */
};
/* "N/SECONDS", "N/m", "N/h" or "0" (off): 0, or -1 */
int oxi_rate_parse(struct oxi_rate *, const char *spec);
/* 1 if key may send at now (seconds); 0 if over, with *first set the
 * first time in a row */
int oxi_rate_take(struct oxi_rate *, const char *key, double now,
    int *first);
void oxi_rate_free(struct oxi_rate *);

#endif
