/*
 * engine.c - the face of the turn engine: what comes in (messages,
 * records of the stages, the passing of time) goes to the part that
 * handles it: a command (slash.c), a new turn or the next step of one
 * (turn.c), an approval (approve.c).  The files below never call up
 * here, so liboxi's objects keep no loop (t0005).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "oxi.h"
#include "loop/engine.h"
#include "loop/schedtool.h"

static const char *
field(jv rec, const char *key)
{
	return oxi_msg_peek(rec, key);
}

struct oxi_loop *
oxi_loop_new(sqlite3 *db, const struct oxi_loop_cfg *cfg,
    const struct oxi_loop_io *io)
{
	struct oxi_loop *l = xcalloc(1, sizeof *l);

	l->db = db;
	l->cfg = cfg;
	l->io = *io;
	return l;
}

int
oxi_loop_msg(struct oxi_loop *l, jv in)
{
	struct turn *t, *u, **pp;
	struct oxi_buf key = OXI_BUF_INIT;
	const char *thread, *err, *st, *msgid = field(in, "id");
	char buf[16];
	int busy = 0, r;
	jv rec;

	if (l->failed) {
		jv_free(in);
		return -1;
	}
	for (u = l->turns; u; u = u->next)
		if (strcmp(u->msgid, msgid) == 0) {
			oxi_info("%s: duplicate of a message in progress",
			    msgid);
			jv_free(in);
			return 0;
		}
	st = oxi_hist_state(l->db, msgid, buf, sizeof buf);
	if (st && (strcmp(st, "done") == 0 || strcmp(st, "failed") == 0)) {
		oxi_info("%s: already %s, not answered again", msgid, st);
		jv_free(in);
		return 0;
	}
	oxi_buf_printf(&key, "%s:%s:%s", field(in, "channel"),
	    field(in, "account") ? field(in, "account") : "",
	    field(in, "chat"));
	if ((thread = field(in, "thread")))
		oxi_buf_printf(&key, ":%s", thread);
	if ((r = oxi_slash(l, in, key.s)) != 0) {
		oxi_buf_free(&key);
		jv_free(in);
		return r < 0 ? -1 : 0;
	}
	t = xcalloc(1, sizeof *t);
	t->in = in;
	t->msgid = msgid;
	t->key = key.s;
	t->sigs = jv_object();
	t->replyid = oxi_out_id("reply", msgid);
	t->taint = oxi_loop_taint_new(field(in, "trust"), field(in, "channel"));
	rec = jv_dump_string(jv_copy(in), 0);
	if (oxi_hist_session(l->db, t->key, 0, &t->session, &err) < 0 ||
	    (st && oxi_hist_forget(l->db, t->msgid, &err) < 0) ||
	    oxi_hist_mark(l->db, t->msgid, t->session, "working", &err) < 0 ||
	    oxi_hist_keep(l->db, t->msgid, jv_string_value(rec), &err) < 0) {
		jv_free(rec);
		oxi_out_dbfail(l, "record a message", err);
		oxi_turn_free(t);
		return -1;
	}
	jv_free(rec);

	for (pp = &l->turns; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->key, t->key) == 0)
			busy = 1;
	*pp = t;
	t->state = WAIT_START;
	if (!busy)
		return oxi_turn_round(l, t);
	return 0;
}

int
oxi_loop_restarted(struct oxi_loop *l, int stage, long long up)
{
	struct turn *t;
	struct call *c;
	int i;

	if (l->failed)
		return -1;
	/* what went out once the stage was up is in its hands still */
	for (t = l->turns; t; t = t->next) {
		if (stage == OXI_LOOP_TOOL && t->state == WAIT_TOOLS) {
			for (i = 0; i < t->ncalls; i++) {
				c = &t->calls[i];
				if (c->done || c->held || (up && c->sent >= up))
					continue;
				c->sent = oxi_clock_ms();
				(void)oxi_sched_send(l, jv_copy(c->rec));
			}
			continue;
		}
		if (stage != OXI_LOOP_LLM || (t->state != WAIT_LLM &&
		    t->state != WAIT_SUMMARY && t->state != WAIT_VOICE) ||
		    (up && t->asked >= up))
			continue;
		/* as a retry that is due now, without the wait */
		if (t->state == WAIT_LLM)
			t->rounds--;
		if (t->state == WAIT_VOICE)
			t->voice--;	/* the voice message in hand, again */
		oxi_buf_reset(&t->text);
		t->dirty = 0;
		t->state = WAIT_RETRY;
		t->retryat = 0;
	}
	return oxi_loop_tick(l);
}

int
oxi_loop_resume(struct oxi_loop *l)
{
	jv a = oxi_hist_working(l->db), m, rec;
	const char *why;
	int i, n;

	if (!jv_is_valid(a)) {
		m = jv_invalid_get_msg(a);
		oxi_out_dbfail(l, "read the inbox", jv_string_value(m));
		jv_free(m);
		return -1;
	}
	n = jv_array_length(jv_copy(a));
	if (n > 0)
		oxi_info("%d messages were in work: answering them", n);
	for (i = 0; i < n; i++) {
		m = jv_array_get(jv_copy(a), i);
		rec = oxi_json_parse(jv_string_value(m),
		    (size_t)jv_string_length_bytes(jv_copy(m)));
		jv_free(m);
		if (!jv_is_valid(rec) || oxi_msg_check(rec, &why) < 0) {
			jv_free(rec);	/* cannot be: it was checked once */
			continue;
		}
		if (oxi_loop_msg(l, rec) < 0) {
			jv_free(a);
			return -1;
		}
	}
	jv_free(a);
	return 0;
}

/* the origins result taint r (consumed) adds to call taint c (borrowed),
 * space-separated: what the result itself brought */
static char *
added(jv c, jv r)
{
	struct oxi_buf b = OXI_BUF_INIT;
	int i, j, n, m, have;
	jv x, y;
	char *s;

	if (jv_get_kind(r) == JV_KIND_STRING)
		r = JV_ARRAY(r);
	n = jv_get_kind(r) == JV_KIND_ARRAY ? jv_array_length(jv_copy(r)) : 0;
	m = jv_get_kind(c) == JV_KIND_ARRAY ? jv_array_length(jv_copy(c)) : 0;
	for (i = 0; i < n; i++) {
		x = jv_array_get(jv_copy(r), i);
		for (have = 0, j = 0; j < m && !have; j++) {
			y = jv_array_get(jv_copy(c), j);
			have = jv_equal(jv_copy(x), y);
		}
		if (!have && jv_get_kind(x) == JV_KIND_STRING) {
			if (b.len)
				oxi_buf_putc(&b, ' ');
			oxi_buf_cats(&b, jv_string_value(x));
		}
		jv_free(x);
	}
	jv_free(r);
	s = xstrdup(b.s ? b.s : "");
	oxi_buf_free(&b);
	return s;
}

static struct turn *
find_call(struct oxi_loop *l, const char *id, struct call **cp)
{
	struct turn *t;
	int i;

	for (t = l->turns; t && id; t = t->next)
		if (t->state == WAIT_TOOLS)
			for (i = 0; i < t->ncalls; i++)
				if (strcmp(t->calls[i].id, id) == 0 &&
				    !t->calls[i].held) {
					*cp = &t->calls[i];
					return t;
				}
	return NULL;
}

int
oxi_loop_tool(struct oxi_loop *l, jv rec)
{
	const char *type = oxi_msg_type_peek(rec), *ref, *content;
	struct turn *t;
	struct call *c;
	char *line;
	int r, kind;
	jv iserr, ct;

	if (l->failed) {
		jv_free(rec);
		return -1;
	}
	if (strcmp(type, "tool.result") == 0)
		ref = field(rec, "id");
	else if (strcmp(type, "error") == 0)
		ref = field(rec, "ref");
	else {
		oxi_debug("ignored %s record from the tool stage", type);
		jv_free(rec);
		return 0;
	}
	if (!(t = find_call(l, ref, &c))) {
		oxi_debug("%s for no tool call in flight %s", type,
		    ref ? ref : "?");
		jv_free(rec);
		return 0;
	}
	if (strcmp(type, "error") == 0) {
		content = field(rec, "message");
		r = oxi_turn_result(l, t, c, content ? content : "tool failed",
		    1);
	} else {
		content = field(rec, "content");
		t->taint = oxi_loop_taint_merge(t->taint, jv_object_get(
		    jv_copy(rec), jv_string("taint")));
		ct = oxi_jget(c->rec, "taint");
		free(c->src);
		c->src = added(ct, oxi_jget(rec, "taint"));
		jv_free(ct);
		iserr = jv_object_get(jv_copy(rec), jv_string("is_error"));
		line = jv_get_kind(iserr) == JV_KIND_TRUE && !c->done ?
		    oxi_loop_held(field(c->rec, "name"), content) : NULL;
		/* the guard and the shell each ask once */
		kind = content && strncmp(content, "guard:", 6) == 0 ? 2 : 1;
		if (line && !(c->asked & kind)) {
			c->asked |= kind;
			oxi_appr_ask(l, t, c, line);
			r = 0;
		} else if (line) {
			/* held again after an approval: say no more */
			free(line);
			r = oxi_turn_result(l, t, c, "the approval did not "
			    "take effect; nothing was run", 1);
		} else
			r = oxi_turn_result(l, t, c, content ? content : "",
			    jv_get_kind(iserr) == JV_KIND_TRUE);
		jv_free(iserr);
	}
	jv_free(rec);
	return r;
}

int
oxi_loop_tick(struct oxi_loop *l)
{
	struct turn *t;
	long long now = oxi_clock_ms();
	char note[128];
	int i;

	if (l->failed)
		return -1;
	if (l->stopping)
		oxi_turn_shelve(l);
	for (t = l->turns; t; t = t->next)
		oxi_out_draft(l, t, now, 0);
again:	/* each step may end a turn and start another: look again */
	for (t = l->turns; t; t = t->next) {
		for (i = 0; t->state == WAIT_TOOLS && i < t->ncalls; i++)
			if (t->calls[i].held && now >= t->calls[i].expires) {
				if (oxi_appr_decide(l, t, &t->calls[i],
				    "expired") < 0)
					return -1;
				goto again;
			}
		if (t->state == WAIT_RETRY && now >= t->retryat) {
			t->state = WAIT_START;
			t->deadline = l->cfg->turnms > 0 ? now +
			    l->cfg->turnms : 0;
			if (oxi_turn_round(l, t) < 0)
				return -1;
			goto again;
		}
		if (oxi_turn_overdue(t, now)) {
			snprintf(note, sizeof note, "\n\n[stopped: this message "
			    "took more than %ld s]", l->cfg->turnms / 1000);
			if (oxi_turn_stop(l, t, note) < 0)
				return -1;
			goto again;
		}
	}
	return 0;
}

int
oxi_loop_busy(const struct oxi_loop *l)
{
	struct turn *t;
	int n = 0;

	for (t = l->turns; t; t = t->next)
		n++;
	return n;
}

const char *
oxi_loop_err(const struct oxi_loop *l)
{
	return l->failed ? l->err : NULL;
}

void
oxi_loop_free(struct oxi_loop *l)
{
	struct turn *t;

	if (!l)
		return;
	while ((t = l->turns)) {
		l->turns = t->next;
		oxi_turn_free(t);
	}
	free(l);
}
