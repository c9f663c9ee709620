/*
 * schedtool.c - schedules, as the model and the chat make them
 *
 * oxi-loop does not keep schedules: oxi-cron does (oxi-cron(1)).  With
 * OXI_CRON=on the model gets three tools, schedule_add, schedule_list
 * and schedule_cancel; a call of one goes out on stdout as cron.add,
 * cron.list or cron.cancel with the call's id, its taint and the
 * "maker": the routing keys, sender and trust of the message whose turn
 * made it, which a schedule's messages speak with, and "msg", that
 * message's id: a turn done again after a kill (its call has a new id)
 * asks for the same schedule with the same msg, and oxi-cron makes it
 * once (oxi(7)).  oxi-cron answers
 * with a tool.result of the call's id on oxi-loop's input, which goes to
 * the turn like any tool's result.  The commands /remind WHEN TEXT and
 * /schedules [all | cancel ID] go out the same way, with in_reply_to the
 * command's message, and oxi-cron answers them in the chat itself.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "loop/schedtool.h"

#define WHEN_HELP "a cron expression ('0 9 * * 1-5'), a one-shot time " \
	"('at 9:00 tomorrow', 'friday 18:30', 'in 2 hours', " \
	"'2026-12-01 09:00', an ISO time with Z or an offset), an interval " \
	"('every 2h') or a day and a time ('every weekday at 8:30')"

static const char *const keys[] = { "channel", "account", "chat", "thread",
	"from", "from_name", "chat_type", "trust" };

static const char tooldefs[] = "["
	"{\"name\":\"schedule_add\",\"description\":\"Schedule a message to "
	"yourself in this chat: at the time you receive the text as if the "
	"person you are talking to sent it, and answer it then. For a "
	"reminder write what to tell them ('Remind Ann to call the dentist')."
	" The answer gives the schedule's id and next time.\",\"parameters\":"
	"{\"type\":\"object\",\"properties\":{\"when\":{\"type\":\"string\","
	"\"description\":\"" WHEN_HELP "\"},\"text\":{\"type\":\"string\","
	"\"description\":\"the message you will receive then\"},\"tz\":"
	"{\"type\":\"string\",\"description\":\"an IANA time zone such as "
	"Europe/Berlin, if not the default\"}},\"required\":[\"when\","
	"\"text\"]}},"
	"{\"name\":\"schedule_list\",\"description\":\"The schedules of this "
	"chat: ids, next times, texts.\",\"parameters\":{\"type\":\"object\","
	"\"properties\":{}}},"
	"{\"name\":\"schedule_cancel\",\"description\":\"Cancel a schedule of "
	"this chat by its id.\",\"parameters\":{\"type\":\"object\","
	"\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":"
	"[\"id\"]}}]";

int
oxi_sched_on(void)
{
	const char *v = oxi_getenv("OXI_CRON");

	return v && strcmp(v, "on") == 0;
}

jv
oxi_sched_tools(jv tools)
{
	static jv in, out, defs;
	static int have;

	if (!oxi_sched_on() || jv_get_kind(tools) != JV_KIND_ARRAY)
		return tools;
	if (have && jv_identical(jv_copy(in), jv_copy(tools))) {
		jv_free(tools);
		return jv_copy(out);
	}
	if (!have)
		defs = jv_parse(tooldefs);
	else {
		jv_free(in);
		jv_free(out);
	}
	have = 1;
	in = jv_copy(tools);
	out = jv_array_concat(tools, jv_copy(defs));
	return jv_copy(out);
}

/* the maker of a schedule: the keys of in it speaks with */
static jv
maker(jv in)
{
	jv m = jv_object();
	const char *v;
	size_t i;

	for (i = 0; i < sizeof keys / sizeof *keys; i++)
		if ((v = oxi_msg_peek(in, keys[i])))
			m = jv_object_set(m, jv_string(keys[i]), jv_string(v));
	return m;
}

jv
oxi_sched_maker(jv call, const char *name, jv in)
{
	const char *id = oxi_msg_peek(in, "id");

	if (strncmp(name, "schedule_", 9) != 0 || !oxi_sched_on())
		return call;
	if (id)
		call = jv_object_set(call, jv_string("msg"), jv_string(id));
	return jv_object_set(call, jv_string("maker"), maker(in));
}

/* args[from] of a call as key of r, if a string */
static jv
arg(jv r, jv args, const char *from, const char *key)
{
	const char *v = oxi_msg_peek(args, from);

	return v ? jv_object_set(r, jv_string(key), jv_string(v)) : r;
}

int
oxi_sched_send(struct oxi_loop *l, jv call)
{
	const char *name = oxi_msg_peek(call, "name");
	jv m = oxi_jget(call, "maker"), args, r;

	if (!name || strncmp(name, "schedule_", 9) != 0 ||
	    jv_get_kind(m) != JV_KIND_OBJECT) {
		jv_free(m);
		return l->io.tool(l->io.arg, call);
	}
	args = oxi_jget(call, "args");
	r = oxi_msg_new(strcmp(name, "schedule_add") == 0 ? "cron.add" :
	    strcmp(name, "schedule_cancel") == 0 ? "cron.cancel" :
	    "cron.list");
	r = jv_object_set(r, jv_string("id"), jv_string(oxi_msg_peek(call,
	    "id")));
	r = arg(r, args, "when", "when");
	r = arg(r, args, "text", "text");
	r = arg(r, args, "tz", "tz");
	r = arg(r, args, "id", "ref");
	r = arg(r, call, "msg", "msg");
	r = jv_object_set(r, jv_string("maker"), m);
	r = jv_object_set(r, jv_string("taint"), oxi_jget(call, "taint"));
	jv_free(args);
	jv_free(call);
	l->io.out(l->io.arg, r);
	return 0;
}

int
oxi_sched_cmd(struct oxi_loop *l, jv in, const char *word, const char *arg,
    const char **note)
{
	const char *msgid = oxi_msg_peek(in, "id");
	char *rid;
	jv r;

	if (!oxi_sched_on()) {
		*note = "Schedules are off: no oxi-cron reads this loop "
		    "(OXI_CRON=on turns them on).";
		return -1;
	}
	if (strcmp(word, "/remind") == 0) {
		if (!*arg) {
			*note = "Usage: /remind WHEN TEXT, as /remind at 9:00 "
			    "tomorrow call the dentist, /remind in 20m tea, "
			    "/remind every weekday at 8:30 standup";
			return -1;
		}
		r = oxi_msg_new("cron.add");
		r = jv_object_set(r, jv_string("line"), jv_string(arg));
		r = jv_object_set(r, jv_string("prefix"),
		    jv_string("Reminder: "));
	} else if (strncmp(arg, "cancel", 6) == 0) {
		r = oxi_msg_new("cron.cancel");
		r = jv_object_set(r, jv_string("ref"), jv_string(arg + 6 +
		    strspn(arg + 6, " \t")));
	} else {
		r = oxi_msg_new("cron.list");
		if (strcmp(arg, "all") == 0)
			r = jv_object_set(r, jv_string("all"), jv_true());
	}
	rid = oxi_out_id("cron", msgid);
	r = jv_object_set(r, jv_string("id"), jv_string(rid));
	free(rid);
	r = jv_object_set(r, jv_string("in_reply_to"), jv_string(msgid));
	r = jv_object_set(r, jv_string("maker"), maker(in));
	l->io.out(l->io.arg, r);
	return 0;
}
