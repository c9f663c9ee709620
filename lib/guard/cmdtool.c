/*
 * cmdtool.c - oxi-guard tool -- command [arg ...]: the tool policy
 *
 * Runs command (oxi-tool and its options) as its coprocess and sits
 * between oxi-loop and it: oxi-loop's OXI_TOOL is
 * "oxi-guard tool -- oxi-tool -w ws".  Each tool.call read on stdin is
 * judged (policy.c): allowed, it goes to the command byte for byte;
 * held, it is answered at once with an error tool.result whose content
 * is "guard: needs approval: WHY. Nothing was run." and the approval
 * line, which oxi-loop turns into an approval.ask; the owner's yes
 * writes the line to the guard's store, oxi-loop sends the same call
 * again, and this time it goes through (a -once line is used up).
 * Refused, it is answered with "guard: refused: WHY. Nothing was run.".
 * Deferred (a command asking for the network, which the command holds
 * for the owner itself), it goes to the command as an allowed one does.
 * What the command's tools do is what it says in its --list, run once
 * at start ("x-oxi": a shell confined to the sandbox, and that it asks
 * the owner before it gives a call the network); a command that says
 * nothing has no confined tool.
 * Every verdict is written to the audit log first: a call that cannot
 * be audited does not run.  Every other record goes to the command;
 * what the command writes comes back to stdout, each tool.result
 * remembered for its session (the URLs a later fetch may use) and one
 * that would pose as the guard's own words defused.  The owner's words
 * that oxi-loop puts in a call ("said") are remembered the same way (a
 * URL the owner wrote is not one the turn built) and taken out of the
 * call before the command sees it.
 *
 * With --list or -L as the command's last argument (oxi-loop runs
 * "$OXI_TOOL --list"), the command is run in place of oxi-guard.
 * signals: SIGHUP reloads the policy, SIGTERM ends the command's input
 * and waits for its answers.  exit: the command's non-zero exit code,
 * else 0, or 1 if records were rejected; 100 usage or policy, 111 i/o.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "guard/guard.h"
#include "guard/policy.h"

#define QMAX		(4 << 20)	/* bytes queued for the command */
#define SESSIONS	32		/* sessions whose results are kept */
#define SEEN_MAX	(512 << 10)	/* bytes of results kept a session */
#define PENDING_MAX	4096		/* calls in flight remembered */
#define HELD		"guard: needs approval: "

struct seen {
	char *session;		/* its id, or NULL: a free slot */
	struct oxi_buf text;	/* the latest results, oldest dropped */
	unsigned long used;	/* when last used, for eviction */
};
struct pending {
	char *id;		/* the call's id */
	char *session;		/* its session, or "" */
};

static const char *pflag;	/* -p: the policy file */
static struct oxi_policy pol = OXI_POLICY_INIT;
static struct oxi_coproc child = OXI_COPROC_INIT;
static struct oxi_nd in;	/* stdin */
static struct seen seen[SESSIONS];
static unsigned long clock_;	/* for seen[].used */
static struct pending *pend;	/* calls sent to the command */
static size_t npend;
static int status = OXI_EX_OK;
static int auditwarned;
static jv facts;		/* the tools' "x-oxi" by name */

/* the policy file: -p, $OXI_GUARD_POLICY, or guard-tool.policy in the
 * configuration directory if it exists; NULL for none */
static const char *
policypath(int *must)
{
	static char path[4096];
	const char *v, *d;

	*must = 1;
	if (pflag)
		return pflag;
	if ((v = oxi_getenv("OXI_GUARD_POLICY")))
		return v;
	*must = 0;
	if (!(d = oxi_config_dir()) || (size_t)snprintf(path, sizeof path,
	    "%s/guard-tool.policy", d) >= sizeof path)
		return NULL;
	return path;
}

static void
configure(int reload)
{
	struct oxi_policy np = OXI_POLICY_INIT;
	const char *path;
	char err[300];
	int must;

	if (!(path = policypath(&must)) || (access(path, F_OK) < 0 &&
	    errno == ENOENT && !must)) {
		oxi_policy_free(&pol);
		oxi_debug("no tool policy file: the built-in gate alone");
		return;
	}
	if (oxi_policy_load(&np, path, err, sizeof err) < 0) {
		if (!reload)
			oxi_die(OXI_EX_USAGE, "tool policy '%s': %s", path,
			    err);
		oxi_warn("tool policy '%s': %s; keeping the previous one", path,
		    err);
		return;
	}
	oxi_policy_free(&pol);
	pol = np;
	if (reload)
		oxi_info("reloaded tool policy '%s': %zu rule%s", path, pol.n,
		    pol.n == 1 ? "" : "s");
}

/*
 * What the command says of its tools: "argv --list" run once, its
 * "x-oxi" kept by name (oxi_policy_facts).  A list that cannot be had
 * leaves nothing known, so that no command counts as confined: one
 * warning.
 */
static void
learn(char *argv[], int argc)
{
	struct oxi_buf out = OXI_BUF_INIT;
	char **av, buf[4096];
	ssize_t r;
	pid_t pid;
	int fd, to, code, i;

	av = xcalloc((size_t)argc + 2, sizeof *av);
	for (i = 0; i < argc; i++)
		av[i] = argv[i];
	av[argc] = "--list";
	facts = jv_object();
	/* its stdin is a pipe closed at once: ours is the loop's */
	if ((pid = oxi_spawn(av, &to, &fd, 0)) < 0) {
		oxi_warnsys("unable to run '%s --list'", argv[0]);
		goto done;
	}
	close(to);
	while ((r = read(fd, buf, sizeof buf)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || out.len + (size_t)r > (16 << 20))
			break;
		oxi_buf_cat(&out, buf, (size_t)r);
	}
	close(fd);
	code = oxi_wait(pid);
	if (r != 0 || code != 0)
		oxi_warn("'%s --list' %s: no tool counts as confined",
		    argv[0], r != 0 ? "could not be read" : "failed");
	else {
		jv_free(facts);
		facts = oxi_policy_facts(oxi_json_parse(out.s ? out.s : "",
		    out.len));
		oxi_debug("'%s --list': %d tools said how they run", argv[0],
		    jv_object_length(jv_copy(facts)));
	}
done:
	oxi_buf_free(&out);
	free(av);
}

/* the kept results of session s, made (evicting the oldest) if need be */
static struct seen *
session(const char *s, int make)
{
	struct seen *best = NULL;
	int i;

	for (i = 0; i < SESSIONS; i++) {
		if (seen[i].session && strcmp(seen[i].session, s) == 0) {
			seen[i].used = ++clock_;
			return &seen[i];
		}
		if (!best || !seen[i].session || (best->session &&
		    seen[i].used < best->used))
			best = &seen[i];
	}
	if (!make)
		return NULL;
	free(best->session);
	best->session = xstrdup(s);
	oxi_buf_reset(&best->text);
	best->used = ++clock_;
	return best;
}

/* 1 if w[0..k) occurs in s[0..n) (k > 0) */
static int
holds(const char *s, size_t n, const char *w, size_t k)
{
	size_t i;

	for (i = 0; k > 0 && i + k <= n; i++)
		if (s[i] == w[0] && memcmp(s + i, w, k) == 0)
			return 1;
	return 0;
}

/* 1 if url occurs in the results kept for session arg */
static int
seenurl(void *arg, const char *url)
{
	struct seen *s = session(arg, 0);

	return s && holds(s->text.s, s->text.len, url, strlen(url));
}

static void
remember(const char *sess, const char *text, size_t n)
{
	struct seen *s = session(sess, 1);

	if (n > SEEN_MAX) {
		text += n - SEEN_MAX;
		n = SEEN_MAX;
	}
	if (s->text.len + n + 1 > SEEN_MAX)
		oxi_buf_consume(&s->text, s->text.len + n + 1 - SEEN_MAX);
	oxi_buf_cat(&s->text, text, n);
	oxi_buf_putc(&s->text, '\n');
}

/* the session of pending call id, taken off the list (free it), or NULL */
static char *
taken(const char *id)
{
	char *s;
	size_t i;

	for (i = 0; id && i < npend; i++)
		if (strcmp(pend[i].id, id) == 0) {
			s = pend[i].session;
			free(pend[i].id);
			pend[i] = pend[--npend];
			return s;
		}
	return NULL;
}

static void
sent(const char *id, const char *sess)
{
	free(taken(id));	/* a call sent again */
	if (npend == PENDING_MAX) {
		free(pend[0].id);
		free(pend[0].session);
		pend[0] = pend[--npend];
	}
	pend = xrealloc(pend, (npend + 1) * sizeof *pend);
	pend[npend].id = xstrdup(id);
	pend[npend].session = xstrdup(sess ? sess : "");
	npend++;
}

/* answers call id with an error result of text */
static void
answer(jv call, const char *text)
{
	jv r = oxi_msg_new("tool.result");

	r = jv_object_set(r, jv_string("id"), oxi_policy_get(call, "id"));
	r = jv_object_set(r, jv_string("content"), jv_string(text));
	r = jv_object_set(r, jv_string("is_error"), jv_true());
	r = jv_object_set(r, jv_string("taint"), oxi_policy_get(call,
	    "taint"));
	oxi_nd_out(r);
}

/* writes the verdict to the audit log: 0, or -1 (warned once) */
static int
audit(jv call, const char *event, const struct oxi_verdict *v)
{
	char d[65] = "";
	jv a, s;

	a = JV_OBJECT(jv_string("id"), oxi_policy_get(call, "id"),
	    jv_string("name"), oxi_policy_get(call, "name"),
	    jv_string("session"), oxi_policy_get(call, "session"),
	    jv_string("risk"), jv_string(oxi_risk_name(v->risk)),
	    jv_string("tainted"), jv_bool(v->tainted),
	    jv_string("trust"), jv_string(oxi_origin_name(v->trust)));
	if (v->risk == OXI_RISK_EXEC)
		a = jv_object_set(a, jv_string("confined"),
		    jv_bool(v->confined));
	/* what ran is named by a digest of its arguments, never by them:
	 * they may hold what the owner would not keep in a log */
	s = jv_dump_string(oxi_jget(call, "args"), JV_PRINT_SORTED);
	oxi_digest(jv_string_value(s), (size_t)jv_string_length_bytes(
	    jv_copy(s)), d);
	jv_free(s);
	a = jv_object_set(a, jv_string("args_digest"), jv_string(d));
	if (v->line)
		a = jv_object_set(a, jv_string("rule"), jv_number(v->line));
	if (v->why[0])
		a = jv_object_set(a, jv_string("why"), jv_string(v->why));
	if (oxi_audit(event, a) == 0)
		return 0;
	if (!auditwarned++)
		oxi_warnsys("unable to write the audit log '%s': tool calls "
		    "are refused until it can be written", oxi_audit_path() ?
		    oxi_audit_path() : "?");
	return -1;
}

/* a tool.call from oxi-loop (consumed) */
static void
call(jv rec)
{
	struct oxi_verdict v;
	struct oxi_buf b = OXI_BUF_INIT;
	const char *why, *said, *id = oxi_msg_peek(rec, "id");
	char *line;
	jv s;

	if (oxi_msg_check(rec, &why) < 0) {
		oxi_nd_reject(&in, why);
		status = OXI_EX_FALSE;
		if (id)
			answer(rec, "guard: refused: the call is not a "
			    "well-formed tool.call. Nothing was run.");
		jv_free(rec);
		return;
	}
	/* the owner's own words: a URL in them is not one the turn built */
	if ((said = oxi_msg_peek(rec, "said")))
		remember(oxi_msg_peek(rec, "session") ? oxi_msg_peek(rec,
		    "session") : "", said, strlen(said));
	oxi_policy_judge(&pol, rec, facts, seenurl, (void *)(oxi_msg_peek(rec,
	    "session") ? oxi_msg_peek(rec, "session") : ""), &v);
	if (v.action == OXI_POL_ASK && oxi_approval_found(rec)) {
		v.action = OXI_POL_ALLOW;
		v.approved = 1;
	}
	if (audit(rec, v.action == OXI_POL_DENY ? "tool.refused" :
	    v.action == OXI_POL_ASK ? "tool.held" : v.approved ?
	    "tool.approved" : v.deferred ? "tool.deferred" : "tool.allowed",
	    &v) < 0) {
		/* fail closed: refused, and kept for the owner */
		answer(rec, "guard: refused: the guard cannot write its audit "
		    "log. Nothing was run.");
		oxi_nd_reject(&in, "the audit log cannot be written");
		status = OXI_EX_FALSE;
		jv_free(rec);
		return;
	}
	switch (v.action) {
	case OXI_POL_ALLOW:
		if (v.deferred)
			oxi_info("call '%.64s' %s deferred: %s", id,
			    oxi_msg_peek(rec, "name"), v.why);
		else
			oxi_debug("call '%.64s' %s: %s", id, oxi_msg_peek(rec,
			    "name"), v.approved ? "approved by the owner" :
			    v.confined ? "allowed, confined" : "allowed");
		sent(id, oxi_msg_peek(rec, "session"));
		if (said) {
			/* the tools are not told what the owner said */
			s = jv_dump_string(jv_object_delete(jv_copy(rec),
			    jv_string("said")), 0);
			oxi_buf_cats(&child.outq, jv_string_value(s));
			jv_free(s);
		} else
			oxi_buf_cat(&child.outq, in.line, in.linelen);
		oxi_buf_putc(&child.outq, '\n');
		break;
	case OXI_POL_DENY:
		oxi_info("call '%.64s' %s refused: %s", id, oxi_msg_peek(rec,
		    "name"), v.why);
		oxi_buf_printf(&b, "guard: refused: %s. Nothing was run.",
		    v.why);
		answer(rec, b.s);
		break;
	default:
		oxi_info("call '%.64s' %s held for the owner: %s", id,
		    oxi_msg_peek(rec, "name"), v.why);
		line = oxi_approval_line(rec, v.why);
		oxi_buf_printf(&b, HELD "%s. Nothing was run; the owner is "
		    "asked.\n%s", v.why, line);
		answer(rec, b.s);
		free(line);
	}
	oxi_buf_free(&b);
	jv_free(rec);
}

/* a record from oxi-loop (consumed) */
static void
fromloop(jv rec)
{
	if (strcmp(oxi_msg_type_peek(rec), "tool.call") == 0) {
		call(rec);
		return;
	}
	oxi_buf_cat(&child.outq, in.line, in.linelen);
	oxi_buf_putc(&child.outq, '\n');
	jv_free(rec);
}

/* a record from the command (consumed) */
static void
fromtool(jv rec)
{
	const char *content;
	char *sess;
	jv c;

	if (strcmp(oxi_msg_type_peek(rec), "tool.result") != 0 ||
	    !(content = oxi_msg_peek(rec, "content"))) {
		if (strcmp(oxi_msg_type_peek(rec), "error") == 0)
			free(taken(oxi_msg_peek(rec, "ref")));
		oxi_nd_pass(&child.out);
		jv_free(rec);
		return;
	}
	if ((sess = taken(oxi_msg_peek(rec, "id")))) {
		remember(sess, content, strlen(content));
		free(sess);
	}
	if (strncmp(content, "guard:", 6) != 0) {
		oxi_nd_pass(&child.out);
		jv_free(rec);
		return;
	}
	/* only the guard speaks as the guard */
	c = jv_string_fmt("[the tool wrote:] %s", content);
	rec = jv_object_set(rec, jv_string("content"), c);
	oxi_nd_out(rec);
}

/*
 * A line of the command that could not be read (too long, not a record)
 * was dead-lettered: the pending call whose id is in its head s[0..n)
 * gets an error result, so that the loop does not wait for it.
 */
static void
unreadable(const char *s, size_t n)
{
	struct oxi_buf b = OXI_BUF_INIT;
	size_t i, k;
	jv r;

	for (i = 0; i < npend; i++) {
		k = strlen(pend[i].id);
		oxi_buf_reset(&b);
		oxi_buf_printf(&b, "\"%s\"", pend[i].id);
		if (k == 0 || !holds(s, n, b.s, b.len))
			continue;
		r = oxi_msg_new("tool.result");
		r = jv_object_set(r, jv_string("id"), jv_string(pend[i].id));
		r = jv_object_set(r, jv_string("content"), jv_string("the "
		    "tool's result could not be read (too large, or not a "
		    "record)"));
		r = jv_object_set(r, jv_string("is_error"), jv_true());
		oxi_nd_out(r);
		free(taken(pend[i].id));
		break;
	}
	oxi_buf_free(&b);
}

/* --list or -L last: the command alone */
static int
listing(int argc, char *argv[])
{
	const char *a = argv[argc - 1];

	return strcmp(a, "--list") == 0 || strcmp(a, "-L") == 0;
}

/* takes what is complete in nd; 1 at its end of file */
static int
drain(struct oxi_nd *nd, void (*fn)(jv))
{
	const char *s;
	size_t off, n;
	jv rec;
	int r;

	while (nd == &in ? child.outq.len < QMAX : 1) {
		off = nd->off;
		r = oxi_nd_take(nd, &rec);
		if (r == OXI_ND_OK)
			fn(rec);
		else if (r == OXI_ND_BAD) {
			status = OXI_EX_FALSE;
			if (nd != &child.out)
				continue;
			/* the bad line is the first after off, still in the
			 * buffer: its head names the call it answers */
			s = nd->buf.s + off;
			n = nd->buf.len - off;
			s += strspn(s, "\n ");
			n = nd->buf.s + nd->buf.len - s;
			unreadable(s, n > 4096 ? 4096 : n);
		} else
			return r == OXI_ND_EOF;
	}
	return 0;
}

int
oxi_guard_tool(int argc, char *argv[])
{
	struct pollfd pfd[4];
	int c, dflag = -1, code, ineof = 0, outeof = 0, np, i, sig;
	size_t lflag = 0;
	ssize_t r;
	pid_t pid;
	int to, from;

	while ((c = getopt(argc, argv, "+d:l:p:v")) != -1)
		switch (c) {
		case 'd': dflag = oxi_fdarg(optarg); break;
		case 'l': lflag = oxi_sizearg(optarg, "maxline"); break;
		case 'p': pflag = optarg; break;
		case 'v': oxi_verbose++; break;
		default: oxi_usage(OXI_GUARD_TOOL_USAGE);
		}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		oxi_usage(OXI_GUARD_TOOL_USAGE);
	if (listing(argc, argv)) {
		execvp(argv[0], argv);
		oxi_diesys(errno == ENOENT ? OXI_EX_NOENT : OXI_EX_NOEXEC,
		    "unable to run '%s'", argv[0]);
	}
	configure(0);
	learn(argv, argc);
	sig = oxi_sig_setup(OXI_SIG_TERM | OXI_SIG_HUP | OXI_SIG_NOPIPE);
	if (sig < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up signals");
	if ((pid = oxi_spawn(argv, &to, &from, 0)) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to run '%s'", argv[0]);
	child.pid = pid;
	child.in = to;
	child.name = "tool stage";
	oxi_fd_nonblock(to, 1);
	oxi_fd_nonblock(from, 1);
	oxi_nd_init(&child.out, from, "tool stage");
	oxi_nd_init(&in, 0, "stdin");
	if (lflag)
		in.max = child.out.max = lflag;
	if (oxi_nd_peek(&in) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up reading stdin");
	oxi_fd_nonblock(0, 1);
	/* on a supervisor's FIFO, the loop resends what it had in flight */
	oxi_nd_hello();
	oxi_notify(dflag);
	while (!outeof) {
		if (oxi_sig_hup) {
			oxi_sig_hup = 0;
			configure(1);
		}
		if (!ineof && !oxi_sig_term && drain(&in, fromloop))
			ineof = 1;
		if (oxi_nd_consume(&in) < 0)
			oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
		if ((ineof || oxi_sig_term) && child.in >= 0 &&
		    child.outq.len == 0) {
			close(child.in);	/* the command finishes */
			child.in = -1;
		}
		if (child.in >= 0 && child.outq.len > 0 &&
		    oxi_coproc_flush(&child) < 0) {
			oxi_warnsys("unable to write to '%s'", argv[0]);
			oxi_buf_reset(&child.outq);
			close(child.in);
			child.in = -1;
		}
		if (drain(&child.out, fromtool))
			break;
		np = 0;
		pfd[np].fd = sig;
		pfd[np++].events = POLLIN;
		pfd[np].fd = child.out.fd;
		pfd[np++].events = POLLIN;
		if (child.in >= 0 && child.outq.len > 0) {
			pfd[np].fd = child.in;
			pfd[np++].events = POLLOUT;
		}
		if (!ineof && !oxi_sig_term && child.outq.len < QMAX) {
			pfd[np].fd = 0;
			pfd[np++].events = POLLIN;
		}
		if (poll(pfd, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			oxi_diesys(OXI_EX_TEMP, "unable to poll");
		}
		for (i = 0; i < np; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == sig)
				oxi_sig_drain();
			else if (pfd[i].fd == 0 && (r = oxi_nd_fill(&in)) <= 0 &&
			    !(r < 0 && (errno == EAGAIN || errno == EINTR))) {
				if (r < 0)
					oxi_diesys(OXI_EX_TEMP, "unable to read "
					    "stdin");
			} else if (pfd[i].fd == child.out.fd &&
			    (r = oxi_nd_fill(&child.out)) < 0 &&
			    errno != EAGAIN && errno != EINTR)
				outeof = 1;
		}
	}
	code = oxi_coproc_stop(&child);
	if (code != 0)
		oxi_warn("'%s' exited with code %d", argv[0], code);
	oxi_policy_free(&pol);
	jv_free(facts);
	oxi_nd_free(&in);
	for (i = 0; i < SESSIONS; i++) {
		free(seen[i].session);
		oxi_buf_free(&seen[i].text);
	}
	while (npend > 0)
		free(taken(pend[0].id));
	free(pend);
	return code ? code : status;
}
