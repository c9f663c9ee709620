#!/usr/bin/env python3
"""slack.py - the Slack receiver's figures (make bench)

oxi-recv slack against the fake Slack (tests/fake/slack.py) on
127.0.0.1, in Socket Mode, its state in a fresh directory:

  idle memory   RSS and PSS (/proc/PID/smaps_rollup) of the receiver
                on its socket after 2 s idle
  latency       from an event handed to the fake (its control POST
                starts the clock; the fake sends it on the socket at
                once) to its msg.in on the receiver's stdout,
                BENCH_SK_N times (200), one at a time: median, 95th
                percentile and the worst; the ledger's commit
                (synchronous=FULL) and the ack are in it, as in use
"""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(os.environ.get("BENCH_SK_N", "200"))
BOT = "xoxb-bench-0000-bot-token"
APP = "xapp-1-bench-0000-app-token"


def mem(pid):
    rss = pss = 0
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    return rss, pss


def control(port, path, body=None):
    req = urllib.request.Request(
        "http://127.0.0.1:%s/control/%s" % (port, path),
        data=None if body is None else body.encode(),
        method="GET" if body is None else "POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def main():
    tmp = tempfile.mkdtemp(prefix="oxi-bench-sk.")
    procs = []
    try:
        pf = os.path.join(tmp, "port")
        fake = subprocess.Popen(
            [sys.executable, os.path.join(TOP, "tests/fake/slack.py"),
             "--port-file", pf, "--bot-token", BOT, "--app-token", APP],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(fake)
        for _ in range(200):
            if os.path.exists(pf) and open(pf).read().strip():
                break
            time.sleep(0.05)
        port = open(pf).read().strip()
        env = dict(os.environ, OXI_HOME=os.path.join(tmp, "home"),
                   SLACK_BOT_TOKEN=BOT, SLACK_APP_TOKEN=APP,
                   OXI_SLACK_API="http://127.0.0.1:%s/api" % port)
        os.makedirs(env["OXI_HOME"])
        rfd, wfd = os.pipe()
        recv = subprocess.Popen(
            [os.path.join(TOP, "bin/oxi-recv"), "-d", str(wfd), "slack"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            pass_fds=(wfd,))
        procs.append(recv)
        os.close(wfd)
        select.select([rfd], [], [], 20)
        os.close(rfd)
        for _ in range(200):
            if control(port, "state")["connections"]:
                break
            time.sleep(0.05)
        time.sleep(2)
        rss, pss = mem(recv.pid)
        print("slack receiver idle on its Socket Mode connection: RSS %d kB, "
              "PSS %d kB" % (rss, pss))
        lat = []
        for i in range(N):
            ev = {"event": {"type": "message", "channel": "D1",
                            "channel_type": "im", "user": "U1",
                            "ts": "1700000000.%06d" % i,
                            "text": "bench %d" % i}}
            t0 = time.monotonic()
            control(port, "events", json.dumps(ev))
            line = recv.stdout.readline()
            lat.append((time.monotonic() - t0) * 1000)
            if b"bench %d\"" % i not in line:
                raise SystemExit("bench/slack.py: unexpected %r" % line)
        lat.sort()
        print("slack event on the socket -> msg.in: median %.2f ms, "
              "p95 %.2f ms, worst %.2f ms (%d events)" %
              (lat[len(lat) // 2], lat[int(len(lat) * 0.95)], lat[-1], N))
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
