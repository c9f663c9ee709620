/*
 * dialect.h - the contract of a wire dialect, for the llm wing's own
 * files and tests/unit/ only: the dialect vtable, a resolved target, the
 * reply a dialect assembles (reply.c), the pieces of request bodies, and
 * prompt-guided tools over a dialect (ptools.c).  What oxi-llm uses is in
 * llm/llm.h; the requests in flight, in llm/job.h.
 */
#ifndef OXI_LLM_DIALECT_H
#define OXI_LLM_DIALECT_H

#include "oxi.h"
#include "net/net.h"
#include "llm/llm.h"

/*
 * A dialect is one wire protocol.  oxi_llm_start() (job.h) resolves the
 * model's provider (oxi_llm_resolve), has the provider's dialect build
 * the body and the URL, sends it, and feeds the reply bytes, split
 * anywhere, to the dialect's reader; at the end the reader's result
 * becomes an llm.response or an error record.  A reader's result is
 * {"message","stop","usage"}: message as in llm.response (with
 * "thinking" blocks when the provider sent some, see oxi(7)), stop one of
 * end, tool_use, length, refusal, and usage {"input","output",
 * "cache_read","cache_write","reasoning"} where input counts every prompt
 * token (cache reads and writes included) and output every generated
 * token (reasoning included).  Or it is an invalid jv with a one-line
 * message, and *code / *retry for the error record.
 */
struct oxi_llm_target;
/* a text fragment of the answer as it arrives */
typedef void (*oxi_llm_text_fn)(void *arg, const char *text, size_t len);
/* embeddings, where a dialect offers them */
struct oxi_llm_embed {
	/* appends the endpoint to url (holding the base URL) */
	void (*url)(struct oxi_buf *url, const struct oxi_llm_target *);
	/* the request body for texts, an array of strings, and dims, the
	 * "dimensions" asked (a number, or anything else for none);
	 * consumes both */
	jv (*body)(const struct oxi_llm_target *, jv texts, jv dims);
	/* the n vectors of a reply object (borrowed), in order, or an
	 * invalid jv with a message; *tokens (null on entry) becomes the
	 * input token count when the reply gives it */
	jv (*vectors)(jv reply, int n, jv *tokens);
};
struct oxi_llm_dialect {
	const char *name;	/* "anthropic": thinking blocks are tagged */
	const char *auth;	/* key header, "x-api-key: %s" */
	const char *const *hdrs;	/* fixed header lines, or NULL */
	const char *accept;	/* Accept header line of a streamed reply */
	const char *path;	/* "/messages"; NULL: url() builds the path */
	/* appends the endpoint to url (holding the base URL) */
	void (*url)(struct oxi_buf *url, const struct oxi_llm_target *,
	    int stream);
	/* the request body for an llm.request (borrowed); an invalid jv
	 * with a message if the request cannot be expressed */
	jv (*body)(jv req, const struct oxi_llm_target *);
	/* a reply reader; text (may be NULL) gets the answer's text */
	void *(*reader)(oxi_llm_text_fn text, void *arg);
	/* reply bytes split anywhere: 0, or -1 once the reply failed */
	int (*feed)(void *rd, const char *, size_t);
	/* at the end: the result as above (the reader keeps working) */
	jv (*result)(void *rd, const char **code, int *retry);
	/* 1 once the terminal event came and nothing failed before it */
	int (*complete)(const void *rd);
	void (*free)(void *rd);
	/* the message of an error body, or an invalid jv; NULL:
	 * oxi_llm_errmsg */
	jv (*errmsg)(const char *body, size_t len);
	const struct oxi_llm_embed *embed;	/* NULL: no embeddings */
	const char *transcribe;	/* "/audio/transcriptions" of an
				 * OpenAI-compatible API, or NULL: none */
};
/* the dialects: openai.c (Chat Completions), anthropic.c, gemini.c,
 * ollama.c, responses.c */
extern const struct oxi_llm_dialect oxi_dialect_openai, oxi_dialect_anthropic,
    oxi_dialect_gemini, oxi_dialect_ollama, oxi_dialect_responses;

#define OXI_LLM_MAXHDRS	32	/* a target's extra header lines, at most */
/* a provider and model resolved from "provider/model" and the environment */
struct oxi_llm_target {
	const struct oxi_llm_provider *p;	/* the provider */
	const char *model;	/* the name after "provider/", borrowed */
	const char *key;	/* API key from the environment, or NULL */
	struct oxi_buf base;	/* base URL without a trailing '/' */
	char **hdrs;		/* extra "Name: value" lines, NULL-ended */
	int ptools;		/* OXI_<PROVIDER>_TOOLS=prompt */
};
/*
 * Resolves name (borrowed: t->model points into it): 0, or -1 with a
 * one-line reason in why and *nokey set when only the key is missing.
 * Reads OXI_<PROVIDER>_BASE_URL, the key variable, OXI_<PROVIDER>_HEADERS
 * and OXI_<PROVIDER>_TOOLS (PROVIDER upper case, '-' as '_').
 */
int oxi_llm_resolve(const char *name, struct oxi_llm_target *t, char *why,
    size_t len, int *nokey);
/* wipes the header values and frees t's memory */
void oxi_llm_target_free(struct oxi_llm_target *);
/*
 * reply.c: a reply as the dialects assemble it.  A thinking block is
 * the provider's own block, item or part, tagged "dialect": name, kept in
 * the message's "thinking" array and sent back (untagged) only to the
 * same dialect.
 */
struct oxi_llm_call {
	long index;		/* the wire's index or position */
	struct oxi_buf id;	/* call id, made up if empty */
	struct oxi_buf name;	/* tool name */
	struct oxi_buf args;	/* arguments, a JSON text */
	jv extra;		/* more keys for the call ("signature"), or null */
};
struct oxi_llm_reply {
	struct oxi_buf text;	/* the answer's text so far */
	struct oxi_llm_call *calls;	/* tool calls, in order */
	size_t ncalls;		/* calls used */
	size_t capcalls;	/* calls allocated */
	jv thinking;		/* thinking blocks, an array */
	double input, output, cache_read, cache_write, reasoning; /* usage */
	const char *stop;	/* "end" "tool_use" "length" "refusal", or NULL */
	int ended;		/* the terminal event came */
	int failed;		/* the reply failed: code, retry, err */
	const char *code;	/* error code for the error record */
	int retry;		/* the error is temporary */
	struct oxi_buf err;	/* its message */
	oxi_llm_text_fn delta;	/* text callback, or NULL */
	void *arg;		/* its argument */
};
void oxi_llm_reply_init(struct oxi_llm_reply *, oxi_llm_text_fn, void *);
void oxi_llm_reply_free(struct oxi_llm_reply *);
/* appends answer text and passes it to the callback */
void oxi_llm_reply_text(struct oxi_llm_reply *, const char *, size_t);
/* a new tool call / the last one with this index, or NULL */
struct oxi_llm_call *oxi_llm_reply_call(struct oxi_llm_reply *, long index);
struct oxi_llm_call *oxi_llm_reply_find(struct oxi_llm_reply *, long index);
/* the first failure sticks */
void oxi_llm_reply_fail(struct oxi_llm_reply *, const char *code, int retry,
    const char *fmt, ...) OXI_PRINTF(4, 5);
/* fails with a provider's error object or string (consumed), its code and
 * retryability from its type, code or status */
void oxi_llm_reply_perror(struct oxi_llm_reply *, jv err);
/* appends a thinking block (consumed), tagged with the dialect */
void oxi_llm_reply_think(struct oxi_llm_reply *, const char *dialect, jv);
/* the normalised usage object */
jv oxi_llm_reply_usage(const struct oxi_llm_reply *);
/* the result as a dialect's result() returns it */
jv oxi_llm_reply_result(struct oxi_llm_reply *, const char **code,
    int *retry);
/* the thinking blocks of message msg (borrowed) for dialect, untagged */
jv oxi_llm_thinking(jv msg, const char *dialect);
/*
 * A reply that is one JSON document or an event stream, told apart by
 * its first byte that is not white space (the readers of
 * anthropic.c, gemini.c and responses.c keep one).
 */
enum { OXI_LLM_UNSEEN, OXI_LLM_SSE, OXI_LLM_JSON };
struct oxi_llm_wire {
	struct oxi_sse sse;	/* event stream parser */
	int mode;		/* OXI_LLM_UNSEEN, _SSE or _JSON */
	int eof;		/* the reply ended: flushing the last event */
	struct oxi_buf json;	/* a JSON reply, whole */
};
/* an empty wire whose events go to fn with arg */
void oxi_llm_wire_init(struct oxi_llm_wire *, oxi_sse_fn fn, void *arg);
void oxi_llm_wire_free(struct oxi_llm_wire *);
/*
 * Decides *mode, once, at the first byte of *p[0..*n) that is not white
 * space, skipping the white space before it: OXI_LLM_JSON if that byte
 * is one of json ("{" or "{["), else OXI_LLM_SSE.  Returns *mode, or 0
 * when no byte is left (*n is 0).
 */
int oxi_llm_sniff(int *mode, const char *json, const char **p, size_t *n);
/*
 * Reply bytes split anywhere, json as for oxi_llm_sniff: a JSON reply is
 * kept in w->json, an event stream goes to w->sse.  0, or -1 once r has
 * failed (an event over the size cap fails it as "bad_reply").
 */
int oxi_llm_wire_feed(struct oxi_llm_wire *, struct oxi_llm_reply *r,
    const char *json, const char *p, size_t n);
/* fails r for an event whose data is not JSON: "truncated" when the
 * stream ended inside it, else "bad_reply" */
void oxi_llm_wire_badevent(const struct oxi_llm_wire *,
    struct oxi_llm_reply *r);
/*
 * At the end of the reply, after its JSON (if any) was read: dispatches
 * the event the stream ended without its blank line (w->eof set first),
 * and fails r as "truncated" if no byte came.
 */
void oxi_llm_wire_end(struct oxi_llm_wire *, struct oxi_llm_reply *r);
/* pieces of request bodies: a jv argument is consumed, as the rule at
 * the top says, unless it is marked borrowed */
/* {"type":type,"text":text}, or {"text":text} when type is NULL */
jv oxi_llm_textpart(const char *type, jv text);
/* appends the text of message content c (borrowed): a string, or the
 * strings and "text" of the parts of an array */
void oxi_llm_content_cat(struct oxi_buf *, jv c);
/* the "args" of tool call tc (borrowed) as an object: a JSON text is
 * parsed, anything but an object becomes {} */
jv oxi_llm_call_args(jv tc);
/* a tool definition: t's "function" if that is an object (OpenAI's
 * shape), else t */
jv oxi_llm_tool_fn(jv t);
/* a tool's parameter schema v, or {"type":"object","properties":{}}
 * when v is not an object */
jv oxi_llm_params(jv v);
/*
 * o with the "name" and "description" of tool t (borrowed), tools[i] of
 * the request; an invalid jv with a message if t has no name
 */
jv oxi_llm_tool_head(jv o, jv t, int i);
/* human.c: the thinking budget of a request's "thinking" (borrowed) that
 * names an "effort": none 0, minimal 1024, low 2048, medium 8192, high
 * 24576; else -1 */
int oxi_llm_effort(jv thinking);
/* attach.c: an attachment part of a message's content (see oxi(7)) */
struct oxi_llm_att {
	int file;		/* "file" (a PDF), else "image" */
	const char *mime;	/* "media_type", or NULL */
	const char *data;	/* base64 bytes, or NULL */
	const char *url;	/* else the URL */
	const char *name;	/* a file's name, or NULL */
};
/* 1 with *a (borrowed from p) if part p is an attachment of ours, else 0
 * (a provider's own part, {"type":"image","source":...}, is not) */
int oxi_llm_att(jv p, struct oxi_llm_att *a);
/* "data:MIME;base64,DATA", or the URL */
jv oxi_llm_att_url(const struct oxi_llm_att *a);
/* the "messages" of request req (borrowed), a non-empty array; else an
 * invalid jv with a message */
jv oxi_llm_messages(jv req);
/* 0 if request req (borrowed) has "stream": false, else 1 */
int oxi_llm_stream(jv req);
/*
 * Appends {"role":role,key:items} to msgs, or items to the key array of
 * the last message if it has that role, so that consecutive messages of
 * one role merge.  Empty items add nothing.
 */
jv oxi_llm_push(jv msgs, const char *role, const char *key, jv items);

/*
 * The number at key of obj (borrowed) as an index or a count: dflt if it
 * is absent or not a number, -1 if it is not an integer in [0, INT_MAX]
 * (a provider's number is never converted out of range)
 */
int oxi_llm_index(jv obj, const char *key, int dflt);
/* the message in an error body ({"error":{"message":…}} and kin), or
 * an invalid jv */
jv oxi_llm_errmsg(const char *body, size_t len);
/*
 * The n vectors of a reply's list (consumed), an array of entries: an
 * entry's key (or, key NULL, the entry itself) is its vector, and its
 * idx (if idx is not NULL and it is a number) its place, else its
 * position.  An invalid jv with a message unless list holds n arrays of
 * numbers, one for each place.
 */
jv oxi_llm_vectors(jv list, int n, const char *key, const char *idx);
/* OpenAI's /embeddings, spoken by openai.c and responses.c */
extern const struct oxi_llm_embed oxi_llm_embed_openai;

/*
 * ptools.c: prompt-guided tools, for models without native tool
 * calling.  The request is rewritten: the tools are described in the
 * system prompt with the instruction to answer with
 * <tool_call>{"name":…,"arguments":{…}}</tool_call> blocks, earlier calls
 * become such blocks in assistant text, and tool results user text.  The
 * reader wraps the dialect's own: the blocks are cut out of the text
 * (text that may start one is held back until it is known) and become
 * tool calls.
 */
struct oxi_ptools;
/* the rewritten request (req borrowed), or an invalid jv with a message */
jv oxi_ptools_request(jv req);
struct oxi_ptools *oxi_ptools_new(const struct oxi_llm_dialect *,
    oxi_llm_text_fn, void *arg);
int oxi_ptools_feed(struct oxi_ptools *, const char *, size_t);
jv oxi_ptools_result(struct oxi_ptools *, const char **code, int *retry);
int oxi_ptools_complete(const struct oxi_ptools *);
void oxi_ptools_free(struct oxi_ptools *);

#endif
