/*
 * dcgw.c - the payloads of the Discord Gateway: one read
 * ({"op","d","s","t"}), ours written (identify, resume, heartbeat), the
 * first heartbeat's jitter and what a close code means.  No I/O here:
 * dcrecv.c holds the connection, tests/fuzz/fz-discord.c feeds this.
 */
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"

int
dc_gw_read(const char *text, size_t len, struct dc_gw *g, const char **why)
{
	jv doc, v;
	double op, s;

	g->op = -1;
	g->s = -1;
	g->t[0] = '\0';
	g->d = jv_null();
	if (oxi_json_check(text, len, why) < 0)
		return -1;
	doc = oxi_json_parse(text, len);
	if (!oxi_jis(doc, JV_KIND_OBJECT)) {
		jv_free(doc);
		*why = "a payload that is not an object";
		return -1;
	}
	op = oxi_jnum(doc, "op", -1);
	if (op < 0 || op > 255 || op != (double)(int)op) {
		jv_free(doc);
		*why = "a payload without an opcode";
		return -1;
	}
	g->op = (int)op;
	s = oxi_jnum(doc, "s", -1);
	if (s >= 0 && s <= 9007199254740992.0 && s == (double)(long long)s)
		g->s = (long long)s;
	v = oxi_jget(doc, "t");
	if (jv_get_kind(v) == JV_KIND_STRING &&
	    jv_string_length_bytes(jv_copy(v)) < (int)sizeof g->t)
		snprintf(g->t, sizeof g->t, "%s", jv_string_value(v));
	jv_free(v);
	g->d = oxi_jget(doc, "d");
	if (!jv_is_valid(g->d)) {
		jv_free(g->d);
		g->d = jv_null();
	}
	jv_free(doc);
	return 0;
}

static jv
payload(int op, jv d)
{
	return jv_dump_string(jv_object_set(jv_object_set(jv_object(),
	    jv_string("op"), jv_number(op)), jv_string("d"), d), 0);
}

jv
dc_gw_identify(const char *token, long intents)
{
	jv p = jv_object_set(jv_object_set(jv_object_set(jv_object(),
	    jv_string("os"), jv_string("linux")), jv_string("browser"),
	    jv_string("oxi")), jv_string("device"), jv_string("oxi"));
	jv d = jv_object_set(jv_object(), jv_string("token"), jv_string(token));

	d = jv_object_set(d, jv_string("intents"), jv_number(intents));
	d = jv_object_set(d, jv_string("properties"), p);
	return payload(DC_OP_IDENTIFY, d);
}

jv
dc_gw_resume(const char *token, const char *session, long long seq)
{
	jv d = jv_object_set(jv_object(), jv_string("token"), jv_string(token));

	d = jv_object_set(d, jv_string("session_id"), jv_string(session));
	d = jv_object_set(d, jv_string("seq"), jv_number((double)seq));
	return payload(DC_OP_RESUME, d);
}

jv
dc_gw_heartbeat(long long seq)
{
	return payload(DC_OP_HEARTBEAT, seq >= 0 ? jv_number((double)seq) :
	    jv_null());
}

long
dc_gw_jitter(long interval)
{
	if (interval <= 0 || sodium_init() < 0)
		return 0;
	return (long)randombytes_uniform((uint32_t)interval);
}

int
dc_gw_close(int code, const char **why)
{
	*why = NULL;
	switch (code) {
	case 4004:
		*why = "the bot token was refused (close 4004): check "
		    "DISCORD_BOT_TOKEN";
		return 1;
	case 4010:
		*why = "an invalid shard (close 4010)";
		return 1;
	case 4011:
		*why = "the bot needs sharding (close 4011)";
		return 1;
	case 4012:
		*why = "an invalid API version (close 4012): check "
		    "OXI_DISCORD_GATEWAY";
		return 1;
	case 4013:
		*why = "invalid intents (close 4013)";
		return 1;
	case 4014:
		*why = "disallowed intents (close 4014): turn on the Message "
		    "Content intent in the developer portal";
		return 1;
	case 4007:		/* invalid seq */
	case 4009:		/* session timed out */
		return 2;
	default:
		return 0;
	}
}
