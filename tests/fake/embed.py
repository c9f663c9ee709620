#!/usr/bin/env python3
"""embed.py - a fake embedding server for oxi's tests, three dialects in one

usage: python3 tests/fake/embed.py --port-file FILE [--log FILE]
           [--headers FILE] [--status CODE] [--fail-times N] [--words FILE]

Listens on 127.0.0.1 (a free port, written to --port-file once listening),
HTTP/1.1 with keep-alive, TCP_NODELAY.  Answers

  POST .../embeddings                     OpenAI: {"data":[{"index","embedding"}],
                                          "usage":{"prompt_tokens"}}, the items
                                          in reverse order (clients sort by index)
  POST .../models/M:batchEmbedContents    Gemini: {"embeddings":[{"values"}]}
  POST .../api/embed                      Ollama: {"embeddings":[[...]],
                                          "prompt_eval_count"}

The vector of a text is [its length in bytes, the sum of its bytes modulo
1000 divided by 1000, 0.5], padded with 0.25 to "dimensions" (OpenAI) or
"outputDimensionality" (Gemini) when asked.  With --words FILE (a JSON
object with "stop", a list of words, and "concepts", each word's list of
concepts; tests/mem/set.json) it is a bag of words instead: each word,
lower case, not a stop word, adds 1 to a dimension of 1024 (or of the
dimensions asked) chosen by a hash of each of its concepts (of itself
when it has none); words with a digit count for nothing: a model that
knows synonyms and is blind to numbers, codes and times.  A token is 4 bytes, rounded
up, per text.  --log appends one line per request: "PATH AUTH BODY", where
AUTH names the credential header sent ("bearer", "goog", "none"), never
its value.  --headers appends one JSON object per request: each header
name, lower case, with the list of its values.  --status answers every request (the first N with
--fail-times) with that status and a JSON error; --fail-times alone means
500.
"""
import argparse
import json
import os
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
WORDS = None
LOCK = threading.Lock()
COUNT = {"posts": 0}


def wordvec(text, dims):
    import hashlib
    import re
    n = dims or 1024
    v = [0.0] * n
    for w in re.findall(r"[a-z0-9']+", text.lower()):
        w = w.replace("'s", "").strip("'")
        if not w or w in WORDS["stop"] or any(c.isdigit() for c in w):
            continue
        for c in WORDS["concepts"].get(w, [w]):
            h = int(hashlib.md5(c.encode()).hexdigest(), 16)
            v[h % n] += 1.0
    return v


def vec(text, dims):
    if WORDS:
        return wordvec(text, dims)
    b = text.encode()
    v = [float(len(b)), (sum(b) % 1000) / 1000.0, 0.5]
    while dims and len(v) < dims:
        v.append(0.25)
    return v[:dims] if dims else v


def tokens(texts):
    return sum((len(t.encode()) + 3) // 4 for t in texts)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *a):
        sys.stderr.write("embed.py: " + (fmt % a) + "\n")

    def send_json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        auth = ("bearer" if (self.headers.get("Authorization") or "")
                .startswith("Bearer ") else
                "goog" if self.headers.get("x-goog-api-key") else "none")
        if ARGS.headers:
            hs = {}
            for k, v in self.headers.items():
                hs.setdefault(k.lower(), []).append(v)
            with LOCK, open(ARGS.headers, "a") as f:
                f.write(json.dumps(hs) + "\n")
        if ARGS.log:
            with LOCK, open(ARGS.log, "ab") as f:
                f.write(b"%s %s %s\n" % (self.path.encode(), auth.encode(),
                                         raw.replace(b"\n", b" ")))
        with LOCK:
            COUNT["posts"] += 1
            failing = (ARGS.fail_times is None or
                       COUNT["posts"] <= ARGS.fail_times)
        status = ARGS.status if failing else None
        if failing and ARGS.fail_times is not None and not status:
            status = 500
        if status:
            self.send_json(status, {"error": {
                "code": status, "message": "fake error %d" % status,
                "status": "UNAVAILABLE" if status >= 500 else "INVALID"}})
            return
        try:
            req = json.loads(raw)
        except ValueError:
            self.send_json(400, {"error": {"message": "bad JSON body"}})
            return
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/embeddings"):
            texts = req.get("input")
            if isinstance(texts, str):
                texts = [texts]
            dims = req.get("dimensions")
            data = [{"object": "embedding", "index": i,
                     "embedding": vec(t, dims)}
                    for i, t in enumerate(texts)]
            data.reverse()
            self.send_json(200, {"object": "list", "data": data,
                                 "model": req.get("model"),
                                 "usage": {"prompt_tokens": tokens(texts),
                                           "total_tokens": tokens(texts)}})
        elif path.endswith(":batchEmbedContents"):
            out = []
            for r in req.get("requests", []):
                t = "".join(p.get("text", "")
                            for p in r["content"]["parts"])
                out.append({"values": vec(t, r.get("outputDimensionality"))})
            self.send_json(200, {"embeddings": out})
        elif path.endswith("/api/embed"):
            texts = req.get("input")
            if isinstance(texts, str):
                texts = [texts]
            self.send_json(200, {"model": req.get("model"),
                                 "embeddings": [vec(t, None) for t in texts],
                                 "total_duration": 1000,
                                 "prompt_eval_count": tokens(texts)})
        else:
            self.send_json(404, {"error": {"message": "unknown path"}})


def main():
    global ARGS, WORDS
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--headers")
    ap.add_argument("--status", type=int)
    ap.add_argument("--fail-times", type=int)
    ap.add_argument("--words")
    ARGS = ap.parse_args()
    if ARGS.words:
        with open(ARGS.words) as f:
            WORDS = json.load(f)
        WORDS["stop"] = set(WORDS["stop"])
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.request_queue_size = 256  # many clients at once
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, ARGS.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
