/*
 * ask.c - the engine's side of approvals: a held call becomes an
 * approval.ask in the turn's chat, the owner's approval.answer (or the
 * ask's expiry) decides it, and the call runs again or the model learns
 * the outcome alone.  The words and the stores are approve.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oxi.h"
#include "loop/engine.h"

void
oxi_appr_ask(struct oxi_loop *l, struct turn *t, struct call *c, char *line)
{
	long ms = l->cfg->approvalms > 0 ? l->cfg->approvalms : 300000;
	char when[40];
	struct tm tm;
	time_t now;
	jv r = oxi_out_reply(t, "approval.ask");

	c->held = line;
	oxi_id_new(c->askid);
	c->expires = oxi_clock_ms() + ms;
	now = time(NULL) + ms / 1000;
	if (!gmtime_r(&now, &tm) || !strftime(when, sizeof when,
	    "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(when, sizeof when, "1970-01-01T00:00:00Z");
	r = jv_object_set(r, jv_string("id"), jv_string(c->askid));
	r = jv_object_set(r, jv_string("ref"), jv_string(c->id));
	r = jv_object_set(r, jv_string("in_reply_to"), jv_string(t->msgid));
	r = jv_object_set(r, jv_string("text"), oxi_loop_ask_text(line));
	r = jv_object_set(r, jv_string("choices"), JV_ARRAY(jv_string("once"),
	    jv_string("always"), jv_string("deny")));
	r = jv_object_set(r, jv_string("expires"), jv_string(when));
	oxi_info("%s: tool call %s held, asked %s", t->msgid, c->id,
	    c->askid);
	l->io.out(l->io.arg, r);
}

/* choice "once" or "always" sends the call again, anything else gives
 * the model the outcome alone */
int
oxi_appr_decide(struct oxi_loop *l, struct turn *t, struct call *c,
    const char *choice)
{
	int always = strcmp(choice, "always") == 0;
	char *line = c->held;

	c->held = NULL;
	c->askid[0] = '\0';
	if (always || strcmp(choice, "once") == 0) {
		if (oxi_loop_store(line, always) < 0) {
			oxi_warnsys("%s: unable to record the approval",
			    t->msgid);
			free(line);
			return oxi_turn_result(l, t, c, "the approval could not "
			    "be recorded; nothing was run", 1);
		}
		free(line);
		oxi_info("%s: tool call %s approved %s", t->msgid, c->id,
		    choice);
		c->sent = oxi_clock_ms();
		if (l->io.tool(l->io.arg, jv_copy(c->rec)) < 0)
			return oxi_turn_fail(l, t, "tool_unavailable",
			    "the tool stage is not running", 1);
		return 0;
	}
	free(line);
	oxi_info("%s: tool call %s %s", t->msgid, c->id, choice);
	return oxi_turn_result(l, t, c, strcmp(choice, "expired") == 0 ?
	    "the approval expired; nothing was run" :
	    "the owner declined; nothing was run", 1);
}

/* 1 if answer a comes from the owner of turn t */
static int
owner(struct turn *t, jv a)
{
	const char *trust = oxi_msg_peek(a, "trust"), *from = oxi_msg_peek(a, "from"),
	    *tfrom = oxi_msg_peek(t->in, "from");

	if (trust)
		return strcmp(trust, "owner") == 0;
	return from && tfrom && strcmp(from, tfrom) == 0;
}

static int
same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int
oxi_loop_answer(struct oxi_loop *l, jv a)
{
	const char *ref = oxi_msg_peek(a, "ref"), *choice = oxi_msg_peek(a, "choice");
	struct turn *t, *bt = NULL;
	struct call *bc = NULL;
	long long best = 0;
	int i, r = 0;

	if (l->failed) {
		jv_free(a);
		return -1;
	}
	for (t = l->turns; t && ref; t = t->next)
		for (i = 0; t->state == WAIT_TOOLS && i < t->ncalls; i++) {
			struct call *c = &t->calls[i];

			if (!c->held || !same(oxi_msg_peek(t->in, "channel"),
			    oxi_msg_peek(a, "channel")) || !same(oxi_msg_peek(t->in, "chat"),
			    oxi_msg_peek(a, "chat")))
				continue;
			if (strcmp(ref, c->askid) == 0 ||
			    (strcmp(ref, "last") == 0 && c->expires > best)) {
				bt = t;
				bc = c;
				best = c->expires;
			}
		}
	if (!bc)
		oxi_info("approval.answer for no pending ask of its chat: "
		    "ignored");
	else if (!owner(bt, a))
		oxi_info("%s: approval.answer not from the owner: ignored",
		    bt->msgid);
	else if (!choice || (strcmp(choice, "once") != 0 && strcmp(choice,
	    "always") != 0 && strcmp(choice, "deny") != 0))
		oxi_info("%s: approval.answer with an unknown choice: ignored",
		    bt->msgid);
	else if (oxi_clock_ms() >= bc->expires)
		r = oxi_appr_decide(l, bt, bc, "expired");
	else
		r = oxi_appr_decide(l, bt, bc, choice);
	jv_free(a);
	return r;
}
