/*
 * out.c - the records the turn engine writes: typing, status, msg.draft,
 * msg.out, notes, llm.cancel; and its own failure, a database that
 * fails, recorded for oxi_loop_err
 *
 * Drafts carry the whole text so far (msg.draft in oxi(7)); so that a
 * long reply does not cost the square of its length, a draft goes out
 * only when cfg->draftms passed since the last one AND the text grew by
 * an eighth at least: the drafts of a reply of n bytes add up to about
 * 9n at most, whatever n is.  The reply itself is bounded (turn.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "oxi.h"
#include "loop/engine.h"

jv
oxi_out_reply(struct turn *t, const char *type)
{
	jv r = oxi_msg_reply(t->in, type);

	/* oxi-guard out finds the session's canary by it */
	if (t->session)
		r = jv_object_set(r, jv_string("session"),
		    jv_string(t->session));
	return r;
}

void
oxi_out_typing(struct oxi_loop *l, struct turn *t)
{
	jv r = oxi_msg_new("typing");

	r = jv_object_set(r, jv_string("channel"), jv_string(oxi_msg_peek(
	    t->in, "channel")));
	r = jv_object_set(r, jv_string("chat"), jv_string(oxi_msg_peek(t->in,
	    "chat")));
	l->io.out(l->io.arg, r);
}

void
oxi_out_status(struct oxi_loop *l, struct turn *t, const char *id,
    const char *name, jv args)
{
	char sid[OXI_ID_LEN + 1];
	jv r = oxi_out_reply(t, "status");

	oxi_id_new(sid);
	r = jv_object_set(r, jv_string("id"), jv_string(sid));
	r = jv_object_set(r, jv_string("in_reply_to"), jv_string(t->msgid));
	r = jv_object_set(r, jv_string("ref"), jv_string(id));
	r = jv_object_set(r, jv_string("text"),
	    oxi_loop_status_text(name, args));
	l->io.out(l->io.arg, r);
}

jv
oxi_out_full(struct turn *t)
{
	jv s = jv_string(t->prev.s ? t->prev.s : "");

	if (t->prev.len > 0 && t->text.len > 0)
		s = jv_string_append_str(s, "\n\n");
	return jv_string_append_buf(s, t->text.s ? t->text.s : "",
	    (int)t->text.len);
}

void
oxi_out_text(struct oxi_loop *l, struct turn *t, const char *type, jv text)
{
	jv r = oxi_out_reply(t, type);

	r = jv_object_set(r, jv_string("id"), jv_string(t->replyid));
	r = jv_object_set(r, jv_string("in_reply_to"), jv_string(t->msgid));
	r = jv_object_set(r, jv_string("text"), text);
	r = jv_object_set(r, jv_string("format"), jv_string("markdown"));
	/* where the turn's inputs came from: oxi-guard out strips links of a
	 * reply that holds outside content */
	r = jv_object_set(r, jv_string("taint"), jv_copy(t->taint));
	/* the turn's spend: oxi-cron books a heartbeat's by it */
	if (strcmp(type, "msg.out") == 0)
		r = jv_object_set(r, jv_string("tokens"),
		    jv_number((double)t->tokens));
	l->io.out(l->io.arg, r);
}

static size_t
fulllen(const struct turn *t)
{
	return t->prev.len + (t->prev.len && t->text.len ? 2 : 0) +
	    t->text.len;
}

/* the text grew enough since the last draft */
static int
grown(const struct turn *t)
{
	size_t n = fulllen(t);

	return n > 0 && (t->drafted == 0 || n >= t->drafted + t->drafted / 8);
}

long long
oxi_out_draftdue(const struct oxi_loop *l, const struct turn *t,
    long long now)
{
	long long due;

	if (!t->dirty || t->state != WAIT_LLM || !grown(t))
		return -1;
	due = t->lastdraft + l->cfg->draftms - now;
	return due < 0 ? 0 : due;
}

void
oxi_out_draft(struct oxi_loop *l, struct turn *t, long long now, int force)
{
	if (!force && oxi_out_draftdue(l, t, now) != 0)
		return;
	oxi_out_text(l, t, "msg.draft", oxi_out_full(t));
	t->lastdraft = now;
	t->drafted = fulllen(t);
	t->dirty = 0;
}

char *
oxi_out_id(const char *kind, const char *msgid)
{
	struct oxi_buf b = OXI_BUF_INIT;

	oxi_buf_printf(&b, "%s:%s", kind, msgid);
	return b.s;
}

void
oxi_out_note(struct oxi_loop *l, jv in, const char *kind, const char *text)
{
	char *id = oxi_out_id(kind, oxi_msg_peek(in, "id"));
	jv r = oxi_msg_reply(in, "msg.out");

	r = jv_object_set(r, jv_string("id"), jv_string(id));
	free(id);
	r = jv_object_set(r, jv_string("in_reply_to"),
	    jv_string(oxi_msg_peek(in, "id")));
	r = jv_object_set(r, jv_string("text"), jv_string(text));
	r = jv_object_set(r, jv_string("format"), jv_string("text"));
	l->io.out(l->io.arg, r);
}

void
oxi_out_cancel(struct oxi_loop *l, const char *reqid)
{
	char id[OXI_ID_LEN + 1];
	jv r = oxi_msg_new("llm.cancel");

	oxi_id_new(id);
	r = jv_object_set(r, jv_string("id"), jv_string(id));
	r = jv_object_set(r, jv_string("ref"), jv_string(reqid));
	/* a stage that is down has nothing to cancel */
	(void)l->io.llm(l->io.arg, r);
}

int
oxi_out_dbfail(struct oxi_loop *l, const char *what, const char *err)
{
	const char *path = sqlite3_db_filename(l->db, "main");

	snprintf(l->err, sizeof l->err, "unable to %s in '%s': %s", what,
	    path ? path : "", err ? err : "?");
	l->failed = 1;
	return -1;
}
