#!/bin/sh
# oxi-svc writes a service tree: a service per stage, the FIFOs 0600, each
# stage's env directory with its own secret alone, the secrets nowhere
# else (not on the terminal, not in a script); it refuses what it cannot
# do without writing anything
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 28

TOK=123456:S3CR3T-bot-token-abcdef
KEY=sk-S3CR3T-model-key-0123456789
SKEY=S3CR3T-search-key-0123456789
export TELEGRAM_BOT_TOKEN=$TOK OPENAI_API_KEY=$KEY BRAVE_API_KEY=$SKEY
export OXI_ALLOW=telegram:1001 OXI_TELEGRAM_BASE_URL=http://127.0.0.1:9
export OXI_OPENAI_HEADERS='X-Org: S3CR3T-header'
export OXI_WEIRD_TOKEN=S3CR3T-stray
stages="recv guard-in loop cron guard-out send llm tool mem"

T=$TMP/s6
check 'oxi-svc writes an s6 tree' \
	'oxi-svc -s s6 -m openai/gpt-4o-mini -a bot1 "$T" </dev/null >"$TMP/out" 2>"$TMP/err"'
check 'it says how to start it' "grep -q 's6-svscan $T\$' \"\$TMP/out\""
check 'a stray secret-like setting is named, not copied' \
	'grep -q "^oxi-svc: warning: OXI_WEIRD_TOKEN looks like a secret" "$TMP/err" &&
	 ! grep -rq S3CR3T-stray "$T"'
check 'no secret on its output' \
	'! grep -q S3CR3T "$TMP/out" && ! grep -v OXI_WEIRD_TOKEN "$TMP/err" | grep -q S3CR3T'
check 'a service per stage and the fifos holder, each with run and finish' \
	'for s in $stages fifos; do [ -x "$T/$s/run" ] || exit 1; done
	 for s in $stages; do [ -x "$T/$s/finish" ] && [ -x "$T/$s/log/run" ] &&
		[ "$(cat "$T/$s/notification-fd")" = 3 ] || exit 1; done'
check 'every script is sh' \
	'for f in "$T"/*/run "$T"/*/finish "$T"/*/log/run; do sh -n "$f" || exit 1; done'
check 'eleven FIFOs, mode 0600; the holder holds all but the pair of mem' \
	'[ "$(find "$T/fifos/data" -type p -perm 0600 | wc -l)" = 11 ] &&
	 [ "$(ls "$T/fifos/data" | wc -l)" = 11 ] &&
	 for p in $(ls "$T/fifos/data" | grep -v "^mem\\."); do
		grep -q "[0-9]<>$p " "$T/fifos/run" || exit 1
	 done'
check 'env directories 0700, their files 0600' \
	'[ -z "$(find "$T" -path "*/env*" -type d ! -perm 0700)" ] &&
	 [ -z "$(find "$T" -path "*/env/*" -type f ! -perm 0600)" ]'
# where VALUE: the files of the tree holding VALUE, relative, sorted
where() { grep -rl -- "$1" "$T" | sed "s|^$T/||" | sort | tr '\n' ' '; }
check 'one canary key, 0600, named to oxi-loop and oxi-guard out alone' \
	'[ "$(stat -c %a "$T/.keys/canary.key")" = 600 ] &&
	 grep -Eqx "[0-9a-f]{64}" "$T/.keys/canary.key" &&
	 [ "$(cat "$T/loop/env/OXI_CANARY_KEY_FILE")" = "$T/.keys/canary.key" ] &&
	 [ "$(cat "$T/guard-out/env/OXI_CANARY_KEY_FILE")" = "$T/.keys/canary.key" ] &&
	 [ "$(grep -l canary.key "$T"/*/env/* | wc -l)" = 2 ]'
check 'the bot token is in recv and send alone' \
	'[ "$(where "$TOK")" = "recv/env/TELEGRAM_BOT_TOKEN send/env/TELEGRAM_BOT_TOKEN " ]'
check 'the model key and the provider headers are in llm and mem alone' \
	'[ "$(where "$KEY")" = "llm/env/OPENAI_API_KEY mem/env/OPENAI_API_KEY " ] &&
	 [ "$(where S3CR3T-header)" = "llm/env/OXI_OPENAI_HEADERS mem/env/OXI_OPENAI_HEADERS " ]'
check 'mem runs its own oxi-llm -j: embeddings, extraction with the model' \
	'[ "$(cat "$T/mem/env/OXI_MEM_LLM")" = "oxi-llm -j" ] &&
	 [ "$(cat "$T/mem/env/OXI_MEM_EMBED_MODEL")" = openai/text-embedding-3-small ] &&
	 [ "$(cat "$T/mem/env/OXI_MEM_EXTRACT_MODEL")" = openai/gpt-4o-mini ] &&
	 grep -q "^mem .*its models. keys" "$T/README"'
check 'an Anthropic model: mem embeds with OpenAI; each key where it is used' \
	'ANTHROPIC_API_KEY=S3CR3T-ant oxi-svc -s s6 -m anthropic/claude-sonnet-4-5 "$TMP/ant" </dev/null >/dev/null 2>&1 &&
	 [ "$(cat "$TMP/ant/mem/env/OXI_MEM_EMBED_MODEL")" = openai/text-embedding-3-small ] &&
	 [ "$(grep -rl S3CR3T-ant "$TMP/ant" | sed "s|^$TMP/ant/||" | sort | tr "\n" " ")" = "llm/env/ANTHROPIC_API_KEY mem/env/ANTHROPIC_API_KEY " ] &&
	 [ -f "$TMP/ant/mem/env/OPENAI_API_KEY" ] &&
	 OXI_MEM_LLM=none oxi-svc -s s6 -m openai/x "$TMP/wordsonly" </dev/null >/dev/null 2>&1 &&
	 [ ! -e "$TMP/wordsonly/mem/env/OPENAI_API_KEY" ] &&
	 [ ! -e "$TMP/wordsonly/mem/env/OXI_MEM_EMBED_MODEL" ]'
check 'the search key is in tool alone, its backend named to all' \
	'[ "$(where "$SKEY")" = "tool/env/BRAVE_API_KEY " ] &&
	 [ "$(cat "$T/loop/env/OXI_WEB_SEARCH")" = brave ] &&
	 env -u BRAVE_API_KEY OXI_WEB_SEARCH=brave oxi-tool --list | grep -q web_search'
check 'settings reach every stage; the model reaches loop and llm' \
	'for s in $stages; do
		[ "$(cat "$T/$s/env/OXI_ALLOW")" = telegram:1001 ] || exit 1
	 done &&
	 [ "$(cat "$T/loop/env/OXI_MODEL")" = openai/gpt-4o-mini ] &&
	 [ "$(cat "$T/llm/env/OXI_MODEL")" = openai/gpt-4o-mini ]'
check 'each stage starts from an emptied environment and its env/' \
	'for s in $stages; do
		grep -q "^exec env -i PATH=.* HOME=.* OXI_HOME=\"\$PWD/data\"" "$T/$s/run" &&
		grep -q "s6-envdir -I env oxi-" "$T/$s/run" || exit 1
	 done'
check 'the stages, their FIFOs read-write, readiness on fd 3' \
	'grep -q "oxi-recv -d 3 -a .bot1. .telegram. 1<>\"\$f/guard-in.in\"$" "$T/recv/run" &&
	 grep -q "oxi-loop -d 3 <>\"\$f/loop.in\" 1<>\"\$f/cron.in\"$" "$T/loop/run" &&
	 grep -q "^	OXI_CRON=on" "$T/loop/run" &&
	 grep -q "oxi-cron -d 3 -o \"\$f/loop.in\" <>\"\$f/cron.in\" 1<>\"\$f/guard-out.in\"$" "$T/cron/run" &&
	 grep -q "OXI_LLM=\"fifo:\$f/llm.in,\$f/llm.out\" OXI_TOOL=\"fifo:\$f/tool.in,\$f/tool.out\"" "$T/loop/run" &&
	 grep -q "OXI_MEM=\"fifo:\$f/mem.in,\$f/mem.out\"" "$T/loop/run" &&
	 grep -q "oxi-mem -d 3 <>\"\$f/mem.in\" 1<>\"\$f/mem.out\"$" "$T/mem/run" &&
	 grep -q "oxi-llm -d 3 -j <>\"\$f/llm.in\" 1<>\"\$f/llm.out\"$" "$T/llm/run" &&
	 grep -q "oxi-send -d 3 -a .bot1. .telegram. <>\"\$f/send.in\"$" "$T/send/run"'
check 'the README says how to start, watch and stop' \
	'grep -q "s6-svscan $T" "$T/README" && grep -q "s6-svstat" "$T/README" &&
	 grep -q "s6-svscanctl -t" "$T/README"'

# the mem stage as its run script starts it (its env/ alone), against a
# fake embedding endpoint: the fact it keeps has a vector
fake_server embed.py --log "$TMP/embed.log"
V=$TMP/vec
OXI_OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" \
	oxi-svc -s s6 -m openai/gpt-4o-mini "$V" </dev/null >/dev/null 2>&1
memenv() { for f in "$V"/mem/env/*; do printf '%s=%s\n' "${f##*/}" "$(cat "$f")"; done; }
check 'a new tree'"'"'s mem stage keeps a fact with its vector' \
	'mkdir "$TMP/memhome" &&
	 printf "{\"v\":1,\"type\":\"mem.remember\",\"id\":\"r1\",\"scope\":\"telegram:bot1:7\",\"text\":\"The user has a dog named Rex\"}\n" |
	 (IFS="
"; exec env -i PATH="$PATH" OXI_HOME="$TMP/memhome" $(memenv) oxi-mem) >"$TMP/memout" 2>&1 &&
	 grep -q "mem.remembered" "$TMP/memout" &&
	 [ "$(sqlite3 "$TMP/memhome/mem.db" "SELECT count(*) FROM facts WHERE vec IS NOT NULL")" = 1 ] &&
	 grep -q "/v1/embeddings bearer" "$TMP/embed.log"'

R=$TMP/runit
mkdir "$R"
check 'a runit tree into an empty directory' \
	'oxi-svc --supervisor=runit --model openai/x "$R" </dev/null >"$TMP/out" 2>/dev/null &&
	 grep -q "runsvdir $R\$" "$TMP/out"'
check '...chpst -e, svlogd, no notification-fd, sv down after exit 100' \
	'grep -q "chpst -e env oxi-loop <>" "$R/loop/run" &&
	 grep -q "svlogd -tt ./main" "$R/loop/log/run" &&
	 [ -z "$(ls "$R"/*/notification-fd 2>/dev/null)" ] &&
	 grep -q "sv.* down \.$" "$R/loop/finish" &&
	 grep -q "oxi-recv -a .main. .telegram. 1<>" "$R/recv/run"'

check_exit 'a directory that is not empty: exit 100' 100 \
	'oxi-svc "$R" </dev/null'
check_exit 'no bot token and no terminal: exit 100' 100 \
	'env -u TELEGRAM_BOT_TOKEN oxi-svc "$TMP/new1" </dev/null 2>"$TMP/err1"'
check 'it names the variable, writes nothing, says no secret' \
	'grep -q "TELEGRAM_BOT_TOKEN is not set" "$TMP/err1" && [ ! -e "$TMP/new1" ] &&
	 [ -z "$(ls -A "$TMP" | grep "^\.oxi-svc")" ] && ! grep -q S3CR3T "$TMP/err1"'
check_exit 'the model key missing, the endpoint not moved: exit 100' 100 \
	'env -u OPENAI_API_KEY oxi-svc -m openai/gpt-4o "$TMP/new2" </dev/null'
check 'a local model needs no key; unknown supervisors and channels: 100' \
	'env -u OPENAI_API_KEY oxi-svc -m ollama/llama3.2 "$TMP/new3" </dev/null >/dev/null 2>&1 &&
	 [ ! -e "$TMP/new3/llm/env/OPENAI_API_KEY" ] &&
	 { oxi-svc -s systemd "$TMP/new4" </dev/null 2>/dev/null; [ $? = 100 ]; } &&
	 { oxi-svc -c irc "$TMP/new4" </dev/null 2>/dev/null; [ $? = 100 ]; } &&
	 [ ! -e "$TMP/new4" ]'

# on a terminal a missing secret is asked for, not echoed
cat >"$TMP/ask.py" <<'EOT'
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    env = dict(os.environ)
    env.pop("TELEGRAM_BOT_TOKEN", None)
    os.execvpe("oxi-svc", ["oxi-svc", "-m", "ollama/x", sys.argv[1]], env)
out, sent = b"", False
while True:
    r, _, _ = select.select([fd], [], [], 20)
    if not r:
        break
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
    if not sent and b"(not echoed): " in out:
        os.write(fd, b"123:PTYS3CR3T\n")
        sent = True
os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
EOT
python3 "$TMP/ask.py" "$TMP/new5" >"$TMP/pty.out" 2>&1
check 'on a terminal the token is asked for' \
	'grep -q "^TELEGRAM_BOT_TOKEN (not echoed): " "$TMP/pty.out" &&
	 [ "$(cat "$TMP/new5/recv/env/TELEGRAM_BOT_TOKEN")" = 123:PTYS3CR3T ]'
check_nogrep '...and not echoed' PTYS3CR3T "$TMP/pty.out"
done_testing
