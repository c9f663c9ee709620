/*
 * provider.c - the model providers, and a model name resolved
 *
 * A model name is "provider/model"; the provider gives the base URL
 * (overridable by OXI_<PROVIDER>_BASE_URL), the variable holding its key,
 * and its dialect: the wire protocol that builds request bodies and reads
 * replies (openai.c, anthropic.c, gemini.c, ollama.c, responses.c).
 * OXI_<PROVIDER>_HEADERS adds header lines, and OXI_<PROVIDER>_TOOLS=prompt
 * describes tools in the system prompt for models that cannot call them
 * natively (ptools.c).  An OpenAI-compatible preset is one row of the
 * table.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "llm/dialect.h"

const struct oxi_llm_provider oxi_llm_providers[] = {
	{ "openai", "https://api.openai.com/v1", "OPENAI_API_KEY", 1,
	    &oxi_dialect_openai, NULL },
	{ "anthropic", "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY", 1,
	    &oxi_dialect_anthropic, NULL },
	{ "gemini", "https://generativelanguage.googleapis.com/v1beta",
	    "GEMINI_API_KEY", 1, &oxi_dialect_gemini, NULL },
	{ "openai-responses", "https://api.openai.com/v1", "OPENAI_API_KEY", 1,
	    &oxi_dialect_responses, "OXI_OPENAI_BASE_URL" },
	{ "ollama", "http://localhost:11434", "OLLAMA_API_KEY", 0,
	    &oxi_dialect_ollama, NULL },
	{ "openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY",
	    1, &oxi_dialect_openai, NULL },
	{ "groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", 1,
	    &oxi_dialect_openai, NULL },
	{ "deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", 1,
	    &oxi_dialect_openai, NULL },
	{ "mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", 1,
	    &oxi_dialect_openai, NULL },
	{ "together", "https://api.together.xyz/v1", "TOGETHER_API_KEY", 1,
	    &oxi_dialect_openai, NULL },
	{ "xai", "https://api.x.ai/v1", "XAI_API_KEY", 1,
	    &oxi_dialect_openai, NULL },
	{ "lmstudio", "http://localhost:1234/v1", "LMSTUDIO_API_KEY", 0,
	    &oxi_dialect_openai, NULL },
	{ "vllm", "http://localhost:8000/v1", "VLLM_API_KEY", 0,
	    &oxi_dialect_openai, NULL },
	{ "llamacpp", "http://localhost:8080/v1", "LLAMA_API_KEY", 0,
	    &oxi_dialect_openai, NULL },
	{ NULL, NULL, NULL, 0, NULL, NULL }
};

/* "OXI_" NAME suffix, NAME upper case with '-' as '_' */
static void
envname(char *out, size_t len, const char *name, const char *suffix)
{
	size_t i;

	snprintf(out, len, "OXI_%s%s", name, suffix);
	for (i = 4; out[i] && i < 4 + strlen(name); i++)
		out[i] = out[i] == '-' ? '_' : toupper((unsigned char)out[i]);
}

static int
tokenchar(int c)
{
	return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/*
 * Header lines from v: separated by newlines or by the two characters
 * "\n"; blank ones skipped.  0, or -1 with a reason that never quotes a
 * value.
 */
static int
parsehdrs(const char *v, char ***out, const char *var, char *why,
    size_t len)
{
	const char *p = v, *e, *q, *next;
	char **h = xcalloc(OXI_LLM_MAXHDRS + 1, sizeof *h);
	size_t n = 0, k;

	*out = h;
	for (; *p; p = next) {
		for (e = p; *e && *e != '\n' && !(e[0] == '\\' && e[1] == 'n');
		    e++)
			;
		next = *e == '\n' ? e + 1 : *e ? e + 2 : e;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		k = e - p;
		while (k > 0 && (p[k - 1] == ' ' || p[k - 1] == '\t' ||
		    p[k - 1] == '\r'))
			k--;
		if (k == 0)
			continue;
		for (q = p; q < p + k && tokenchar((unsigned char)*q); q++)
			;
		if (q == p || q == p + k || *q != ':') {
			snprintf(why, len, "%s: header %zu is not"
			    " \"Name: value\"", var, n + 1);
			return -1;
		}
		for (q++; q < p + k; q++)
			if ((unsigned char)*q < 0x20 && *q != '\t') {
				snprintf(why, len, "%s: header %zu holds a"
				    " control character", var, n + 1);
				return -1;
			}
		if (n == OXI_LLM_MAXHDRS) {
			snprintf(why, len, "%s: more than %d headers", var,
			    OXI_LLM_MAXHDRS);
			return -1;
		}
		h[n++] = xstrndup(p, k);
	}
	return 0;
}

void
oxi_llm_target_free(struct oxi_llm_target *t)
{
	size_t i;

	if (t->hdrs) {
		for (i = 0; t->hdrs[i]; i++) {
			oxi_wipe(t->hdrs[i], strlen(t->hdrs[i]));
			free(t->hdrs[i]);
		}
		free(t->hdrs);
	}
	oxi_buf_free(&t->base);
	memset(t, 0, sizeof *t);
}

static void
known(char *out, size_t len)
{
	const struct oxi_llm_provider *p;
	size_t n = 0;

	out[0] = '\0';
	for (p = oxi_llm_providers; p->name && n < len; p++)
		n += snprintf(out + n, len - n, "%s%s", n ? ", " : "",
		    p->name);
}

int
oxi_llm_resolve(const char *name, struct oxi_llm_target *t, char *why,
    size_t len, int *nokey)
{
	const struct oxi_llm_provider *p;
	const char *slash = strchr(name, '/'), *base, *v;
	char var[80], list[300];
	size_t n;

	*nokey = 0;
	memset(t, 0, sizeof *t);
	if (!slash || slash == name || !slash[1]) {
		snprintf(why, len, "model '%.80s' is not provider/model,"
		    " e.g. openai/gpt-4o-mini", name);
		return -1;
	}
	n = slash - name;
	for (p = oxi_llm_providers; p->name; p++)
		if (strlen(p->name) == n && memcmp(p->name, name, n) == 0)
			break;
	if (!p->name) {
		known(list, sizeof list);
		snprintf(why, len, "unknown provider '%.*s' (known: %s)",
		    (int)(n > 40 ? 40 : n), name, list);
		return -1;
	}
	envname(var, sizeof var, p->name, "_BASE_URL");
	base = oxi_getenv(var);
	if (!base && p->baseenv)
		base = oxi_getenv(p->baseenv);
	t->p = p;
	t->model = slash + 1;
	t->key = p->keyenv ? oxi_getenv(p->keyenv) : NULL;
	if (!t->key && p->needkey && !base) {
		snprintf(why, len, "no API key for %s: set %s", p->name,
		    p->keyenv);
		*nokey = 1;
		return -1;
	}
	envname(var, sizeof var, p->name, "_TOOLS");
	if ((v = oxi_getenv(var))) {
		if (strcmp(v, "prompt") == 0)
			t->ptools = 1;
		else if (strcmp(v, "native") != 0) {
			snprintf(why, len, "%s must be prompt or native", var);
			return -1;
		}
	}
	envname(var, sizeof var, p->name, "_HEADERS");
	if (parsehdrs((v = oxi_getenv(var)) ? v : "", &t->hdrs, var, why,
	    len) < 0) {
		oxi_llm_target_free(t);
		return -1;
	}
	if (!base)
		base = p->base;
	n = strlen(base);
	while (n > 0 && base[n - 1] == '/')
		n--;
	oxi_buf_cat(&t->base, base, n);
	return 0;
}

int
oxi_llm_check(const char *model, char *why, size_t len)
{
	struct oxi_llm_target t;
	int nokey, r;

	r = oxi_llm_resolve(model, &t, why, len, &nokey);
	oxi_llm_target_free(&t);
	return r;
}


int
oxi_llm_check_chain(const char *models, int level, char *why, size_t len)
{
	struct oxi_llm_target t;
	char **chain;
	int i, n, r = 0, missing;

	if ((n = oxi_llm_chain(models, &chain)) == 0) {
		snprintf(why, len, "no model in '%s'", models);
		return -1;
	}
	for (i = 0; i < n && r == 0 && level < 2; i++) {
		missing = 0;
		r = oxi_llm_resolve(chain[i], &t, why, len, &missing);
		oxi_llm_target_free(&t);
		if (level == 1 && missing)
			r = 0;
	}
	oxi_llm_chain_free(chain, n);
	return r;
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the provider of model name k, or NULL */
static const struct oxi_llm_provider *
provider(const char *k)
{
	const struct oxi_llm_provider *p;
	size_t len;

	for (p = oxi_llm_providers; p->name; p++)
		if (strncmp(k, p->name, (len = strlen(p->name))) == 0 &&
		    k[len] == '/')
			return p;
	return NULL;
}

jv
oxi_llm_models(void)
{
	const struct oxi_llm_provider *p;
	struct oxi_prices *t;
	const char *k;
	char why[300], **v = NULL;
	size_t i, n = 0;
	int seen;
	jv out = jv_array();

	if (!(t = oxi_prices_load(why, sizeof why))) {
		jv_free(out);
		return oxi_jbad("%s", why);
	}
	for (i = 0; (k = oxi_prices_key(t, i)); i++) {
		if (strpbrk(k, "*?[") || !provider(k))
			continue;
		v = xrealloc(v, (n + 1) * sizeof *v);
		v[n++] = xstrdup(k);
	}
	if (n > 0)
		qsort(v, n, sizeof *v, cmpstr);
	for (i = 0; i < n; i++)
		out = jv_array_append(out, jv_string(v[i]));
	for (p = oxi_llm_providers; p->name; p++) {
		for (i = seen = 0; i < n && !seen; i++)
			seen = provider(v[i]) == p;
		if (!seen)
			out = jv_array_append(out, jv_string_fmt("%s/*",
			    p->name));
	}
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	oxi_prices_free(t);
	return out;
}
