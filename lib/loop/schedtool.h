/*
 * schedtool.h - the loop's side of oxi-cron (oxi-loop(1), SCHEDULES):
 * the model's schedule tools and the /remind and /schedules commands,
 * whose requests go out on stdout as cron.* records (oxi(7)) to oxi-cron,
 * which answers a tool's on oxi-loop's input (a tool.result) and a
 * command's in the chat.  Included by lib/loop/ only.
 */
#ifndef OXI_LOOP_SCHEDTOOL_H
#define OXI_LOOP_SCHEDTOOL_H

#include "loop/engine.h"

/* 1 when OXI_CRON is "on": oxi-cron reads what oxi-loop writes */
int oxi_sched_on(void);
/* tools (consumed) and, when on, the three schedule tools after them */
jv oxi_sched_tools(jv tools);
/* call (consumed), a tool.call answering msg.in in (borrowed): a
 * schedule tool's call gets "maker", the keys of in a schedule speaks
 * with (channel, account, chat, thread, from, from_name, chat_type,
 * trust) */
jv oxi_sched_maker(jv call, const char *name, jv in);
/* sends call (consumed) as io.tool does: a schedule tool's to oxi-cron,
 * as its cron.* record on stdout; any other to the tool stage */
int oxi_sched_send(struct oxi_loop *, jv call);
/* the command word ("/remind", "/schedules") of in (borrowed) with arg:
 * its cron.* record sent, 0; or -1 with the answer the chat gets in
 * *note (schedules off, nothing to schedule) */
int oxi_sched_cmd(struct oxi_loop *, jv in, const char *word,
    const char *arg, const char **note);

#endif
