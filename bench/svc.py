#!/usr/bin/env python3
"""svc.py - messages per second through the supervised tree (make bench)

The Telegram pipeline as oxi-svc writes it, under s6-svscan and under
runsvdir (each where installed), every stage a service on FIFOs, against
the fake Bot API (tests/fake/telegram.py) and a zero-delay model
(bench/slowmodel.py --delay 0), both on 127.0.0.1; and, for a ratio, the
same stages as one shell pipeline

  oxi-recv telegram | oxi-guard in | oxi-loop | oxi-guard out | oxi-send telegram

with oxi-llm and oxi-tool as oxi-loop's coprocesses.  After a first
round that warms everything up (one message per chat), BENCH_SVC_N
messages (400) from BENCH_SVC_CHATS chats (20) are fed at once, three
times; the figure is the best of the three: those messages over the time
from the feed to the last reply the fake holds.  The fake Bot API runs a thread per connection on the
same cores: its cost is in the figure, alike for all three.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(TOP, "bin")
sys.path.insert(0, os.path.join(TOP, "tests"))
import svcload  # noqa: E402

N = int(os.environ.get("BENCH_SVC_N", "400"))
CHATS = int(os.environ.get("BENCH_SVC_CHATS", "20"))
BEST = 3
TOKEN = "123456:bench-token"
STAGES = ["recv", "guard-in", "loop", "guard-out", "send", "llm", "tool"]


def start_fake(argv, tmp, name):
    pf = os.path.join(tmp, name + ".port")
    p = subprocess.Popen([sys.executable] + argv + ["--port-file", pf],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(pf) and open(pf).read().strip():
            return p, open(pf).read().strip()
        time.sleep(0.05)
    raise SystemExit("bench/svc.py: %s did not start" % name)


def delivered(port):
    with urllib.request.urlopen("http://127.0.0.1:%s/control/state" % port,
                                timeout=30) as r:
        st = json.loads(r.read())
    return sum(len(m) for m in st.get("messages", {}).values())


def feed(port, rounds, first):
    ups = [svcload.update(c, first + n) for n in range(rounds)
           for c in range(CHATS)]
    svcload.post(port, "/control/updates", ups)


def wait_for(port, count, limit):
    end = time.time() + limit
    while time.time() < end:
        if delivered(port) >= count:
            return time.time()
        time.sleep(0.02)
    return None


def env_for(tmp, tgport, mport):
    env = {"PATH": BIN + ":" + os.environ.get("PATH", "/usr/bin:/bin"),
           "HOME": tmp, "LANG": "C.UTF-8",
           "TELEGRAM_BOT_TOKEN": TOKEN, "OPENAI_API_KEY": "sk-bench",
           "OXI_TELEGRAM_BASE_URL": "http://127.0.0.1:%s" % tgport,
           "OXI_OPENAI_BASE_URL": "http://127.0.0.1:%s/v1" % mport,
           "OXI_MODEL": "openai/bench", "OXI_ALLOW": "telegram:*",
           "OXI_CONFIG_DIR": os.path.join(tmp, "config")}
    return env


def tree_procs(d):
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            c = os.readlink("/proc/%s/cwd" % p)
        except OSError:
            continue
        if c == d or c.startswith(d + "/"):
            out.append(int(p))
    return out


def run_tree(sup, tmp, tgport, mport):
    """messages per second through the tree of sup, or None"""
    d = os.path.join(tmp, "tree-" + sup)
    env = env_for(tmp, tgport, mport)
    r = subprocess.run([os.path.join(BIN, "oxi-svc"), "-s", sup, d],
                       env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.stderr.write(r.stderr.decode())
        return None
    cmd = ["s6-svscan", d] if sup == "s6" else ["runsvdir", d]
    sv = subprocess.Popen(cmd, env={"PATH": env["PATH"]},
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    try:
        return measure(tgport)
    finally:
        if sup == "s6":
            subprocess.run(["s6-svscanctl", "-t", d])
        else:
            sv.send_signal(signal.SIGHUP)
        end = time.time() + 10
        while tree_procs(d) and time.time() < end:
            time.sleep(0.1)
        for p in tree_procs(d):
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        sv.wait()


def run_pipeline(tmp, tgport, mport):
    env = env_for(tmp, tgport, mport)
    env["OXI_HOME"] = os.path.join(tmp, "pipe")
    os.makedirs(env["OXI_HOME"])
    argvs = [["oxi-recv", "telegram"], ["oxi-guard", "in"], ["oxi-loop"],
             ["oxi-guard", "out"], ["oxi-send", "telegram"]]
    procs = []
    prev = subprocess.DEVNULL
    for i, a in enumerate(argvs):
        last = i == len(argvs) - 1
        p = subprocess.Popen([os.path.join(BIN, a[0])] + a[1:], env=env,
                             stdin=prev, stderr=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL if last
                             else subprocess.PIPE)
        if procs:
            procs[-1].stdout.close()
        procs.append(p)
        prev = p.stdout
    try:
        return measure(tgport)
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def measure(tgport):
    """the warm-up round, then N messages at once, BEST times: the best
    messages per second"""
    have = delivered(tgport) + CHATS
    feed(tgport, 1, 0)
    if wait_for(tgport, have, 120) is None:
        return None
    rounds = max(1, N // CHATS)
    best = None
    for i in range(BEST):
        t0 = time.time()
        feed(tgport, rounds, 1 + i * rounds)
        have += CHATS * rounds
        t1 = wait_for(tgport, have, 300)
        if t1 is None:
            return None
        r = CHATS * rounds / (t1 - t0)
        best = r if best is None or r > best else best
    return best


def main():
    tmp = tempfile.mkdtemp(prefix="oxi-bench-svc.")
    n = max(1, N // CHATS) * CHATS
    print("svc: %d messages from %d chats through the Telegram pipeline, "
          "fake Bot API and model on 127.0.0.1, best of %d:"
          % (n, CHATS, BEST))
    try:
        res = {}
        for name, sup in (("shell pipeline", None), ("s6 tree", "s6"),
                          ("runit tree", "runit")):
            if sup and not shutil.which("s6-svscan" if sup == "s6"
                                        else "runsvdir"):
                print("  %-15s not installed" % name)
                continue
            tg, tgport = start_fake([os.path.join(TOP, "tests", "fake",
                                                  "telegram.py"),
                                     "--token", TOKEN], tmp, "tg-%s" % sup)
            m, mport = start_fake([os.path.join(TOP, "bench",
                                                "slowmodel.py"),
                                   "--delay", "0"], tmp, "model-%s" % sup)
            try:
                if sup:
                    r = run_tree(sup, tmp, tgport, mport)
                else:
                    r = run_pipeline(tmp, tgport, mport)
            finally:
                tg.kill()
                m.kill()
                tg.wait()
                m.wait()
            res[name] = r
            if r is None:
                print("  %-15s did not finish" % name)
            elif sup and res.get("shell pipeline"):
                print("  %-15s %6.1f msg/s  ratio to the pipeline %4.2fx"
                      % (name, r, r / res["shell pipeline"]))
            else:
                print("  %-15s %6.1f msg/s" % (name, r))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
