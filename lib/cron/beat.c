/*
 * beat.c - the heartbeat: a turn the assistant takes on its own, every
 * OXI_HEARTBEAT, inside the active hours OXI_HEARTBEAT_HOURS of the
 * stage's zone, in the owner's chat OXI_HEARTBEAT_TO, with the owner's
 * trust, while the day's tokens last (OXI_HEARTBEAT_TOKENS)
 *
 * Its beats fall on the active window's start plus whole intervals, so
 * that each has a due time of its own and its fire an id (cron:heartbeat:
 * DUE) a restart writes the same.  A beat missed by more than the grace
 * (the stage was down) is not made up.  The spend: oxi-loop puts the
 * tokens of a turn's model answers in its msg.out ("tokens"), and oxi-cron,
 * which the replies pass on their way to the sender, books those that
 * answer a beat (oxi_cron_seen); once the local day's sum reaches the
 * budget no beat fires until the next day.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "cron/cron.h"

#define DEFAULT_TEXT "Heartbeat: a scheduled check-in, nobody wrote. " \
	"If something needs the owner's attention now, say it in a few " \
	"words; otherwise answer exactly HEARTBEAT_OK."

void
oxi_cron_beat_free(struct oxi_cron_beat *b)
{
	free(b->text);
	b->text = NULL;
	jv_free(b->maker);
	b->maker = jv_null();
	b->every = 0;
}

int
oxi_cron_beat_load(struct oxi_cron_beat *b, const char **why)
{
	const char *v = oxi_getenv("OXI_HEARTBEAT"), *to, *p, *dir;
	struct oxi_cron_when wh;
	struct oxi_buf s = OXI_BUF_INIT;
	char path[4096], *acc, *chat;
	long long tok;
	size_t n;
	char *end;

	oxi_cron_beat_free(b);
	if (!v || strcmp(v, "off") == 0)
		return 0;
	oxi_buf_printf(&s, "%s%s", strncmp(v, "every", 5) ? "every " : "", v);
	n = oxi_cron_when_parse(s.s, NULL, 0, &wh, why);
	if (n && s.s[n])
		n = 0;
	oxi_buf_free(&s);
	if (!n || wh.kind != OXI_CRON_EVERY) {
		*why = "bad OXI_HEARTBEAT (an interval: 30m, 2h)";
		return -1;
	}
	if (!(to = oxi_getenv("OXI_HEARTBEAT_TO")) || !(p = strchr(to, ':')) ||
	    !strchr(p + 1, ':')) {
		*why = "OXI_HEARTBEAT_TO must name the chat: channel:account:chat";
		return -1;
	}
	acc = xstrndup(p + 1, strcspn(p + 1, ":"));
	chat = xstrdup(p + 2 + strlen(acc));
	b->maker = jv_object_set(jv_object(), jv_string("channel"),
	    jv_string_sized(to, (int)(p - to)));
	if (*acc)
		b->maker = jv_object_set(b->maker, jv_string("account"),
		    jv_string(acc));
	b->maker = jv_object_set(b->maker, jv_string("chat"), jv_string(chat));
	b->maker = jv_object_set(b->maker, jv_string("from"), jv_string(
	    oxi_getenv("OXI_HEARTBEAT_FROM") ? oxi_getenv("OXI_HEARTBEAT_FROM")
	    : chat));
	free(acc);
	free(chat);
	b->from = b->to = 0;
	if ((v = oxi_getenv("OXI_HEARTBEAT_HOURS"))) {
		char a[32], z[32];
		size_t k = strcspn(v, "-");

		if (k >= sizeof a || !v[k] || strlen(v + k + 1) >= sizeof z ||
		    (memcpy(a, v, k), a[k] = '\0', strcpy(z, v + k + 1),
		    !(n = oxi_cron_clock(a, &b->from))) || a[n] ||
		    !(n = oxi_cron_clock(z, &b->to)) || z[n]) {
			*why = "bad OXI_HEARTBEAT_HOURS (08:00-22:00)";
			return -1;
		}
	}
	b->tokens = 0;
	if ((v = oxi_getenv("OXI_HEARTBEAT_TOKENS"))) {
		tok = strtoll(v, &end, 10);
		if (*end || tok < 0) {
			*why = "bad OXI_HEARTBEAT_TOKENS (a count of tokens)";
			return -1;
		}
		b->tokens = tok;
	}
	if ((v = oxi_getenv("OXI_HEARTBEAT_TEXT")))
		b->text = xstrdup(v);
	else if ((dir = oxi_config_dir())) {
		snprintf(path, sizeof path, "%s/heartbeat.md", dir);
		if (oxi_readfile(path, &s, 2000) == 0 && s.len > 0)
			b->text = s.s;
		else
			oxi_buf_free(&s);
	}
	if (!b->text)
		b->text = xstrdup(DEFAULT_TEXT);
	b->every = wh.every;
	return 0;
}

/* the first beat after `after` */
static time_t
slot(const struct oxi_cron *c, time_t after)
{
	const struct oxi_cron_beat *b = &c->beat;
	long long w = oxi_cron_wall(c->tz, after), day, start, len, s;
	time_t t;

	if (b->every <= 0)
		return -1;
	len = ((b->to - b->from) % 86400 + 86400) % 86400;
	if (len == 0)
		len = 86400;
	day = (w >= 0 ? w : w - 86399) / 86400;
	for (day = day - 1; day <= (w / 86400) + 3; day++) {
		start = day * 86400 + b->from;
		/* straight to the slots near `after` (two hours before it:
		 * the wall clock may have gone back) */
		s = start;
		if (w - 7200 > start)
			s += (w - 7200 - start) / b->every * b->every;
		for (; s < start + len; s += b->every)
			if ((t = oxi_cron_instant(c->tz, s, after)) >= 0)
				return t;
	}
	return -1;
}

time_t
oxi_cron_beat_next(const struct oxi_cron *c, time_t after)
{
	return slot(c, after);
}

/* the next beat: after the last one, and not one missed */
time_t
oxi_cron_beat_due(struct oxi_cron *c)
{
	time_t last = (time_t)oxi_crondb_int(c->db, 0, "SELECT v FROM kv"
	    " WHERE k = 'beat.last'", NULL), now = oxi_cron_now(c);

	if (last < now - c->grace - 1)
		last = now - c->grace - 1;
	return slot(c, last);
}

long long
oxi_cron_beat_spent(struct oxi_cron *c, time_t now)
{
	int y, m, d, h, mi, s;
	char day[16];

	oxi_cron_split(oxi_cron_wall(c->tz, now), &y, &m, &d, &h, &mi, &s,
	    NULL);
	snprintf(day, sizeof day, "%04d-%02d-%02d", y, m, d);
	return oxi_crondb_int(c->db, 0, "SELECT sum(tokens) FROM spend"
	    " WHERE day = ?", "s", day);
}

int
oxi_cron_beat_fire(struct oxi_cron *c, time_t due, time_t now)
{
	long long spent, w;
	const char *err;
	time_t last = due;
	char v[32];

	if (c->beat.tokens > 0 && (spent = oxi_cron_beat_spent(c, now)) >=
	    c->beat.tokens) {
		/* none until the local day ends */
		w = oxi_cron_wall(c->tz, now);
		w = (w >= 0 ? w : w - 86399) / 86400 * 86400 + 86400 - 1;
		if ((last = oxi_cron_instant(c->tz, w, now)) < 0)
			last = now + 3600;
		oxi_info("heartbeat: %lld of %lld tokens spent today: none "
		    "until tomorrow", spent, c->beat.tokens);
	} else if (now - due > c->grace)
		oxi_info("heartbeat due %ld missed", (long)due);
	else if (oxi_cron_emit(c, "heartbeat", due, c->beat.text, c->beat.maker,
	    "owner") < 0)
		return -1;
	snprintf(v, sizeof v, "%lld", (long long)last);
	if (oxi_crondb_do(c->db, &err, "INSERT OR REPLACE INTO kv(k, v)"
	    " VALUES('beat.last', ?)", "s", v) < 0) {
		c->err = err;
		return -1;
	}
	return 0;
}
