#!/usr/bin/env python3
"""svcload.py - messages for a supervised tree through the fake Telegram
(tests/fake/telegram.py), and the count of their replies

usage: python3 tests/svcload.py feed PORT CHATS PER_CHAT SECONDS
       python3 tests/svcload.py files DIR CHATS PER_CHAT
       python3 tests/svcload.py check PORT CHATS PER_CHAT [LOG [KILLS]]

Chat c (0 .. CHATS-1) is a private chat with the user 7001+c; its
message n (0 .. PER_CHAT-1) says "m-c-n", or, every fifth, "read
t-c-n.txt", which the fake model (tests/fake/openai.py) turns into a
read_file call: the reply is "echo: m-c-n" or "The tool said: tool-c-n".

feed    posts the messages to the fake's /control/updates in PER_CHAT
        rounds of one message per chat, spread over SECONDS
files   writes the files those read_file calls read into DIR
check   reads the messages the fake holds (/control/state) and prints
        one line "expected E delivered D lost L doubled X stray S
        misplaced M" then, indented, the first few of each kind; with
        LOG (the fake's --log), also "attempts A" (sendMessage calls,
        accepted or not); with KILLS too (lines "TIME STAGE PID"),
        "window W": of the replies doubled, those whose second attempt
        follows a kill of send that came at most WINDOW seconds after
        the first, or LAG before it (the bytes of a request written just
        before the kill reach the fake after it): oxi-send's one window
        (oxi-send(1)), Telegram took the part and the kill came before
        its ledger had it.  Exit 0 when nothing is lost, doubled, stray or misplaced.
"""
import json
import sys
import time
import urllib.request

USER0 = 7001
WINDOW = 1.0
LAG = 0.5


def text_of(c, n):
    return "read t-%d-%d.txt" % (c, n) if n % 5 == 4 else "m-%d-%d" % (c, n)


def reply_of(c, n):
    if n % 5 == 4:
        return "The tool said: tool-%d-%d" % (c, n)
    return "echo: m-%d-%d" % (c, n)


def update(c, n):
    uid = USER0 + c
    return {"message": {"message_id": 100 + n, "date": 1790000000 + n,
                        "from": {"id": uid, "is_bot": False,
                                 "first_name": "U%d" % c},
                        "chat": {"id": uid, "type": "private",
                                 "first_name": "U%d" % c},
                        "text": text_of(c, n)}}


def post(port, path, body):
    req = urllib.request.Request("http://127.0.0.1:%s%s" % (port, path),
                                 data=json.dumps(body).encode(),
                                 method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


def feed(port, chats, per, seconds):
    for n in range(per):
        post(port, "/control/updates", [update(c, n) for c in range(chats)])
        if n + 1 < per:
            time.sleep(seconds / per)


def files(d, chats, per):
    for c in range(chats):
        for n in range(4, per, 5):
            with open("%s/t-%d-%d.txt" % (d, c, n), "w") as f:
                f.write("tool-%d-%d" % (c, n))


def attempts(log, method="sendMessage"):
    """the times of the calls of method (sendMessage) in the fake's log,
    by text"""
    at = {}
    with open(log) as f:
        for raw in f:
            try:
                r = json.loads(raw)
            except ValueError:
                continue
            if r.get("method") == method:
                t = str(r.get("params", {}).get("text", "")).strip()
                at.setdefault(t, []).append(r.get("ts", 0))
    return at


def in_window(ts, kills):
    """of the attempts ts, the first from a sender killed at k (at most
    WINDOW seconds after it, or LAG before), the second from a later one"""
    return len(ts) > 1 and any(ts[0] - LAG <= k <= ts[0] + WINDOW and
                               k < ts[1] for k in kills)


def check(port, chats, per, log=None, killfile=None, method="sendMessage",
          prefix=""):
    """see above; method: the fake's call that sends a message, prefix:
    of a chat's id before its number (Slack's D)"""
    with urllib.request.urlopen("http://127.0.0.1:%s/control/state" % port,
                                timeout=30) as r:
        state = json.loads(r.read())
    want = {}
    for c in range(chats):
        for n in range(per):
            want[reply_of(c, n)] = prefix + str(USER0 + c)
    got = {}
    placed = {}
    for chat, msgs in state.get("messages", {}).items():
        for m in msgs:
            t = m.get("text", "").strip()
            got[t] = got.get(t, 0) + 1
            placed.setdefault(t, set()).add(str(chat))
    lost = sorted(t for t in want if t not in got)
    doubled = sorted(t for t in want if got.get(t, 0) > 1)
    stray = sorted(t for t in got if t not in want)
    misplaced = sorted(t for t in want if t in placed and
                       placed[t] != {want[t]})
    line = ("expected %d delivered %d lost %d doubled %d stray %d "
            "misplaced %d" % (len(want), sum(got.values()), len(lost),
                              len(doubled), len(stray), len(misplaced)))
    window = []
    if log:
        at = attempts(log, method)
        line += " attempts %d" % sum(len(v) for v in at.values())
        if killfile:
            kills = []
            with open(killfile) as f:
                for raw in f:
                    w = raw.split()
                    if len(w) == 3 and w[1] == "send":
                        kills.append(float(w[0]))
            window = [t for t in doubled if in_window(sorted(at.get(t, [])),
                                                      kills)]
            line += " window %d" % len(window)
    print(line)
    for name, ts in (("lost", lost), ("doubled", doubled),
                     ("stray", stray), ("misplaced", misplaced)):
        for t in ts[:5]:
            print("  %s: %s%s" % (name, t, " (in oxi-send's window)"
                                  if t in window else ""))
    return 0 if not (lost or doubled or stray or misplaced) else 1


def main(a):
    if len(a) == 5 and a[0] == "feed":
        feed(a[1], int(a[2]), int(a[3]), float(a[4]))
        return 0
    if len(a) == 4 and a[0] == "files":
        files(a[1], int(a[2]), int(a[3]))
        return 0
    if len(a) in (4, 5, 6) and a[0] == "check":
        return check(a[1], int(a[2]), int(a[3]), *a[4:])
    sys.stderr.write(__doc__)
    return 100


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
