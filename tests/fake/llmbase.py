"""llmbase.py - what the fake model servers of oxi's tests share

A fake (anthropic.py, gemini.py, ollama.py, responses.py) subclasses
Provider: it says which request paths it serves, reads its provider's
request body into a neutral view (the last user text, or the tool results
that end the conversation), and writes the reply in its provider's wire
format, from a list of events the scripted model below produces.

Command line of every fake:
  --port-file FILE   write the port once listening (127.0.0.1, a free port)
  --log FILE         append each request as one line: {"path", "headers"
                     (names lower case, secrets too: the keys are fake),
                     "body"}
  --status N         answer every request with that status and the
                     provider's JSON error body (429 sends Retry-After: 1)
  --hang             200 and stream headers, then nothing
  --replay FILE      FILE's bytes as the body of every 200 reply
  --chunk-sizes L    send the body in pieces of these sizes, cycling

The scripted model looks at the last user text (first word):
  (tool results last)  "The tool said: " + the results, joined by " | "
  read PATH            one call read_file {"path": PATH}
  two tools            list_dir {"path": "."} and read_file {"path":
                       "notes.txt"}, in parallel
  think                thinking (or reasoning, thought signatures) and
                       then read_file {"path": "notes.txt"}
  refuse               a refusal, the provider's way
  long                 text cut at the token limit
  overload             some text, then an overloaded error in the stream
  cut                  some text, then the stream just ends
  anything else        "echo: " + the text
"""
import argparse
import json
import os
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()


def pieces(s, n):
    return [s[i:i + n] for i in range(0, len(s), n)] or [""]


def unwrap(s):
    """the content inside oxi-loop's markers: a model reads through them"""
    m = re.match(r'<external_content [^\n]*id="([0-9a-f]+)">\n(.*)\n'
                 r'</external_content id="\1">$', s or "", re.S)
    return m.group(2) if m else s


class Turn:
    """what the scripted model does: text, calls, and how it ends"""

    def __init__(self, user, results):
        user = unwrap(user)	# a model reads through the markers
        self.text = None
        self.calls = []         # (name, args)
        self.think = False      # thinking first
        self.end = "stop"       # stop, refusal, length, overload, cut
        w = user.split()
        first = w[0].lower() if w else ""
        if results is not None:
            self.text = "The tool said: " + " | ".join(unwrap(r)
                                                       for r in results)
        elif first == "read" and len(w) > 1:
            self.calls = [("read_file", {"path": user.split(None, 1)[1]})]
        elif user.startswith("two tools"):
            self.calls = [("list_dir", {"path": "."}),
                          ("read_file", {"path": "notes.txt"})]
        elif first == "think":
            self.think = True
            self.calls = [("read_file", {"path": "notes.txt"})]
        elif first == "refuse":
            self.text = "I can't help with that."
            self.end = "refusal"
        elif first == "long":
            self.text = "This answer goes on and on"
            self.end = "length"
        elif first == "overload":
            self.text = "Half an answer"
            self.end = "overload"
        elif first == "cut":
            self.text = "Half an answer"
            self.end = "cut"
        else:
            self.text = "echo: " + user


class Provider:
    """a provider's wire format; subclasses fill these in"""
    name = "fake"
    content_type = "text/event-stream"

    def serves(self, path):
        return False

    def turn(self, req):
        """the Turn for a request body (a dict)"""
        raise NotImplementedError

    def stream(self, req, t):
        """the streamed reply body, bytes"""
        raise NotImplementedError

    def whole(self, req, t):
        """the reply when not streamed, a dict"""
        raise NotImplementedError

    def streamed(self, req, path):
        return req.get("stream") is not False

    def error(self, code):
        """the JSON error body for an HTTP status"""
        return {"error": {"message": "HTTP error %d." % code,
                          "type": "api_error"}}


def sse(event, data):
    if event:
        return "event: %s\ndata: %s\n\n" % (event, json.dumps(data))
    return "data: %s\n\n" % json.dumps(data)


def serve(provider):
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--replay")
    ap.add_argument("--status", type=int)
    ap.add_argument("--hang", action="store_true")
    ap.add_argument("--chunk-sizes", default="1,2,3,5,7,11,13",
                    type=lambda s: [int(x) for x in s.split(",") if x])
    args = ap.parse_args()
    if not args.chunk_sizes or min(args.chunk_sizes) < 1:
        ap.error("--chunk-sizes needs positive sizes")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP,
                                       socket.TCP_NODELAY, 1)

        def log_message(self, fmt, *a):
            sys.stderr.write("%s.py: %s\n" % (provider.name, fmt % a))

        def send_json(self, code, obj, extra=()):
            body = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in extra:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n)
            if not provider.serves(self.path):
                self.send_json(404, provider.error(404))
                return
            if args.log:
                rec = {"path": self.path,
                       "headers": {k.lower(): v
                                   for k, v in self.headers.items()},
                       "body": raw.decode("utf-8", "replace")}
                with LOCK, open(args.log, "a") as f:
                    f.write(json.dumps(rec) + "\n")
            if args.status:
                extra = [("Retry-After", "1")] if args.status == 429 else []
                self.send_json(args.status, provider.error(args.status),
                               extra)
                return
            try:
                req = json.loads(raw)
            except ValueError:
                self.send_json(400, provider.error(400))
                return
            t = provider.turn(req)
            if not provider.streamed(req, self.path) and not args.replay \
                    and not args.hang:
                self.send_json(200, provider.whole(req, t))
                return
            self.send_response(200)
            self.send_header("Content-Type", provider.content_type)
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            if args.hang:
                self.close_connection = True
                time.sleep(600)
                return
            if args.replay:
                with open(args.replay, "rb") as f:
                    body = f.read()
            else:
                body = provider.stream(req, t).encode()
            sizes, i, k = args.chunk_sizes, 0, 0
            while i < len(body):
                p = body[i:i + sizes[k % len(sizes)]]
                i += len(p)
                k += 1
                self.wfile.write(b"%x\r\n%s\r\n" % (len(p), p))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    ThreadingHTTPServer.daemon_threads = True
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
