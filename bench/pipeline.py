#!/usr/bin/env python3
"""pipeline.py - figures for the terminal pipeline

  1. added latency per message through
       oxi-recv cli | oxi-guard in | oxi-loop | oxi-guard out | oxi-send cli
     with a zero-latency model stage (tests/fake/llm-stage.py in place of
     oxi-llm -j), against the model stage alone: the difference is what the
     five stages and the loop's SQLite history cost per message;
  2. the same pipeline with the real oxi-llm -j against the fake
     OpenAI-compatible server on 127.0.0.1 (tests/fake/openai.py);
  3. idle memory of every stage after the messages: PSS (from
     /proc/PID/smaps_rollup; shared pages divided among every process that
     maps them, other programs on the machine too), and beside it what is
     the stage's own (Private: what stopping it frees) and where its PSS
     goes (/proc/PID/smaps: heap and anonymous maps, the program, and the
     libraries that weigh most);
  4. CPU time of every stage per message (/proc/PID/schedstat), with the
     stand-in model: where the added latency goes, and a figure that holds
     on a busy machine, where the latency does not.

Run by `make bench`; prints one line per figure.  BENCH_N sets the
number of messages (300).
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


def rollup(pid):
    """PSS and private KiB of pid, or None"""
    pss = priv = None
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                k = line.split()
                if k[0] == "Pss:":
                    pss = int(k[1])
                elif k[0] in ("Private_Clean:", "Private_Dirty:"):
                    priv = (priv or 0) + int(k[1])
    except OSError:
        return None
    return (pss, priv) if pss is not None else None


def where(pid):
    """pid's PSS by mapping: heap and anonymous maps, the program, each
    library; the weightiest first"""
    per = {}
    cur = None
    try:
        with open("/proc/%d/smaps" % pid) as f:
            for line in f:
                k = line.split()
                if "-" in k[0] and not k[0].endswith(":"):
                    name = k[5] if len(k) > 5 else "[anon]"
                    if name.startswith("[") and name != "[heap]":
                        name = "[anon]"
                    cur = os.path.basename(name).split(".so")[0]
                elif k[0] == "Pss:":
                    per[cur] = per.get(cur, 0) + int(k[1])
    except OSError:
        return []
    return sorted(per.items(), key=lambda x: -x[1])


def cpu_ns(pid):
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0])
    except OSError:
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


def stages(procs):
    """(name, pid) of every stage and of the children of each"""
    out = []
    for p in procs:
        out.append((" ".join(os.path.basename(a) for a in p.args[:2]),
                    p.pid))
        for c in children(p.pid):
            out.append(("  (child) " + os.path.basename(cmdline(c).split()[0])
                        + " " + " ".join(cmdline(c).split()[1:3]), c))
    return out


def measure_pipeline(env, n, tag):
    procs = start_pipeline(env)
    first, last = procs[0], procs[-1]
    times = []
    cpu0 = None
    for i in range(n + 5):
        if i == 5:
            cpu0 = [(name, pid, cpu_ns(pid)) for name, pid in stages(procs)]
        t0 = time.perf_counter()
        first.stdin.write(b"hello %d\n" % i)
        line = readline(last.stdout)
        dt = time.perf_counter() - t0
        if (b"hello %d" % i) not in line:
            raise RuntimeError("unexpected reply: %r" % line)
        if i >= 5:
            times.append(dt)
    cpu = []
    for name, pid, ns in cpu0:
        now = cpu_ns(pid)
        if ns is not None and now is not None:
            cpu.append((name, (now - ns) / n / 1e3))
    mem = [(name, rollup(pid), where(pid)) for name, pid in stages(procs)]
    first.stdin.close()
    for p in procs:
        p.wait(timeout=30)
    return times, mem, cpu


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
        piped, mem, cpu = measure_pipeline(env, N, "stand-in")
        added = statistics.median(piped) - statistics.median(alone)
        print("== latency per message (%d messages, one at a time)" % N)
        print(summary("model stage alone (stand-in)", alone))
        print(summary("whole pipeline with the stand-in", piped))
        print("added by recv|guard|loop|guard|send: %s per message (median)"
              % ms(added))
        print("CPU per message, by stage:")
        for name, us in cpu:
            print("  %-38s %8.1f us" % (name, us))
        print("  %-38s %8.1f us" % ("all the oxi stages", sum(
            us for name, us in cpu if "python" not in name)))

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
        real, mem2, _ = measure_pipeline(env2, N, "oxi-llm")
        srv.terminate()
        print(summary("whole pipeline with oxi-llm -j and a local fake "
                      "server", real))
        print("== idle memory after %d messages (PSS; private; where the "
              "PSS goes)" % N)
        total = own = 0
        for name, kib, parts in mem2:
            if kib is None:
                continue
            if "python" not in name:
                total += kib[0]
                own += kib[1]
            top = ", ".join("%s %d" % (k, v) for k, v in parts[:5] if v)
            print("%-36s %6d KiB %6d KiB  %s" % (name, kib[0], kib[1], top))
        print("%-36s %6d KiB %6d KiB" % ("total of the oxi stages", total,
                                         own))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
