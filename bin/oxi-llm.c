/*
 * oxi-llm - ask a language model, from a shell or as a pipeline stage
 *
 * Human mode: the prompt is the arguments, after the text read from
 * stdin when stdin is not a terminal ("<stdin>\n\n<args>"), with the
 * attachments of -a, the options of -o, and with -c or --cid the logged
 * conversation before it.  The reply streams to stdout, flushed per
 * fragment, and ends with a newline (-x: only its first code block, at
 * the end); -u adds its usage and cost on stderr.  Each answered prompt
 * is logged (lib/llm/log.c) unless -n or logging is off.  "oxi-llm
 * logs" reads the log and turns it off and on; "oxi-llm models default"
 * keeps the default model in the configuration directory.
 *
 * Record mode (-j): llm.request, embed.request and transcribe records on
 * stdin are answered on stdout, several at a time, each with its llm.delta
 * records and then one llm.response, embed.response, transcription or
 * error; others pass through (lib/llm/serve.c).  Readiness goes to fd -d.
 *
 * Models are "provider/model" or a failover chain "a/x,b/y" (-m, else
 * $OXI_MODEL, else the default model, else the request's "model").
 * Failed attempts are retried with backoff, failing providers are cut
 * off by circuit breakers, and every answer carries its usage and cost;
 * budgets refuse requests before anything is sent (lib/llm/ctl.c).
 * --record appends each exchange to a file, --replay answers from one
 * without the network.  Diagnostics never hold an API key.
 *
 * exit: 0 ok; 1 some records were rejected, or no default model; 100
 * usage, configuration, authentication, budget or another permanent
 * error; 111 network, timeout, rate limit, server error, or
 * stdin/stdout failure.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "net/net.h"
#include "llm/llm.h"

#define USAGE "oxi-llm [-cnuvx] [-m model] [-s system] [-o key value]" \
	" [-a file | --at file type] [--cid id] [-b period=usd] [--no-stream]" \
	" [--record file | --replay file] [prompt ...]\n" \
	"oxi-llm -j [-vW] [-d fd] [-l maxline] [-m model] [-b period=usd]" \
	" [--record file | --replay file]\n" \
	"oxi-llm logs [-c | --cid id] [-n count] [--json]\n" \
	"oxi-llm logs on | off | status | path\n" \
	"oxi-llm models [default [model]]\n" \
	"oxi-llm -M | --models"

#define STDIN_MAX	(64 * 1024 * 1024)

enum { O_RECORD = 256, O_REPLAY, O_CID, O_AT, O_XL, O_LOG, O_NOSTREAM,
	O_JSON };

static const struct option longopts[] = {
	{ "attachment", required_argument, NULL, 'a' },
	{ "at", required_argument, NULL, O_AT },
	{ "attachment-type", required_argument, NULL, O_AT },
	{ "budget", required_argument, NULL, 'b' },
	{ "cid", required_argument, NULL, O_CID },
	{ "conversation", required_argument, NULL, O_CID },
	{ "continue", no_argument, NULL, 'c' },
	{ "notify-fd", required_argument, NULL, 'd' },
	{ "extract", no_argument, NULL, 'x' },
	{ "extract-last", no_argument, NULL, O_XL },
	{ "xl", no_argument, NULL, O_XL },
	{ "records", no_argument, NULL, 'j' },
	{ "json", no_argument, NULL, O_JSON },
	{ "log", no_argument, NULL, O_LOG },
	{ "max-line", required_argument, NULL, 'l' },
	{ "model", required_argument, NULL, 'm' },
	{ "models", no_argument, NULL, 'M' },
	{ "no-log", no_argument, NULL, 'n' },
	{ "no-stream", no_argument, NULL, O_NOSTREAM },
	{ "option", required_argument, NULL, 'o' },
	{ "record", required_argument, NULL, O_RECORD },
	{ "replay", required_argument, NULL, O_REPLAY },
	{ "system", required_argument, NULL, 's' },
	{ "usage", no_argument, NULL, 'u' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "warm", no_argument, NULL, 'W' },
	{ NULL, 0, NULL, 0 }
};

/* the human mode's options */
static struct {
	const char *sys;	/* -s */
	const char *cid;	/* --cid, or "" for -c */
	jv opts;		/* request fields of -o */
	jv parts;		/* attachments */
	jv refs;		/* and as the log keeps them */
	int nostream;		/* --no-stream */
	int log;		/* -n: 0, --log: 1, else -1 */
	int usage;		/* -u */
	int extract;		/* -x: 1, --xl: 2 */
	int stdin;		/* "-a -" took stdin */
	int any;		/* some option of this mode was given */
	char cidbuf[128];	/* the conversation, continued or new */
	char model[256];	/* the model that answered last in it */
	jv msgs;		/* its messages, after the system message */
} h = { .log = -1 };	/* the jv fields are set in main() */

static struct oxi_http_loop *loop;
static struct oxi_llmctl *ctl;
static struct oxi_llmctl_cfg cfg;

/* human mode: the final record, and whether output ends with "\n" */
static jv answer;
static int printed, atnl = 1;
static struct oxi_llm_log *logdb;

static void
put(const char *text, size_t len)
{
	if (len == 0)
		return;
	fwrite(text, 1, len, stdout);
	fflush(stdout);
	printed = 1;
	atnl = text[len - 1] == '\n';
}

static void
hdelta(void *arg, const char *id, const char *text, size_t len)
{
	(void)arg;
	(void)id;
	if (!h.extract)
		put(text, len);
}

static void
hdone(void *arg, const char *id, jv rec)
{
	(void)arg;
	(void)id;
	jv_free(answer);
	answer = rec;
}

/* dies with the message of an invalid jv (consumed) */
OXI_NORETURN static void
diejv(int code, jv bad)
{
	jv m = jv_invalid_get_msg(bad);

	oxi_die(code, "%s", oxi_jis(m, JV_KIND_STRING) ? jv_string_value(m) :
	    "out of memory");
}

/* -a FILE, --at FILE TYPE */
static void
attach(const char *arg, const char *mime)
{
	jv p = oxi_llm_attach(arg, mime);

	if (!jv_is_valid(p))
		diejv(OXI_EX_USAGE, p);
	h.stdin |= strcmp(arg, "-") == 0;
	h.parts = jv_array_append(h.parts, jv_copy(p));
	h.refs = jv_array_append(h.refs, oxi_llm_attach_ref(p, arg));
}

/* the log, opened on first use: NULL with *err if it cannot be, or
 * with *err NULL if it does not exist and create is 0 */
static struct oxi_llm_log *
logopen(int create, const char **err)
{
	const char *path = oxi_llm_log_path();

	*err = path ? NULL : "no state directory";
	if (!logdb && path && (create || access(path, F_OK) == 0))
		logdb = oxi_llm_log_open(path, err);
	return logdb;
}

OXI_NORETURN static void
logfail(const char *err)
{
	oxi_die(oxi_errtemp(errno), "unable to read the log: %s", err);
}

/* the prompt's text: stdin if it is not a terminal (nor an attachment),
 * a blank line, then the arguments */
static void
text(int argc, char **argv, struct oxi_buf *b)
{
	int i;

	if (!h.stdin && !isatty(0)) {
		if (oxi_llm_readin(b, STDIN_MAX) < 0) {
			if (errno == EFBIG)
				oxi_die(OXI_EX_USAGE, "stdin is over %d bytes",
				    STDIN_MAX);
			oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
		}
		while (b->len > 0 && (b->s[b->len - 1] == '\n' ||
		    b->s[b->len - 1] == '\r'))
			b->s[--b->len] = '\0';
	}
	if (b->len > 0 && argc > 0)
		oxi_buf_cats(b, "\n\n");
	for (i = 0; i < argc; i++) {
		if (i > 0)
			oxi_buf_putc(b, ' ');
		oxi_buf_cats(b, argv[i]);
	}
}

/* the messages before the prompt: the system message, and with -c or
 * --cid the conversation so far, whose id and last model go to h */
static jv
history(void)
{
	const char *err;
	jv e, last;
	int n;

	if (!h.cid)
		return oxi_llm_turns(jv_array(), h.sys);
	if (!logopen(0, &err) && err)
		logfail(err);
	if (!logdb)
		oxi_die(OXI_EX_USAGE, "no conversation to continue: the log"
		    " is empty");
	if (*h.cid)
		snprintf(h.cidbuf, sizeof h.cidbuf, "%s", h.cid);
	else if (oxi_llm_log_last(logdb, h.cidbuf, sizeof h.cidbuf, &err) < 0)
		logfail(err);
	if (!jv_is_valid(e = oxi_llm_log_list(logdb, h.cidbuf, 0, &err)))
		logfail(err);
	if ((n = jv_array_length(jv_copy(e))) == 0)
		oxi_die(OXI_EX_USAGE, "no conversation '%s' in the log",
		    h.cidbuf);
	last = jv_array_get(jv_copy(e), n - 1);
	snprintf(h.model, sizeof h.model, "%s", oxi_msg_peek(last,
	    "model"));
	jv_free(last);
	return oxi_llm_turns(e, h.sys);
}

/* runs the request (consumed) and prints the answer; dies on an error */
static void
human(jv rec)
{
	const char *type, *m, *code, *s;
	size_t off, len;
	jv err, v, c;
	int r, retry;

	answer = jv_invalid();
	r = oxi_llmctl_start(ctl, rec, NULL, 0, &err);
	jv_free(rec);
	if (r != OXI_LLM_STARTED)
		hdone(NULL, NULL, err);
	while (oxi_llmctl_running(ctl) > 0) {
		if (oxi_http_poll(loop, NULL, 0, oxi_llmctl_timeout(ctl)) < 0)
			oxi_die(OXI_EX_TEMP, "unable to run transfers");
		oxi_llmctl_tick(ctl);
	}
	if (!jv_is_valid(answer))
		oxi_die(OXI_EX_TEMP, "the transfer ended without an answer");
	type = oxi_msg_type_peek(answer);
	if (strcmp(type, "error") == 0) {
		if (!atnl)
			putchar('\n');
		oxi_fshut(stdout, "stdout");
		m = oxi_msg_peek(answer, "message");
		code = oxi_msg_peek(answer, "code");
		v = jv_object_get(jv_copy(answer), jv_string("retryable"));
		retry = jv_get_kind(v) == JV_KIND_TRUE;
		jv_free(v);
		oxi_die(retry ? OXI_EX_TEMP : OXI_EX_USAGE, "%s: %s", code, m);
	}
	v = oxi_jget(answer, "message");
	c = oxi_jget(v, "content");
	jv_free(v);
	v = c;
	if (oxi_jis(v, JV_KIND_STRING) && (h.extract || !printed)) {
		s = jv_string_value(v);
		len = jv_string_length_bytes(jv_copy(v));
		if (h.extract && oxi_llm_fenced(s, len, h.extract == 2, &off,
		    &len))
			s += off;
		put(s, len);
	}
	jv_free(v);
	if (!atnl)
		putchar('\n');
	if ((m = oxi_msg_peek(answer, "stop")) && strcmp(m, "length") == 0)
		oxi_warn("the reply was cut short at the token limit");
	oxi_fshut(stdout, "stdout");
}

/* the answered request (consumed), to the log */
static void
logit(jv req, const char *cid, const char *t0, long long ms)
{
	const char *err, *path = oxi_llm_log_path();
	jv e;

	if (h.log == 0 || (h.log < 0 && !oxi_llm_log_on())) {
		jv_free(req);
		return;
	}
	e = oxi_llm_log_entry(req, jv_copy(answer));
	e = jv_object_set(e, jv_string("cid"), jv_string(cid));
	e = jv_object_set(e, jv_string("time"), jv_string(t0));
	e = jv_object_set(e, jv_string("ms"), jv_number(ms));
	if (jv_array_length(jv_copy(h.refs)) > 0)
		e = jv_object_set(e, jv_string("attachments"), jv_copy(h.refs));
	if (!logopen(1, &err) || oxi_llm_log_add(logdb, e, &err) < 0)
		oxi_warn("unable to log the prompt in '%s': %s", path ? path :
		    "", err);
}

/* human mode */
static int
ask(int argc, char **argv)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char id[OXI_ID_LEN + 1], t0[32];
	long long ms;
	jv msgs, rec;

	text(argc, argv, &b);
	if (b.len == 0 && jv_array_length(jv_copy(h.parts)) == 0)
		oxi_usage(USAGE);
	msgs = jv_array_append(h.msgs, oxi_llm_user(b.s ? b.s : "",
	    b.len, jv_copy(h.parts)));
	oxi_id_new(id);
	if (!*h.cidbuf)
		snprintf(h.cidbuf, sizeof h.cidbuf, "%s", id);
	rec = oxi_msg_new("llm.request");
	rec = jv_object_set(rec, jv_string("id"), jv_string(id));
	rec = jv_object_set(rec, jv_string("model"), jv_string(cfg.model));
	rec = jv_object_set(rec, jv_string("messages"), msgs);
	rec = jv_object_set(rec, jv_string("stream"), jv_bool(!h.nostream));
	rec = jv_object_merge(rec, jv_copy(h.opts));
	oxi_time_now(t0);
	ms = oxi_clock_ms();
	human(jv_copy(rec));
	ms = oxi_clock_ms() - ms;
	if (h.usage) {
		oxi_buf_reset(&b);
		oxi_llm_usage_text(&b, jv_copy(answer));
		fprintf(stderr, "Token usage: %s\n", b.s);
	}
	logit(rec, h.cidbuf, t0, ms);
	jv_free(answer);
	oxi_buf_free(&b);
	oxi_llm_log_close(logdb);
	return OXI_EX_OK;
}

/* oxi-llm logs ... */
static int
logs(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "cid", required_argument, NULL, O_CID },
		{ "conversation", required_argument, NULL, O_CID },
		{ "current", no_argument, NULL, 'c' },
		{ "count", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 }
	};
	struct oxi_buf b = OXI_BUF_INIT;
	const char *cid = NULL, *err, *path = oxi_llm_log_path();
	char last[128];
	long long n[2];
	int c, i, count = 3, json = 0, cur = 0;
	jv es;

	if (argc == 2 && (strcmp(argv[1], "on") == 0 ||
	    strcmp(argv[1], "off") == 0)) {
		if (oxi_llm_log_set(argv[1][1] == 'n') < 0)
			oxi_diesys(oxi_errtemp(errno), "unable to turn"
			    " logging %s", argv[1]);
		return OXI_EX_OK;
	}
	if (argc == 2 && (strcmp(argv[1], "path") == 0 ||
	    strcmp(argv[1], "status") == 0)) {
		if (!path)
			oxi_die(OXI_EX_USAGE, "no state directory");
		if (argv[1][0] == 's') {
			if (!logopen(0, &err) && err)
				logfail(err);
			n[0] = n[1] = 0;
			if (logdb && oxi_llm_log_count(logdb, n, &err) < 0)
				logfail(err);
			printf("logging is %s\n%lld conversations, %lld"
			    " responses in ", oxi_llm_log_on() ? "on" : "off",
			    n[0], n[1]);
		}
		printf("%s\n", path);
		oxi_fshut(stdout, "stdout");
		return OXI_EX_OK;
	}
	while ((c = getopt_long(argc, argv, "cn:", lo, NULL)) != -1)
		switch (c) {
		case 'c': cur = 1; break;
		case 'n':
			count = oxi_sizearg(optarg, "count") > 999999999 ?
			    0 : (int)oxi_sizearg(optarg, "count");
			break;
		case O_CID: cid = optarg; break;
		case O_JSON: json = 1; break;
		default: oxi_usage(USAGE);
		}
	if (optind < argc || (cur && cid))
		oxi_usage(USAGE);
	if (!logopen(0, &err) && err)
		logfail(err);
	if (!logdb)
		return OXI_EX_OK;
	if (cur && oxi_llm_log_last(logdb, last, sizeof last, &err) < 0)
		logfail(err);
	if (!jv_is_valid(es = oxi_llm_log_list(logdb, cur ? last : cid,
	    count, &err)))
		logfail(err);
	for (i = 0; i < jv_array_length(jv_copy(es)); i++) {
		oxi_buf_reset(&b);
		if (json) {
			oxi_nd_out(jv_array_get(jv_copy(es), i));
			continue;
		}
		if (i > 0)
			oxi_buf_putc(&b, '\n');
		oxi_llm_log_text(&b, jv_array_get(jv_copy(es), i));
		fwrite(b.s, 1, b.len, stdout);
	}
	jv_free(es);
	oxi_buf_free(&b);
	oxi_llm_log_close(logdb);
	oxi_fshut(stdout, "stdout");
	return OXI_EX_OK;
}

/* oxi-llm models ..., -M */
static int
models(int argc, char **argv)
{
	char why[300];
	const char *m;
	jv l, v;
	int i, n;

	if (argc == 2 && strcmp(argv[1], "default") == 0) {
		if (!(m = oxi_llm_default_model())) {
			oxi_info("no default model: set one with 'oxi-llm"
			    " models default provider/model'");
			return OXI_EX_FALSE;
		}
		printf("%s\n", m);
	} else if (argc == 3 && strcmp(argv[1], "default") == 0) {
		if (oxi_llm_check_chain(argv[2], 1, why, sizeof why) < 0)
			oxi_die(OXI_EX_USAGE, "%s", why);
		if (oxi_llm_set_default_model(argv[2]) < 0)
			oxi_diesys(oxi_errtemp(errno), "unable to keep the"
			    " default model");
	} else if (argc == 1) {
		if (!jv_is_valid(l = oxi_llm_models()))
			diejv(OXI_EX_USAGE, l);
		n = jv_array_length(jv_copy(l));
		for (i = 0; i < n; i++) {
			v = jv_array_get(jv_copy(l), i);
			printf("%s\n", jv_string_value(v));
			jv_free(v);
		}
		jv_free(l);
	} else
		oxi_usage(USAGE);
	oxi_fshut(stdout, "stdout");
	return OXI_EX_OK;
}

int
main(int argc, char *argv[])
{
	const char *model = NULL;
	char why[300];
	int c, n, notif = -1, lflag = 0, wflag = 0, mflag = 0, bflag = 0;
	int jflag = 0;
	size_t maxline = 0;

	oxi_prog = "oxi-llm";
	oxi_std_opts(argc, argv, USAGE);
	if (argc > 1 && strcmp(argv[1], "logs") == 0)
		return logs(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "models") == 0)
		return models(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "prompt") == 0) {
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	h.opts = jv_object();
	h.parts = jv_array();
	h.refs = jv_array();
	oxi_llmctl_defaults(&cfg);
	/* the environment, then the options over it */
	if (oxi_llmctl_env(&cfg, why, sizeof why) < 0)
		oxi_die(OXI_EX_USAGE, "%s", why);
	while ((c = getopt_long(argc, argv, "a:b:cd:jl:Mm:no:s:uvWx",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'a': attach(optarg, NULL); break;
		case 'b':
			if (oxi_llmctl_budget(&cfg, optarg, why, sizeof why) < 0)
				oxi_die(OXI_EX_USAGE, "%s", why);
			bflag = 1;
			break;
		case 'c': h.cid = h.cid ? h.cid : ""; break;
		case 'd': notif = oxi_fdarg(optarg); break;
		case 'j': jflag = 1; break;
		case 'l': maxline = oxi_sizearg(optarg, "maxline"); lflag = 1;
			break;
		case 'M': mflag = 1; break;
		case 'm': model = optarg; break;
		case 'n': h.log = 0; break;
		case 'o': case O_AT:	/* two arguments */
			if (optind >= argc)
				oxi_usage(USAGE);
			if (c == O_AT)
				attach(optarg, argv[optind++]);
			else if (!jv_is_valid(h.opts = oxi_llm_option(h.opts,
			    optarg, argv[optind++])))
				diejv(OXI_EX_USAGE, h.opts);
			break;
		case 's': h.sys = optarg; break;
		case 'u': h.usage = 1; break;
		case 'v': oxi_verbose++; break;
		case 'W': wflag = 1; break;
		case 'x': h.extract = 1; break;
		case O_CID:
			if (!*optarg)
				oxi_die(OXI_EX_USAGE, "bad --cid: empty");
			h.cid = optarg;
			break;
		case O_XL: h.extract = 2; break;
		case O_LOG: h.log = 1; break;
		case O_NOSTREAM: h.nostream = 1; break;
		case O_RECORD: cfg.record = optarg; break;
		case O_REPLAY: cfg.replay = optarg; break;
		default: oxi_usage(USAGE);
		}
		if (c >= O_CID || (c < O_RECORD && strchr("acnosux", c)))
			h.any = 1;
	}
	argc -= optind;
	argv += optind;
	if (mflag) {
		if (argc > 0 || jflag || model || h.any || bflag || lflag ||
		    wflag || notif >= 0 || cfg.record || cfg.replay)
			oxi_usage(USAGE);
		return models(1, argv - 1);
	}
	if ((jflag ? argc > 0 || h.any : notif >= 0 || lflag || wflag) ||
	    (cfg.record && cfg.replay))
		oxi_usage(USAGE);

	/* -m, else OXI_MODEL, else the conversation's, else the default
	 * model (as llm does) */
	if (!jflag)
		h.msgs = history();
	if (!model)
		model = oxi_getenv("OXI_MODEL");
	if (!model && *h.model)
		model = h.model;
	if (!model)
		model = oxi_llm_default_model();
	if (!model && !jflag)
		oxi_die(OXI_EX_USAGE, "no model: use -m provider/model, set"
		    " OXI_MODEL (e.g. openai/gpt-4o-mini) or 'oxi-llm models"
		    " default provider/model'");
	/* a replay needs neither keys nor servers */
	if (model && oxi_llm_check_chain(model, cfg.replay ? 2 : 0, why,
	    sizeof why) < 0)
		oxi_die(OXI_EX_USAGE, "%s", why);
	cfg.model = model;
	if (jflag) {
		n = oxi_llm_serve(&cfg, lflag ? maxline : 0, notif, wflag ||
		    oxi_getenv("OXI_LLM_WARM"), why, sizeof why);
		if (*why)
			oxi_die(n, "%s", why);
		oxi_fshut(stdout, "stdout");
		return n;
	}
	cfg.delta = hdelta;
	cfg.done = hdone;
	if (!(loop = oxi_http_loop_new()))
		oxi_die(OXI_EX_TEMP, "unable to initialise libcurl");
	if (!(ctl = oxi_llmctl_new(loop, &cfg, why, sizeof why)))
		oxi_die(OXI_EX_USAGE, "%s", why);
	return ask(argc, argv);
}
