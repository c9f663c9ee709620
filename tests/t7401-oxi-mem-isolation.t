#!/bin/sh
# oxi-mem: one person's facts never reach another's recall, in any mode,
# across channels (until the owner links the accounts) and in groups,
# where episodes stay with their conversation
cd "$(dirname "$0")" && . ./lib.sh || exit 1
plan 13
. ./memlib.sh

A=telegram:bot:111 B=telegram:bot:222 AC=cli::alice
{
	remember a1 $A "The user's dog is a beagle named Rex"
	remember a2 $A "The user is allergic to peanuts"
	remember a3 $A "The user's doctor is Dr. Okafor"
	remember b1 $B "The user has a cat named Miso"
	remember c1 $AC "The user drives an old blue Volvo"
} | mem
check 'five facts, each new' \
	'[ "$(grep -c "\"action\":\"new\"" "$TMP/out")" = 5 ]'

for mode in words vectors hybrid; do
	{
		recall qa $A "pets dog beagle Rex cat Miso allergic Okafor" $mode
		recall qb $B "pets dog beagle Rex cat Miso allergic Okafor" $mode
	} | mem
	texts qa >"$TMP/a"
	texts qb >"$TMP/b"
	check "$mode: A recalls A's facts, B only B's" \
		'grep -q "beagle" "$TMP/a" && ! grep -q Miso "$TMP/a" &&
		 [ "$(cat "$TMP/b")" = "The user has a cat named Miso" ]'
done

recall q1 $AC "dog beagle Rex Volvo" | mem
check 'across channels: A on the terminal is another person until linked' \
	'[ "$(texts q1)" = "The user drives an old blue Volvo" ]'
check 'the owner links both accounts to one person' \
	'oxi-mem -f "$DB" link $A alice && oxi-mem -f "$DB" link $AC alice &&
	 oxi-mem -f "$DB" links >"$TMP/links" &&
	 printf "%s\talice\n%s\talice\n" $AC $A | cmp -s - "$TMP/links"'
recall q2 $AC "dog beagle Rex Volvo" | mem
check 'then the terminal recalls what A said on Telegram, and B still nothing of it' \
	'texts q2 | grep -q beagle && texts q2 | grep -q Volvo &&
	 recall q3 $B "dog beagle Rex Volvo" | mem && ! texts q3 | grep -q -e beagle -e Volvo'
check 'unlinking the terminal: it is a person of its own again, with nothing' \
	'oxi-mem -f "$DB" unlink $AC && recall q4 $AC "dog beagle Rex Volvo" |
	 mem && [ -z "$(texts q4)" ]'

# a group: A and B in one chat; A's private chat has its own episode
G=telegram:bot:-100500
{
	printf '{"v":1,"type":"mem.episode","id":"e1","conv":"%s","session":"S1","text":"Alice asked about her peanut allergy and Dr. Okafor"}\n' $A
	printf '{"v":1,"type":"mem.episode","id":"e2","conv":"%s","session":"S2","text":"The group planned a picnic in the park"}\n' $G
	recall g1 $B "peanut allergy Okafor picnic park" "" $G
	recall g2 $A "peanut allergy Okafor picnic park" "" $G
} | mem
check 'in a group, B gets the group episode and none of A' \
	'[ "$(texts g1)" = "The group planned a picnic in the park" ]'
check 'in a group, A gets A'"'"'s facts and the group'"'"'s episode, not A'"'"'s private one' \
	'texts g2 >"$TMP/g2" && grep -q "allergic to peanuts" "$TMP/g2" &&
	 grep -q picnic "$TMP/g2" && ! grep -q "asked about" "$TMP/g2"'
check 'the recall text the loop puts in the prompt holds only those' \
	'answer g1 "[\"text\"]" | grep -q picnic &&
	 ! answer g1 "[\"text\"]" | grep -q -i -e peanut -e Okafor -e Miso'

# a million-to-one: B asks with A's own words and a vector equal to one
# of A's facts, k at most: still nothing of A
vec=$(oxi-mem -f "$DB" export alice | grep '"type":"mem.fact"' | jget '["vector"]' /dev/stdin | head -n 1)
printf '{"v":1,"type":"mem.recall","id":"v1","scope":"%s","query":"beagle Rex","k":100,"vector":%s}\n' \
	$B "$vec" | mem
check 'a vector of A given in B'"'"'s request finds nothing of A' \
	'[ -n "$vec" ] && ! texts v1 | grep -q -e beagle -e peanuts -e Okafor'
check 'no scope, no answer but an error' \
	'echo "{\"type\":\"mem.recall\",\"id\":\"x\",\"query\":\"Rex\"}" | mem &&
	 [ "$(answer x "[\"type\"]")" = error ] && [ "$(answer x "[\"code\"]")" = bad_request ]'
done_testing
