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
 * reading and retrying, finishes the requests in flight and exits 0
 * (lib/llm/serve.c).
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

/* human mode: the final record, and whether output ends with "\n" */
static jv answer;
static int printed, atnl = 1;

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

/* -M: the priced models of known providers, then the other providers */
static int
models(void)
{
	jv l = oxi_llm_models(), v;
	int i, n;

	if (!jv_is_valid(l)) {
		v = jv_invalid_get_msg(l);
		oxi_die(OXI_EX_USAGE, "%s", jv_string_value(v));
	}
	n = jv_array_length(jv_copy(l));
	for (i = 0; i < n; i++) {
		v = jv_array_get(jv_copy(l), i);
		printf("%s\n", jv_string_value(v));
		jv_free(v);
	}
	jv_free(l);
	oxi_fshut(stdout, "stdout");
	return OXI_EX_OK;
}

int
main(int argc, char *argv[])
{
	const char *sys = NULL, *model = NULL;
	char why[300];
	int c, n, notif = -1, lflag = 0, wflag = 0, mflag = 0, bflag = 0;
	size_t maxline = 0;

	oxi_prog = "oxi-llm";
	oxi_std_opts(argc, argv, USAGE);
	oxi_llmctl_defaults(&cfg);
	/* the environment, then the options over it */
	if (oxi_llmctl_env(&cfg, why, sizeof why) < 0)
		oxi_die(OXI_EX_USAGE, "%s", why);
	while ((c = getopt_long(argc, argv, "+b:d:jl:Mm:ns:vW", longopts,
	    NULL)) != -1)
		switch (c) {
		case 'b':
			if (oxi_llmctl_budget(&cfg, optarg, why, sizeof why) < 0)
				oxi_die(OXI_EX_USAGE, "%s", why);
			bflag = 1;
			break;
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
	return human(prompt(argc, argv, sys));
}
