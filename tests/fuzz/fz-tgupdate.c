/*
 * fz-tgupdate.c - a Telegram update as records (channel/tgmsg.c), what
 * oxi-recv telegram makes of every update Telegram sends: each record is
 * an approval.answer or a msg.in that passes the checks of protocol v1,
 * with an id of the channel.  The input is an update, a getUpdates reply
 * ({"result":[...]}), a wire sample ({"update":...}) or lines of these.
 * No network: downloads fail on a files directory that cannot be made,
 * and the answer to a callback is stopped before it starts, as SIGTERM
 * would stop it.
 */
#include <stdlib.h>
#include <string.h>

#include "oxi.h"
#include "net/net.h"
#include "channel/channel.h"
#include "channel/tg.h"
#include "fz.h"

static struct tgrx rx;
static struct oxi_chan_opts opts;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("TELEGRAM_BOT_TOKEN", "123456:FUZZ-token_0123456789", 1);
	setenv("OXI_TELEGRAM_BASE_URL", "http://127.0.0.1:1", 1);
	setenv("OXI_DEADLETTER", "/dev/null", 1);
	oxi_chan_opts_init(&opts);
	rx.o = &opts;
	tg_open(&rx.tg, "main");
	rx.tg.termstop = 1;
	oxi_sig_term = 1;
	snprintf(rx.botname, sizeof rx.botname, "oxi_test_bot");
	rx.filemax = TG_FILE_MAX;
	rx.filedir = "/proc/nonexistent/oxi-fuzz";
	return 0;
}

/* the records of one update (consumed) */
static void
update(jv u, int flags)
{
	const char *type, *why, *id;
	jv out = jv_array(), r;
	int i, n;

	rx.groups_all = flags & 1;
	rx.edits_new = flags & 2;
	(void)tg_update(&rx, u, 1700000000, &out);
	jv_free(u);
	n = jv_array_length(jv_copy(out));
	for (i = 0; i < n; i++) {
		r = jv_array_get(jv_copy(out), i);
		type = oxi_msg_type_peek(r);
		FZ_CHECK(strcmp(type, "msg.in") == 0 ||
		    strcmp(type, "approval.answer") == 0, "a record of another type");
		FZ_CHECK(oxi_msg_check(r, &why) == 0, "a record that fails its check");
		id = oxi_msg_peek(r, "id");
		FZ_CHECK(id && strncmp(id, "telegram:main:", 14) == 0,
		    "an id outside the channel");
		jv_free(r);
	}
	jv_free(out);
}

/* a JSON value (consumed) as updates */
static void
value(jv v, int flags)
{
	jv x;
	int i, n;

	if (!oxi_jis(v, JV_KIND_OBJECT)) {
		jv_free(v);
		return;
	}
	if (oxi_jis(x = oxi_jget(v, "update"), JV_KIND_OBJECT)) {
		jv_free(v);
		update(x, flags);
		return;
	}
	jv_free(x);
	if (oxi_jis(x = oxi_jget(v, "result"), JV_KIND_ARRAY)) {
		n = jv_array_length(jv_copy(x));
		for (i = 0; i < n; i++)
			value(jv_array_get(jv_copy(x), i), flags);
		jv_free(x);
		jv_free(v);
		return;
	}
	jv_free(x);
	update(v, flags);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	const char *s = (const char *)d, *nl;
	int flags = n > 0 ? d[n - 1] & 3 : 0;

	fz_quiet(1);
	value(oxi_json_parse(s, n), flags);
	while (n > 0 && (nl = memchr(s, '\n', n))) {
		value(oxi_json_parse(s, nl - s), flags);
		n -= nl + 1 - s;
		s = nl + 1;
	}
	fz_quiet(0);
	return 0;
}
