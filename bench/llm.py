#!/usr/bin/env python3
"""llm.py - figures for oxi-llm

  1. first byte to first delta: a server on 127.0.0.1 writes the headers
     and the first event of a streamed Chat Completions reply in one send;
     the time from that send to the first llm.delta line read from
     oxi-llm -j, over sequential requests in one process;
  2. 100 concurrent streaming requests in one process: each reply streams
     50 events, 10 ms apart; wall time, CPU time (user + system) and peak
     RSS of oxi-llm -j, from wait4(2);
  3. overhead against curl: the same streamed request, a process per
     request, by `oxi-llm` in human mode and by `curl -sN`; wall and CPU
     time per request and their ratio.

The server is in this file (threads, one send per event, TCP_NODELAY) so
that it adds little of its own.  Run by `make bench`; prints one line per
figure.
"""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLM = os.path.join(TOP, "bin", "oxi-llm")
N = int(os.environ.get("BENCH_N", "200"))
FIRST = {}		# request id -> monotonic time of the first byte sent
LOCK = threading.Lock()


def event(d):
    return ("data: " + json.dumps(d) + "\n\n").encode()


def chunk(b):
    return b"%x\r\n%s\r\n" % (len(b), b)


def delta(text, finish=None):
    return event({"id": "x", "object": "chat.completion.chunk",
                  "model": "bench", "choices": [{
                      "index": 0, "delta": {"content": text}
                      if text is not None else {},
                      "finish_reason": finish}]})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *a):
        pass

    def do_GET(self):
        body = b'{"object":"list","data":[]}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        req = json.loads(self.rfile.read(n))
        text = req["messages"][-1]["content"]
        parts, _, pause = text.partition("/")
        nev = int(parts.split()[0]) if parts.split() else 1
        pause = float(pause or 0)
        head = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")
        first = head + chunk(delta("w0 "))
        with LOCK:
            FIRST[text] = time.monotonic()
        self.wfile.write(first)
        self.wfile.flush()
        for i in range(1, nev):
            if pause:
                time.sleep(pause)
            self.wfile.write(chunk(delta("w%d " % i)))
            self.wfile.flush()
        tail = delta(None, "stop") + event({
            "id": "x", "object": "chat.completion.chunk", "choices": [],
            "usage": {"prompt_tokens": 10, "completion_tokens": nev}}) + \
            b"data: [DONE]\n\n"
        self.wfile.write(chunk(tail) + b"0\r\n\r\n")
        self.wfile.flush()


def server():
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.request_queue_size = 512
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def request(rid, text):
    return (json.dumps({"v": 1, "type": "llm.request", "id": rid,
                        "messages": [{"role": "user", "content": text}]})
            + "\n").encode()


def readline(f):
    line = f.readline()
    if not line:
        raise RuntimeError("oxi-llm closed its output")
    return line


def first_delta(env):
    """seconds from the server's first byte to the first llm.delta out"""
    p = subprocess.Popen([LLM, "-j", "-W"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=env, bufsize=0)
    out = []
    for i in range(N + 10):
        text = "3 first %d" % i
        p.stdin.write(request("f%d" % i, text))
        t1 = None
        while True:
            line = readline(p.stdout)
            if t1 is None and b'"llm.delta"' in line:
                t1 = time.monotonic()
            if b'"llm.response"' in line or b'"error"' in line:
                break
        if i >= 10:
            with LOCK:
                out.append(t1 - FIRST[text])
    p.stdin.close()
    p.wait()
    return out


def concurrent(env, n=100, events=50, pause=0.01):
    """wall, CPU seconds and peak RSS (KiB) of oxi-llm -j for n at once"""
    env = dict(env, OXI_LLM_PARALLEL=str(n))
    data = b"".join(request("c%d" % i, "%d c%d/%g" % (events, i, pause))
                    for i in range(n))
    with tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as out:
        inp.write(data)
        inp.seek(0)
        t0 = time.monotonic()
        p = subprocess.Popen([LLM, "-j"], stdin=inp, stdout=out, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        p.returncode = status
        out.seek(0)
        lines = out.read().splitlines()
    ok = sum(1 for l in lines if b'"llm.response"' in l)
    deltas = sum(1 for l in lines if b'"llm.delta"' in l)
    if ok != n or deltas != n * events:
        raise RuntimeError("%d responses, %d deltas" % (ok, deltas))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def per_process(argv, env, n, stdin=None):
    """median wall and mean CPU seconds per run of argv"""
    walls, cpu = [], 0.0
    for i in range(n):
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, env=env)
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
        walls.append(time.monotonic() - t0)
        cpu += ru.ru_utime + ru.ru_stime
        if status != 0 or b"w2" not in out:
            raise RuntimeError("%s failed: %r" % (argv[0], out[:200]))
    return statistics.median(walls), cpu / n


def ms(x):
    return "%.3f ms" % (x * 1000)


def main():
    if not os.access(LLM, os.X_OK):
        sys.exit("llm.py: build bin/oxi-llm first")
    srv = server()
    base = "http://127.0.0.1:%d/v1" % srv.server_address[1]
    home = tempfile.mkdtemp(prefix="oxi-bench-llm.")
    env = dict(os.environ, OXI_OPENAI_BASE_URL=base, OXI_HOME=home,
               OXI_CONFIG_DIR=os.path.join(home, "config"),
               OXI_MODEL="openai/bench", OXI_LLM_RETRIES="0")
    for k in ("OPENAI_API_KEY", "OXI_PRICES", "OXI_BUDGET_DAY_USD",
              "OXI_BUDGET_MONTH_USD", "OXI_BUDGET_SESSION_USD"):
        env.pop(k, None)
    try:
        t = sorted(first_delta(env))
        print("oxi-llm first byte to first llm.delta: median %s, p95 %s,"
              " max %s (%d requests)" % (ms(statistics.median(t)),
                                         ms(t[int(len(t) * 0.95)]),
                                         ms(t[-1]), len(t)))
        wall, cpu, rss = concurrent(env)
        print("oxi-llm 100 concurrent streams (50 events each, 10 ms"
              " apart): wall %.2f s, CPU %s, peak RSS %.1f MiB"
              % (wall, ms(cpu), rss / 1024.0))
        n = max(20, N // 4)
        w1, c1 = per_process([LLM, "-m", "openai/bench", "3 vs curl"],
                             env, n)
        curl = shutil.which("curl")
        if curl:
            body = json.dumps({"model": "bench", "stream": True,
                               "stream_options": {"include_usage": True},
                               "messages": [{"role": "user",
                                             "content": "3 vs curl"}]})
            w2, c2 = per_process([curl, "-sN", "-H",
                                  "Content-Type: application/json",
                                  "-d", body, base + "/chat/completions"],
                                 env, n)
            print("oxi-llm against curl, one streamed request per process:"
                  " wall %s vs %s (x%.2f), CPU %s vs %s (x%.2f)"
                  % (ms(w1), ms(w2), w1 / w2, ms(c1), ms(c2), c1 / c2))
        else:
            print("oxi-llm one streamed request per process: wall %s,"
                  " CPU %s (no curl to compare)" % (ms(w1), ms(c1)))
    finally:
        shutil.rmtree(home, ignore_errors=True)
        srv.shutdown()


if __name__ == "__main__":
    main()
