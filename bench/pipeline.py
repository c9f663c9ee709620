#!/usr/bin/env python3
"""pipeline.py - figures for the terminal pipeline

  1. added latency per message through
       oxi-recv cli | oxi-guard in | oxi-loop | oxi-guard out | oxi-send cli
     with a zero-latency model stage (tests/fake/llm-stage.py in place of
     oxi-llm -j), against the model stage alone: the difference is what the
     five stages and the loop's SQLite history cost per message;
  2. the same pipeline with the real oxi-llm -j against the fake
     OpenAI-compatible server on 127.0.0.1 (tests/fake/openai.py);
  3. idle memory (PSS, from /proc/PID/smaps_rollup) of every stage.

Run by `make bench`; prints one line per figure.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(TOP, "bin")
FAKE = os.path.join(TOP, "tests", "fake")
N = int(os.environ.get("BENCH_N", "300"))


def pss_kib(pid):
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def children(pid):
    out = []
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            parts = f.read().split(b"\0")
        return " ".join(p.decode() for p in parts if p)
    except OSError:
        return "?"


def start_pipeline(env):
    stages = [["oxi-recv", "cli"], ["oxi-guard", "in"], ["oxi-loop", "-t", "0"],
              ["oxi-guard", "out"], ["oxi-send", "cli"]]
    procs = []
    prev = subprocess.PIPE
    for i, argv in enumerate(stages):
        p = subprocess.Popen([os.path.join(BIN, argv[0])] + argv[1:],
                             stdin=prev, stdout=subprocess.PIPE, env=env,
                             bufsize=0)
        if i > 0:
            procs[-1].stdout.close()
        procs.append(p)
        prev = p.stdout
    return procs


def readline(f):
    buf = b""
    while not buf.endswith(b"\n"):
        c = f.read(1)
        if not c:
            raise RuntimeError("pipeline closed its output")
        buf += c
    return buf


def measure_pipeline(env, n, tag):
    procs = start_pipeline(env)
    first, last = procs[0], procs[-1]
    times = []
    for i in range(n + 5):
        t0 = time.perf_counter()
        first.stdin.write(b"hello %d\n" % i)
        line = readline(last.stdout)
        dt = time.perf_counter() - t0
        if (b"hello %d" % i) not in line:
            raise RuntimeError("unexpected reply: %r" % line)
        if i >= 5:
            times.append(dt)
    mem = []
    for p in procs:
        mem.append((" ".join(os.path.basename(a) for a in p.args[:2]),
                    pss_kib(p.pid)))
        for c in children(p.pid):
            mem.append(("  (child) " + os.path.basename(cmdline(c).split()[0])
                        + " " + " ".join(cmdline(c).split()[1:3]),
                        pss_kib(c)))
    first.stdin.close()
    for p in procs:
        p.wait(timeout=30)
    return times, mem


def measure_model_alone(env, n):
    p = subprocess.Popen([sys.executable, os.path.join(FAKE, "llm-stage.py")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=env, bufsize=0)
    times = []
    for i in range(n + 5):
        req = {"v": 1, "type": "llm.request", "id": "r%d" % i,
               "messages": [{"role": "system", "content": "x"},
                            {"role": "user", "content": "hello %d" % i}]}
        t0 = time.perf_counter()
        p.stdin.write((json.dumps(req) + "\n").encode())
        while True:
            line = readline(p.stdout)
            if b'"llm.response"' in line:
                break
        if i >= 5:
            times.append(time.perf_counter() - t0)
    p.stdin.close()
    p.wait()
    return times


def ms(x):
    return "%.3f ms" % (x * 1000)


def summary(name, t):
    t = sorted(t)
    return "%s: median %s, p95 %s, n=%d" % (
        name, ms(statistics.median(t)), ms(t[int(len(t) * 0.95) - 1]), len(t))


def main():
    tmp = tempfile.mkdtemp(prefix="oxi-bench.")
    try:
        env = dict(os.environ)
        env.update({
            "PATH": BIN + ":" + env.get("PATH", ""),
            "OXI_HOME": os.path.join(tmp, "home"),
            "OXI_CONFIG_DIR": os.path.join(tmp, "config"),
            "OXI_ALLOW": "cli:*",
            "OXI_TOOL": "oxi-tool",
            "OXI_LLM": "%s %s" % (sys.executable,
                                   os.path.join(FAKE, "llm-stage.py")),
            "OXI_MODEL": "openai/bench",
        })
        for k in ("OPENAI_API_KEY", "OXI_OPENAI_BASE_URL"):
            env.pop(k, None)

        alone = measure_model_alone(env, N)
        piped, mem = measure_pipeline(env, N, "stand-in")
        added = statistics.median(piped) - statistics.median(alone)
        print("== latency per message (%d messages, one at a time)" % N)
        print(summary("model stage alone (stand-in)", alone))
        print(summary("whole pipeline with the stand-in", piped))
        print("added by recv|guard|loop|guard|send: %s per message (median)"
              % ms(added))

        portfile = os.path.join(tmp, "port")
        srv = subprocess.Popen([sys.executable, os.path.join(FAKE, "openai.py"),
                                "--port-file", portfile,
                                "--chunk-sizes", "100000"],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(portfile) and open(portfile).read().strip():
                break
            time.sleep(0.05)
        port = open(portfile).read().strip()
        env2 = dict(env)
        env2["OXI_LLM"] = "oxi-llm -j"
        env2["OXI_OPENAI_BASE_URL"] = "http://127.0.0.1:%s/v1" % port
        env2["OXI_HOME"] = os.path.join(tmp, "home2")
        real, mem2 = measure_pipeline(env2, N, "oxi-llm")
        srv.terminate()
        print(summary("whole pipeline with oxi-llm -j and a local fake "
                      "server", real))
        print("== idle memory after %d messages (PSS)" % N)
        total = 0
        for name, kib in mem2:
            if kib is None:
                continue
            if "python" not in name:
                total += kib
            print("%-40s %6d KiB" % (name, kib))
        print("%-40s %6d KiB" % ("total of the oxi stages", total))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
