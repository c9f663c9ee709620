#!/usr/bin/env python3
"""skload.py - messages for a supervised Slack tree through the fake
Slack (tests/fake/slack.py), and the count of their replies; the
messages and replies are svcload.py's

usage: python3 tests/skload.py feed PORT CHATS PER_CHAT SECONDS DROPS
       python3 tests/skload.py check PORT CHATS PER_CHAT [LOG [KILLS]]

Chat c is the DM D<7001+c> with the user U<7001+c>; its message n is
svcload.py's text_of(c, n), its reply reply_of(c, n).

feed    posts the messages to the fake's /control/events in PER_CHAT
        rounds of one message per chat, spread over SECONDS, and drops
        the Socket Mode connection DROPS times on the way (evenly; each
        waits up to 5 s for a live connection)
check   svcload.py's check, of chat.postMessage calls
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svcload  # noqa: E402


def event(c, n):
    u = svcload.USER0 + c
    return {"event": {"type": "message", "channel": "D%d" % u,
                      "channel_type": "im", "user": "U%d" % u,
                      "ts": "1790000000.%06d" % (c * 1000 + n),
                      "text": svcload.text_of(c, n)}}


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


def main(a):
    if len(a) == 6 and a[0] == "feed":
        feed(a[1], int(a[2]), int(a[3]), float(a[4]), int(a[5]))
        return 0
    if len(a) in (4, 5, 6) and a[0] == "check":
        return svcload.check(a[1], int(a[2]), int(a[3]), *a[4:],
                             method="chat.postMessage", prefix="D")
    sys.stderr.write(__doc__)
    return 100


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
