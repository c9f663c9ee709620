/*
 * loopio.h - the in-memory io of the turn engine's unit tests (t-loop.c,
 * t-loop-approve.c): each record the engine sends is kept in order
 */
#ifndef LOOPIO_H
#define LOOPIO_H

struct cap {			/* what the engine sent, in order */
	jv llm, tool, out;	/* arrays of records */
	int down;		/* the stages refuse records */
};

static inline int
io_llm(void *arg, jv req)
{
	struct cap *c = arg;

	if (c->down) {
		jv_free(req);
		return -1;
	}
	c->llm = jv_array_append(c->llm, req);
	return 0;
}

static inline int
io_tool(void *arg, jv call)
{
	struct cap *c = arg;

	if (c->down) {
		jv_free(call);
		return -1;
	}
	c->tool = jv_array_append(c->tool, call);
	return 0;
}

static inline void
io_out(void *arg, jv rec)
{
	struct cap *c = arg;

	c->out = jv_array_append(c->out, rec);
}

static inline int
len(jv a)
{
	return jv_array_length(jv_copy(a));
}

/* the string rec[i][key] of array a (i < 0 counts from the end); it lives
 * as long as a holds the record */
static inline const char *
get(jv a, int i, const char *key)
{
	jv r;
	const char *s;

	if (i < 0)
		i += len(a);
	if (i < 0 || i >= len(a))
		return NULL;
	r = jv_array_get(jv_copy(a), i);
	s = oxi_msg_peek(r, key);
	jv_free(r);
	return s;
}

#endif
