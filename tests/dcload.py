#!/usr/bin/env python3
"""dcload.py - messages for a supervised Discord tree through the fake
Discord (tests/fake/discord.py), and the count of their replies; the
messages and replies are svcload.py's

usage: python3 tests/dcload.py feed PORT CHATS PER_CHAT SECONDS DROPS
       python3 tests/dcload.py check PORT CHATS PER_CHAT

Chat c is a DM channel 8000+c with the user 7001+c; its message n is
svcload.py's text_of(c, n), its reply reply_of(c, n).

feed    posts the messages to the fake's /control/events in PER_CHAT
        rounds of one message per chat, spread over SECONDS, and drops
        the Gateway connection DROPS times on the way (evenly; each
        waits up to 5 s for a live connection)
check   prints "expected E delivered D lost L doubled X stray S
        misplaced M window 0" (svcload.py's line) from the messages the
        fake holds, then the first few of each kind; exit 0 when all
        are 0 but E and D
"""
import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svcload  # noqa: E402

CHAN0 = 8000


def event(c, n):
    return {"id": str(500000 + c * 1000 + n), "channel_id": str(CHAN0 + c),
            "content": svcload.text_of(c, n),
            "author": {"id": str(svcload.USER0 + c), "username": "u%d" % c}}


def feed(port, chats, per, seconds, drops):
    at = set(per * (k + 1) // (drops + 1) for k in range(drops))
    for n in range(per):
        svcload.post(port, "/control/events",
                     [event(c, n) for c in range(chats)])
        # a drop while the receiver is down (killed) would be none
        for _ in range(50) if n in at else ():
            if json.loads(svcload.post(port, "/control/drop", {}))[
                    "dropped"]:
                break
            time.sleep(0.1)
        if n + 1 < per:
            time.sleep(seconds / per)


def check(port, chats, per):
    with urllib.request.urlopen("http://127.0.0.1:%s/control/state" % port,
                                timeout=30) as r:
        state = json.loads(r.read())
    want = {}
    for c in range(chats):
        for n in range(per):
            want[svcload.reply_of(c, n)] = str(CHAN0 + c)
    got, placed = {}, {}
    for chan, msgs in state.get("messages", {}).items():
        for m in msgs:
            t = m.get("content", "").strip()
            got[t] = got.get(t, 0) + 1
            placed.setdefault(t, set()).add(str(chan))
    lost = sorted(t for t in want if t not in got)
    doubled = sorted(t for t in want if got.get(t, 0) > 1)
    stray = sorted(t for t in got if t not in want)
    misplaced = sorted(t for t in want if t in placed and
                       placed[t] != {want[t]})
    # "window 0": a part sent again carries its nonce, which Discord
    # enforces, so oxi-send has no window in which to double a reply
    print("expected %d delivered %d lost %d doubled %d stray %d "
          "misplaced %d window 0" % (len(want), sum(got.values()), len(lost),
                                     len(doubled), len(stray),
                                     len(misplaced)))
    for name, xs in (("lost", lost), ("doubled", doubled),
                     ("stray", stray), ("misplaced", misplaced)):
        for t in xs[:5]:
            print("    %s: %s" % (name, t))
    return 0 if not (lost or doubled or stray or misplaced) else 1


def main():
    a = sys.argv[1:]
    if len(a) == 6 and a[0] == "feed":
        feed(a[1], int(a[2]), int(a[3]), float(a[4]), int(a[5]))
    elif len(a) == 4 and a[0] == "check":
        sys.exit(check(a[1], int(a[2]), int(a[3])))
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
