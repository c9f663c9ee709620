/*
 * oxi-llm - ask a language model, from a shell or as a pipeline stage
 *
 * Human mode: the prompt is the arguments, after the text read from
 * stdin when stdin is not a terminal ("<stdin>\n\n<args>").  The reply
 * streams to stdout, flushed per fragment, and ends with a newline.
 *
 * Record mode (-j): reads oxi-msg(5) records on stdin.  Each llm.request
 * is sent at once, several at a time, and answered on stdout with an
 * llm.delta per text fragment and then exactly one llm.response or one
 * error record ("ref" is the request id); each embed.request with one
 * embed.response or one error.  Other records pass through unchanged.
 * With -W a connection to each provider of the default model is opened
 * first.  Readiness is written to fd -d once set up.  On SIGTERM it stops
 * reading and retrying, finishes the requests in flight and exits 0.
 *
 * Models are "provider/model" or a failover chain "a/x,b/y" (-m, else
 * $OXI_MODEL, else the request's "model").  Failed attempts are retried
 * with backoff, failing providers are cut off by circuit breakers, and
 * every answer carries its usage and cost; budgets refuse requests
 * before anything is sent (lib/llm/ctl.c).  --record appends each
 * exchange to a file, --replay answers from one without the network.
 * Diagnostics never hold an API key.
 *
 * exit: 0 ok; 1 some records were rejected; 100 usage, configuration,
 * authentication, budget or another permanent error; 111 network,
 * timeout, rate limit, server error, or stdin/stdout failure.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "net/net.h"
#include "llm/llm.h"

#define USAGE "oxi-llm [-v] [-m model] [-s system] [-n | --no-stream]" \
	" [-b period=usd] [--record file | --replay file] [prompt ...]\n" \
	"oxi-llm -j [-vW] [-d fd] [-l maxline] [-m model] [-b period=usd]" \
	" [--record file | --replay file]\n" \
	"oxi-llm -M | --models"

#define PARALLEL	16		/* requests in flight, at most */
#define STDIN_MAX	(64 * 1024 * 1024)

enum { O_RECORD = 256, O_REPLAY };

static const struct option longopts[] = {
	{ "no-stream", no_argument, NULL, 'n' },
	{ "models", no_argument, NULL, 'M' },
	{ "record", required_argument, NULL, O_RECORD },
	{ "replay", required_argument, NULL, O_REPLAY },
	{ NULL, 0, NULL, 0 }
};

static int jflag, nflag;
static struct oxi_http_loop *loop;
static struct oxi_llmctl *ctl;
static struct oxi_llmctl_cfg cfg;
static struct oxi_nd in;
static int status = OXI_EX_OK;

/* human mode: the final record, and whether output ends with "\n" */
static jv answer;
static int printed, atnl = 1;

static double
usd(const char *what, const char *v)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || *end || !(d >= 0) || d > 1e9)
		oxi_die(OXI_EX_USAGE, "bad %s '%s': US dollars expected", what,
		    v);
	return d;
}

/* -b day=5, month=50, session=0.5 */
static void
budgetarg(const char *s)
{
	static const char *const names[3] = { "day", "month", "session" };
	const char *eq = strchr(s, '=');
	int i;

	for (i = 0; eq && i < 3; i++)
		if ((size_t)(eq - s) == strlen(names[i]) &&
		    strncmp(s, names[i], eq - s) == 0) {
			cfg.budget[i] = usd("budget", eq + 1);
			return;
		}
	oxi_die(OXI_EX_USAGE, "bad budget '%s': day=USD, month=USD or"
	    " session=USD expected", s);
}

static void
settings(void)
{
	static const char *const usdvars[3] = {
		"OXI_BUDGET_DAY_USD", "OXI_BUDGET_MONTH_USD",
		"OXI_BUDGET_SESSION_USD"
	};
	/* in the order they were always read: the first bad one is named */
	static const struct {
		const char *name;
		long *ms;	/* seconds, as ms */
		int *n;		/* or a count from 0 to max */
		long max;
	} vars[] = {
		{ "OXI_LLM_CONNECT_TIMEOUT", &cfg.connect_ms, NULL, 0 },
		{ "OXI_LLM_IDLE_TIMEOUT", &cfg.idle_ms, NULL, 0 },
		{ "OXI_LLM_TIMEOUT", &cfg.total_ms, NULL, 0 },
		{ "OXI_LLM_RETRIES", NULL, &cfg.retries, 20 },
		{ "OXI_LLM_BACKOFF", &cfg.base_ms, NULL, 0 },
		{ "OXI_LLM_BACKOFF_MAX", &cfg.cap_ms, NULL, 0 },
		{ "OXI_LLM_RETRY_WINDOW", &cfg.window_ms, NULL, 0 },
		{ "OXI_LLM_BREAKER", NULL, &cfg.brk_max, 1000 },
		{ "OXI_LLM_BREAKER_TIME", &cfg.brk_ms, NULL, 0 },
		{ NULL, NULL, NULL, 0 }
	};
	const char *v;
	long n;
	int i;

	cfg.connect_ms = cfg.idle_ms = cfg.total_ms = 0;
	for (i = 0; vars[i].name; i++) {
		v = vars[i].name;
		if (vars[i].ms && oxi_env_ms(v, *vars[i].ms, vars[i].ms) < 0)
			oxi_die(OXI_EX_USAGE, "bad %s '%s': seconds expected", v,
			    oxi_getenv(v));
		if (vars[i].n) {
			if (oxi_env_int(v, *vars[i].n, vars[i].max, &n) < 0)
				oxi_die(OXI_EX_USAGE, "bad %s '%s': a number from"
				    " 0 to %ld expected", v, oxi_getenv(v),
				    vars[i].max);
			*vars[i].n = (int)n;
		}
	}
	for (i = 0; i < 3; i++)
		if ((v = oxi_getenv(usdvars[i])))
			cfg.budget[i] = usd(usdvars[i], v);
}

static void
rdelta(void *arg, const char *id, const char *text, size_t len)
{
	jv r = oxi_msg_new("llm.delta");

	(void)arg;
	r = jv_object_set(r, jv_string("id"), jv_string(id));
	r = jv_object_set(r, jv_string("text"), jv_string_sized(text,
	    (int)len));
	oxi_nd_out(r);
}

static void
rdone(void *arg, const char *id, jv rec)
{
	const char *m;

	(void)arg;
	if (strcmp(oxi_msg_type_peek(rec), "error") == 0) {
		m = oxi_msg_peek(rec, "message");
		oxi_warn("request %s: %s: %s", id, oxi_msg_peek(rec, "code"),
		    m ? m : "");
	} else
		oxi_debug("request %s: answered", id);
	oxi_nd_out(rec);
}

static void
hdelta(void *arg, const char *id, const char *text, size_t len)
{
	(void)arg;
	(void)id;
	if (len == 0)
		return;
	fwrite(text, 1, len, stdout);
	fflush(stdout);
	printed = 1;
	atnl = text[len - 1] == '\n';
}

static void
hdone(void *arg, const char *id, jv rec)
{
	(void)arg;
	(void)id;
	jv_free(answer);
	answer = rec;
}

/* one request, or a record to pass on */
static void
request(jv rec)
{
	const char *m, *type = oxi_msg_type_peek(rec);
	int r;
	jv err;

	if (strcmp(type, "llm.request") != 0 &&
	    strcmp(type, "embed.request") != 0) {
		oxi_nd_pass(&in);
		jv_free(rec);
		return;
	}
	r = oxi_llmctl_start(ctl, rec, &err);
	if (r != OXI_LLM_STARTED) {
		m = oxi_msg_peek(err, "message");
		if (r == OXI_LLM_BAD) {
			oxi_nd_reject(&in, m);
			status = OXI_EX_FALSE;
		} else
			oxi_warn("request %s: %s: %s", oxi_msg_peek(rec, "id"),
			    oxi_msg_peek(err, "code"), m);
		oxi_nd_out(err);
	}
	jv_free(rec);
}

/* runs the transfers and the retries that are due */
static void
step(struct pollfd *pfd, int n)
{
	if (oxi_http_poll(loop, pfd, n, oxi_llmctl_timeout(ctl)) < 0)
		oxi_die(OXI_EX_TEMP, "unable to run transfers");
	oxi_llmctl_tick(ctl);
}

static void
records(int notif, int warm)
{
	struct pollfd pfd[2];
	int sigfd, r, n, reading = 1, max = PARALLEL;
	const char *v;
	jv rec;

	if ((v = oxi_getenv("OXI_LLM_PARALLEL")) && (max = atoi(v)) < 1)
		oxi_die(OXI_EX_USAGE, "bad OXI_LLM_PARALLEL '%s'", v);
	if ((sigfd = oxi_sig_setup(OXI_SIG_TERM | OXI_SIG_HUP |
	    OXI_SIG_NOPIPE)) < 0)
		oxi_diesys(OXI_EX_TEMP, "unable to set up signals");
	if (warm && cfg.model && oxi_llmctl_warm(ctl, cfg.model) > 0)
		while (oxi_llmctl_warming(ctl) > 0 && !oxi_sig_term)
			step(NULL, 0);
	oxi_notify(notif);
	for (;;) {
		if (oxi_sig_term && reading) {
			oxi_info("stopping: finishing %d request(s)",
			    oxi_llmctl_running(ctl));
			reading = 0;
			oxi_llmctl_drain(ctl);
		}
		while (reading && oxi_llmctl_running(ctl) < max) {
			r = oxi_nd_take(&in, &rec);
			if (r == OXI_ND_AGAIN)
				break;
			if (r == OXI_ND_EOF)
				reading = 0;
			else if (r == OXI_ND_BAD)
				status = OXI_EX_FALSE;
			else if (r == OXI_ND_OK)
				request(rec);
		}
		if (!reading && oxi_llmctl_running(ctl) == 0)
			break;
		n = 0;
		pfd[n].fd = sigfd;
		pfd[n++].events = POLLIN;
		if (reading && oxi_llmctl_running(ctl) < max) {
			pfd[n].fd = in.fd;
			pfd[n++].events = POLLIN;
		}
		step(pfd, n);
		if (pfd[0].revents) {
			oxi_sig_drain();
			oxi_sig_hup = 0;	/* nothing to reload */
		}
		if (reading && !oxi_sig_term && n > 1 && pfd[1].revents &&
		    oxi_nd_fill(&in) < 0 && errno != EINTR && errno != EAGAIN) {
			oxi_warnsys("unable to read stdin");
			reading = 0;
			status = OXI_EX_TEMP;
		}
	}
}

/* human mode: reads stdin if it is not a terminal, builds the request */
static jv
prompt(int argc, char **argv, const char *sys)
{
	struct oxi_buf b = OXI_BUF_INIT;
	char id[OXI_ID_LEN + 1], tmp[65536];
	ssize_t r;
	jv msgs, rec;
	int i;

	if (!isatty(0)) {
		while ((r = read(0, tmp, sizeof tmp)) != 0) {
			if (r < 0) {
				if (errno == EINTR)
					continue;
				oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
			}
			if (b.len + r > STDIN_MAX)
				oxi_die(OXI_EX_USAGE, "stdin is over %d bytes",
				    STDIN_MAX);
			oxi_buf_cat(&b, tmp, r);
		}
		while (b.len > 0 && (b.s[b.len - 1] == '\n' ||
		    b.s[b.len - 1] == '\r'))
			b.s[--b.len] = '\0';
	}
	if (b.len > 0 && argc > 0)
		oxi_buf_cats(&b, "\n\n");
	for (i = 0; i < argc; i++) {
		if (i > 0)
			oxi_buf_putc(&b, ' ');
		oxi_buf_cats(&b, argv[i]);
	}
	if (b.len == 0)
		oxi_usage(USAGE);
	msgs = jv_array();
	if (sys)
		msgs = jv_array_append(msgs, jv_object_set(jv_object_set(
		    jv_object(), jv_string("role"), jv_string("system")),
		    jv_string("content"), jv_string(sys)));
	msgs = jv_array_append(msgs, jv_object_set(jv_object_set(jv_object(),
	    jv_string("role"), jv_string("user")), jv_string("content"),
	    jv_string_sized(b.s, (int)b.len)));
	oxi_buf_free(&b);
	oxi_id_new(id);
	rec = oxi_msg_new("llm.request");
	rec = jv_object_set(rec, jv_string("id"), jv_string(id));
	rec = jv_object_set(rec, jv_string("messages"), msgs);
	return jv_object_set(rec, jv_string("stream"), jv_bool(!nflag));
}

static int
human(jv rec)
{
	const char *type, *m, *code;
	jv err, v;
	int r, retry;

	answer = jv_invalid();
	r = oxi_llmctl_start(ctl, rec, &err);
	jv_free(rec);
	if (r != OXI_LLM_STARTED)
		hdone(NULL, NULL, err);
	while (oxi_llmctl_running(ctl) > 0)
		step(NULL, 0);
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
	v = jv_object_get(jv_object_get(jv_copy(answer),
	    jv_string("message")), jv_string("content"));
	if (!printed && jv_get_kind(v) == JV_KIND_STRING)
		hdelta(NULL, NULL, jv_string_value(v),
		    jv_string_length_bytes(jv_copy(v)));
	jv_free(v);
	if (!atnl)
		putchar('\n');
	if ((m = oxi_msg_peek(answer, "stop")) && strcmp(m, "length") == 0)
		oxi_warn("the reply was cut short at the token limit");
	jv_free(answer);
	oxi_fshut(stdout, "stdout");
	return OXI_EX_OK;
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -M: the priced models of known providers, then the other providers */
static int
models(void)
{
	const struct oxi_llm_provider *p;
	struct oxi_prices *t;
	const char *k;
	char why[300], **v = NULL;
	size_t i, n = 0, len;
	int seen;

	if (!(t = oxi_prices_load(why, sizeof why)))
		oxi_die(OXI_EX_USAGE, "%s", why);
	for (i = 0; (k = oxi_prices_key(t, i)); i++) {
		if (strpbrk(k, "*?["))
			continue;
		for (p = oxi_llm_providers; p->name; p++)
			if (strncmp(k, p->name, (len = strlen(p->name))) ==
			    0 && k[len] == '/')
				break;
		if (!p->name)
			continue;
		v = xrealloc(v, (n + 1) * sizeof *v);
		v[n++] = xstrdup(k);
	}
	qsort(v, n, sizeof *v, cmpstr);
	for (i = 0; i < n; i++)
		printf("%s\n", v[i]);
	for (p = oxi_llm_providers; p->name; p++) {
		len = strlen(p->name);
		for (i = seen = 0; i < n && !seen; i++)
			seen = strncmp(v[i], p->name, len) == 0 &&
			    v[i][len] == '/';
		if (!seen)
			printf("%s/*\n", p->name);
	}
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	oxi_prices_free(t);
	oxi_fshut(stdout, "stdout");
	return OXI_EX_OK;
}

int
main(int argc, char *argv[])
{
	const char *sys = NULL, *model = NULL;
	char why[300], **chain;
	int c, i, n, notif = -1, lflag = 0, wflag = 0, mflag = 0, bflag = 0;
	size_t maxline = 0;

	oxi_prog = "oxi-llm";
	oxi_std_opts(argc, argv, USAGE);
	oxi_llmctl_defaults(&cfg);
	settings();		/* the environment, then the options over it */
	while ((c = getopt_long(argc, argv, "+b:d:jl:Mm:ns:vW", longopts,
	    NULL)) != -1)
		switch (c) {
		case 'b': budgetarg(optarg); bflag = 1; break;
		case 'd': notif = oxi_fdarg(optarg); break;
		case 'j': jflag = 1; break;
		case 'l': maxline = oxi_sizearg(optarg, "maxline"); lflag = 1;
			break;
		case 'M': mflag = 1; break;
		case 'm': model = optarg; break;
		case 'n': nflag = 1; break;
		case 's': sys = optarg; break;
		case 'v': oxi_verbose++; break;
		case 'W': wflag = 1; break;
		case O_RECORD: cfg.record = optarg; break;
		case O_REPLAY: cfg.replay = optarg; break;
		default: oxi_usage(USAGE);
		}
	argc -= optind;
	argv += optind;
	if (mflag) {
		if (argc > 0 || jflag || model || sys || nflag || bflag ||
		    lflag || wflag || notif >= 0 || cfg.record || cfg.replay)
			oxi_usage(USAGE);
		return models();
	}
	if ((jflag ? argc > 0 || sys || nflag : notif >= 0 || lflag ||
	    wflag) || (cfg.record && cfg.replay))
		oxi_usage(USAGE);

	if (!model)
		model = oxi_getenv("OXI_MODEL");
	if (!model && !jflag)
		oxi_die(OXI_EX_USAGE, "no model: use -m provider/model or set"
		    " OXI_MODEL (e.g. openai/gpt-4o-mini)");
	if (model) {
		n = oxi_llm_chain(model, &chain);
		if (n == 0)
			oxi_die(OXI_EX_USAGE, "no model in '%s'", model);
		/* a replay needs neither keys nor servers */
		for (i = 0; i < n && !cfg.replay; i++)
			if (oxi_llm_check(chain[i], why, sizeof why) < 0)
				oxi_die(OXI_EX_USAGE, "%s", why);
		oxi_llm_chain_free(chain, n);
	}
	cfg.model = model;
	cfg.delta = jflag ? rdelta : hdelta;
	cfg.done = jflag ? rdone : hdone;
	if (!(loop = oxi_http_loop_new()))
		oxi_die(OXI_EX_TEMP, "unable to initialise libcurl");
	if (!(ctl = oxi_llmctl_new(loop, &cfg, why, sizeof why)))
		oxi_die(OXI_EX_USAGE, "%s", why);

	if (!jflag)
		return human(prompt(argc, argv, sys));
	oxi_nd_init(&in, 0, "stdin");
	if (lflag)
		in.max = maxline;
	records(notif, wflag || oxi_getenv("OXI_LLM_WARM"));
	oxi_llmctl_free(ctl);
	oxi_http_loop_free(loop);
	oxi_nd_free(&in);
	oxi_fshut(stdout, "stdout");
	return status;
}
