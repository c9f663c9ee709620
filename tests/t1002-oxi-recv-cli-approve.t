#!/bin/sh
# oxi-recv cli: a line of exactly y, a or n answers the chat's latest
# approval.ask; every other line is a msg.in
cd "${0%/*}" && . ./lib.sh
plan 7

export USER=alice LOGNAME=alice

printf '%s\n' y yes A always n NO ' y ' 'yes please' 'nope' >"$TMP/in"
check_exit 'answers and messages: exit 0' 0 'oxi-recv -c room cli <"$TMP/in" >"$TMP/out"'
check 'seven answers, two messages' \
	'[ "$(grep -c "\"type\":\"approval.answer\"" "$TMP/out")" = 7 ] &&
	 [ "$(grep -c "\"type\":\"msg.in\"" "$TMP/out")" = 2 ]'
jq -r 'select(.type == "approval.answer") | .choice' "$TMP/out" | tr '\n' ' ' >"$TMP/ch"
check 'y and yes are once, a and always always, n and no deny, any case' \
	'[ "$(cat "$TMP/ch")" = "once once always always deny deny once " ]'
check 'each names the chat'"'"'s latest ask: ref "last"' \
	'[ "$(jq -r "select(.type == \"approval.answer\") | .ref" "$TMP/out" | sort -u)" = last ]'
check 'from the user, in the chat, on channel cli' \
	'[ "$(jq -r "select(.type == \"approval.answer\") | [.from, .chat, .channel] | join(\" \")" "$TMP/out" | sort -u)" = "alice room cli" ]'
check 'an answer claims no trust: oxi-loop judges it by its from' \
	'[ "$(jq -r "select(.type == \"approval.answer\") | has(\"trust\")" "$TMP/out" | sort -u)" = false ]'
check 'longer lines stay messages' \
	'[ "$(jq -r "select(.type == \"msg.in\") | .text" "$TMP/out" | tr "\n" "|")" = "yes please|nope|" ]'
done_testing
