/*
 * fz-discord.c - a Discord Gateway payload as records (channel/dcgw.c,
 * dcmsg.c), what oxi-recv discord makes of whatever the Gateway sends:
 * each record is a msg.in or an approval.answer that passes the checks
 * of protocol v1, with an id of the channel; and a text as Discord
 * Markdown (dcmd.c): every part within 2000 characters, none empty.
 * The input is a payload, or lines of them.  No network: downloads fail
 * on a files directory that cannot be made, buttons are not answered
 * (as for an event read again later than Discord waits).
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/dc.h"
#include "channel/tgmd.h"
#include "fz.h"

static struct dcrx rx;
static struct oxi_chan_opts opts;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/oxi-fz-discord.XXXXXX";

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		abort();
	setenv("OXI_HOME", dir, 1);
	setenv("DISCORD_BOT_TOKEN", "fuzz.discord.token-0123456789", 1);
	setenv("OXI_DISCORD_API", "http://127.0.0.1:1", 1);
	setenv("OXI_DEADLETTER", "/dev/null", 1);
	oxi_chan_opts_init(&opts);
	rx.o = &opts;
	dc_open(&rx.dc, "main");
	rx.dc.termstop = 1;
	dc_ledger_open(&rx);
	dc_ledger_thread(&rx, "700", "600");
	free(rx.filedir);
	rx.filedir = xstrdup("/proc/nonexistent/oxi-fuzz");
	rx.filemax = DC_FILE_MAX;
	snprintf(rx.botid, sizeof rx.botid, "1000");
	return 0;
}

/* text as Discord messages: each fits */
static void
markdown(const char *s, size_t n, int md)
{
	char **p;
	int i, k = dc_md_render(s, n, md, DC_TEXT_MAX, &p);

	FZ_CHECK(k >= 0, "a text not rendered");
	for (i = 0; i < k; i++) {
		FZ_CHECK(p[i][0] != '\0', "an empty part");
		FZ_CHECK(oxi_tgmd_units(p[i], strlen(p[i])) <= DC_TEXT_MAX,
		    "a part over 2000");
	}
	dc_md_free(p, k);
}

/* one payload: its records checked */
static void
payload(const char *s, size_t n, int flags)
{
	struct dc_gw g;
	const char *why, *type, *id;
	jv out, r, c;
	int i, k;

	if (dc_gw_read(s, n, &g, &why) < 0)
		return;
	out = jv_array();
	rx.guilds_all = flags & 1;
	if (g.op == DC_OP_DISPATCH && dc_event_kept(g.t))
		(void)dc_event(&rx, g.t, g.d, 1700000000, 0, &out);
	k = jv_array_length(jv_copy(out));
	for (i = 0; i < k; i++) {
		r = jv_array_get(jv_copy(out), i);
		type = oxi_msg_type_peek(r);
		FZ_CHECK(strcmp(type, "msg.in") == 0 ||
		    strcmp(type, "approval.answer") == 0, "a record of another type");
		FZ_CHECK(oxi_msg_check(r, &why) == 0, "a record that fails its check");
		id = oxi_msg_peek(r, "id");
		FZ_CHECK(id && strncmp(id, "discord:main:", 13) == 0,
		    "an id outside the channel");
		jv_free(r);
	}
	jv_free(out);
	c = oxi_jis(g.d, JV_KIND_OBJECT) ? oxi_jget(g.d, "content") : jv_null();
	if (jv_get_kind(c) == JV_KIND_STRING)
		markdown(jv_string_value(c), jv_string_length_bytes(jv_copy(c)),
		    !(flags & 2));
	jv_free(c);
	jv_free(g.d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	const char *s = (const char *)d, *nl;
	int flags = n > 0 ? d[n - 1] & 3 : 0;

	fz_quiet(1);
	payload(s, n, flags);
	markdown(s, n, 1);
	while (n > 0 && (nl = memchr(s, '\n', n))) {
		payload(s, nl - s, flags);
		n -= nl + 1 - s;
		s = nl + 1;
	}
	fz_quiet(0);
	return 0;
}
