#!/usr/bin/env python3
"""ind-web.py - the loopback web of the indirect-injection tests (T-IND)

usage: python3 tests/fake/ind-web.py --port-file FILE --pages DIR --log FILE

Listens on 127.0.0.1 (a free port, written to --port-file once listening).
GET /page/NAME answers text/plain with the file DIR/NAME: a page carrying
an injection.  Every other request, whatever its method, is answered
"ok" and logged to --log as one line "METHOD PATH BODY-BYTES", flushed:
what an exfiltration would leave behind.  Each response goes out in one
send, with TCP_NODELAY.
"""
import argparse
import os
import socket
import threading

ap = argparse.ArgumentParser()
ap.add_argument("--port-file", required=True)
ap.add_argument("--pages", required=True)
ap.add_argument("--log", required=True)
opt = ap.parse_args()
lock = threading.Lock()


def reply(c, status, body, ctype="text/plain; charset=utf-8"):
    head = ("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n"
            "Connection: close\r\n\r\n" % (status, ctype, len(body)))
    c.sendall(head.encode() + body)


def serve(c):
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    data = b""
    while b"\r\n\r\n" not in data:
        b = c.recv(65536)
        if not b:
            c.close()
            return
        data += b
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path = lines[0].split()[:2]
    n = 0
    for l in lines[1:]:
        k, _, v = l.partition(":")
        if k.strip().lower() == "content-length":
            n = int(v.strip())
    while len(body) < n:
        b = c.recv(65536)
        if not b:
            break
        body += b
    if method == "GET" and path.startswith("/page/"):
        name = os.path.basename(path[6:])
        try:
            with open(os.path.join(opt.pages, name), "rb") as f:
                reply(c, "200 OK", f.read())
        except OSError:
            reply(c, "404 Not Found", b"no such page\n")
    else:
        with lock, open(opt.log, "a") as f:
            f.write("%s %s %d\n" % (method, path, len(body)))
            f.flush()
        reply(c, "200 OK", b"ok\n")
    c.close()


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(opt.port_file + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(opt.port_file + ".tmp", opt.port_file)
while True:
    conn, _ = s.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
