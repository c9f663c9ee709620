/*
 * policy.h - oxi-guard tool: the policy of tool calls, the taint of a
 * call, approvals; private to the guard wing (policy.c, cmdtool.c)
 * and tests/unit/
 */
#ifndef OXI_GUARD_POLICY_H
#define OXI_GUARD_POLICY_H

#include "oxi.h"

/* what a call does, judged from its name and arguments (policy.c) */
enum {
	OXI_RISK_READ,		/* reads the workspace, or searches */
	OXI_RISK_WRITE,		/* writes inside the workspace */
	OXI_RISK_FETCH,		/* fetches a URL without a body */
	OXI_RISK_POST,		/* sends data: a request with a body, a
				 * method other than GET, HEAD, OPTIONS */
	OXI_RISK_EXEC,		/* runs a command */
	OXI_RISK_OTHER		/* a tool the guard does not know: a plugin,
				 * an MCP server's; it may send anywhere */
};
/* call[key] (a new reference), or null if it has none */
jv oxi_policy_get(jv call, const char *key);
/* the name of a risk class ("read", ...), as the rules see it */
const char *oxi_risk_name(int risk);
/* the risk class of a call of tool name with args (borrowed) */
int oxi_risk(const char *name, jv args);

/* the actions of a rule, and the verdicts */
enum { OXI_POL_ALLOW, OXI_POL_SAFE, OXI_POL_ASK, OXI_POL_DENY };

struct oxi_rule {
	int action;		/* OXI_POL_* */
	unsigned long line;	/* in the policy file */
	void *jq;		/* the compiled expression (jq_state *) */
};
struct oxi_policy {
	struct oxi_rule *v;	/* rules, in the file's order */
	size_t n;		/* rules used */
	char *path;		/* the file, or NULL */
};
#define OXI_POLICY_INIT	{ .v = NULL, .n = 0, .path = NULL }
/*
 * Reads the rules of path: a line "ACTION EXPR" each, ACTION allow,
 * safe, ask or deny and EXPR a jq expression; '#' starts a comment line,
 * a line ending in '\' goes on on the next.  0, or -1 with a message in
 * err (the line and what is wrong, never the expression's text).
 */
int oxi_policy_load(struct oxi_policy *, const char *path, char *err,
    size_t errlen);
void oxi_policy_free(struct oxi_policy *);

/* the verdict on one call */
struct oxi_verdict {
	int action;		/* OXI_POL_ALLOW, OXI_POL_ASK, OXI_POL_DENY */
	int risk;		/* OXI_RISK_* */
	int trust;		/* OXI_ORIGIN_* of the call's taint */
	int tainted;		/* trust is not the owner's */
	int confined;		/* it runs a command in the sandbox: no
				 * network, writes only the workspace */
	int deferred;		/* ALLOW: the tool stage asks the owner
				 * itself (a command with the network) */
	int approved;		/* ALLOW because the owner approved it */
	unsigned long line;	/* the rule that decided, or 0 */
	char why[512];		/* in plain words, for the model and the
				 * owner: no argument's value */
};
/*
 * Judges call (a tool.call, borrowed).  tools (borrowed) is what the
 * tool stage says of its tools: an object of their "x-oxi" by name
 * (oxi_policy_facts), or null.  seen(arg, s) says whether the text s
 * occurs in what the tools answered the call's session (a URL read, not
 * built); it may be NULL.  In order: the first rule whose expression
 * gives true (a rule that fails counts as true for ask and deny, false
 * for allow and safe); deny and ask stand; then, when the taint holds
 * anything but the owner's words and no safe rule matched, a call that
 * leaves the sandbox is asked: a command not confined (its tool not
 * said to be, or given the network: that one is deferred when the tool
 * stage says it asks itself), data posted, a URL not seen fetched, a
 * tool the guard does not know; else it is allowed.
 */
void oxi_policy_judge(const struct oxi_policy *, jv call, jv tools,
    int (*seen)(void *, const char *), void *arg, struct oxi_verdict *);
/* the "x-oxi" of the tools of list (a --list array, consumed) by name:
 * an object, empty if list is not an array */
jv oxi_policy_facts(jv list);

/*
 * Approvals (policy.c): the approval line of a call held, compact JSON
 * with sorted keys, {"digest","guard":"tool","name","what","why"}:
 * digest the BLAKE2b-256 of [name,args] (sorted keys), what and why one
 * line each for the owner.  The stores: oxi_approved_path(1) (allow
 * always), and that name plus -once (allow once, consumed by the call
 * it allows).
 */
/* the BLAKE2b-256 of s[0..n) in hex */
void oxi_digest(const char *s, size_t n, char out[65]);
char *oxi_approval_line(jv call, const char *why);	/* free it */
/* 1 if the store holds the line of call (its -once line is removed),
 * else 0 */
int oxi_approval_found(jv call);

/* the origins of a call's inputs, from the most trusted */
enum {
	OXI_ORIGIN_OWNER,	/* the owner's words ("owner:CHANNEL") */
	OXI_ORIGIN_LOCAL,	/* files of the workspace, the output of a
				 * confined command ("workspace", "shell") */
	OXI_ORIGIN_OUTSIDE	/* anything else: the web, MCP servers,
				 * plugins, a command with the network,
				 * other people's messages */
};
/* "owner", "local", "external" */
const char *oxi_origin_name(int);
/* the least trusted class of the origins of taint (borrowed; the
 * tool.call's): OUTSIDE also for no taint, no origin, or not an array
 * of strings; the first origins that are not the owner's,
 * comma-separated, in out */
int oxi_taint_class(jv taint, char *out, size_t n);
/* 1 if taint holds an origin that is not the owner's (class > OWNER) */
int oxi_taint_outside(jv taint, char *out, size_t n);

#endif
