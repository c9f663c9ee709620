#!/usr/bin/env python3
"""chats.py - a thousand chats at once (make bench)

A thousand sessions each send one message, all at once, through oxi-loop
with its real coprocesses (oxi-llm -j, oxi-tool) to an OpenAI-compatible
model on 127.0.0.1 (bench/slowmodel.py) that takes DELAY seconds (1) to
answer each.  Prints the wall time until the last msg.out, as a multiple
of the model's own time, and the peak RSS (VmHWM) of oxi-loop, oxi-llm
and oxi-tool; then the loop's overhead per turn with a zero-latency
model, and the memory of 1,000 sessions left idle.
"""
import json
import os
import select
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(TOP, "bin")
N = int(os.environ.get("BENCH_CHATS", "1000"))
DELAY = float(os.environ.get("BENCH_DELAY", "1"))


def status_kib(pid, key):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    out = []
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, t)) as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def cpu_s(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            v = f.read().rsplit(")", 1)[1].split()
        return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def comm(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return os.path.basename(f.read().split(b"\0")[0].decode())
    except OSError:
        return "?"


SERVER_PID = [0]


def server(tmp, delay):
    pf = os.path.join(tmp, "port%s" % delay)
    p = subprocess.Popen([sys.executable, os.path.join(TOP, "bench",
                                                       "slowmodel.py"),
                          "--port-file", pf, "--delay", str(delay)],
                         stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(pf):
            break
        time.sleep(0.05)
    return p, int(open(pf).read())


def run(tmp, port, n, tag, idle=0.0):
    """n chats of one message each; (seconds, peaks, idle rss)"""
    env = dict(os.environ, PATH=BIN + ":" + os.environ["PATH"],
               OXI_HOME=os.path.join(tmp, "home-" + tag),
               OXI_CONFIG_DIR=os.path.join(tmp, "cfg"),
               OXI_WORKSPACE=os.path.join(tmp, "ws"),
               OXI_OPENAI_BASE_URL="http://127.0.0.1:%d/v1" % port,
               OPENAI_API_KEY="sk-bench-0000000000", OXI_MODEL="openai/m")
    os.makedirs(env["OXI_WORKSPACE"], exist_ok=True)
    loop = subprocess.Popen([os.path.join(BIN, "oxi-loop")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    lines = b"".join(json.dumps({
        "v": 1, "type": "msg.in", "id": "m%d-%s" % (i, tag),
        "channel": "bench", "chat": "c%d" % i, "from": "u%d" % i,
        "trust": "owner", "text": "hello %d" % i}).encode() + b"\n"
        for i in range(n))
    t0 = time.monotonic()
    os.set_blocking(loop.stdin.fileno(), False)
    out, done, off, buf = loop.stdout.fileno(), 0, 0, b""
    peaks, cpu = {}, {}
    last = t0
    while done < n and time.monotonic() - t0 < 120:
        w = [loop.stdin] if off < len(lines) else []
        r, w, _ = select.select([out], w, [], 0.05)
        if w:
            try:
                off += os.write(loop.stdin.fileno(), lines[off:off + 65536])
            except BlockingIOError:
                pass
        if r:
            chunk = os.read(out, 1 << 20)
            if not chunk:
                break
            buf += chunk
            *recs, buf = buf.split(b"\n")
            for rec in recs:
                if b'"type":"msg.out"' in rec:
                    done += 1
                    last = time.monotonic()
        for pid in [loop.pid] + children(loop.pid):
            name = comm(pid)
            if name in ("oxi-loop", "oxi-llm", "oxi-tool"):
                peaks[name] = max(peaks.get(name, 0),
                                  status_kib(pid, "VmHWM"))
                cpu[name] = cpu_s(pid)
    secs = last - t0
    if os.environ.get("BENCH_CPU"):
        print("chats: CPU s " + " ".join("%s %.2f" % kv
                                         for kv in sorted(cpu.items())))
        print("chats: server CPU s %.2f" % cpu_s(SERVER_PID[0]))
    rss = {}
    if idle:
        time.sleep(idle)
        for pid in [loop.pid] + children(loop.pid):
            rss[comm(pid)] = status_kib(pid, "VmRSS")
    loop.stdin.close()
    loop.wait()
    return secs, done, peaks, rss


def main():
    tmp = tempfile.mkdtemp(prefix="oxi-bench-chats.")
    slow, sport = server(tmp, DELAY)
    fast, fport = server(tmp, 0)
    try:
        SERVER_PID[0] = slow.pid
        secs, done, peaks, _ = run(tmp, sport, N, "slow")
        tot = sum(peaks.values()) / 1024
        print("chats: %d chats, one message each, model %.1f s: %d answered "
              "in %.2f s (x%.2f the model's time)" % (N, DELAY, done, secs,
                                                        secs / DELAY))
        print("chats: peak RSS %s = %.1f MiB" % (" + ".join(
            "%s %.1f" % (k, v / 1024) for k, v in sorted(peaks.items())),
            tot))
        k = 300
        secs, done, _, rss = run(tmp, fport, k, "fast", idle=0.5)
        print("chats: zero-latency model, %d chats: %.2f ms per turn "
              "through oxi-loop and oxi-llm" % (done, secs * 1000 / max(done,
                                                                    1)))
        secs, done, _, rss = run(tmp, fport, N, "idle", idle=1.0)
        print("chats: %d sessions answered and idle: RSS %s" % (done, " + ".join(
            "%s %.1f MiB" % (k, v / 1024) for k, v in sorted(rss.items()))))
    finally:
        slow.kill()
        fast.kill()
        subprocess.call(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
