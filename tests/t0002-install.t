#!/bin/sh
# make install and uninstall honour PREFIX, DESTDIR and MANDIR
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 8

D="$TMP/stage"
cmds="oxi-recv oxi-send oxi-guard oxi-loop oxi-llm oxi-tool oxi-chat oxi-svc"
check 'make install into a staging directory' \
	'make -s -C "$TOP" install DESTDIR="$D" PREFIX=/usr MANDIR=/usr/man'
check 'every command is installed and runs' \
	'for c in $cmds; do [ -x "$D/usr/bin/$c" ] || exit 1
	 "$D/usr/bin/$c" --version >/dev/null || exit 1; done'
check 'man pages go to MANDIR' \
	'for c in $cmds; do [ -f "$D/usr/man/man1/$c.1" ] || exit 1; done &&
	 [ -f "$D/usr/man/man7/oxi.7" ]'
check 'bash, zsh and fish completions' \
	'for c in $cmds; do
		[ -f "$D/usr/share/bash-completion/completions/$c" ] &&
		[ -f "$D/usr/share/zsh/site-functions/_$c" ] &&
		[ -f "$D/usr/share/fish/vendor_completions.d/$c.fish" ] || exit 1
	 done'
check 'share/oxi is installed' '[ -f "$D/usr/share/oxi/deps.sh" ]'
check 'nothing is installed outside DESTDIR' \
	'[ -z "$(find "$D" -type f | grep -v "^$D/usr/")" ]'
check 'make uninstall removes it all' \
	'make -s -C "$TOP" uninstall DESTDIR="$D" PREFIX=/usr MANDIR=/usr/man &&
	 [ -z "$(find "$D" -type f)" ]'
# oxi-recv and oxi-send speak HTTP and keep ledgers for Telegram, and
# check signatures with libsodium for Slack (HMAC) and Discord (Ed25519)
check 'each command links only the libraries it needs' \
	'! ldd "$TOP/bin/oxi-guard" | grep -q libcurl &&
	 ! ldd "$TOP/bin/oxi-recv" | grep -Eq "libpcre" &&
	 ! ldd "$TOP/bin/oxi-send" | grep -Eq "libpcre" &&
	 ldd "$TOP/bin/oxi-send" | grep -q libmd4c &&
	 ! ldd "$TOP/bin/oxi-tool" | grep -q libsqlite &&
	 ! ldd "$TOP/bin/oxi-loop" | grep -Eq "libcurl|libpcre"'
done_testing
