#!/usr/bin/env python3
"""web.py - a fake web for oxi-tool's web tools

usage: python3 tests/fake/web.py --port-file FILE [--key KEY] [--slow S]

Listens on 127.0.0.1 (a free port, written to --port-file once
listening), one thread per connection, TCP_NODELAY.  Every request is
logged on stdout as "METHOD PATH" (the path with its query), flushed,
so tests can count what reached it.

  GET /page.html        an HTML page: title, script, style, nav, headings,
                        a list, links, entities
  GET /text.txt         text/plain
  GET /data.json        application/json
  GET /latin1.html      text/html; charset=iso-8859-1, not UTF-8
  GET /image.png        image/png bytes
  GET /notfound         404
  GET /redirect?to=URL[&code=N]   a redirect (302 unless code) to URL
  GET /chain/N          N redirects in a row, then a page
  GET /slow             headers, then nothing for --slow seconds
                        (default 30), then the body
  GET /huge             20 MiB of text, sent in pieces
  ANY /echo[?status=N]  JSON of the method, path, headers and body, with
                        status N (default 200) and a header X-Fake: yes
  GET /brave/...?q=Q&count=N      Brave Search API: needs the header
                        X-Subscription-Token: KEY, else 401 (whose body
                        repeats the token, as careless servers do)
  GET /searxng/search?q=Q&format=json   SearXNG: 10 results; 403 unless
                        format=json
  POST /tavily/search   Tavily: JSON {"query","max_results"}, needs
                        Authorization: Bearer KEY
KEY is --key (default "test-search-key").
"""
import argparse
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ARGS = None
LOCK = threading.Lock()

PAGE = b"""<!DOCTYPE html>
<html><head><title>Fake &amp; Page</title>
<style>body { color: red }</style>
<script>document.write("<p>script text</p>")</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<main><h1>Main heading</h1>
<p>First paragraph with a <a href="/text.txt">text link</a> and
<a href="https://example.org/x">an outside link</a>.</p>
<h2>Items</h2><ul><li>apple</li><li>pear &amp; plum</li></ul>
<p>caf&eacute; &#8211; &lt;ok&gt;</p></main>
<footer>Footer junk</footer></body></html>
"""


def results(q, n, desc_key):
    out = []
    for i in range(1, n + 1):
        out.append({"title": "Result <strong>%d</strong> for %s" % (i, q),
                    "url": "https://example.org/%d" % i,
                    desc_key: "Snippet %d &amp; more about %s" % (i, q)})
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):
        pass

    def log(self):
        with LOCK:
            print("%s %s" % (self.command, self.path), flush=True)

    def reply(self, status, ctype, body, headers=()):
        head = "HTTP/1.0 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\n" % (
            status, ctype, len(body))
        for k, v in headers:
            head += "%s: %s\r\n" % (k, v)
        head += "Connection: close\r\n\r\n"
        try:
            self.wfile.write(head.encode() + body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def handle_any(self):
        self.log()
        u = urlsplit(self.path)
        q = parse_qs(u.query)
        p = u.path
        data = self.body()
        if p == "/echo":
            st = int(q.get("status", ["200"])[0])
            doc = {"method": self.command, "path": self.path,
                   "headers": {k.lower(): v for k, v in self.headers.items()},
                   "body": data.decode("utf-8", "replace")}
            self.reply(st, "application/json", json.dumps(doc).encode(),
                       [("X-Fake", "yes")])
        elif p == "/page.html":
            self.reply(200, "text/html; charset=utf-8", PAGE)
        elif p == "/text.txt":
            self.reply(200, "text/plain", b"plain text\nsecond line\n")
        elif p == "/data.json":
            self.reply(200, "application/json", b'{"a": [1, 2]}')
        elif p == "/latin1.html":
            self.reply(200, "text/html; charset=iso-8859-1",
                       b"<p>caf\xe9 cr\xe8me</p>")
        elif p == "/image.png":
            self.reply(200, "image/png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
        elif p == "/redirect":
            code = int(q.get("code", ["302"])[0])
            self.reply(code, "text/plain", b"moved\n",
                       [("Location", q.get("to", ["/"])[0])])
        elif p.startswith("/chain/"):
            n = int(p[7:])
            if n > 0:
                self.reply(302, "text/plain", b"",
                           [("Location", "/chain/%d" % (n - 1))])
            else:
                self.reply(200, "text/plain", b"end of chain\n")
        elif p == "/slow":
            try:
                self.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Type: "
                                 b"text/plain\r\nContent-Length: 5\r\n\r\n")
                time.sleep(ARGS.slow)
                self.wfile.write(b"late\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif p == "/huge":
            size = 20 * 1024 * 1024
            chunk = (b"x" * 1023 + b"\n") * 64
            try:
                self.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Type: "
                                 b"text/plain\r\nContent-Length: %d\r\n\r\n"
                                 % size)
                sent = 0
                while sent < size:
                    self.wfile.write(chunk)
                    sent += len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                with LOCK:
                    print("huge: client went away after %d bytes" % sent,
                          flush=True)
        elif p.startswith("/brave/"):
            tok = self.headers.get("X-Subscription-Token")
            if tok != ARGS.key:
                self.reply(401, "application/json", json.dumps(
                    {"error": "bad token %s" % tok}).encode())
                return
            n = int(q.get("count", ["20"])[0])
            query = q.get("q", [""])[0]
            self.reply(200, "application/json", json.dumps(
                {"web": {"results": results(query, n, "description")}}
            ).encode())
        elif p == "/searxng/search":
            if q.get("format", [""])[0] != "json":
                self.reply(403, "text/html", b"<p>forbidden</p>")
                return
            query = q.get("q", [""])[0]
            self.reply(200, "application/json", json.dumps(
                {"results": results(query, 10, "content")}).encode())
        elif p == "/tavily/search" and self.command == "POST":
            if self.headers.get("Authorization") != "Bearer " + ARGS.key:
                self.reply(401, "application/json",
                           b'{"detail":{"error":"Unauthorized"}}')
                return
            req = json.loads(data)
            self.reply(200, "application/json", json.dumps(
                {"query": req["query"], "results": results(
                    req["query"], int(req.get("max_results", 5)),
                    "content")}).encode())
        else:
            self.reply(404, "text/plain", b"not found\n")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any
    do_OPTIONS = do_HEAD = handle_any


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--key", default="test-search-key")
    ap.add_argument("--slow", type=float, default=30)
    ARGS = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(ARGS.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    import os
    os.rename(ARGS.port_file + ".tmp", ARGS.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
