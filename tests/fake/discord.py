#!/usr/bin/env python3
"""discord.py - a fake Discord (REST API v10 and Gateway) for oxi's tests

usage: python3 tests/fake/discord.py --port-file FILE [--log FILE]
           [--token TOKEN] [--bot-id ID] [--bot-name NAME]
           [--heartbeat MS] [--bucket N] [--window S] [--files DIR]
           [--threads JSON] [--port N]

Listens on 127.0.0.1 (a free port, written to --port-file once
listening), one thread per connection, TCP_NODELAY, each response
written with one send; the Gateway is a WebSocket on the same port
(tests/fake/wsbase.py).  Every REST call is appended to --log as one
JSON line {"method","path","body","ts"} (never the Authorization
header), every Gateway payload received as {"gw":op,"d":...} with the
token replaced by "<token>".

REST, under /api/v10 (a wrong "Authorization: Bot TOKEN" answers 401
{"message":"401: Unauthorized","code":0}):
  GET  /gateway/bot                 {"url":"ws://127.0.0.1:PORT/gateway"}
  GET  /users/@me                   the bot
  POST /channels/C/messages         a message: content (1 to 2000
                                    characters), message_reference,
                                    components; 400 code 50006 when empty,
                                    50035 when too long; with
                                    enforce_nonce a nonce seen before
                                    answers its message, none created
  PATCH /channels/C/messages/M      an edit; 404 code 10008 if unknown
  POST /channels/C/typing           204
  POST /interactions/I/T/callback   204 (no Authorization: T is the
                                    interaction's token); 404 code 10062
                                    for an unknown one
Each answer has X-RateLimit-Limit, -Remaining, -Reset-After and
-Bucket: with --bucket N a route (verb and channel) takes N calls a
--window S seconds (default 1), then answers 429 {"retry_after":...,
"global":false} until the window ends.
  GET  /cdn/NAME                    a file of --files DIR (no token)

Gateway (any path): Hello with heartbeat_interval --heartbeat (default
45000); Identify checks the token (close 4004) and that the intents hold
MESSAGE_CONTENT (close 4014), starts a session and sends READY
(session_id, resume_gateway_url ws://127.0.0.1:PORT/resume, user), then
a GUILD_CREATE with the threads of --threads ([{"id","parent_id"}]);
Resume replays every event of the session past its seq, then RESUMED,
or answers Invalid Session (false) for an unknown session; a heartbeat
is acknowledged (op 11).  Events fed while no connection is live wait:
in the session, for a resume, or for the next READY.

Control (no token):
  POST /control/events     a JSON array (or one): a message object (a
                           MESSAGE_CREATE; id, timestamp, type and
                           attachments filled in) or {"t":T,"d":D}
  POST /control/click      {"message_id","custom_id","user","guild_id"}:
                           an INTERACTION_CREATE of that button
  POST /control/drop       drops the live connection (TCP, no close):
                           {"dropped":false} when none was live
  POST /control/close      {"code":C}: a close frame with code C
  POST /control/op         {"op":7} reconnect, {"op":9,"d":false} ...
  POST /control/noack      {"count":N}: the next N heartbeats unanswered
  POST /control/fail       {"method","path" (a prefix, after /api/v10),
                           "status","code","message","retry_after",
                           "global","count"}: the next count calls fail
  POST /control/expire     the session is forgotten (a resume fails)
  GET  /control/state      {"messages":{channel:[{id,content,components,
                           edits,reference}]},"identifies","resumes",
                           "heartbeats","acks","connected","seq",
                           "callbacks":[...],"calls","limited" (429s of
                           --bucket),"drops"}
"""
import argparse
import itertools
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wsbase  # noqa: E402

ARGS = None
LOCK = threading.Lock()
IDS = itertools.count(1100000000000000000)
STATE = {
    "messages": {}, "identifies": 0, "resumes": 0, "heartbeats": 0,
    "acks": 0, "callbacks": [], "calls": 0, "closes": [], "limited": 0, "drops": 0,
}
SESSION = {"id": None, "seq": 0, "events": []}   # the one session
PENDING = []            # events fed before any session
LIVE = {"ws": None, "ready": False, "noack": 0}
FAILS = []
BUCKETS = {}
INTERACTIONS = {}       # id -> token
NONCES = {}             # an enforced nonce -> its message


def newid():
    return str(next(IDS))


def log(entry):
    if not ARGS.log:
        return
    entry["ts"] = time.time()
    with LOCK:
        with open(ARGS.log, "a") as f:
            f.write(json.dumps(entry) + "\n")


def bot():
    return {"id": ARGS.bot_id, "username": ARGS.bot_name, "bot": True,
            "discriminator": "0", "global_name": None}


def send(ws, payload):
    try:
        ws.send_text(json.dumps(payload))
        return True
    except OSError:
        return False


def dispatch(t, d):
    """An event into the session, sent at once if a connection is live."""
    with LOCK:
        if SESSION["id"] is None:
            PENDING.append((t, d))
            return
        SESSION["seq"] += 1
        ev = {"op": 0, "t": t, "s": SESSION["seq"], "d": d}
        SESSION["events"].append(ev)
        ws = LIVE["ws"] if LIVE["ready"] else None
        if ws is not None:
            send(ws, ev)


def message(d):
    m = dict(d)
    m.setdefault("id", newid())
    m.setdefault("type", 0)
    m.setdefault("timestamp", "2026-11-26T10:00:00.123000+00:00")
    m.setdefault("attachments", [])
    m.setdefault("mentions", [])
    m.setdefault("embeds", [])
    m.setdefault("content", "")
    m.setdefault("author", {"id": "2001", "username": "ann",
                            "global_name": "Ann"})
    return m


def ready(ws):
    with LOCK:
        STATE["identifies"] += 1
        SESSION["id"] = "s%d" % STATE["identifies"]
        SESSION["seq"] = 1
        ev = {"op": 0, "t": "READY", "s": 1, "d": {
            "v": 10, "session_id": SESSION["id"], "user": bot(),
            "resume_gateway_url": "ws://127.0.0.1:%d/resume" % ARGS.port,
            "guilds": [], "application": {"id": ARGS.bot_id}}}
        SESSION["events"] = [ev]
        LIVE["ready"] = True
        pend = list(PENDING)
        PENDING.clear()
    send(ws, ev)
    threads = json.loads(ARGS.threads) if ARGS.threads else []
    dispatch("GUILD_CREATE", {"id": "900", "name": "g", "threads": threads,
                              "channels": []})
    for t, d in pend:
        dispatch(t, d)


def resume(ws, d):
    with LOCK:
        STATE["resumes"] += 1
        ok = SESSION["id"] is not None and d.get("session_id") == SESSION["id"]
        if ok:
            seq = d.get("seq") or 0
            for ev in SESSION["events"]:
                if ev["s"] > seq:
                    send(ws, ev)
            SESSION["seq"] += 1
            ev = {"op": 0, "t": "RESUMED", "s": SESSION["seq"], "d": {}}
            SESSION["events"].append(ev)
            send(ws, ev)
            LIVE["ready"] = True
    if not ok:
        send(ws, {"op": 9, "d": False})


def gateway(ws):
    with LOCK:
        old = LIVE["ws"]
        LIVE["ws"] = ws
        LIVE["ready"] = False
    if old is not None and old is not ws:
        old.drop()
    send(ws, {"op": 10, "d": {"heartbeat_interval": ARGS.heartbeat}})
    while True:
        m = ws.recv(timeout=1)
        if m is None:
            continue
        if m.op in ("eof", "close"):
            if m.op == "close":
                STATE["closes"].append(m.code)
            break
        if m.op != "text":
            continue
        try:
            p = json.loads(m.data)
        except ValueError:
            continue
        op, d = p.get("op"), p.get("d")
        shown = json.loads(json.dumps(p).replace(ARGS.token, "<token>"))
        log({"gw": op, "d": shown.get("d")})
        if op == 1:
            with LOCK:
                STATE["heartbeats"] += 1
                mute = LIVE["noack"] > 0
                if mute:
                    LIVE["noack"] -= 1
                else:
                    STATE["acks"] += 1
            if not mute:
                send(ws, {"op": 11})
        elif op in (2, 6) and (not isinstance(d, dict) or
                               d.get("token") != ARGS.token):
            ws.close(4004, "Authentication failed.")
            break
        elif op == 2:
            if not (d.get("intents", 0) & 32768):
                ws.close(4014, "Disallowed intent(s).")
                break
            ready(ws)
        elif op == 6:
            resume(ws, d)
    with LOCK:
        if LIVE["ws"] is ws:
            LIVE["ws"] = None
            LIVE["ready"] = False


def bucket(route):
    """True if route may be called now; the headers it answers with."""
    now = time.time()
    with LOCK:
        b = BUCKETS.get(route)
        if b is None or now >= b["reset"]:
            b = BUCKETS[route] = {"left": ARGS.bucket or 50,
                                  "reset": now + ARGS.window}
        left = b["left"]
        if left > 0 and ARGS.bucket:
            b["left"] -= 1
        after = max(b["reset"] - now, 0.001)
        hdr = [("X-RateLimit-Limit", str(ARGS.bucket or 50)),
               ("X-RateLimit-Remaining", str(max(b["left"], 0))),
               ("X-RateLimit-Reset-After", "%.3f" % after),
               ("X-RateLimit-Bucket", "b-" + route.replace(" ", "-"))]
    return left > 0 or not ARGS.bucket, after, hdr


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body=None, headers=()):
        data = b"" if body is None else json.dumps(body).encode()
        head = "HTTP/1.1 %d X\r\n" % status
        for k, v in headers:
            head += "%s: %s\r\n" % (k, v)
        if body is not None:
            head += "Content-Type: application/json\r\n"
        head += "Content-Length: %d\r\n\r\n" % len(data)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY,
                                   1)
        self.wfile.write(head.encode() + data)
        self.wfile.flush()

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def do_GET(self):
        if wsbase.is_upgrade(self):
            ws = wsbase.accept(self)
            if ws:
                try:
                    gateway(ws)
                except (OSError, EOFError):
                    pass
            return
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_PATCH(self):
        self.route("PATCH")

    def control(self, what, b):
        if what == "events":
            for e in b if isinstance(b, list) else [b]:
                if "t" in e and "d" in e:
                    dispatch(e["t"], e["d"])
                else:
                    dispatch("MESSAGE_CREATE", message(e))
        elif what == "click":
            found = None
            with LOCK:
                for ch, ms in STATE["messages"].items():
                    for m in ms:
                        if m["id"] == b.get("message_id"):
                            found = (ch, m)
            ch, m = found or (b.get("channel_id", "0"), {"id": "0"})
            iid = newid()
            tok = "itok-" + iid
            INTERACTIONS[iid] = (tok, ch, m["id"])
            d = {"id": iid, "type": 3, "token": tok, "version": 1,
                 "application_id": ARGS.bot_id, "channel_id": ch,
                 "data": {"custom_id": b.get("custom_id"),
                          "component_type": 2},
                 "message": {"id": m["id"], "channel_id": ch,
                             "content": m.get("content", "")}}
            user = b.get("user") or {"id": "2001", "username": "ann"}
            if b.get("guild_id"):
                d["guild_id"] = b["guild_id"]
                d["member"] = {"user": user}
            else:
                d["user"] = user
            dispatch("INTERACTION_CREATE", d)
        elif what == "drop":
            ws = LIVE["ws"] if LIVE["ready"] else None
            if ws is not None:
                ws.drop()
                with LOCK:
                    STATE["drops"] += 1
            return self.answer(200, {"ok": True, "dropped": ws is not None})
        elif what == "close":
            ws = LIVE["ws"]
            if ws is not None:
                ws.send_close(b.get("code", 1000), "")
        elif what == "op":
            ws = LIVE["ws"]
            if ws is not None:
                send(ws, b)
        elif what == "noack":
            LIVE["noack"] = b.get("count", 1)
        elif what == "fail":
            FAILS.append(dict(b))
        elif what == "expire":
            with LOCK:
                SESSION["id"] = None
        else:
            return self.answer(404, {"message": "no such control"})
        self.answer(200, {"ok": True})

    def state(self):
        with LOCK:
            s = dict(STATE)
            s["connected"] = LIVE["ws"] is not None and LIVE["ready"]
            s["seq"] = SESSION["seq"]
            s["session"] = SESSION["id"]
            s = json.loads(json.dumps(s))
        self.answer(200, s)

    def failed(self, method, path):
        with LOCK:
            for f in FAILS:
                if f.get("method", method) == method and \
                        path.startswith(f.get("path", "")) and \
                        f.get("count", 1) > 0:
                    f["count"] = f.get("count", 1) - 1
                    return f
        return None

    def route(self, method):
        path = self.path.split("?")[0]
        b = self.body() if method != "GET" else None
        if path.startswith("/control/"):
            if path == "/control/state":
                return self.state()
            return self.control(path[9:], b or {})
        if path.startswith("/cdn/") and ARGS.files:
            name = os.path.basename(path[5:])
            try:
                with open(os.path.join(ARGS.files, name), "rb") as f:
                    data = f.read()
            except OSError:
                return self.answer(404, {"message": "Not Found"})
            self.connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" %
                len(data) + data)
            return
        if not path.startswith("/api/v10/"):
            return self.answer(404, {"message": "404: Not Found", "code": 0})
        path = path[8:]
        with LOCK:
            STATE["calls"] += 1
        log({"method": method, "path": path, "body": b})
        parts = path.strip("/").split("/")
        if parts[0] == "interactions" and len(parts) == 4:
            return self.callback(parts[1], parts[2], b)
        if self.headers.get("Authorization") != "Bot " + ARGS.token:
            return self.answer(401, {"message": "401: Unauthorized",
                                     "code": 0})
        route = method + " " + "/".join(parts[:2])
        ok, after, hdr = bucket(route)
        f = self.failed(method, path)
        if f:
            st = f.get("status", 500)
            body = {"message": f.get("message", "failed"),
                    "code": f.get("code", 0)}
            extra = []
            if st == 429:
                body["retry_after"] = f.get("retry_after", 0.2)
                body["global"] = bool(f.get("global"))
                extra = [("Retry-After", str(int(body["retry_after"]) + 1))]
                if f.get("global"):
                    extra.append(("X-RateLimit-Global", "true"))
            return self.answer(st, body, hdr + extra)
        if not ok:
            with LOCK:
                STATE["limited"] += 1
            return self.answer(429, {"message": "You are being rate "
                                     "limited.", "retry_after":
                                     round(after, 3), "global": False},
                               hdr + [("X-RateLimit-Scope", "user")])
        if method == "GET" and path == "/gateway/bot":
            return self.answer(200, {"url": "ws://127.0.0.1:%d/gateway" %
                                     ARGS.port, "shards": 1}, hdr)
        if method == "GET" and path == "/users/@me":
            return self.answer(200, bot(), hdr)
        if parts[0] == "channels" and len(parts) >= 3:
            return self.channel(method, parts, b or {}, hdr)
        self.answer(404, {"message": "404: Not Found", "code": 0}, hdr)

    def channel(self, method, parts, b, hdr):
        ch = parts[1]
        if method == "POST" and parts[2] == "typing":
            return self.answer(204, None, hdr)
        if parts[2] != "messages":
            return self.answer(404, {"message": "404: Not Found"}, hdr)
        content = b.get("content") or ""
        if len(content) > 2000:
            return self.answer(400, {"message": "Invalid Form Body",
                                     "code": 50035}, hdr)
        if method == "POST" and len(parts) == 3:
            if not content and not b.get("components"):
                return self.answer(400, {"message": "Cannot send an empty "
                                         "message", "code": 50006}, hdr)
            nonce = b.get("nonce") if b.get("enforce_nonce") else None
            with LOCK:
                old = NONCES.get(nonce) if nonce else None
            if old is not None:
                return self.answer(200, old, hdr)
            m = {"id": newid(), "channel_id": ch, "content": content,
                 "components": b.get("components", []), "edits": 0,
                 "reference": (b.get("message_reference") or {}).get(
                     "message_id"), "author": bot()}
            with LOCK:
                STATE["messages"].setdefault(ch, []).append(m)
                if nonce:
                    NONCES[nonce] = m
            return self.answer(200, m, hdr)
        if method == "PATCH" and len(parts) == 4:
            with LOCK:
                for m in STATE["messages"].get(ch, []):
                    if m["id"] == parts[3]:
                        if "content" in b:
                            m["content"] = content
                        if "components" in b:
                            m["components"] = b["components"]
                        m["edits"] += 1
                        return self.answer(200, m, hdr)
            return self.answer(404, {"message": "Unknown Message",
                                     "code": 10008}, hdr)
        self.answer(405, {"message": "405: Method Not Allowed"}, hdr)

    def callback(self, iid, tok, b):
        it = INTERACTIONS.get(iid)
        if not it or it[0] != tok:
            return self.answer(404, {"message": "Unknown interaction",
                                     "code": 10062})
        with LOCK:
            STATE["callbacks"].append({"id": iid, "body": b})
            d = (b or {}).get("data") or {}
            for m in STATE["messages"].get(it[1], []):
                if m["id"] == it[2] and b.get("type") == 7:
                    m["content"] = d.get("content", m["content"])
                    m["components"] = d.get("components", m["components"])
        self.answer(204)


class Server(ThreadingHTTPServer):
    daemon_threads = True


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--token", default="fake.discord.token-0123456789abcdef")
    ap.add_argument("--bot-id", default="1000")
    ap.add_argument("--bot-name", default="oxibot")
    ap.add_argument("--heartbeat", type=int, default=45000)
    ap.add_argument("--bucket", type=int, default=0)
    ap.add_argument("--window", type=float, default=1.0)
    ap.add_argument("--files")
    ap.add_argument("--threads")
    ap.add_argument("--port", type=int, default=0)
    ARGS = ap.parse_args()
    srv = Server(("127.0.0.1", ARGS.port), Handler)
    ARGS.port = srv.server_address[1]
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % ARGS.port)
    os.rename(tmp, ARGS.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
