#!/bin/sh
# the house: lib/ by wing (lib/README), checked as HOUSE rules: sizes,
# no loops between objects, includes, link closure, one export per
# plug-in member, no dispatch on a member's name, unique basenames, and
# the two-file rule for a provider preset and a channel
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 18

L="$TOP/lib"
WINGS="core net llm tool sandbox channel guard loop cron vault doctor"

# the wing of an object or source basename (basenames are unique)
wingmap() {
	for f in "$L"/*/*.c; do
		w=${f%/*}; w=${w##*/}; b=${f##*/}
		echo "${b%.c} $w"
	done
}
wingmap | sort >"$TMP/wings"

check 'lib/oxi.h is at most 400 lines, every other header at most 300' \
	'[ "$(wc -l <"$L/oxi.h")" -le 400 ] || exit 1
	 for h in "$L"/*/*.h; do
		n=$(wc -l <"$h"); [ "$n" -le 300 ] || { echo "$h: $n"; exit 1; }
	 done'

# every function lib/oxi.h declares is defined in lib/core/
nm --defined-only -g "$L"/core/*.o 2>/dev/null | awk '{print $3}' |
	sort -u >"$TMP/coredefs"
perl -0ne 'while (/^[A-Za-z_][\w \t\*]*?\b((?:oxi|x)\w*)\s*\(/mg) {
	print "$1\n" }' "$L/oxi.h" | sort -u >"$TMP/hdecls"
check 'lib/oxi.h declares no function defined outside lib/core/' \
	'[ -s "$TMP/hdecls" ] && comm -23 "$TMP/hdecls" "$TMP/coredefs" >"$TMP/x" &&
	 cat "$TMP/x" && [ ! -s "$TMP/x" ]'

# the files over 700 lines, each with the one subject it holds
big='lib/tool/mcp.c: one protocol client (MCP over stdio)
lib/tool/shpolicy.c: one policy, table-driven per command
lib/tool/find.c: edit, glob and grep over the workspace
lib/net/html.c: HTML as readable text
lib/llm/openai.c: one dialect
lib/llm/anthropic.c: one dialect
lib/llm/gemini.c: one dialect
lib/loop/turn.c: the life of a turn: its rounds, tool calls, failures and retries
lib/guard/decode.c: the decoded views of the leak scanner, one decoder per encoding
lib/guard/srule.c: secret rules: their file, keyword automaton and matching'
check 'bin/*.c at most 600 lines; lib/**/*.c at most 1000, over 700 named' \
	'for f in "$TOP"/bin/*.c; do
		n=$(wc -l <"$f"); [ "$n" -le 600 ] || { echo "$f: $n"; exit 1; }
	 done
	 for f in "$L"/*/*.c; do
		n=$(wc -l <"$f"); r=${f#"$TOP/"}
		[ "$n" -le 1000 ] || { echo "$r: $n"; exit 1; }
		[ "$n" -le 700 ] || printf "%s\n" "$big" | grep -q "^$r:" ||
			{ echo "$r: $n lines, not named"; exit 1; }
	 done'

# the object graph: an edge from each member to the member defining
# a symbol it uses; tsort finds the loops
for o in "$L"/*/*.o; do
	b=${o##*/}
	nm --defined-only "$o" | awk -v b="$b" '$2 ~ /[TDBRC]/ {print $3, b}'
done | sort -u >"$TMP/defs"
for o in "$L"/*/*.o; do
	b=${o##*/}
	nm -u "$o" | awk -v b="$b" '{print $2, b}'
done | sort >"$TMP/uses"
join "$TMP/uses" "$TMP/defs" | awk '$2 != $3 {print $2, $3}' | sort -u \
	>"$TMP/edges"
check 'no loop between the objects of liboxi (nm, tsort)' \
	'[ -s "$TMP/edges" ] && tsort "$TMP/edges" >/dev/null 2>"$TMP/loops";
	 cat "$TMP/loops"; [ ! -s "$TMP/loops" ]'

# includes: "x.h" lines of each file, as wing/header
incs() { sed -n 's/^#include "\(.*\)"/\1/p' "$1"; }
check 'lib/core/*.c include only "oxi.h"' \
	'for f in "$L"/core/*.c; do
		incs "$f" | grep -vx oxi.h && { echo "$f"; exit 1; }
	 done; true'
check 'a wing includes oxi.h, its own headers and only the faces of net and sandbox' \
	'for w in $WINGS; do [ "$w" = core ] || [ "$w" = doctor ] && continue
		for f in "$L/$w"/*.[ch]; do
			incs "$f" | grep -vx -e oxi.h -e "$w/[a-z]*\.h" \
				-e net/net.h -e sandbox/sandbox.h && { echo "$f"; exit 1; }
		done
	 done; true'
check 'the doctor, above every wing, sees only their faces; the vault only core' \
	'for f in "$L"/doctor/*.[ch]; do
		incs "$f" | grep -vx -e oxi.h -e "doctor/[a-z]*\.h" -e llm/llm.h \
			-e tool/tool.h -e sandbox/sandbox.h -e net/net.h \
			-e channel/channel.h -e vault/vault.h && { echo "$f"; exit 1; }
	 done
	 ! grep -l "^#include \"vault/" "$L"/[!dv]*/*.[ch] &&
	 ! grep -l "^#include \"doctor/" "$L"/[!d]*/*.[ch] "$TOP"/bin/oxi-[!d]*.c'
check 'llm and tool never see each other; guard, loop and cron see only core, channel core and net' \
	'! grep -l "^#include \"tool/" "$L"/llm/*.[ch] "$L"/net/*.[ch] &&
	 ! grep -l "^#include \"\(net\|sandbox\|llm\|tool\|loop\|guard\|channel\)/" \
		"$L"/cron/*.[ch] &&
	 ! grep -l "^#include \"cron/" "$L"/[!c]*/*.[ch] "$L"/channel/*.[ch] &&
	 ! grep -l "^#include \"llm/" "$L"/tool/*.[ch] "$L"/net/*.[ch] &&
	 ! grep -l "^#include \"\(net\|sandbox\|llm\|tool\)/" \
		"$L"/guard/*.[ch] "$L"/loop/*.[ch] &&
	 ! grep -l "^#include \"\(sandbox\|llm\|tool\)/" "$L"/channel/*.[ch]'
check 'contract headers stay in their wing (and tests/unit)' \
	'! grep -l "^#include \"llm/dialect.h\"" "$TOP"/bin/*.c "$L"/[!l]*/*.[ch] &&
	 ! grep -l "^#include \"llm/job.h\"" "$TOP"/bin/*.c "$L"/[!l]*/*.[ch] &&
	 ! grep -l "^#include \"tool/tooldef.h\"" "$TOP"/bin/*.c "$L"/[!t]*/*.[ch] &&
	 ! grep -l "^#include \"sandbox/mech.h\"" "$TOP"/bin/*.c "$L"/[!s]*/*.[ch] &&
	 ! grep -l "^#include \"doctor/check.h\"" "$TOP"/bin/*.c "$L"/[!d]*/*.[ch] &&
	 [ -f "$L/llm/dialect.h" ] && [ -f "$L/tool/tooldef.h" ] &&
	 [ -f "$L/sandbox/mech.h" ]'
check 'bin/oxi-X.c includes oxi.h and its own wing face only' \
	'while read c w; do
		incs "$TOP/bin/$c.c" | grep -vx -e oxi.h -e "$w" -e "$3" &&
			{ echo "$c"; exit 1; }
	 done <<EOF
oxi-recv channel/channel.h
oxi-send channel/channel.h
oxi-chan channel/channel.h
oxi-guard guard/guard.h
oxi-loop loop/loop.h
oxi-tool tool/tool.h
oxi-vault vault/vault.h
oxi-doctor doctor/doctor.h
oxi-cron cron/cron.h
EOF
	 incs "$TOP/bin/oxi-llm.c" | grep -vx -e oxi.h -e llm/llm.h -e net/net.h &&
		exit 1; true'

# the members each command pulls from liboxi (ld --trace), by wing
for c in oxi-recv oxi-send oxi-chan oxi-guard oxi-llm oxi-tool oxi-loop \
    oxi-cron oxi-vault oxi-doctor; do
	rm -f "$TOP/tests/tmp/map/$c"
	make -s -C "$TOP" "tests/tmp/map/$c" >/dev/null 2>&1
	sed -n 's/^lib\/liboxi\.a(\([^)]*\)\.o).*/\1/p' "$TOP/tests/tmp/map/$c.map" |
		sort -u >"$TMP/$c.members"
	join "$TMP/$c.members" "$TMP/wings" | awk '{print $2}' | sort -u \
		>"$TMP/$c.wings"
done
check 'link closure: recv and send hold no llm, tool or sandbox member, guard no net either' \
	'for c in oxi-recv oxi-send oxi-guard; do
		[ -s "$TMP/$c.wings" ] || exit 1
		grep -x -e llm -e tool -e sandbox "$TMP/$c.wings" && exit 1
	 done
	 ! grep -x net "$TMP/oxi-guard.wings"'
# the terminal runs in oxi-recv and oxi-send, every other channel in
# oxi-chan, which they exec: only oxi-chan holds the table and the network
check 'link closure: recv and send hold core and the terminal only; oxi-chan every channel' \
	'for c in oxi-recv oxi-send; do
		[ "$(cat "$TMP/$c.wings" | tr "\n" " ")" = "channel core " ] ||
			{ echo "$c: $(cat "$TMP/$c.wings")"; exit 1; }
		grep -x -e chan -e telegram -e "tg.*" "$TMP/$c.members" && exit 1
		ldd "$TOP/bin/$c" | grep -E "lib(curl|sqlite3|microhttpd|md4c)" &&
			exit 1
	 done
	 grep -qx telegram "$TMP/oxi-chan.members" &&
	 grep -qx cli "$TMP/oxi-chan.members" &&
	 ldd "$TOP/bin/oxi-chan" | grep -q libcurl'
check 'link closure: oxi-llm holds nothing of tool, sandbox, guard; oxi-tool nothing of llm; oxi-cron only core and cron, and no wing cron' \
	'[ "$(tr "\n" " " <"$TMP/oxi-cron.wings")" = "core cron " ] &&
	 ! grep -qx cron "$TMP/oxi-loop.wings" "$TMP/oxi-llm.wings" &&
	 [ -s "$TMP/oxi-llm.wings" ] && [ -s "$TMP/oxi-tool.wings" ] &&
	 ! grep -x -e tool -e sandbox -e guard "$TMP/oxi-llm.wings" &&
	 ! grep -x llm "$TMP/oxi-tool.wings"'

check 'link closure: oxi-vault holds core and vault only; only oxi-doctor links the doctor' \
	'[ "$(tr "\n" " " <"$TMP/oxi-vault.wings")" = "core vault " ] &&
	 for c in oxi-recv oxi-send oxi-guard oxi-llm oxi-tool oxi-loop oxi-vault; do
		! grep -x doctor "$TMP/$c.wings" || exit 1
	 done &&
	 ! grep -x -e guard -e loop "$TMP/oxi-doctor.wings"'

exports() {	# sanitizers add __odr_asan.X beside X
	nm -g --defined-only "$L/$1.o" | awk '$3 !~ /^__/ {print $3}' | tr '\n' ' '
}
check 'one export per plug-in member: dialects, channels, tool families, mechanisms' \
	'for d in openai anthropic gemini ollama responses; do
		[ "$(exports llm/$d)" = "oxi_dialect_$d " ] ||
			{ echo "llm/$d: $(exports llm/$d)"; exit 1; }
	 done
	 for c in cli telegram; do
		[ "$(exports channel/$c)" = "oxi_chan_$c " ] ||
			{ echo "channel/$c: $(exports channel/$c)"; exit 1; }
	 done
	 for t in fs find shell web search; do
		[ "$(exports tool/$t)" = "oxi_tools_$t " ] ||
			{ echo "tool/$t: $(exports tool/$t)"; exit 1; }
	 done
	 for m in bwrap landlock; do
		[ "$(exports sandbox/$m)" = "sbx_$m " ] ||
			{ echo "sandbox/$m: $(exports sandbox/$m)"; exit 1; }
	 done'

check 'no dispatch on a member name outside the member; unique basenames' \
	'! grep -n "strcmp(d->name\|\"web_search\"\|\"gemini\"\|\"ollama\"" \
		"$L"/llm/embed.c "$L"/llm/request.c "$L"/tool/mw.c \
		"$L"/tool/registry.c &&
	 [ -z "$(ls "$L"/*/*.c | sed "s,.*/,," | sort | uniq -d)" ]'

# the two-file rule, in a copy of the tree: a channel is one new file, an
# extern and a row; a preset is one row
cp -R "$TOP/lib" "$TOP/bin" "$TOP/Makefile" "$TOP/config.mk" "$TMP/" &&
	mkdir -p "$TMP/tests" && cp "$TOP/tests/jnorm.c" "$TMP/tests/"
cat >"$TMP/lib/channel/null.c" <<'EOF'
/* null.c - a channel that neither receives nor sends (t0005) */
#include "oxi.h"
#include "channel/channel.h"

static int
run(const struct oxi_chan_opts *o, const char **what)
{
	(void)o;
	(void)what;
	return 0;
}

const struct oxi_chan oxi_chan_null = { .name = "null", .recv = run };
EOF
check 'the two-file rule: a stub channel shows in the known list' \
	'cd "$TMP" && rm -f lib/*/*.o lib/liboxi.a bin/oxi-recv bin/oxi-chan &&
	 sed -i "/^extern const struct oxi_chan oxi_chan_cli;/a\\
extern const struct oxi_chan oxi_chan_null;" lib/channel/channel.h &&
	 sed -i "s/^	&oxi_chan_cli,\$/&\\
	\&oxi_chan_null,/" lib/channel/chan.c &&
	 for f in "$L"/channel/*.[ch]; do
		diff "$f" "lib/channel/${f##*/}"
	 done >"$TMP/d"
	 [ "$(grep -c "^>" "$TMP/d")" = 2 ] && [ "$(grep -c "^<" "$TMP/d")" = 0 ] &&
	 make -s -j2 bin/oxi-recv bin/oxi-chan >/dev/null &&
	 ! bin/oxi-recv nosuch 2>"$TMP/e" && cat "$TMP/e" &&
	 grep -q "known: .*null" "$TMP/e" && bin/oxi-recv null </dev/null'

fake_server chat.py --log "$TMP/log"
check 'the two-file rule: an OpenAI-compatible preset is one row in provider.c' \
	'cd "$TMP" &&
	 sed -i "/^	{ NULL, NULL, NULL, 0, NULL, NULL }/i\\
	{ \"fireworks\", \"https://api.fireworks.ai/inference/v1\", \"FIREWORKS_API_KEY\", 1, \&oxi_dialect_openai, NULL }," \
		lib/llm/provider.c &&
	 [ "$(diff "$L/llm/provider.c" lib/llm/provider.c | grep -c "^[<>]")" = 1 ] &&
	 make -s -j2 bin/oxi-llm >/dev/null &&
	 { bin/oxi-llm -m fireworks/m hi 2>"$TMP/e2"; [ $? = 100 ]; } &&
	 grep -q "no API key for fireworks: set FIREWORKS_API_KEY" "$TMP/e2" &&
	 [ "$(OXI_FIREWORKS_BASE_URL="http://127.0.0.1:$PORT/v1" \
		FIREWORKS_API_KEY=k-0123456789 bin/oxi-llm -m fireworks/m hi)" = \
		"echo: hi" ] &&
	 grep -q "Bearer k-0123456789" "$TMP/log"'
done_testing
