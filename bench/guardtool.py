#!/usr/bin/env python3
"""bench/guardtool.py - what oxi-guard tool costs oxi-loop's tool stage:
the verdict on a call (judged, audited, answered by the guard itself),
and 1 MB of tool output passed back, against the tool stage alone."""
import json
import os
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(TOP, "bin")
N = int(os.environ.get("OXI_BENCH_N", "1000"))

FAKE = r'''
import json, sys
big = "x" * (1 << 20)
for line in sys.stdin:
    r = json.loads(line)
    sys.stdout.write(json.dumps({"v": 1, "type": "tool.result",
        "id": r["id"], "content": big, "is_error": False}) + "\n")
    sys.stdout.flush()
'''


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p / 100))]


def timed(cmd, calls, env):
    """ms per call, one call at a time, each answer read before the next"""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env, bufsize=0)
    out = p.stdout
    ms = []
    for c in calls:
        t = time.perf_counter()
        p.stdin.write((json.dumps(c) + "\n").encode())
        line = out.readline()
        ms.append((time.perf_counter() - t) * 1000)
        assert line, "no answer"
    p.stdin.close()
    p.wait()
    return ms


def main():
    d = tempfile.mkdtemp()
    env = dict(os.environ, PATH=BIN + ":" + os.environ["PATH"],
               OXI_HOME=d + "/home", OXI_CONFIG_DIR=d + "/config",
               OXI_AUDIT_LOG=d + "/audit.log")
    fake = os.path.join(d, "fake.py")
    open(fake, "w").write(FAKE)
    held = [{"v": 1, "type": "tool.call", "id": "c%d" % i, "name": "shell",
             "args": {"command": "x" * 4000}, "session": "s",
             "taint": ["owner:cli", "web:https://a.org"]} for i in range(N)]
    ms = timed(["oxi-guard", "tool", "--", "python3", fake], held, env)
    print("oxi-guard tool: %d held calls of 4 KB, judged, audited and "
          "answered: p50 %.2f ms, p99 %.2f ms" % (N, pct(ms, 50), pct(ms, 99)))
    big = [{"v": 1, "type": "tool.call", "id": "b%d" % i, "name": "read_file",
            "args": {"path": "x"}, "session": "s", "taint": ["owner:cli"]}
           for i in range(20)]
    alone = timed(["python3", fake], big, env)
    guarded = timed(["oxi-guard", "tool", "-l", "4m", "--", "python3", fake],
                    big, env)
    print("1 MB tool results: the tool stage alone p50 %.1f ms, behind the "
          "guard p50 %.1f ms: %.1f ms more" % (pct(alone, 50),
          pct(guarded, 50), pct(guarded, 50) - pct(alone, 50)))
    subprocess.run(["rm", "-rf", d])


main()
