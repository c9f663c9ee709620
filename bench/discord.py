#!/usr/bin/env python3
"""discord.py - the Discord receiver's figures (make bench)

oxi-recv discord against the fake Discord (tests/fake/discord.py) on
127.0.0.1, its state in a fresh directory:

  idle memory   RSS and PSS (/proc/PID/smaps_rollup) of the receiver
                connected to the Gateway, heartbeating, after 2 s idle
  latency       from a message handed to the fake's Gateway to its
                msg.in on the receiver's stdout, BENCH_DC_N times (200),
                one at a time: median, 95th percentile and the worst; the
                ledger's commit (synchronous=FULL) is in it, as in use

The fake is Python, and its control call (an HTTP POST) starts the
clock: both are in the figure.
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
N = int(os.environ.get("BENCH_DC_N", "200"))
TOKEN = "bench.discord.token-0123456789abcdef"


def mem(pid):
    rss = pss = 0
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    return rss, pss


def post(port, path, body):
    req = urllib.request.Request("http://127.0.0.1:%s%s" % (port, path),
                                 data=json.dumps(body).encode(),
                                 method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


def main():
    tmp = tempfile.mkdtemp(prefix="oxi-bench-dc.")
    procs = []
    try:
        pf = os.path.join(tmp, "port")
        fake = subprocess.Popen(
            [sys.executable, os.path.join(TOP, "tests/fake/discord.py"),
             "--port-file", pf, "--token", TOKEN, "--heartbeat", "1000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(fake)
        for _ in range(200):
            if os.path.exists(pf) and open(pf).read().strip():
                break
            time.sleep(0.05)
        port = open(pf).read().strip()
        env = dict(os.environ, OXI_HOME=os.path.join(tmp, "home"),
                   DISCORD_BOT_TOKEN=TOKEN,
                   OXI_DISCORD_API="http://127.0.0.1:%s/api/v10" % port)
        os.makedirs(env["OXI_HOME"])
        rfd, wfd = os.pipe()
        recv = subprocess.Popen(
            [os.path.join(TOP, "bin/oxi-recv"), "-d", str(wfd), "discord"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            pass_fds=(wfd,))
        procs.append(recv)
        os.close(wfd)
        select.select([rfd], [], [], 20)
        os.close(rfd)
        time.sleep(2)
        rss, pss = mem(recv.pid)
        print("discord receiver idle on the Gateway: RSS %d kB, PSS %d kB"
              % (rss, pss))
        out = recv.stdout
        lat = []
        for i in range(N):
            ev = {"id": str(900000 + i), "channel_id": "500",
                  "content": "bench %d" % i,
                  "author": {"id": "2001", "username": "ann"}}
            t0 = time.monotonic()
            post(port, "/control/events", [ev])
            line = out.readline()
            lat.append((time.monotonic() - t0) * 1000)
            if b"bench %d" % i not in line:
                raise SystemExit("bench/discord.py: unexpected %r" % line)
        lat.sort()
        print("discord message on the Gateway -> msg.in: median %.2f ms, "
              "p95 %.2f ms, worst %.2f ms (%d messages)" %
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
