/*
 * memory.h - the loop's side of oxi-mem (oxi-loop(1), MEMORY): a third
 * stage, OXI_MEM, that the engine asks before a turn's first request
 * for what it remembers of the sender and the chat (the memory slot of
 * the system prompt), that runs the model's memory tools (remember,
 * recall, forget) and the chat's /memory and /forget, stores the
 * summary of a session as its episode and hands each answered exchange
 * to the extraction pass.  Without OXI_MEM none of it happens.
 */
#ifndef OXI_LOOP_MEMORY_H
#define OXI_LOOP_MEMORY_H

#include "loop/loop.h"

enum { OXI_LOOP_MEM = OXI_LOOP_TOOL + 1 };	/* a stage for oxi_peer */

struct oxi_memory_cfg {
	long waitms;		/* a recall's longest wait; then the turn
				 * goes on without it */
	long budget;		/* tokens of the memory slot */
	int k;			/* facts and episodes it may hold */
	int extract;		/* hand exchanges to the extraction pass */
};

/* cfg from the environment (oxi-loop(1), MEMORY): 0, or dies 100 on a
 * bad setting */
int oxi_memory_env(struct oxi_memory_cfg *cfg);
/* memory on: send writes a mem.* record to the stage (consumed; 0, or
 * -1 if it is down); cfg borrowed for the engine's life */
void oxi_memory_on(struct oxi_loop *, int (*send)(void *, jv), void *arg,
    const struct oxi_memory_cfg *);
/* tools (consumed) with the definitions of remember, recall and forget */
jv oxi_memory_tools(jv tools);
/* a record from the memory stage (consumed): 0, or -1 if the engine
 * failed */
int oxi_loop_mem(struct oxi_loop *, jv rec);
/* the memory stage exited (up 0), or started again at up (its
 * stage.up's oxi_clock_ms): what went to it before goes on without it */
int oxi_memory_lost(struct oxi_loop *, long long up);
/* ms until a recall has waited long enough (0: now), or -1 */
int oxi_memory_timeout(const struct oxi_loop *);

/* for the engine (engine.h's files) */
struct turn;
struct call;
/* before t's first request: 1 if a recall went out (t waits), else 0 */
int oxi_memory_recall(struct oxi_loop *, struct turn *);
/* call c of t, the tool.call call (borrowed): 1 if it is a memory
 * tool and went to the memory stage, 0 if it is not one, -1 if the
 * stage is down (the caller fails the call) */
int oxi_memory_tool(struct oxi_loop *, struct turn *, struct call *,
    jv call);
/* the summary text of t's session was stored: its episode */
void oxi_memory_episode(struct oxi_loop *, struct turn *, const char *text);
/* session of conversation key ends (/new, msg.in in borrowed): without
 * a summary, its first message and last answer are its episode */
void oxi_memory_close(struct oxi_loop *, jv in, const char *key,
    const char *session);
/* t was answered with reply: the exchange to the extraction pass */
void oxi_memory_extract(struct oxi_loop *, struct turn *, const char *reply);
/* 1 if msg.in in (borrowed) was /memory or /forget and was sent on,
 * else 0 */
int oxi_memory_slash(struct oxi_loop *, jv in);
/* the turns that waited too long go on without memory: 0, or -1 */
int oxi_memory_tick(struct oxi_loop *);
void oxi_memory_free(struct oxi_loop *);
/* 0, 1 or 2 if call (a tool.call, borrowed) is of remember, recall or
 * forget, else -1 */
int oxi_memory_which(jv call);

/* memory.c's state, for memreply.c */
struct oxi_memory {
	int (*send)(void *, jv);
	void *arg;
	const struct oxi_memory_cfg *cfg;
	jv asks;		/* {request id: msg.in} of /memory, /forget */
};

#endif
