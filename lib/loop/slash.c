/*
 * slash.c - the commands a chat can give the loop itself
 *
 * A msg.in whose text is one of the words below (after blanks, and
 * followed by nothing or a blank) is a command: it is answered at once
 * with a msg.out, without the model and without joining the history,
 * and its id is answered once like any message.  Other text that starts
 * with "/" goes to the model.  See oxi-loop(1), COMMANDS.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "loop/engine.h"
#include "loop/memory.h"
#include "loop/schedtool.h"

#define MODEL_MAX	200

#define HELP \
	"Commands:\n" \
	"/new - start a new session; the old one is kept\n" \
	"/sessions - the sessions of this chat\n" \
	"/model [NAME|default] - the model of this session\n" \
	"/status - model, context and spend\n" \
	"/cost - tokens and spend, this session and today\n" \
	"/stop - stop the answer in progress\n" \
	"/remind WHEN TEXT - a reminder (with oxi-cron)\n" \
	"/schedules [all | cancel ID] - this chat's schedules\n" \
	"/memory - what I remember about you (with oxi-mem)\n" \
	"/forget N | KEY | all - forget a fact, or all of them\n" \
	"/help - this list"

struct cmd {
	struct oxi_loop *l;
	jv in;			/* the msg.in, borrowed */
	const char *key;	/* its conversation */
	const char *arg;	/* the text after the word, trimmed */
	char *session;		/* the current session */
	struct oxi_buf out;	/* the answer */
	int elsewhere;		/* oxi-cron answers it */
};

/* a model name as far as the loop can tell: provider/name, or a chain
 * of them separated by commas, no blanks or control characters */
static int
model_ok(const char *s)
{
	const char *p = s;
	int slash = 0, first = 1;

	if (strlen(s) > MODEL_MAX)
		return 0;
	for (;; p++) {
		if (*p == ',' || *p == '\0') {
			if (!slash || p[-1] == '/')
				return 0;
			if (*p == '\0')
				return 1;
			slash = 0;
			first = 1;
			continue;
		}
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return 0;
		if (*p == '/' && !slash) {
			if (first)
				return 0;
			slash = 1;
		} else if (!slash && !islower((unsigned char)*p) &&
		    !isdigit((unsigned char)*p) && *p != '-' && *p != '_')
			return 0;
		first = 0;
	}
}

/* 12345 as "12,345" */
static const char *
num(char *b, size_t n, long long v)
{
	char t[32];
	int len, i, j = 0;

	len = snprintf(t, sizeof t, "%lld", v < 0 ? 0 : v);
	for (i = 0; i < len && (size_t)j + 2 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			b[j++] = ',';
		b[j++] = t[i];
	}
	b[j] = '\0';
	return b;
}

static void
spend(struct oxi_buf *b, const struct oxi_hist_spend *sp)
{
	char x[32], y[32];

	oxi_buf_printf(b, "%lld answer%s, %s tokens in, %s out", sp->answers,
	    sp->answers == 1 ? "" : "s", num(x, sizeof x, sp->input),
	    num(y, sizeof y, sp->output));
	if (sp->priced > 0)
		oxi_buf_printf(b, ", $%.4f%s", sp->cost, sp->priced <
		    sp->answers ? " (some without a price)" : "");
	else if (sp->answers > 0)
		oxi_buf_cats(b, ", cost unknown");
}

/* the start of today, UTC */
static void
today(char ts[32])
{
	oxi_time_now(ts);
	snprintf(ts + 10, 22, "T00:00:00.000Z");
}

static int
c_help(struct cmd *c)
{
	oxi_buf_cats(&c->out, HELP);
	return 0;
}

static int
c_new(struct cmd *c)
{
	const char *err;
	char *id;

	oxi_memory_close(c->l, c->in, c->key, c->session);
	if (oxi_hist_session(c->l->db, c->key, 1, &id, &err) < 0)
		return oxi_out_dbfail(c->l, "start a session", err);
	free(id);
	oxi_buf_cats(&c->out, "Started a new session; the previous one is "
	    "kept (/sessions lists them).");
	return 0;
}

static int
c_sessions(struct cmd *c)
{
	jv all = oxi_hist_sessions(c->l->db, c->key), s;
	int i, n;

	if (!jv_is_valid(all)) {
		jv m = jv_invalid_get_msg(all);

		oxi_out_dbfail(c->l, "list sessions", jv_string_value(m));
		jv_free(m);
		return -1;
	}
	n = jv_array_length(jv_copy(all));
	oxi_buf_cats(&c->out, "Sessions of this chat:");
	for (i = 0; i < n; i++) {
		s = jv_array_get(jv_copy(all), i);
		oxi_buf_printf(&c->out, "\n%d. started %.10s %.5s, %d "
		    "message%s%s%s%s", (int)oxi_jnum(s, "n", 0),
		    oxi_msg_peek(s, "ts"), oxi_msg_peek(s, "ts") + 11,
		    (int)oxi_jnum(s, "messages", 0), oxi_jnum(s, "messages",
		    0) == 1 ? "" : "s", oxi_msg_peek(s, "model") ? ", " : "",
		    oxi_msg_peek(s, "model") ? oxi_msg_peek(s, "model") : "",
		    i == n - 1 ? " (current)" : "");
		jv_free(s);
	}
	jv_free(all);
	return 0;
}

static int
c_model(struct cmd *c)
{
	const struct oxi_loop_cfg *cfg = c->l->cfg;
	const char *err;
	char *m;

	if (!*c->arg) {
		m = oxi_hist_model(c->l->db, c->session);
		oxi_buf_printf(&c->out, "This session uses %s%s.", m ? m :
		    cfg->model ? cfg->model : "the model stage's default",
		    m ? "" : " (the default)");
		free(m);
		return 0;
	}
	if (strcmp(c->arg, "default") == 0) {
		if (oxi_hist_setmodel(c->l->db, c->session, NULL, &err) < 0)
			return oxi_out_dbfail(c->l, "set a model", err);
		oxi_buf_printf(&c->out, "This session uses the default model "
		    "again (%s).", cfg->model ? cfg->model :
		    "the model stage's choice");
		return 0;
	}
	if (!model_ok(c->arg)) {
		oxi_buf_cats(&c->out, "Not a model name: write provider/model,"
		    " as openai/gpt-4o-mini (several, separated by commas, "
		    "are a failover chain).");
		return 0;
	}
	if (oxi_hist_setmodel(c->l->db, c->session, c->arg, &err) < 0)
		return oxi_out_dbfail(c->l, "set a model", err);
	oxi_buf_printf(&c->out, "This session now uses %s.", c->arg);
	return 0;
}

static int
c_status(struct cmd *c)
{
	struct oxi_loop *l = c->l;
	struct oxi_hist_spend all, mine;
	struct turn *t;
	char *m = oxi_hist_model(l->db, c->session), since[32], a[32], b[32];
	long used, window;
	int queued = 0;

	used = oxi_ctx_used(l, c->session, m ? m : l->cfg->model, &window);
	oxi_buf_printf(&c->out, "Model: %s%s\nContext: about %s of %s tokens "
	    "(%ld%%)", m ? m : l->cfg->model ? l->cfg->model :
	    "the model stage's default", m ? "" : " (the default)",
	    num(a, sizeof a, used), num(b, sizeof b, window),
	    window > 0 ? used * 100 / window : 0);
	free(m);
	today(since);
	if (oxi_hist_spent(l->db, c->session, since, &mine) == 0 &&
	    oxi_hist_spent(l->db, NULL, since, &all) == 0) {
		oxi_buf_cats(&c->out, "\nToday, this session: ");
		spend(&c->out, &mine);
		oxi_buf_cats(&c->out, "\nToday, all sessions: ");
		spend(&c->out, &all);
	}
	for (t = l->turns; t; t = t->next)
		if (strcmp(t->key, c->key) == 0 && t->state == WAIT_START)
			queued++;
	if ((t = oxi_turn_active(l, c->key)))
		oxi_buf_printf(&c->out, "\nWorking: round %d of at most %d%s",
		    t->rounds, l->cfg->maxrounds, t->state == WAIT_RETRY ?
		    ", waiting for the model to come back" : "");
	if (queued)
		oxi_buf_printf(&c->out, "\nWaiting: %d message%s", queued,
		    queued == 1 ? "" : "s");
	return 0;
}

static int
c_cost(struct cmd *c)
{
	struct oxi_hist_spend sp;
	char since[32];

	today(since);
	if (oxi_hist_spent(c->l->db, c->session, NULL, &sp) == 0) {
		oxi_buf_cats(&c->out, "This session: ");
		spend(&c->out, &sp);
	}
	if (oxi_hist_spent(c->l->db, c->session, since, &sp) == 0) {
		oxi_buf_cats(&c->out, "\nThis session today: ");
		spend(&c->out, &sp);
	}
	if (oxi_hist_spent(c->l->db, NULL, since, &sp) == 0) {
		oxi_buf_cats(&c->out, "\nToday, all sessions: ");
		spend(&c->out, &sp);
	}
	return 0;
}

static int
c_stop(struct cmd *c)
{
	struct turn *t = oxi_turn_active(c->l, c->key);

	if (!t) {
		oxi_buf_cats(&c->out, "Nothing to stop.");
		return 0;
	}
	oxi_buf_cats(&c->out, "Stopped.");
	return oxi_turn_stop(c->l, t, "\n\n[stopped]");
}

/* /remind and /schedules: a request to oxi-cron, which answers */
static int
c_sched(struct cmd *c, const char *word)
{
	const char *note;

	if (oxi_sched_cmd(c->l, c->in, word, c->arg, &note) < 0)
		oxi_buf_cats(&c->out, note);
	else
		c->elsewhere = 1;
	return 0;
}

static int
c_remind(struct cmd *c)
{
	return c_sched(c, "/remind");
}

static int
c_schedules(struct cmd *c)
{
	return c_sched(c, "/schedules");
}

static const struct {
	const char *word;
	int (*run)(struct cmd *);
} cmds[] = {
	{ "/help", c_help },
	{ "/new", c_new },
	{ "/sessions", c_sessions },
	{ "/model", c_model },
	{ "/status", c_status },
	{ "/cost", c_cost },
	{ "/stop", c_stop },
	{ "/remind", c_remind },
	{ "/schedules", c_schedules },
	{ NULL, NULL }
};

int
oxi_slash(struct oxi_loop *l, jv in, const char *key)
{
	struct cmd c = { .l = l, .in = in, .key = key, .out = OXI_BUF_INIT };
	const char *text = oxi_msg_peek(in, "text"), *err, *msgid;
	char *arg;
	size_t k, n;
	int i, r;

	text += strspn(text, " \t\r\n");
	for (i = 0; cmds[i].word; i++) {
		k = strlen(cmds[i].word);
		if (strncmp(text, cmds[i].word, k) == 0 && (text[k] == '\0' ||
		    isspace((unsigned char)text[k])))
			break;
	}
	if (!cmds[i].word)
		return 0;
	arg = xstrdup(text + k + strspn(text + k, " \t\r\n"));
	for (n = strlen(arg); n > 0 && isspace((unsigned char)arg[n - 1]);)
		arg[--n] = '\0';
	c.arg = arg;
	msgid = oxi_msg_peek(in, "id");
	oxi_debug("%s: command %s", msgid, cmds[i].word);
	if (oxi_hist_session(l->db, key, 0, &c.session, &err) < 0)
		r = oxi_out_dbfail(l, "find a session", err);
	else
		r = cmds[i].run(&c);
	if (r == 0 && oxi_hist_mark(l->db, msgid, c.session, "done", &err) < 0)
		r = oxi_out_dbfail(l, "record a command", err);
	if (r == 0 && !c.elsewhere)
		oxi_out_note(l, in, "note", c.out.s ? c.out.s : "");
	free(c.session);
	free(arg);
	oxi_buf_free(&c.out);
	return r < 0 ? -1 : 1;
}
