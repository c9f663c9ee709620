/*
 * registry.c - the tools of oxi-tool: the tables of the built-in tool
 * families, the tool sources (plugins, MCP servers), lookup by name, the
 * definitions and the dispatch of a call
 *
 * A family is one file exporting one table (fs.c, find.c, shell.c,
 * web.c, search.c); adding one is one line in tables[] and one extern in
 * tooldef.h.  Nothing here knows a tool by its name: a tool's time limit,
 * its cache flag and whether it is configured are in its table row.
 *
 * The definition of a tool that runs children in the sandbox says how it
 * runs them, for the stages that judge calls (oxi-guard tool):
 * "x-oxi":{"sandbox":"confined","network":"asks"}, sandbox "none" when
 * unsafe mode runs them unconfined, and network "asks" because a call
 * that asks for the network (its argument network) waits for the owner's
 * approval in the tool itself.
 */
#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "sandbox/sandbox.h"
#include "tool/tooldef.h"

/* every table of built-in tools; each ends with a NULL name */
static const struct oxi_tool *const tables[] = {
	oxi_tools_fs, oxi_tools_find, oxi_tools_shell, oxi_tools_web,
	oxi_tools_search, NULL
};

/* tools that are not built in: plugins, MCP servers */
#define NSRC	8
static const struct oxi_tool_src *srcs[NSRC];

int
oxi_tool_src_add(const struct oxi_tool_src *s)
{
	int i;

	for (i = 0; i < NSRC; i++)
		if (!srcs[i]) {
			srcs[i] = s;
			return 0;
		}
	errno = ENOSPC;
	return -1;
}

/* the source of tool name, or NULL */
static const struct oxi_tool_src *
srcof(const char *name)
{
	int i;

	for (i = 0; i < NSRC && srcs[i]; i++)
		if (srcs[i]->has(srcs[i]->arg, name))
			return srcs[i];
	return NULL;
}

const struct oxi_tool *
oxi_tool_find(const char *name)
{
	const struct oxi_tool *t;
	int i;

	for (i = 0; tables[i]; i++)
		for (t = tables[i]; t->name; t++)
			if (strcmp(t->name, name) == 0)
				return t;
	return NULL;
}

const struct oxi_tool *
oxi_tool_lookup(const char *name, const struct oxi_tool_src **src)
{
	const struct oxi_tool *t = oxi_tool_find(name);

	*src = NULL;
	if (t && oxi_tool_enabled(t))
		return t;
	*src = srcof(name);
	return NULL;
}

int
oxi_tool_enabled(const struct oxi_tool *t)
{
	return !(t->flags & OXI_TOOL_OFF) || oxi_tool_on(t->name);
}

jv
oxi_tool_defs(void)
{
	const struct oxi_tool *t;
	jv a = jv_array(), d;
	int i;

	for (i = 0; tables[i]; i++)
		for (t = tables[i]; t->name; t++) {
			/* listed when on and, if it says, configured */
			if (!oxi_tool_enabled(t) || (t->ready && !t->ready()))
				continue;
			d = jv_object();
			d = jv_object_set(d, jv_string("name"),
			    jv_string(t->name));
			d = jv_object_set(d, jv_string("description"),
			    jv_string(t->desc));
			d = jv_object_set(d, jv_string("parameters"),
			    jv_parse(t->params));
			if (t->flags & OXI_TOOL_SANDBOX)
				d = jv_object_set(d, jv_string("x-oxi"),
				    JV_OBJECT(jv_string("sandbox"),
				    jv_string(oxi_sbx_confined() ? "confined" :
				    "none"), jv_string("network"),
				    jv_string("asks")));
			a = jv_array_append(a, d);
		}
	for (i = 0; i < NSRC && srcs[i]; i++)
		a = srcs[i]->defs(srcs[i]->arg, a);
	return a;
}

int
oxi_tool_dispatch(const struct oxi_tool *t, const struct oxi_tool_src *s,
    struct oxi_tool_call *c)
{
	struct oxi_buf *out = c->out;
	jv names;
	int r, i, n;

	oxi_buf_reset(out);
	oxi_buf_cats(out, "");
	c->taint[0] = '\0';
	if (!t && s)
		return s->run(s->arg, c) < 0 ? -1 : 0;
	if (!t) {
		oxi_buf_printf(out, "unknown tool '%.100s'; the tools are",
		    c->name);
		names = oxi_tool_defs();
		n = jv_array_length(jv_copy(names));
		for (i = 0; i < n; i++) {
			jv d = jv_array_get(jv_copy(names), i);

			oxi_buf_printf(out, "%s %s", i == 0 ? "" : ",",
			    oxi_msg_peek(d, "name"));
			jv_free(d);
		}
		jv_free(names);
		return -1;
	}
	if (jv_get_kind(c->args) != JV_KIND_OBJECT)
		return oxi_tool_fail(c, "arguments must be a JSON object");
	r = oxi_tool_keys(c, t->keys);
	if (r == 0)
		r = t->run(c);
	if (r < 0)
		c->taint[0] = '\0';
	else if (!c->taint[0] && t->taint)
		snprintf(c->taint, sizeof c->taint, "%s", t->taint);
	return r < 0 ? -1 : 0;
}

int
oxi_tool_on(const char *name)
{
	const char *v = oxi_getenv("OXI_TOOLS_ON"), *p;
	size_t n = strlen(name), k;

	for (p = v; p && *p; p += k) {
		p += strspn(p, ", \t");
		k = strcspn(p, ", \t");
		if (k == n && strncmp(p, name, n) == 0)
			return 1;
	}
	return 0;
}
