#!/usr/bin/env python3
# mkfoldtab.py - writes lib/guard/foldtab.c, the table of fold.c
#
# Every code point that folds to ASCII: its compatibility decomposition
# (NFKD) with the combining marks dropped, then the lookalikes below
# (Unicode's confusables of the Latin letters, from the standard's
# character names and shapes, not from any attack corpus).  Rows are
# ranges: lo..lo+n mapping to to[0]+i (step 1) or all to `to` (step 0).
# Classes: W compatibility form (fullwidth, mathematical, circled,
# ligature), D a letter with diacritics, H a lookalike from another
# script, P punctuation lookalike, S a space or line separator.
#
# usage: python3 lib/guard/mkfoldtab.py >lib/guard/foldtab.c
import sys
import unicodedata as ud

# lookalikes: (code point, ASCII) - Cyrillic, Greek, Armenian, Cherokee,
# Latin small capitals and IPA letters that render as Latin letters
HOMO = """
0410 A 0412 B 0415 E 041A K 041C M 041D H 041E O 0420 P 0421 C 0422 T
0423 Y 0425 X 0405 S 0406 I 0408 J 04C0 I 051A Q 051C W 0500 D 04AE Y
0430 a 0435 e 043E o 0440 p 0441 c 0443 y 0445 x 0455 s 0456 i 0458 j
0501 d 051B q 051D w 04BB h 04CF l 0475 v 04AF y 0432 b 043A k 043C m
043D h 0433 r 043F n 0442 t 044C b 042C b 0474 V 0461 w 0460 W 04BA h
0391 A 0392 B 0395 E 0396 Z 0397 H 0399 I 039A K 039C M 039D N 039F O
03A1 P 03A4 T 03A5 Y 03A7 X 03F9 C 037F J 03F3 j 03F2 c 03BF o 03B1 a
03BD v 03B9 i 03BA k 03C1 p 03C4 t 03C5 u 03C7 x 03B3 y 03C9 w 03B5 e
03B7 n 03BC u 03B2 b 0399 I 03DC F 03D2 Y
0555 O 0585 o 057D u 0578 n 0570 h 0581 g 0566 q 054F S 0544 U 054D U
0531 U 0574 u 0582 L
13AA A 13F4 B 13DF C 13A0 D 13AC E 13C0 G 13BB H 13C6 I 13AB J 13E6 K
13DE L 13B7 M 13E2 P 13D2 R 13DA S 13A2 T 13D9 V 13B3 W 13C3 Z 13BE O
0131 i 0237 j 0251 a 0261 g 0269 i 026A i 028F y 029F l 0274 n 0280 r
0299 b 1D00 a 1D04 c 1D05 d 1D07 e 1D0A j 1D0B k 1D0D m 1D0F o 1D18 p
1D1B t 1D1C u 1D20 v 1D21 w 1D22 z A731 s 0262 g 029C h 027E r 025B e
0254 c 028B u 0185 b 0142 l 0141 L 00F8 o 00D8 O 0111 d 0110 D 0127 h
0126 H 0167 t 0166 T 0180 b 0268 i 01C0 l 01C3 ! 0399 I 1D1D u 0250 a
0252 a 0263 y 0265 h 026F w 0279 r 0287 t 028C v 028D w 028E y 01DD e
0259 e 018F e 0196 l 0197 I 01A6 R 01B7 Z 0222 8 0223 8 A7B3 X A793 e
2C64 R 2C6F A 2C70 A 0186 C 0190 E 0193 G 0194 Y 01A9 E 01B1 U 0245 A
00DF ss 00E6 ae 00C6 AE 0153 oe 0152 OE 00F0 d 00D0 D 00FE p 00DE P
2113 l 2128 Z 212A K 212B A 2126 O 2127 U 2129 i 2132 F 2141 G 2142 L
2143 L 2144 Y 0399 I FF29 I
"""

# punctuation lookalikes and separators (class P, S)
PUNCT = """
2010 - 2011 - 2012 - 2013 - 2014 - 2015 - 2212 - 2043 - FE58 - FE63 -
02D7 - 2796 - 2018 ' 2019 ' 201A ' 201B ' 2032 ' 02BC ' 02B9 ' 00B4 '
0060 ` 201C " 201D " 201E " 201F " 2033 " 02BA " 00AB " 00BB " 2039 '
203A ' 2044 / 2215 / 29F8 / 2216 \\ 29F9 \\ 2024 . 00B7 . 2022 . 2027 .
0589 : 05C3 : 2236 : A789 : 037E ; 01C3 ! 2757 ! 02C2 < 02C3 > 2039 <
203A > 27E8 < 27E9 > 2329 < 232A > 3008 < 3009 > FF1C < FF1E >
"""
SPACE = """
1680 20 2028 0A 2029 0A
"""

hand = {}
for cls, src in (('H', HOMO), ('P', PUNCT)):
    w = src.split()
    for i in range(0, len(w), 2):
        hand[int(w[i], 16)] = (w[i + 1], cls)
w = SPACE.split()
for i in range(0, len(w), 2):
    hand[int(w[i], 16)] = (chr(int(w[i + 1], 16)), 'S')
# the ASCII ones in PUNCT (0060) are there for the record, not folded
hand = {k: v for k, v in hand.items() if k >= 0x80}
# a Latin letter of its own (dotless i, o with stroke, sharp s) is no
# other script: class D, unless it is IPA or a small capital
for k, (t, cls) in list(hand.items()):
    if (cls == 'H' and ud.name(chr(k)).startswith('LATIN ')
            and not 0x250 <= k <= 0x2AF and not 0x1D00 <= k <= 0x1D2B
            and not 0xA720 <= k <= 0xA7FF):
        hand[k] = (t, 'D')

# invisible and format characters are fold.c's business, not the table's
def invisible(cp):
    return ud.category(chr(cp)) in ('Cf', 'Cc', 'Cs', 'Co', 'Cn', 'Mn',
        'Me') or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF

def fold(cp):
    c = chr(cp)
    if cp in hand:
        return hand[cp]
    k = ud.normalize('NFKD', c)
    compat = k != ud.normalize('NFD', c)
    k = ''.join(x for x in k if not ud.combining(x))
    out = ''
    used = None
    for x in k:
        if ord(x) < 0x80:
            out += x
        elif ord(x) in hand:
            out += hand[ord(x)][0]
            used = used if used == 'H' else hand[ord(x)][1]
        else:
            return None
    if not out or out == c:
        return None
    if out.isspace():
        if ud.category(c) not in ('Zs', 'Zl', 'Zp'):
            return None
        return (out, 'S')
    if out.strip() != out or len(out) > 4:
        return None
    if compat:
        cls = 'W'
    elif used in ('H', 'D'):
        cls = used
    else:
        cls = 'D'
    return (out, cls)

rows = {}
for cp in range(0x80, 0x110000):
    if 0xD800 <= cp < 0xE000 or invisible(cp):
        continue
    r = fold(cp)
    if r:
        rows[cp] = r

items = sorted(rows.items())
out = []
i = 0
while i < len(items):
    lo, (t, cls) = items[i]
    j = i
    step = 0
    if len(t) == 1:
        while (j + 1 < len(items) and items[j + 1][0] == items[j][0] + 1
               and len(items[j + 1][1][0]) == 1
               and items[j + 1][1][1] == cls
               and ord(items[j + 1][1][0]) == ord(items[j][1][0]) + 1):
            j += 1
        if j > i:
            step = 1
        else:
            while (j + 1 < len(items) and items[j + 1][0] == items[j][0] + 1
                   and items[j + 1][1] == (t, cls)):
                j += 1
    out.append((lo, j - i, step, cls, t))
    i = j + 1

def cstr(t):
    s = ''
    for ch in t:
        if ch in '\\"':
            s += '\\' + ch
        elif ch == '\n':
            s += '\\n'
        else:
            s += ch
    return '"' + s + '"'

w = sys.stdout.write
w("""/*
 * foldtab.c - the code points fold.c turns into ASCII (generated by
 * lib/guard/mkfoldtab.py from Unicode %s: do not edit)
 */
#include "oxi.h"
#include "guard/guard.h"

const struct oxi_foldrow oxi_foldtab[] = {
""" % ud.unidata_version)
line = '\t'
for (lo, n, step, cls, t) in out:
    cell = "{0x%X,%d,%d,'%s',%s}," % (lo, n, step, cls, cstr(t))
    if len(line.expandtabs()) + len(cell) + 1 > 79:
        w(line.rstrip() + '\n')
        line = '\t'
    line += cell + ' '
w(line.rstrip() + '\n')
w("};\nconst size_t oxi_foldtab_len = sizeof oxi_foldtab / "
  "sizeof oxi_foldtab[0];\n")
