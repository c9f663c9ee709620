/*
 * run.c - oxi-cron's work: requests in, fires out
 *
 * A request (cron.add, cron.list, cron.cancel: oxi(7)) is answered once:
 * the answer is stored under the request's id in the same transaction as
 * what it changed, and written after the commit; a request read again
 * (a restart before its bytes left the input) gets the stored answer
 * again.  A request that came from a tool call (no in_reply_to) is
 * answered with a tool.result on the fire output, which is oxi-loop's
 * input; one that came from a chat command (/remind, /schedules: it has
 * in_reply_to, the command's msg.in) with a msg.out note in the chat, on
 * stdout, the way to the sender.
 *
 * A schedule due is fired: its msg.in is recorded in fires with the
 * schedule's next due time, committed, then written (oxi_cron_end).  A
 * recurring schedule whose slots were missed (the stage was down longer
 * than the grace) fires once, for the latest slot, or not at all
 * (OXI_CRON_CATCHUP=skip); a one-shot fires once however late.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "oxi.h"
#include "cron/cron.h"

#define TEXT_MAX	2000	/* bytes of a schedule's text: a fire's
				 * msg.in stays under PIPE_BUF */
static const char *const routing[] = { "channel", "account", "chat",
	"thread", "from", "from_name", "chat_type" };	/* a maker's keys */

/* -1 with c->err the database's message */
static int
dbfail(struct oxi_cron *c, const char *err)
{
	c->err = err ? err : "?";
	return -1;
}

int
oxi_cron_begin(struct oxi_cron *c)
{
	const char *err;

	if (c->tx)
		return 0;
	if (oxi_db_exec(c->db, "BEGIN IMMEDIATE", &err) < 0)
		return dbfail(c, err);
	c->tx = 1;
	return 0;
}

int
oxi_cron_end(struct oxi_cron *c)
{
	const char *err, *id, *e = getenv("OXI_CRON_TEST_KILL");

	if (!c->tx)
		return 0;
	c->tx = 0;
	if (oxi_db_exec(c->db, "COMMIT", &err) < 0)
		return dbfail(c, err);
	/* for tests (oxi-cron(1)): die between the commit of a fire and
	 * its write, or between the write and its mark */
	if (c->sent.len > 0 && e && strcmp(e, "commit") == 0)
		raise(SIGKILL);
	if (c->outq.len > 0 && oxi_writeall(1, c->outq.s, c->outq.len) < 0)
		return -1;
	if (c->fireq.len > 0 && oxi_writeall(c->firefd, c->fireq.s,
	    c->fireq.len) < 0)
		return -1;
	if (c->sent.len > 0 && e && strcmp(e, "write") == 0)
		raise(SIGKILL);
	oxi_buf_reset(&c->outq);
	oxi_buf_reset(&c->fireq);
	for (id = c->sent.s; id && id < c->sent.s + c->sent.len;
	    id += strlen(id) + 1)
		if (oxi_crondb_do(c->db, &err, "UPDATE fires SET sent = 1"
		    " WHERE id = ?", "s", id) < 0)
			return dbfail(c, err);
	oxi_buf_reset(&c->sent);
	return 0;
}

/* queues rec (consumed) for stdout (tofire 0) or the fire output */
static void
queue(struct oxi_cron *c, jv rec, int tofire, struct oxi_buf *line)
{
	jv s = jv_dump_string(rec, 0);
	struct oxi_buf *q = tofire ? &c->fireq : &c->outq;

	oxi_buf_cats(q, jv_string_value(s));
	oxi_buf_putc(q, '\n');
	if (line)
		oxi_buf_cats(line, jv_string_value(s));
	jv_free(s);
}

/* answers request req (borrowed) with text: stored, then queued */
static int
answer(struct oxi_cron *c, jv req, const char *text, int iserr)
{
	const char *id = oxi_msg_peek(req, "id"), *irt, *err;
	struct oxi_buf line = OXI_BUF_INIT, nid = OXI_BUF_INIT;
	int tofire;
	jv r, maker;

	if ((irt = oxi_msg_peek(req, "in_reply_to"))) {
		maker = oxi_jget(req, "maker");
		r = oxi_msg_reply(maker, "msg.out");
		jv_free(maker);
		oxi_buf_printf(&nid, "note:%s", irt);
		r = jv_object_set(r, jv_string("id"), jv_string(nid.s));
		r = jv_object_set(r, jv_string("in_reply_to"), jv_string(irt));
		r = jv_object_set(r, jv_string("text"), jv_string(text));
		r = jv_object_set(r, jv_string("format"), jv_string("text"));
		tofire = 0;
	} else {
		r = oxi_msg_new("tool.result");
		r = jv_object_set(r, jv_string("id"), jv_string(id));
		r = jv_object_set(r, jv_string("content"), jv_string(text));
		r = jv_object_set(r, jv_string("is_error"), jv_bool(iserr));
		tofire = 1;
	}
	queue(c, r, tofire, &line);
	oxi_buf_free(&nid);
	if (oxi_crondb_do(c->db, &err, "INSERT OR REPLACE INTO answers(id,"
	    " tofire, line, at) VALUES(?, ?, ?, ?)", "sisi", id,
	    (long long)tofire, line.s, (long long)oxi_cron_now(c)) < 0) {
		oxi_buf_free(&line);
		return dbfail(c, err);
	}
	oxi_buf_free(&line);
	return 0;
}

/* "Fri 27 Nov 09:00 (Europe/Berlin)" of t */
static void
local(const struct oxi_cron *c, const char *tz, time_t t, char *out,
    size_t n)
{
	static const char *const wd[] = { "Sun", "Mon", "Tue", "Wed", "Thu",
		"Fri", "Sat" }, *const mo[] = { "Jan", "Feb", "Mar", "Apr",
		"May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	int y, m, d, h, mi, s, w;

	oxi_cron_split(oxi_cron_wall(tz, t), &y, &m, &d, &h, &mi, &s, &w);
	snprintf(out, n, "%s %d %s %d %02d:%02d (%s)", wd[w], d, mo[m - 1], y,
	    h, mi, tz && *tz ? tz : c->tz && *c->tz ? c->tz : "local time");
}

/* the trust a schedule made by req (borrowed) speaks with: its maker's,
 * or external when the turn that made it had read outside content */
static const char *
trustof(jv req, jv maker)
{
	const char *t = oxi_msg_peek(maker, "trust"), *ch;
	char own[128];
	jv taint = oxi_jget(req, "taint"), v;
	int i, n, outside = 0;

	if (!t)
		t = "user";
	ch = oxi_msg_peek(maker, "channel");
	snprintf(own, sizeof own, "%s:%s", t, ch ? ch : "");
	n = jv_get_kind(taint) == JV_KIND_ARRAY ? jv_array_length(jv_copy(
	    taint)) : 0;
	for (i = 0; i < n; i++) {
		v = jv_array_get(jv_copy(taint), i);
		if (!oxi_jstr_is(v, own))
			outside = 1;
		jv_free(v);
	}
	jv_free(taint);
	return outside ? "external" : t;
}

/*
 * cron.add of a turn done again: the schedule the message msg's turn
 * made already with the same text (pre and text), zone and time (a
 * one-shot's instant may be later by the time since: "in 2h" read
 * again), answered as when it was made.  1 if there is one, 0 if not, -1
 */
static int
again(struct oxi_cron *c, jv req, const struct oxi_cron_when *wh,
    const char *tz, const char *pre, const char *text)
{
	const char *msg = oxi_msg_peek(req, "msg"), *err, *state;
	char out[512], at[96];
	sqlite3_stmt *st;
	time_t now = oxi_cron_now(c);
	int r = 0;

	if (!msg || !*msg)
		return 0;
	if (!(st = oxi_crondb_q(c->db, &err, "SELECT id, spec, next, state"
	    " FROM schedules WHERE msg = ? AND text = ? || ? AND tz IS ? AND"
	    " kind = ? AND (spec = ? OR (kind = ? AND abs(anchor - ?) <="
	    " ? - made + 60)) LIMIT 1", "ssssisiii", msg, pre, text,
	    tz && *tz ? tz : NULL, (long long)wh->kind, wh->spec, (long long)OXI_CRON_AT,
	    (long long)wh->at, (long long)now)))
		return dbfail(c, err);
	if (sqlite3_step(st) == SQLITE_ROW) {
		state = (const char *)sqlite3_column_text(st, 3);
		local(c, tz, (time_t)sqlite3_column_int64(st, 2), at,
		    sizeof at);
		if (strcmp(state, "active") == 0)
			snprintf(out, sizeof out, "Scheduled %s (%s): next %s.",
			    sqlite3_column_text(st, 0), wh->kind ==
			    OXI_CRON_AT ? "once" : (const char *)
			    sqlite3_column_text(st, 1), at);
		else
			snprintf(out, sizeof out, "Schedule %s was made "
			    "already, and is %s.", sqlite3_column_text(st, 0),
			    state);
		oxi_info("schedule %s of %s asked again: not made twice",
		    sqlite3_column_text(st, 0), msg);
		r = answer(c, req, out, 0) < 0 ? -1 : 1;
	}
	sqlite3_finalize(st);
	return r;
}

/* cron.add: a new schedule, or the reason there is none */
static int
add(struct oxi_cron *c, jv req, jv maker)
{
	const char *when = oxi_msg_peek(req, "when"), *line = oxi_msg_peek(req,
	    "line"), *text = oxi_msg_peek(req, "text"), *tz = oxi_msg_peek(req,
	    "tz"), *prefix = oxi_msg_peek(req, "prefix"), *why, *err;
	char sid[OXI_ID_LEN + 1], msg[512], at[96];
	struct oxi_cron_when wh;
	struct oxi_buf t = OXI_BUF_INIT;
	time_t now = oxi_cron_now(c), next;
	jv mk;
	size_t n;
	int r, i;

	if (!tz || !*tz)
		tz = c->tz;
	if (!oxi_cron_zone_ok(tz))
		return answer(c, req, "unknown time zone", 1);
	if (!(n = oxi_cron_when_parse(when ? when : line ? line : "", tz, now,
	    &wh, &why))) {
		snprintf(msg, sizeof msg, "cannot read the time: %s", why);
		return answer(c, req, msg, 1);
	}
	if (when && when[n])
		return answer(c, req, "cannot read the time: words after it",
		    1);
	oxi_buf_cats(&t, when ? (text ? text : "") : line + n);
	while (t.len > 0 && (t.s[t.len - 1] == ' ' || t.s[t.len - 1] == '\n'))
		t.s[--t.len] = '\0';
	r = 0;
	if (t.len == 0)
		r = answer(c, req, "what should be said then? (a text after "
		    "the time)", 1);
	else if (t.s[0] == '/')
		r = answer(c, req, "a schedule's text cannot be a command", 1);
	else if (t.len + (prefix ? strlen(prefix) : 0) > TEXT_MAX)
		r = answer(c, req, "the text is too long (2000 bytes at most)",
		    1);
	else if (wh.kind == OXI_CRON_EVERY && wh.every < c->minevery) {
		snprintf(msg, sizeof msg, "too often: every %ld seconds at "
		    "least", c->minevery);
		r = answer(c, req, msg, 1);
	} else if ((next = oxi_cron_when_next(&wh, tz, now)) < 0)
		r = answer(c, req, "that time never comes", 1);
	else if ((r = again(c, req, &wh, tz, prefix &&
	    strlen(prefix) < 64 ? prefix : "", t.s)) != 0)
		r = r < 0 ? -1 : 0;
	else if (oxi_crondb_int(c->db, 0, "SELECT count(*) FROM schedules"
	    " WHERE state = 'active' AND channel IS ? AND account IS ? AND"
	    " chat IS ?", "sss", oxi_msg_peek(maker, "channel"),
	    oxi_msg_peek(maker, "account"), oxi_msg_peek(maker, "chat")) >=
	    c->maxper) {
		snprintf(msg, sizeof msg, "this chat has %ld schedules "
		    "already: cancel one first", c->maxper);
		r = answer(c, req, msg, 1);
	} else {
		if (prefix && strlen(prefix) < 64) {
			struct oxi_buf p = OXI_BUF_INIT;

			oxi_buf_printf(&p, "%s%s", prefix, t.s);
			oxi_buf_free(&t);
			t = p;
		}
		/* a short id, easy to type: the random end of a ULID */
		mk = jv_object();
		for (i = 0; i < 7; i++) {
			const char *v = oxi_msg_peek(maker, routing[i]);

			if (v)
				mk = jv_object_set(mk, jv_string(routing[i]),
				    jv_string(v));
		}
		mk = jv_dump_string(mk, 0);
		do {
			oxi_id_new(sid);
			memmove(sid, sid + OXI_ID_LEN - 6, 7);
			for (i = 0; sid[i]; i++)
				sid[i] = (char)(sid[i] >= 'A' && sid[i] <= 'Z' ?
				    sid[i] - 'A' + 'a' : sid[i]);
		} while (oxi_crondb_int(c->db, 0, "SELECT 1 FROM schedules"
		    " WHERE id = ?", "s", sid));
		if (oxi_crondb_do(c->db, &err, "INSERT INTO schedules(id, req,"
		    " kind, spec, tz, anchor, text, maker, trust, channel,"
		    " account, chat, made, next, msg) VALUES(?, ?, ?, ?, ?, ?,"
		    " ?, ?, ?, ?, ?, ?, ?, ?, ?)", "ssississssssiis", sid,
		    oxi_msg_peek(req, "id"), (long long)wh.kind, wh.spec,
		    tz && *tz ? tz : NULL, (long long)wh.at, t.s,
		    jv_string_value(mk), trustof(req, maker),
		    oxi_msg_peek(maker, "channel"), oxi_msg_peek(maker,
		    "account"), oxi_msg_peek(maker, "chat"), (long long)now,
		    (long long)next, oxi_msg_peek(req, "msg")) < 0) {
			jv_free(mk);
			oxi_buf_free(&t);
			return dbfail(c, err);
		}
		jv_free(mk);
		local(c, tz, next, at, sizeof at);
		snprintf(msg, sizeof msg, "Scheduled %s (%s%s): next %s.", sid,
		    wh.kind == OXI_CRON_AT ? "once" : wh.spec,
		    strcmp(trustof(req, maker), oxi_msg_peek(maker, "trust") ?
		    oxi_msg_peek(maker, "trust") : "user") ? ", as external: "
		    "made after reading outside content" : "", at);
		oxi_info("schedule %s made: %s, next %ld", sid, wh.spec,
		    (long)next);
		r = answer(c, req, msg, 0);
	}
	oxi_buf_free(&t);
	return r;
}

/* cron.list: the schedules of the maker's chat (all: every chat, for the
 * owner) */
static int
list(struct oxi_cron *c, jv req, jv maker)
{
	const char *tr = oxi_msg_peek(maker, "trust");
	jv a = oxi_jget(req, "all");
	int all = tr && strcmp(tr, "owner") == 0 &&
	    jv_get_kind(a) == JV_KIND_TRUE;
	struct oxi_buf b = OXI_BUF_INIT;
	sqlite3_stmt *st;
	const char *err, *tz;
	char at[96];
	int n = 0, r;

	jv_free(a);
	st = oxi_crondb_q(c->db, &err, "SELECT id, spec, tz, next, text, chat"
	    " FROM schedules WHERE state = 'active' AND (? OR (channel IS ?"
	    " AND account IS ? AND chat IS ?)) ORDER BY next LIMIT 100",
	    "isss", (long long)all, oxi_msg_peek(maker, "channel"),
	    oxi_msg_peek(maker, "account"), oxi_msg_peek(maker, "chat"));
	if (!st)
		return dbfail(c, err);
	while (sqlite3_step(st) == SQLITE_ROW) {
		tz = (const char *)sqlite3_column_text(st, 2);
		local(c, tz, (time_t)sqlite3_column_int64(st, 3), at,
		    sizeof at);
		oxi_buf_printf(&b, "%s%s  next %s  %s  %.*s%s%s%s",
		    n++ ? "\n" : "", sqlite3_column_text(st, 0), at,
		    strncmp((const char *)sqlite3_column_text(st, 1), "at ",
		    3) == 0 ? "once" : (const char *)sqlite3_column_text(st, 1),
		    (int)oxi_utf8_cut((const char *)sqlite3_column_text(st, 4),
		    (size_t)sqlite3_column_bytes(st, 4), 60),
		    sqlite3_column_text(st, 4), sqlite3_column_bytes(st, 4) > 60
		    ? "..." : "", all ? "  chat " : "", all ? (const char *)
		    sqlite3_column_text(st, 5) : "");
	}
	sqlite3_finalize(st);
	r = answer(c, req, n ? b.s : "No schedules.", 0);
	oxi_buf_free(&b);
	return r;
}

/* cron.cancel: the schedule ref of the maker's chat (the owner's: any) */
static int
cancel(struct oxi_cron *c, jv req, jv maker)
{
	const char *ref = oxi_msg_peek(req, "ref"), *err;
	const char *tr = oxi_msg_peek(maker, "trust");
	int owner = tr && strcmp(tr, "owner") == 0;
	char msg[128];

	if (!ref || !*ref || strlen(ref) > 40)
		return answer(c, req, "which schedule? (its id, from the list)",
		    1);
	if (oxi_crondb_do(c->db, &err, "UPDATE schedules SET state ="
	    " 'cancelled' WHERE id = ? AND state = 'active' AND (? OR"
	    " (channel IS ? AND account IS ? AND chat IS ?))", "sisss", ref,
	    (long long)owner, oxi_msg_peek(maker, "channel"),
	    oxi_msg_peek(maker, "account"), oxi_msg_peek(maker, "chat")) < 0)
		return dbfail(c, err);
	if (sqlite3_changes(c->db) == 0) {
		snprintf(msg, sizeof msg, "No schedule %s here.", ref);
		return answer(c, req, msg, 1);
	}
	snprintf(msg, sizeof msg, "Cancelled %s.", ref);
	oxi_info("schedule %s cancelled", ref);
	return answer(c, req, msg, 0);
}

int
oxi_cron_request(struct oxi_cron *c, jv rec, const char **why)
{
	const char *type = oxi_msg_type_peek(rec), *id = oxi_msg_peek(rec,
	    "id");
	sqlite3_stmt *st;
	const char *err;
	jv maker = oxi_jget(rec, "maker");
	int r;

	if (!id || !*id || jv_get_kind(maker) != JV_KIND_OBJECT ||
	    !oxi_msg_peek(maker, "channel") || !oxi_msg_peek(maker, "chat")) {
		*why = "cron request without id or maker {channel, chat}";
		jv_free(maker);
		jv_free(rec);
		return 1;
	}
	/* answered before: the same answer again */
	if (!(st = oxi_crondb_q(c->db, &err, "SELECT tofire, line FROM"
	    " answers WHERE id = ?", "s", id))) {
		jv_free(maker);
		jv_free(rec);
		return dbfail(c, err);
	}
	if (sqlite3_step(st) == SQLITE_ROW) {
		struct oxi_buf *q = sqlite3_column_int(st, 0) ? &c->fireq :
		    &c->outq;

		oxi_buf_cats(q, (const char *)sqlite3_column_text(st, 1));
		oxi_buf_putc(q, '\n');
		sqlite3_finalize(st);
		oxi_debug("request %s answered before", id);
		jv_free(maker);
		jv_free(rec);
		return 0;
	}
	sqlite3_finalize(st);
	if (strcmp(type, "cron.add") == 0)
		r = add(c, rec, maker);
	else if (strcmp(type, "cron.list") == 0)
		r = list(c, rec, maker);
	else
		r = cancel(c, rec, maker);
	jv_free(maker);
	jv_free(rec);
	return r;
}

/* reads back the time of a stored schedule */
static int
stored(sqlite3_stmt *st, struct oxi_cron_when *wh, const char **tz)
{
	const char *why, *spec = (const char *)sqlite3_column_text(st, 1);

	*tz = (const char *)sqlite3_column_text(st, 2);
	if (!oxi_cron_when_parse(spec, *tz, 0, wh, &why) && strncmp(spec,
	    "at ", 3) != 0)
		return -1;
	if (strncmp(spec, "at ", 3) == 0) {
		wh->kind = OXI_CRON_AT;
		wh->at = (time_t)sqlite3_column_int64(st, 3);
	} else if (wh->kind == OXI_CRON_EVERY)
		wh->at = (time_t)sqlite3_column_int64(st, 4);
	return 0;
}

int
oxi_cron_fire(struct oxi_cron *c, time_t now)
{
	struct oxi_cron_when wh;
	sqlite3_stmt *st;
	const char *err, *tz, *sid;
	time_t due, last, next;
	long long k;
	jv maker;
	int n = 0;

	st = oxi_crondb_q(c->db, &err, "SELECT id, spec, tz, next, anchor,"
	    " text, maker, trust FROM schedules WHERE state = 'active' AND"
	    " next <= ? ORDER BY next LIMIT 1", "i", (long long)now);
	if (!st)
		return dbfail(c, err);
	while (sqlite3_step(st) == SQLITE_ROW && n++ < 10000) {
		sid = (const char *)sqlite3_column_text(st, 0);
		due = (time_t)sqlite3_column_int64(st, 3);
		if (stored(st, &wh, &tz) < 0) {
			oxi_warn("schedule %s: unreadable spec: cancelled", sid);
			next = -1;
			last = 0;
		} else if (wh.kind == OXI_CRON_AT) {
			last = due;
			next = -1;
		} else {
			/* the latest slot that is not after now */
			last = due;
			if (wh.kind == OXI_CRON_EVERY) {
				k = (now - wh.at) / wh.every;
				if (wh.at + k * wh.every > last)
					last = wh.at + (time_t)(k * wh.every);
				next = last + wh.every;
			} else {
				/* long down: the slots of the last two days */
				if (now - last > 172800 && (next =
				    oxi_cron_when_next(&wh, tz, now - 172800)) >=
				    0 && next <= now)
					last = next;
				while ((next = oxi_cron_when_next(&wh, tz,
				    last)) >= 0 && next <= now)
					last = next;
			}
			if (now - last > c->grace && !c->catchup) {
				oxi_info("schedule %s: missed %ld, not run "
				    "(catch-up off)", sid, (long)last);
				last = 0;
			}
		}
		maker = jv_parse((const char *)sqlite3_column_text(st, 6));
		if (last > 0 && oxi_cron_emit(c, sid, last, (const char *)
		    sqlite3_column_text(st, 5), maker, (const char *)
		    sqlite3_column_text(st, 7)) < 0) {
			jv_free(maker);
			sqlite3_finalize(st);
			return -1;
		}
		jv_free(maker);
		if (oxi_crondb_do(c->db, &err, "UPDATE schedules SET next = ?,"
		    " last = ?, fired = fired + (? > 0), state = CASE WHEN"
		    " ? < 0 THEN 'done' ELSE state END WHERE id = ?", "iiiis",
		    (long long)next, (long long)last, (long long)last,
		    (long long)next, sid) < 0) {
			sqlite3_finalize(st);
			return dbfail(c, err);
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (c->beat.every > 0 && (due = oxi_cron_beat_due(c)) >= 0 &&
	    due <= now)
		return oxi_cron_beat_fire(c, due, now);
	return 0;
}

time_t
oxi_cron_due(struct oxi_cron *c)
{
	time_t t = (time_t)oxi_crondb_int(c->db, -1, "SELECT min(next) FROM"
	    " schedules WHERE state = 'active'", NULL), b;

	if (c->beat.every > 0 && (b = oxi_cron_beat_due(c)) >= 0 &&
	    (t < 0 || b < t))
		t = b;
	return t;
}

int
oxi_cron_resend(struct oxi_cron *c)
{
	sqlite3_stmt *st;
	const char *err;
	int n = 0;

	if (!(st = oxi_crondb_q(c->db, &err, "SELECT id, line FROM fires"
	    " WHERE sent = 0 ORDER BY due", NULL)))
		return dbfail(c, err);
	while (sqlite3_step(st) == SQLITE_ROW) {
		oxi_buf_cats(&c->fireq, (const char *)sqlite3_column_text(st,
		    1));
		oxi_buf_putc(&c->fireq, '\n');
		oxi_buf_cat(&c->sent, sqlite3_column_text(st, 0),
		    (size_t)sqlite3_column_bytes(st, 0) + 1);
		n++;
	}
	sqlite3_finalize(st);
	if (n)
		oxi_info("%d fires recorded but perhaps not written: written "
		    "again", n);
	if (oxi_cron_begin(c) < 0)
		return -1;
	return oxi_cron_end(c);
}

int
oxi_cron_seen(struct oxi_cron *c, jv rec)
{
	const char *irt = oxi_msg_peek(rec, "in_reply_to"), *err,
	    *type = oxi_msg_type_peek(rec), *text = oxi_msg_peek(rec, "text");
	double tok = oxi_jnum(rec, "tokens", -1);
	long long w;
	int y, m, d, h, mi, s;
	char day[16];
	size_t n;

	if (!irt || strncmp(irt, "cron:heartbeat:", 15) != 0)
		return 0;
	/* a beat's turn is quiet: no drafts, no status lines */
	if (strcmp(type, "msg.draft") == 0 || strcmp(type, "status") == 0)
		return 1;
	if (strcmp(type, "msg.out") != 0)
		return 0;
	if (tok >= 0) {
		w = oxi_cron_wall(c->tz, oxi_cron_now(c));
		oxi_cron_split(w, &y, &m, &d, &h, &mi, &s, NULL);
		snprintf(day, sizeof day, "%04d-%02d-%02d", y, m, d);
		if (oxi_crondb_do(c->db, &err, "INSERT OR IGNORE INTO spend(ref,"
		    " day, tokens) VALUES(?, ?, ?)", "ssi", irt, day,
		    (long long)tok) < 0)
			return dbfail(c, err);
		oxi_debug("heartbeat %s spent %.0f tokens", irt, tok);
	}
	/* nothing to say: the reply goes no further */
	if (text) {
		text += strspn(text, " \t\r\n");
		n = strcspn(text, " \t\r\n.!");
		if (n == 12 && strncmp(text, "HEARTBEAT_OK", 12) == 0 &&
		    !text[n + strspn(text + n, " \t\r\n.!")])
			return 1;
	}
	return 0;
}

int
oxi_cron_dump(struct oxi_cron *c, struct oxi_buf *b)
{
	sqlite3_stmt *st;
	const char *err;
	char iso[32];
	jv r;

	if (!(st = oxi_crondb_q(c->db, &err, "SELECT id, spec, tz, next,"
	    " text, maker, trust, state, fired FROM schedules WHERE state ="
	    " 'active' ORDER BY next", NULL)))
		return dbfail(c, err);
	while (sqlite3_step(st) == SQLITE_ROW) {
		r = jv_object_set(jv_object(), jv_string("id"), jv_string(
		    (const char *)sqlite3_column_text(st, 0)));
		r = jv_object_set(r, jv_string("spec"), jv_string((const char *)
		    sqlite3_column_text(st, 1)));
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			r = jv_object_set(r, jv_string("tz"), jv_string(
			    (const char *)sqlite3_column_text(st, 2)));
		oxi_cron_iso((time_t)sqlite3_column_int64(st, 3), iso);
		r = jv_object_set(r, jv_string("next"), jv_string(iso));
		r = jv_object_set(r, jv_string("text"), jv_string((const char *)
		    sqlite3_column_text(st, 4)));
		r = jv_object_set(r, jv_string("maker"), jv_parse((const char *)
		    sqlite3_column_text(st, 5)));
		r = jv_object_set(r, jv_string("trust"), jv_string((const char *)
		    sqlite3_column_text(st, 6)));
		r = jv_object_set(r, jv_string("fired"), jv_number(
		    sqlite3_column_int(st, 8)));
		r = jv_dump_string(r, 0);
		oxi_buf_cats(b, jv_string_value(r));
		oxi_buf_putc(b, '\n');
		jv_free(r);
	}
	sqlite3_finalize(st);
	return 0;
}
