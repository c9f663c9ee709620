/*
 * oxi-mem - what the assistant remembers of people and conversations
 *
 * A coprocess of oxi-loop (OXI_MEM): reads mem.* requests on stdin and
 * answers each with one record on stdout (oxi(7), MEMORY); other records
 * pass through.  Facts per person and episodes per conversation live in
 * SQLite with FTS5 and embedding vectors (lib/mem/).  Embeddings and the
 * extraction pass ask a model stage, OXI_MEM_LLM (oxi-llm -j), one
 * request at a time.  The owner's commands: link, unlink, links, export,
 * import, prune.
 *
 * fds: 0 records in, 1 records out, 2 diagnostics, -d fd readiness.
 * exit: 0 ok, 1 some records were rejected, 100 usage or config, 111
 * system failure.
 */
#include <sys/types.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oxi.h"
#include "mem/mem.h"

#define USAGE "oxi-mem [-v] [-d fd] [-f db] [-l maxline]\n" \
	"oxi-mem [-f db] link scope person\n" \
	"oxi-mem [-f db] unlink scope\n" \
	"oxi-mem [-f db] links\n" \
	"oxi-mem [-f db] export [person]\n" \
	"oxi-mem [-f db] import\n" \
	"oxi-mem [-f db] prune"

static const char *dbpath;
static struct oxi_mem *mem;
static struct oxi_coproc llm = OXI_COPROC_INIT;
static const char *llmcmd, *embedmodel, *extractmodel;
static long waitms = 30000;

/* starts the model stage if need be: 0, or -1 warned */
static int
llmup(void)
{
	if (llm.pid > 0)
		return 0;
	if (oxi_coproc_start(&llm, "llm", llmcmd) < 0) {
		oxi_warnsys("unable to start '%s'", llmcmd);
		return -1;
	}
	return 0;
}

/* 1 if r[key] is the string id */
static int
answers(jv r, const char *key, const char *id)
{
	jv v = oxi_jget(r, key);
	int yes = oxi_jstr_is(v, id);

	jv_free(v);
	return yes;
}

/* the model stage's answer to rec (consumed, its id "id"): the record
 * whose id or ref is id, or an invalid jv with a message */
static jv
ask(jv rec, const char *id)
{
	struct pollfd p;
	long long end = oxi_clock_ms() + waitms;
	jv r;
	int n;

	if (llmup() < 0) {
		jv_free(rec);
		return jv_invalid_with_msg(jv_string("no model stage"));
	}
	if (oxi_coproc_send(&llm, rec) < 0)
		goto gone;
	while (llm.outq.len > 0) {
		p.fd = llm.in;
		p.events = POLLOUT;
		if (poll(&p, 1, 1000) < 0 && errno != EINTR)
			goto gone;
		if (oxi_coproc_flush(&llm) < 0 && errno != EAGAIN)
			goto gone;
	}
	for (;;) {
		while ((n = oxi_nd_take(&llm.out, &r)) == OXI_ND_OK) {
			if (answers(r, "id", id) || answers(r, "ref", id))
				return r;
			jv_free(r);	/* a late answer, a stage.up */
		}
		if (n == OXI_ND_EOF)
			goto gone;
		if (n == OXI_ND_BAD)
			continue;
		p.fd = llm.out.fd;
		p.events = POLLIN;
		if (oxi_clock_ms() >= end)
			return jv_invalid_with_msg(jv_string("the model stage "
			    "did not answer in time"));
		if (poll(&p, 1, (int)(end - oxi_clock_ms())) < 0 &&
		    errno != EINTR)
			goto gone;
		if (p.revents && oxi_nd_fill(&llm.out) <= 0 && errno != EINTR)
			goto gone;
	}
gone:
	oxi_warn("model stage '%s' exited with code %d", llmcmd,
	    oxi_coproc_stop(&llm));
	return jv_invalid_with_msg(jv_string("the model stage exited"));
}

/* an error record's message, as an invalid jv (r consumed) */
static jv
failed(jv r)
{
	jv m = oxi_jget(r, "message");

	jv_free(r);
	if (jv_get_kind(m) != JV_KIND_STRING) {
		jv_free(m);
		m = jv_string("bad answer");
	}
	return jv_invalid_with_msg(m);
}

static jv
embed(void *arg, jv texts)
{
	char id[OXI_ID_LEN + 1];
	jv req = oxi_msg_new("embed.request"), r;

	(void)arg;
	oxi_id_new(id);
	req = jv_object_set(req, jv_string("id"), jv_string(id));
	req = jv_object_set(req, jv_string("input"), texts);
	if (*embedmodel)
		req = jv_object_set(req, jv_string("model"),
		    jv_string(embedmodel));
	r = ask(req, id);
	if (!jv_is_valid(r) || strcmp(oxi_msg_type_peek(r), "embed.response"))
		return jv_is_valid(r) ? failed(r) : r;
	return jv_object_get(r, jv_string("vectors"));
}

static jv
complete(void *arg, jv msgs, long *tokens)
{
	char id[OXI_ID_LEN + 1];
	jv req = oxi_msg_new("llm.request"), r, c;

	(void)arg;
	oxi_id_new(id);
	req = jv_object_merge(req, JV_OBJECT(jv_string("id"), jv_string(id),
	    jv_string("model"), jv_string(extractmodel), jv_string("messages"),
	    msgs, jv_string("stream"), jv_false(), jv_string("max_tokens"),
	    jv_number(400)));
	r = ask(req, id);
	if (!jv_is_valid(r) || strcmp(oxi_msg_type_peek(r), "llm.response"))
		return jv_is_valid(r) ? failed(r) : r;
	c = oxi_jget(r, "usage");
	*tokens = (long)(oxi_jnum(c, "input", 0) + oxi_jnum(c, "output", 0));
	jv_free(c);
	c = oxi_jget(r, "message");
	jv_free(r);
	r = oxi_jget(c, "content");
	jv_free(c);
	if (jv_get_kind(r) != JV_KIND_STRING) {
		jv_free(r);
		return jv_invalid_with_msg(jv_string("no text in the answer"));
	}
	return r;
}

/* a number of the environment, or dflt; dies 100 if bad */
static double
envnum(const char *name, double dflt, double min, double max)
{
	const char *v = oxi_getenv(name);
	char *end;
	double d;

	if (!v)
		return dflt;
	d = strtod(v, &end);
	if (end == v || *end || d < min || d > max)
		oxi_die(OXI_EX_USAGE, "bad %s '%s'", name, v);
	return d;
}

static void
setup(void)
{
	static char path[4096];
	struct oxi_mem_cfg cfg = OXI_MEM_CFG_INIT;
	struct oxi_mem_ai ai = { NULL, NULL, NULL };
	const char *dir, *err, *v;

	if (!dbpath) {
		if (!(dir = oxi_state_dir()))
			oxi_diesys(OXI_EX_USAGE, "unable to find a state "
			    "directory (set OXI_HOME)");
		snprintf(path, sizeof path, "%s/mem.db", dir);
		dbpath = path;
	}
	cfg.dup = envnum("OXI_MEM_DUP", cfg.dup, 0, 1);
	cfg.decay = envnum("OXI_MEM_DECAY", cfg.decay, 0, 1);
	cfg.period = envnum("OXI_MEM_DECAY_DAYS", 7, 0.001, 36500) * 86400;
	cfg.floor = envnum("OXI_MEM_FLOOR", cfg.floor, 0, 1);
	cfg.near = envnum("OXI_MEM_NEAR", cfg.near, -1, 1);
	cfg.k = (int)envnum("OXI_MEM_K", cfg.k, 1, 100);
	cfg.budget = (long)envnum("OXI_MEM_BUDGET", cfg.budget, 0, 1e6);
	cfg.extract = (long)envnum("OXI_MEM_EXTRACT_TOKENS", cfg.extract, 0,
	    1e9);
	cfg.everyone = (v = oxi_getenv("OXI_MEM_EXTRACT")) && strcmp(v,
	    "everyone") == 0;
	cfg.now = (long long)envnum("OXI_MEM_NOW", 0, 0, 1e11);
	waitms = (long)envnum("OXI_MEM_WAIT", 30, 1, 3600) * 1000;
	llmcmd = oxi_getenv("OXI_MEM_LLM");
	if (llmcmd && (!*llmcmd || strcmp(llmcmd, "none") == 0))
		llmcmd = NULL;
	embedmodel = (v = oxi_getenv("OXI_MEM_EMBED_MODEL")) ? v : "";
	extractmodel = oxi_getenv("OXI_MEM_EXTRACT_MODEL");
	if (llmcmd && strcmp(embedmodel, "none") != 0)
		ai.embed = embed;
	if (llmcmd && extractmodel)
		ai.ask = complete;
	if (!(mem = oxi_mem_open(dbpath, &cfg, &ai, &err)))
		oxi_die(oxi_errtemp(errno), "unable to open '%s': %s", dbpath,
		    err);
}

static void
record(struct oxi_stage *st, jv rec)
{
	const char *type = oxi_msg_type_peek(rec);

	if (strncmp(type, "mem.", 4) != 0 || strcmp(type, "mem.fact") == 0) {
		oxi_stage_pass(st);
		jv_free(rec);
		return;
	}
	oxi_nd_out(oxi_mem_request(mem, rec));
}

/* the owner's commands: the exit status */
static int
admin(int argc, char **argv)
{
	struct oxi_nd in;
	const char *err;
	jv rec, l;
	int r, i, status = OXI_EX_OK, added = 0, had = 0;

	if (strcmp(argv[0], "link") == 0 && argc == 3) {
		if (oxi_mem_link(mem, argv[1], argv[2], &err) < 0)
			oxi_die(OXI_EX_TEMP, "unable to link: %s", err);
	} else if (strcmp(argv[0], "unlink") == 0 && argc == 2) {
		if (oxi_mem_link(mem, argv[1], NULL, &err) < 0)
			oxi_die(OXI_EX_TEMP, "unable to unlink: %s", err);
	} else if (strcmp(argv[0], "links") == 0 && argc == 1) {
		l = oxi_mem_links(mem);
		for (i = 0; i < jv_array_length(jv_copy(l)); i++) {
			jv o = jv_array_get(jv_copy(l), i);

			printf("%s\t%s\n", oxi_msg_peek(o, "scope"),
			    oxi_msg_peek(o, "person"));
			jv_free(o);
		}
		jv_free(l);
	} else if (strcmp(argv[0], "export") == 0 && argc <= 2) {
		if (oxi_mem_export(mem, argc == 2 ? argv[1] : NULL, 1,
		    &err) < 0)
			oxi_die(OXI_EX_TEMP, "unable to export: %s", err);
	} else if (strcmp(argv[0], "import") == 0 && argc == 1) {
		oxi_nd_init(&in, 0, "stdin");
		while ((r = oxi_nd_next(&in, &rec)) != OXI_ND_EOF) {
			if (r == OXI_ND_ERR)
				oxi_diesys(OXI_EX_TEMP, "unable to read stdin");
			if (r != OXI_ND_OK) {
				status = OXI_EX_FALSE;
				continue;
			}
			if ((r = oxi_mem_import(mem, rec, &err)) < 0) {
				oxi_nd_reject(&in, err);
				status = OXI_EX_FALSE;
			} else if (r == 1)
				had++;
			else
				added++;
		}
		oxi_info("imported %d records, %d were there", added, had);
		oxi_nd_free(&in);
	} else if (strcmp(argv[0], "prune") == 0 && argc == 1) {
		long n = oxi_mem_prune(mem, &err);

		if (n < 0)
			oxi_die(OXI_EX_TEMP, "unable to prune: %s", err);
		oxi_info("pruned %ld facts", n);
	} else
		oxi_usage(USAGE);
	oxi_fshut(stdout, "stdout");
	return status;
}

int
main(int argc, char *argv[])
{
	struct oxi_stage st;
	size_t maxline = 0;
	int c, notif = -1, status;

	oxi_prog = "oxi-mem";
	oxi_std_opts(argc, argv, USAGE);
	while ((c = getopt(argc, argv, "d:f:l:v")) != -1)
		switch (c) {
		case 'd': notif = oxi_fdarg(optarg); break;
		case 'f': dbpath = optarg; break;
		case 'l': maxline = oxi_sizearg(optarg, "line limit"); break;
		case 'v': oxi_verbose++; break;
		default: oxi_usage(USAGE);
		}
	argc -= optind;
	argv += optind;
	setup();
	if (argc > 0) {
		status = admin(argc, argv);
		oxi_mem_close(mem);
		return status;
	}
	oxi_stage_init(&st, maxline, 1);
	st.record = record;
	oxi_nd_hello();		/* on a FIFO: the loop's recalls in flight go on */
	status = oxi_stage_run(&st, notif);
	if (llm.pid > 0)
		(void)oxi_coproc_stop(&llm);
	oxi_mem_close(mem);
	oxi_nd_free(&st.in);
	return status;
}
