#!/usr/bin/env python3
"""slack.py - a fake Slack (Web API and Socket Mode) for oxi's tests

usage: python3 tests/fake/slack.py --port-file FILE [--log FILE]
           [--bot-token T] [--app-token T] [--bot-user U]
           [--signing-secret S] [--files DIR] [--port N]

Listens on 127.0.0.1 (a free port, written to --port-file once
listening), one thread per connection, TCP_NODELAY, each response
written with one send (wsbase.py).  Every API call is appended to --log
as one JSON line {"method","params","ts"} (never a token), and so is
every acknowledgement of an envelope ({"method":"ack"}), so tests can
assert on what reached it.

  POST /api/<method>     JSON or form parameters, the token in
                         Authorization: Bearer (a wrong or missing one:
                         {"ok":false,"error":"invalid_auth"})
  GET  /files/<id>       a file's bytes (the bot token), from --files DIR
                         (each file there is a file whose id is its name
                         without extension) or /control/file
  GET  /link/?ticket=N   Socket Mode: a ticket from apps.connections.open,
                         good once

Methods: auth.test (user_id --bot-user), apps.connections.open (the app
token only), chat.postMessage (channel, text or blocks; ts in order),
chat.update (channel, ts of a message of ours, else message_not_found),
with Slack's errors: no_text, msg_too_long (over 40000 characters),
channel_not_found (a channel starting with X).

Socket Mode: hello first; then every envelope not yet acknowledged is
sent on each new connection (Slack sends it again until it is acked,
retry_attempt counting up); an ack {"envelope_id"} removes it.

Control (no token):
  POST /control/events   lines (or a JSON array) of: an envelope as it
                         is; {"frame":{...}} as in the wire samples;
                         {"event":{...}} wrapped as events_api with a new
                         event_id; {"click":{...}} wrapped as interactive
  POST /control/fail     {"method":M,"error":E,"status":S,
                         "retry_after":R,"count":N}: the next N calls of
                         M ("*" any) fail so (status 429 with
                         Retry-After R)
  POST /control/drop     drops every socket now (no close frame):
                         {"dropped": how many were live}
  POST /control/disconnect {"reason":R}: a disconnect envelope on each
  POST /control/silent   {"on":bool}: stop (or start) answering pings
                         and sending envelopes: a zombie link
  POST /control/file     {"id","name","data_b64"}: add a file
  POST /control/deliver  {"url","body","ts","sig","form"}: POSTs body to
                         url as Slack's Events API would, signed with
                         --signing-secret (sig "bad": a wrong one; ts
                         given: that timestamp; form: as
                         payload=<body> form); answers {"status","body"}
  GET  /control/state    {"pending","acked","drops","connections","opened",
                         "calls","messages":{channel:[{ts,text,thread_ts,
                         blocks}]}}
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wsbase  # noqa: E402

ARGS = None
LOCK = threading.Lock()
STATE = {
    "pending": [],          # envelopes not yet acked, in order
    "acked": 0,
    "tickets": set(),
    "next_ticket": 1,
    "next_ev": 1,
    "next_ts": 1,
    "opened": 0,            # sockets opened
    "fails": [],
    "files": {},            # id -> (name, bytes)
    "msgs": {},             # channel -> [message]
    "calls": 0,
    "drop": 0,              # a generation: sockets older are dropped
    "drops": 0,             # drops of a live socket
    "silent": False,
    "disconnect": [],       # reasons to send, per connection generation
}
SRV = None


def log(method, params):
    if not ARGS.log:
        return
    with LOCK:
        with open(ARGS.log, "a") as f:
            f.write(json.dumps({"method": method, "params": params,
                                "ts": time.time()}) + "\n")


def injected(method):
    with LOCK:
        for f in STATE["fails"]:
            if f.get("method") in (method, "*") and f.get("count", 1) > 0:
                f["count"] = f.get("count", 1) - 1
                return dict(f)
    return None


def wrap(item):
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("frame"), dict):
        return item["frame"]
    with LOCK:
        n = STATE["next_ev"]
        STATE["next_ev"] += 1
    if isinstance(item.get("event"), dict):
        return {"envelope_id": "env-%06d" % n, "type": "events_api",
                "accepts_response_payload": False, "retry_attempt": 0,
                "retry_reason": "",
                "payload": {"type": "event_callback", "team_id": "T0TEAM",
                            "api_app_id": "A0APP",
                            "event_id": "Ev%06d" % n,
                            "event_time": int(time.time()),
                            "event": item["event"]}}
    if isinstance(item.get("click"), dict):
        return {"envelope_id": "env-%06d" % n, "type": "interactive",
                "accepts_response_payload": False,
                "payload": item["click"]}
    return item


def parse_lines(raw):
    raw = raw.strip()
    if raw.startswith("["):
        return json.loads(raw)
    return [json.loads(x) for x in raw.splitlines() if x.strip()]


CLIENTS = {}                # a live socket -> the envelope ids sent on it


def push(ws, sent):
    """the envelopes pending that ws has not had, sent on it"""
    with LOCK:
        if STATE["silent"]:
            return
        todo = [e for e in STATE["pending"] if e["envelope_id"] not in sent]
        sent.update(e["envelope_id"] for e in todo)
    for e in todo:
        ws.send_text(json.dumps(e))
        e["retry_attempt"] = e.get("retry_attempt", 0) + 1


def on_ws(ws, h):
    with LOCK:
        gen = STATE["drop"]
        STATE["opened"] += 1
        seen_disc = len(STATE["disconnect"])
    sent = set()
    ws.send_text(json.dumps({"type": "hello", "num_connections": 1,
                             "debug_info": {"host": "fake"},
                             "connection_info": {"app_id": "A0APP"}}))
    with LOCK:
        CLIENTS[ws] = sent
    try:
        serve_ws(ws, gen, seen_disc, sent)
    finally:
        with LOCK:
            CLIENTS.pop(ws, None)


def serve_ws(ws, gen, seen_disc, sent):
    while True:
        with LOCK:
            if STATE["drop"] != gen:
                ws.drop()
                return
            silent = STATE["silent"]
            disc = STATE["disconnect"][seen_disc:]
            seen_disc = len(STATE["disconnect"])
        ws.auto_pong = not silent
        push(ws, sent)
        for r in disc:
            ws.send_text(json.dumps({"type": "disconnect", "reason": r,
                                     "debug_info": {"host": "fake"}}))
        m = ws.recv(timeout=0.02)
        if m is None:
            continue
        if m.op in ("close", "eof"):
            return
        if m.op != "text" or silent:
            continue
        try:
            a = json.loads(m.data)
        except ValueError:
            continue
        eid = a.get("envelope_id") if isinstance(a, dict) else None
        with LOCK:
            before = len(STATE["pending"])
            STATE["pending"] = [e for e in STATE["pending"]
                                if e["envelope_id"] != eid]
            if len(STATE["pending"]) < before:
                STATE["acked"] += 1
        log("ack", {"envelope_id": eid})


def on_accept(h):
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(h.path).query)
    t = (q.get("ticket") or [""])[0]
    with LOCK:
        ok = t in STATE["tickets"]
        STATE["tickets"].discard(t)
    if not ok:
        wsbase.refuse(h, 401, "bad ticket")
        return False
    return None


class ApiError(Exception):
    pass


def m_auth_test(p, tok):
    return {"url": "https://fake.slack.com/", "team": "Fake",
            "user": "oxi", "team_id": "T0TEAM", "user_id": ARGS.bot_user,
            "bot_id": "B0BOT"}


def m_connections_open(p, tok):
    with LOCK:
        t = str(STATE["next_ticket"])
        STATE["next_ticket"] += 1
        STATE["tickets"].add(t)
    return {"url": "ws://127.0.0.1:%d/link/?ticket=%s" % (SRV.port, t)}


def check_text(p):
    text = p.get("text")
    if not text and not p.get("blocks"):
        raise ApiError("no_text")
    if text and len(text) > 40000:
        raise ApiError("msg_too_long")
    if not p.get("channel"):
        raise ApiError("channel_not_found")
    if str(p["channel"]).startswith("X"):
        raise ApiError("channel_not_found")


def m_post(p, tok):
    check_text(p)
    with LOCK:
        ts = "1700000000.%06d" % STATE["next_ts"]
        STATE["next_ts"] += 1
        STATE["msgs"].setdefault(p["channel"], []).append(
            {"ts": ts, "text": p.get("text"),
             "thread_ts": p.get("thread_ts"), "blocks": p.get("blocks")})
    return {"channel": p["channel"], "ts": ts,
            "message": {"text": p.get("text"), "ts": ts}}


def m_update(p, tok):
    check_text(p)
    with LOCK:
        for m in STATE["msgs"].get(p["channel"], []):
            if m["ts"] == p.get("ts"):
                m["text"] = p.get("text")
                m["blocks"] = p.get("blocks")
                break
        else:
            raise ApiError("message_not_found")
    return {"channel": p["channel"], "ts": p["ts"], "text": p.get("text")}


METHODS = {
    "auth.test": ("bot", m_auth_test),
    "apps.connections.open": ("app", m_connections_open),
    "chat.postMessage": ("bot", m_post),
    "chat.update": ("bot", m_update),
}


def reply(h, status, obj, ctype="application/json", headers=()):
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    head = "HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\n" \
        % (status, ctype, len(body))
    for k, v in headers:
        head += "%s: %s\r\n" % (k, v)
    h.wfile.write(head.encode() + b"\r\n" + body)
    h.wfile.flush()


def deliver(p):
    """POST as Slack's Events API to the receiver's webhook"""
    body = p["body"] if isinstance(p["body"], str) else json.dumps(p["body"])
    if p.get("form"):
        body = "payload=" + urllib.parse.quote_plus(body)
        ctype = "application/x-www-form-urlencoded"
    else:
        ctype = "application/json"
    ts = str(p.get("ts", int(time.time())))
    sig = "v0=" + hmac.new(ARGS.signing_secret.encode(),
                           ("v0:%s:%s" % (ts, body)).encode(),
                           hashlib.sha256).hexdigest()
    if p.get("sig") == "bad":
        sig = sig[:-1] + ("0" if sig[-1] != "0" else "1")
    hdrs = {"Content-Type": ctype, "X-Slack-Request-Timestamp": ts}
    if p.get("sig") != "none":
        hdrs["X-Slack-Signature"] = sig
    req = urllib.request.Request(p["url"], data=body.encode(),
                                 headers=hdrs, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return {"status": r.status, "body": r.read().decode()}
    except urllib.error.HTTPError as e:
        return {"status": e.code, "body": e.read().decode()}


def control(h, what, raw):
    if what == "events":
        items = [wrap(x) for x in parse_lines(raw.decode())]
        with LOCK:
            STATE["pending"].extend(e for e in items
                                    if e and "envelope_id" in e)
            live = list(CLIENTS.items())
        for ws, sent in live:       # at once, not at the socket's next turn
            try:
                push(ws, sent)
            except OSError:
                pass
        return reply(h, 200, {"ok": True, "n": len(items)})
    p = json.loads(raw) if raw.strip() else {}
    if what == "fail":
        with LOCK:
            STATE["fails"].append(p)
    elif what == "drop":
        with LOCK:
            STATE["drop"] += 1
            STATE["drops"] += 1 if SRV.clients else 0
        return reply(h, 200, {"ok": True, "dropped": len(SRV.clients)})
    elif what == "disconnect":
        with LOCK:
            STATE["disconnect"].append(p.get("reason", "refresh_requested"))
    elif what == "silent":
        with LOCK:
            STATE["silent"] = bool(p.get("on", True))
    elif what == "file":
        with LOCK:
            STATE["files"][p["id"]] = (p["name"],
                                       base64.b64decode(p["data_b64"]))
    elif what == "deliver":
        return reply(h, 200, deliver(p))
    elif what == "state":
        with LOCK:
            return reply(h, 200, {
                "pending": len(STATE["pending"]), "acked": STATE["acked"],
                "drops": STATE["drops"],
                "connections": len(SRV.clients), "opened": STATE["opened"],
                "calls": STATE["calls"], "messages": STATE["msgs"]})
    else:
        return reply(h, 404, {"ok": False})
    return reply(h, 200, {"ok": True})


def on_http(h):
    import socket
    h.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    n = int(h.headers.get("Content-Length") or 0)
    raw = h.rfile.read(n) if n else b""
    path = urllib.parse.urlsplit(h.path).path
    if path.startswith("/control/"):
        return control(h, path[len("/control/"):], raw)
    auth = h.headers.get("Authorization") or ""
    tok = auth[7:] if auth.startswith("Bearer ") else None
    if path.startswith("/files/"):
        if tok != ARGS.bot_token:
            return reply(h, 403, b"forbidden", "text/plain")
        fid = path[len("/files/"):].split("/")[0]
        log("file", {"id": fid})
        with LOCK:
            f = STATE["files"].get(fid)
        if not f:
            return reply(h, 404, b"not found", "text/plain")
        return reply(h, 200, f[1], "application/octet-stream")
    if not path.startswith("/api/"):
        return reply(h, 404, {"ok": False, "error": "unknown_method"})
    method = path[len("/api/"):]
    ctype = h.headers.get("Content-Type") or ""
    try:
        if "json" in ctype:
            p = json.loads(raw or b"{}")
        else:
            p = {k: v[0] for k, v in urllib.parse.parse_qs(
                raw.decode()).items()}
    except ValueError:
        return reply(h, 200, {"ok": False, "error": "invalid_json"})
    with LOCK:
        STATE["calls"] += 1
    log(method, p)
    spec = METHODS.get(method)
    if not spec:
        return reply(h, 200, {"ok": False, "error": "unknown_method"})
    want = ARGS.bot_token if spec[0] == "bot" else ARGS.app_token
    if tok is None:
        return reply(h, 200, {"ok": False, "error": "not_authed"})
    if tok != want:
        other = ARGS.app_token if spec[0] == "bot" else ARGS.bot_token
        return reply(h, 200, {"ok": False, "error":
                              "not_allowed_token_type" if tok == other
                              else "invalid_auth"})
    f = injected(method)
    if f:
        st = f.get("status", 200)
        hdrs = [("Retry-After", str(f["retry_after"]))] \
            if "retry_after" in f else []
        return reply(h, st, {"ok": False, "error": f.get(
            "error", "ratelimited")}, headers=hdrs)
    try:
        res = spec[1](p, tok)
    except ApiError as e:
        return reply(h, 200, {"ok": False, "error": str(e)})
    res["ok"] = True
    return reply(h, 200, res)


def main():
    global ARGS, SRV
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log")
    ap.add_argument("--bot-token", default="xoxb-0000-test-bot-token")
    ap.add_argument("--app-token", default="xapp-1-A0APP-test-app-token")
    ap.add_argument("--bot-user", default="U0BOT")
    ap.add_argument("--signing-secret",
                    default="8f742231b10e8888abcd99yyyzzz85a5")
    ap.add_argument("--files")
    ARGS = ap.parse_args()
    if ARGS.files:
        for name in sorted(os.listdir(ARGS.files)):
            with open(os.path.join(ARGS.files, name), "rb") as f:
                STATE["files"][name.split(".")[0]] = (name, f.read())
    SRV = wsbase.serve(on_ws, port_file=ARGS.port_file, port=ARGS.port,
                       on_http=on_http, on_accept=on_accept)
    print(SRV.port, flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main())
