#!/usr/bin/env python3
"""wsbase.py - a small WebSocket server (RFC 6455) for oxi's fakes

Python standard library only.  Two ways to use it:

1. Inside a fake built on http.server (ThreadingHTTPServer: one thread
   per connection), in do_GET:

       import wsbase
       if wsbase.is_upgrade(self):
           ws = wsbase.accept(self)          # the 101, on this connection
           ws.send_text('{"type":"hello"}')
           while True:
               m = ws.recv(timeout=5)        # None: the time ran out
               if m is None or m.op in ("close", "eof"):
                   break
               ...
           return                            # the connection ends

   accept(handler, first=[b"..."], headers=[("Name", "value")],
   bad_accept=False) answers 101; the frames of first (built with
   frame() or text_frame()) go out in the same send as the 101.
   refuse(handler, status, body) answers a plain HTTP error instead.

2. Standalone: srv = serve(on_ws, port_file=F) listens on 127.0.0.1 (a
   free port, or port=N), writes the port to F once listening, and runs
   on_ws(ws, handler) in the connection's thread for every upgrade
   request; on_http(handler) (optional) gets the other GETs and POSTs;
   on_accept(handler) (optional) may answer an upgrade itself.

A WS object (one per client; srv.clients lists the live ones):

   send_text(s, frag=0)    a text message; frag > 0: in frames of frag
                           bytes (fragmentation on demand)
   send_binary(b, frag=0)  the same, binary
   send_ping(b=b""), send_pong(b=b"")
   send_close(code=1000, reason="")   code None: an empty close frame
   send_fragments(op, payload, sizes, between=None)
                           a message in frames of these sizes (the rest
                           in the last), the frame between (bytes) sent
                           after each but the last: a ping, say
   send_frame(op, payload, fin=True, rsv=0, mask=False, length=None)
                           one raw frame; length "16" or "64" forces a
                           longer length encoding than needed (a protocol
                           error a client must catch)
   send_raw(b)             bytes as they are, in one send
   recv(timeout=None)      the next whole message as a Msg: op "text"
                           (data str), "binary", "pong" (data bytes),
                           "close" (code, reason), or "eof" (the client
                           dropped TCP); None if timeout seconds passed.
                           Pings are answered (auto_pong) and also
                           returned as op "ping" when return_pings is set;
                           a close frame is echoed (auto_close_echo)
   drop()                  drops the TCP connection now, no close frame
   close(code=1000, reason="", wait=1.0)
                           sends a close, waits for the echo, ends TCP

   ws.frames  every frame received: (fin, op, masked, length) tuples
   ws.errors  what the client did wrong: "unmasked frame", "bad utf-8",
              "rsv bits", ... (tests assert it stays empty)
   ws.path, ws.headers    the request's path and headers

Every frame and every handshake response goes out in one send, with
TCP_NODELAY set.

Run as a program it is an echo server for the client's tests (t1004):
    python3 tests/fake/wsbase.py --port-file F [--log FILE]
                                 [--port N] [--tls CERT KEY]
the path chooses a scenario (see SCENARIOS below); --tls: wss://.
"""

import argparse
import base64
import hashlib
import json
import os
import select
import socket
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OPS = {0: "cont", 1: "text", 2: "binary", 8: "close", 9: "ping", 10: "pong"}
CODES = {"cont": 0, "text": 1, "binary": 2, "close": 8, "ping": 9,
         "pong": 10}


def accept_value(key):
    """Sec-WebSocket-Accept for a Sec-WebSocket-Key."""
    d = hashlib.sha1((key + GUID).encode()).digest()
    return base64.b64encode(d).decode()


def frame(op, payload=b"", fin=True, rsv=0, mask=False, length=None):
    """The bytes of one frame (op a name or a number)."""
    if isinstance(op, str):
        op = CODES[op]
    if isinstance(payload, str):
        payload = payload.encode()
    n = len(payload)
    b0 = (0x80 if fin else 0) | (rsv & 7) << 4 | op
    m = 0x80 if mask else 0
    if length == "64" or (length is None and n > 0xffff):
        head = struct.pack("!BBQ", b0, m | 127, n)
    elif length == "16" or (length is None and n > 125):
        head = struct.pack("!BBH", b0, m | 126, n)
    else:
        head = struct.pack("!BB", b0, m | n)
    if mask:
        key = os.urandom(4)
        payload = bytes(c ^ key[i & 3] for i, c in enumerate(payload))
        head += key
    return head + payload


def text_frame(s):
    """A whole text message in one frame."""
    return frame("text", s.encode())


def close_payload(code, reason=""):
    if code is None:
        return b""
    return struct.pack("!H", code) + reason.encode()


class Msg:
    """A message received: op, data; for "close" also code and reason."""

    def __init__(self, op, data=b"", code=None, reason=""):
        self.op, self.data, self.code, self.reason = op, data, code, reason

    def __repr__(self):
        return "Msg(%r, %r, %r, %r)" % (self.op, self.data, self.code,
                                        self.reason)


class WS:
    """The server side of one WebSocket connection."""

    def __init__(self, sock, buffered=b"", path="/", headers=None):
        self.sock = sock
        self.buf = bytearray(buffered)
        self.path = path
        self.headers = headers or {}
        self.frames = []
        self.errors = []
        self.auto_pong = True
        self.auto_close_echo = True
        self.return_pings = False
        self.closed_sent = False
        self.dead = False
        self.lock = threading.Lock()
        self.max = 64 * 1024 * 1024

    # sending
    def send_raw(self, b):
        with self.lock:
            try:
                self.sock.sendall(b)
            except OSError:
                self.dead = True
                raise

    def send_frame(self, op, payload=b"", fin=True, rsv=0, mask=False,
                   length=None):
        self.send_raw(frame(op, payload, fin, rsv, mask, length))

    def send_fragments(self, op, payload, sizes, between=None):
        if isinstance(payload, str):
            payload = payload.encode()
        parts, i = [], 0
        for s in sizes:
            parts.append(payload[i:i + s])
            i += s
        parts.append(payload[i:])
        for k, p in enumerate(parts):
            last = k == len(parts) - 1
            self.send_frame(op if k == 0 else "cont", p, fin=last)
            if between is not None and not last:
                self.send_raw(between)

    def _send_msg(self, op, data, frag):
        if frag and len(data) > frag:
            sizes = [frag] * ((len(data) - 1) // frag)
            self.send_fragments(op, data, sizes)
        else:
            self.send_frame(op, data)

    def send_text(self, s, frag=0):
        self._send_msg("text", s.encode() if isinstance(s, str) else s,
                       frag)

    def send_binary(self, b, frag=0):
        self._send_msg("binary", b, frag)

    def send_ping(self, b=b""):
        self.send_frame("ping", b)

    def send_pong(self, b=b""):
        self.send_frame("pong", b)

    def send_close(self, code=1000, reason=""):
        self.closed_sent = True
        self.send_frame("close", close_payload(code, reason))

    def drop(self):
        """Ends the TCP connection at once, no close frame."""
        self.dead = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def close(self, code=1000, reason="", wait=1.0):
        try:
            self.send_close(code, reason)
            end = time.time() + wait
            while time.time() < end:
                m = self.recv(timeout=max(0.0, end - time.time()))
                if m is None or m.op in ("close", "eof"):
                    break
        except OSError:
            pass
        self.drop()

    # receiving
    def _fill(self, n, end):
        """Reads until buf holds n bytes: True, or False (time, eof)."""
        while len(self.buf) < n:
            left = None if end is None else end - time.time()
            if left is not None and left <= 0:
                return False
            pend = getattr(self.sock, "pending", None)
            if not (pend and pend()):
                r, _, _ = select.select([self.sock], [], [], left)
                if not r:
                    return False
            try:
                b = self.sock.recv(65536)
            except OSError:
                b = b""
            if not b:
                self.dead = True
                raise EOFError
            self.buf += b
        return True

    def _frame(self, end):
        """The next frame (fin, op, payload), or None on timeout."""
        if not self._fill(2, end):
            return None
        b0, b1 = self.buf[0], self.buf[1]
        n, hdr = b1 & 0x7f, 2
        if n == 126:
            hdr = 4
        elif n == 127:
            hdr = 10
        masked = b1 & 0x80
        need = hdr + (4 if masked else 0)
        if not self._fill(need, end):
            return None
        if hdr == 4:
            n = struct.unpack("!H", self.buf[2:4])[0]
        elif hdr == 10:
            n = struct.unpack("!Q", self.buf[2:10])[0]
        if n > self.max:
            self.errors.append("frame too big")
            raise EOFError
        if not self._fill(need + n, end):
            return None
        p = bytes(self.buf[need:need + n])
        if masked:
            k = self.buf[hdr:hdr + 4]
            p = bytes(c ^ k[i & 3] for i, c in enumerate(p))
        else:
            self.errors.append("unmasked frame")
        if b0 & 0x70:
            self.errors.append("rsv bits")
        del self.buf[:need + n]
        fin, op = bool(b0 & 0x80), b0 & 0x0f
        self.frames.append((fin, op, bool(masked), n))
        return fin, op, p

    def recv(self, timeout=None):
        end = None if timeout is None else time.time() + timeout
        parts, mop = [], None
        while True:
            try:
                f = self._frame(end)
            except EOFError:
                return Msg("eof")
            if f is None:
                return None
            fin, op, p = f
            if op == 9:
                if self.auto_pong and not self.closed_sent:
                    self.send_pong(p)
                if self.return_pings:
                    return Msg("ping", p)
                continue
            if op == 10:
                return Msg("pong", p)
            if op == 8:
                code, reason = None, ""
                if len(p) >= 2:
                    code = struct.unpack("!H", p[:2])[0]
                    reason = p[2:].decode("utf-8", "replace")
                if self.auto_close_echo and not self.closed_sent:
                    try:
                        self.send_close(code, "")
                    except OSError:
                        pass
                return Msg("close", p, code, reason)
            if op not in (0, 1, 2):
                self.errors.append("reserved opcode %d" % op)
                continue
            if op != 0:
                if mop is not None:
                    self.errors.append("new message inside a fragmented one")
                mop = op
            elif mop is None:
                self.errors.append("continuation with no message")
                continue
            parts.append(p)
            if fin:
                data = b"".join(parts)
                if mop == 1:
                    try:
                        return Msg("text", data.decode("utf-8"))
                    except UnicodeDecodeError:
                        self.errors.append("bad utf-8")
                        return Msg("text", data.decode("utf-8", "replace"))
                return Msg("binary", data)


def is_upgrade(h):
    """True if the request of handler h asks for a WebSocket."""
    return (h.headers.get("Upgrade", "").lower() == "websocket" and
            "upgrade" in h.headers.get("Connection", "").lower())


def refuse(h, status=400, body="not a websocket request"):
    """Answers the handler's request with a plain HTTP error."""
    b = body.encode()
    head = ("HTTP/1.1 %d Refused\r\nContent-Type: text/plain\r\n"
            "Content-Length: %d\r\nConnection: close\r\n\r\n" %
            (status, len(b)))
    h.connection.sendall(head.encode() + b)
    h.close_connection = True


def accept(h, first=(), headers=(), bad_accept=False):
    """The 101 on the handler's connection: a WS, or None (refused)."""
    key = h.headers.get("Sec-WebSocket-Key", "")
    try:
        ok = len(base64.b64decode(key, validate=True)) == 16
    except ValueError:
        ok = False
    if not ok or h.headers.get("Sec-WebSocket-Version") != "13":
        refuse(h, 400, "bad Sec-WebSocket-Key or version")
        return None
    acc = accept_value(key)
    if bad_accept:
        acc = accept_value(key + "x")
    head = ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n" % acc)
    for k, v in headers:
        head += "%s: %s\r\n" % (k, v)
    head += "\r\n"
    h.close_connection = True
    sock = h.connection
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    # bytes the client sent after its request, read ahead by h.rfile
    pending = b""
    sock.setblocking(False)
    try:
        pending = h.rfile.read1(65536) or b""
    except (BlockingIOError, OSError):
        pass
    sock.setblocking(True)
    sock.sendall(head.encode() + b"".join(first))
    return WS(sock, pending, h.path, dict(h.headers.items()))


class _Server(ThreadingHTTPServer):
    daemon_threads = True


def serve(on_ws, port_file=None, port=0, on_http=None, on_accept=None,
          tls=None):
    """Listens on 127.0.0.1 in a thread of its own; returns the server
    (srv.port, srv.clients, srv.shutdown()).  on_accept(handler), when
    given, answers an upgrade itself: a WS (from accept() with its
    options), False (refused with refuse()), or None (the plain 101).
    tls=(certfile, keyfile): wss:// (and https://) instead."""
    clients = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            pass

        def do_GET(self):
            self.connection.setsockopt(socket.IPPROTO_TCP,
                                       socket.TCP_NODELAY, 1)
            if not is_upgrade(self):
                if on_http:
                    return on_http(self)
                return refuse(self, 404, "no such page")
            ws = on_accept(self) if on_accept else None
            if ws is None:
                ws = accept(self)
            if not ws:
                return
            clients.append(ws)
            try:
                on_ws(ws, self)
            except (OSError, EOFError):
                pass
            finally:
                clients.remove(ws)
                if not ws.dead:
                    ws.drop()

        def do_POST(self):
            if on_http:
                return on_http(self)
            return refuse(self, 404, "no such page")

    srv = _Server(("127.0.0.1", port), Handler)
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(tls[0], tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.port = srv.server_address[1]
    srv.clients = clients
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    if port_file:
        tmp = port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % srv.port)
        os.rename(tmp, port_file)
    return srv


# the echo server of t1004: one scenario per path

LOG = None
LOGLOCK = threading.Lock()


def log(ws, **kw):
    kw["path"] = ws.path.split("?")[0]
    if LOG:
        with LOGLOCK, open(LOG, "a") as f:
            f.write(json.dumps(kw, sort_keys=True) + "\n")


def echo(ws):
    """Echoes every message with its opcode until a close or eof."""
    while True:
        m = ws.recv(timeout=30)
        if m is None:
            return
        if m.op == "text":
            ws.send_text(m.data)
        elif m.op == "binary":
            ws.send_binary(m.data)
        if m.op in ("close", "eof"):
            log(ws, end=m.op, code=m.code, reason=m.reason,
                errors=ws.errors)
            return
        if m.op == "text" and m.data == "stats":
            log(ws, frames=len(ws.frames), errors=ws.errors)


SCENARIOS = """
/echo         echo
/first        a text "hello" in the 101's own send, then echo
/frag         a text "fragmented message" in three frames with a ping
              between them, then echo
/ping         sends a ping "p1", logs the pong's payload, then echo
/close        sends close 4004 "bad token" and logs what comes back
/drop         drops TCP after the 101
/masked       a masked text frame (the client fails with 1002)
/rsv          a text frame with RSV1 set (1002)
/badutf8      a text of bytes that are not UTF-8 (1007)
/badlen       a 5-byte text with a 16-bit length (1002)
/badclose     a close frame with code 1005 in it (1002)
/cont         a continuation frame first (1002)
/big?n=N      a binary message of N bytes in frames of 64 KiB
/bighead?n=N  the header of a binary frame of N bytes and 10 of them
/slow         the 101, then nothing for 30 s
/refuse       401 instead of the 101
/badaccept    101 with a wrong Sec-WebSocket-Accept
/headers      sends back as text the request's X-Test header
"""


def scenario(ws, h):
    p = ws.path.split("?")[0]
    log(ws, start=p)
    if p == "/first":
        pass        # the hello went with the 101
    elif p == "/frag":
        ws.send_fragments("text", "fragmented message", [4, 6],
                          between=frame("ping", b"mid"))
    elif p == "/ping":
        ws.send_ping(b"p1")
        m = ws.recv(timeout=5)
        log(ws, got=m.op if m else None,
            data=m.data.decode() if m and m.op == "pong" else None)
    elif p == "/close":
        ws.send_close(4004, "bad token")
        m = ws.recv(timeout=5)
        log(ws, got=m.op if m else None, code=m.code if m else None)
        time.sleep(0.2)
        return
    elif p == "/drop":
        ws.drop()
        return
    elif p == "/masked":
        ws.send_frame("text", b"hidden", mask=True)
    elif p == "/rsv":
        ws.send_frame("text", b"rsv", rsv=4)
    elif p == "/badutf8":
        ws.send_frame("text", b"\xc3\x28 bad")
    elif p == "/badlen":
        ws.send_frame("text", b"short", length="16")
    elif p == "/badclose":
        ws.send_frame("close", struct.pack("!H", 1005))
    elif p == "/cont":
        ws.send_frame("cont", b"orphan")
    elif p == "/big":
        n = int(ws.path.split("n=")[1])
        ws.send_binary(bytes(i & 0xff for i in range(n)), frag=65536)
    elif p == "/bighead":
        n = int(ws.path.split("n=")[1])
        ws.send_raw(struct.pack("!BBQ", 0x82, 127, n) + b"0123456789")
    elif p == "/slow":
        time.sleep(30)
        return
    elif p == "/headers":
        ws.send_text(ws.headers.get("X-Test", ""))
    if p in ("/masked", "/rsv", "/badutf8", "/badlen", "/badclose",
             "/cont", "/bighead"):
        m = ws.recv(timeout=5)
        log(ws, got=m.op if m else None, code=m.code if m else None)
        return
    echo(ws)


def main():
    global LOG
    ap = argparse.ArgumentParser(description="WebSocket echo fake")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = ap.parse_args()
    LOG = args.log

    serve(scenario, args.port_file, args.port, on_accept=first_answer,
          tls=args.tls)
    while True:
        time.sleep(3600)


def first_answer(h):
    """The 101 of the scenarios that need another one."""
    p = h.path.split("?")[0]
    if p == "/refuse":
        refuse(h, 401, "unauthorized")
        return False
    if p == "/badaccept":
        return accept(h, bad_accept=True)
    if p == "/first":
        return accept(h, first=[text_frame("hello")])
    return None


if __name__ == "__main__":
    sys.exit(main())
