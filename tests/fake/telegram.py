#!/usr/bin/env python3
"""telegram.py - a fake Telegram Bot API for oxi's tests

usage: python3 tests/fake/telegram.py --port-file FILE [--log FILE]
           [--token TOKEN] [--username NAME] [--updates FILE]
           [--files DIR] [--first-id N] [--file-max BYTES] [--all-kinds]
           [--slow-files SECONDS] [--no-sizes] [--port N]

Listens on 127.0.0.1 (a free port, written to --port-file once
listening), one thread per connection, TCP_NODELAY, each response
written with one send.  Every call is appended to --log as one JSON
line {"method","params","http","ts"} (never the token), so tests can
assert on what reached it.

  POST|GET /bot<TOKEN>/<method>   parameters as JSON, form or query
  GET /file/bot<TOKEN>/<path>     a file's bytes (see getFile)

A wrong token answers 401 {"ok":false,"error_code":401,"description":
"Unauthorized"}.  Methods:

  getMe                 the bot: id from the token, --username
  getUpdates            offset, limit, timeout (long poll), allowed_updates:
                        an offset confirms every update below it (they are
                        gone); negative offsets count from the end; waits
                        up to timeout seconds for an update; 409 while a
                        webhook is set
  sendMessage, editMessageText, sendMessageDraft, sendChatAction,
  answerCallbackQuery, getFile, setWebhook, deleteWebhook, getWebhookInfo
                        as the real API, with its errors: empty text,
                        text over 4096 characters (UTF-16 code units,
                        after the markup is parsed), "message is not
                        modified", "message to edit not found", a
                        parse_mode HTML text that does not parse ("can't
                        parse entities"), sendMessageDraft outside a
                        private chat, a file over --file-max ("file is too
                        big")

Updates come from --updates FILE (one JSON per line: an Update, or
{"update":{...}} as in the wire samples) and from POST /control/updates
(the same lines, or a JSON array).  The fake numbers them itself, from
--first-id (default 100) up, in the order fed, as Telegram's ids grow:
the sample ids are not in order.

--all-kinds: getUpdates ignores allowed_updates, so that every kind of
the samples reaches the receiver.  --slow-files S: a file's bytes come
after S seconds.  --no-sizes: getFile gives no file_size.  --port N: listen on N (a restart on the same port).

--files DIR: each file in DIR is a file whose file_id is its name;
getFile gives it the file_path "files/<name>" and file_unique_id
"u-<name without extension>".

Control (no token):
  POST /control/updates         add updates
  POST /control/fail            {"method":M,"code":C,"description":D,
                                "retry_after":S,"migrate_to_chat_id":ID,
                                "count":N,"chat":C,"skip":K}: the next N
                                calls of M (N default 1, M "*" for any;
                                "file" for a download; to chat_id C only,
                                if given; after K that pass, if given)
                                fail so
  POST /control/file            {"file_id","name","data_b64"}: add a file
  GET  /control/state           {"pending","confirmed","next_id","webhook",
                                "calls","messages":{chat:[{id,text}]}}:
                                confirmed is the highest offset seen,
                                next_id the id the next update fed gets
"""
import argparse
import base64
import json
import os
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ARGS = None
LOCK = threading.Lock()
COND = threading.Condition(LOCK)
STATE = {
    "updates": [],          # pending, in order: (id, update)
    "next_id": 100,
    "confirmed": 0,         # the highest offset seen
    "webhook": None,        # {"url", "secret_token", ...}
    "allowed": None,        # allowed_updates in force
    "fails": [],            # injected failures
    "files": {},            # file_id -> (name, bytes)
    "msgs": {},             # (chat, message_id) -> text
    "next_msg": 1000,
    "calls": 0,
}

HTML_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del",
             "span", "tg-spoiler", "a", "code", "pre", "blockquote",
             "tg-emoji"}


def units(s):
    """the length of s as Telegram counts it: UTF-16 code units"""
    return len(s.encode("utf-16-le")) // 2


def html_check(text):
    """None if text parses as Telegram HTML, else the error, and the
    length of its text (entities decoded, tags gone) in UTF-16 units"""
    stack = []
    i = 0
    n = 0
    while i < len(text):
        c = text[i]
        if c == "<":
            m = re.match(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+"
                         r"(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]*))?)*)\s*>",
                         text[i:])
            if not m:
                return ("Bad Request: can't parse entities: Unexpected "
                        "end of name token at byte offset %d" % i), n
            close, tag = m.group(1), m.group(2).lower()
            if tag not in HTML_TAGS:
                return ("Bad Request: can't parse entities: Unsupported "
                        "start tag \"%s\" at byte offset %d" % (tag, i)), n
            if close:
                if not stack or stack[-1] != tag:
                    return ("Bad Request: can't parse entities: Can't find "
                            "end tag corresponding to start tag \"%s\""
                            % (stack[-1] if stack else tag)), n
                stack.pop()
            else:
                stack.append(tag)
            i += len(m.group(0))
        elif c == "&":
            m = re.match(r"&(lt|gt|amp|quot|#[0-9]+|#x[0-9a-fA-F]+);",
                         text[i:])
            if not m:
                return ("Bad Request: can't parse entities: Character "
                        "'&' is reserved and must be escaped as \"&amp;\""
                        " at byte offset %d" % i), n
            i += len(m.group(0))
            n += 1
        elif c == ">":
            i += 1
            n += 1
        else:
            i += 1
            n += units(c)
    if stack:
        return ("Bad Request: can't parse entities: Can't find end tag "
                "corresponding to start tag \"%s\"" % stack[-1]), n
    return None, n


def kind_of(u):
    for k in u:
        if k != "update_id":
            return k
    return None


def add_updates(items):
    with COND:
        for u in items:
            if isinstance(u, dict) and isinstance(u.get("update"), dict):
                u = u["update"]
            if not isinstance(u, dict):
                continue
            u = dict(u)
            u["update_id"] = STATE["next_id"]
            STATE["next_id"] += 1
            STATE["updates"].append(u)
        COND.notify_all()


def parse_lines(raw):
    raw = raw.strip()
    if raw.startswith("["):
        return json.loads(raw)
    return [json.loads(x) for x in raw.splitlines() if x.strip()]


class ApiError(Exception):
    def __init__(self, code, desc, params=None):
        super().__init__(desc)
        self.code, self.desc, self.params = code, desc, params


def need(p, *keys):
    for k in keys:
        if p.get(k) in (None, ""):
            raise ApiError(400, "Bad Request: %s is empty" % k)


def check_text(p, key="text", empty_ok=False):
    text = p.get(key)
    if text is None or text == "":
        if empty_ok:
            return
        raise ApiError(400, "Bad Request: message text is empty")
    n = units(text)
    if p.get("parse_mode") == "HTML":
        err, n = html_check(text)
        if err:
            raise ApiError(400, err)
    if n > 4096:
        raise ApiError(400, "Bad Request: message is too long")


def message(p, mid):
    return {"message_id": mid, "date": int(time.time()),
            "chat": {"id": int(p["chat_id"]) if str(p["chat_id"]).lstrip(
                "-").isdigit() else p["chat_id"], "type": "private"
                if not str(p["chat_id"]).startswith("-") else "supergroup"},
            "from": {"id": bot_id(), "is_bot": True,
                     "first_name": "Oxi Test", "username": ARGS.username},
            "text": p.get("text", "")}


def bot_id():
    return int(ARGS.token.split(":")[0])


def m_getMe(p):
    return {"id": bot_id(), "is_bot": True, "first_name": "Oxi Test",
            "username": ARGS.username, "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False}


def m_getUpdates(p):
    with COND:
        if STATE["webhook"]:
            raise ApiError(409, "Conflict: can't use getUpdates method "
                           "while webhook is active; use deleteWebhook "
                           "to delete the webhook first")
        off = int(p.get("offset") or 0)
        limit = int(p.get("limit") or 100)
        limit = max(1, min(100, limit))
        timeout = float(p.get("timeout") or 0)
        if p.get("allowed_updates") is not None:
            au = p["allowed_updates"]
            if isinstance(au, str):
                au = json.loads(au)
            STATE["allowed"] = au or None
        ups = STATE["updates"]
        if off > 0:
            STATE["updates"] = ups = [u for u in ups if u["update_id"] >= off]
            STATE["confirmed"] = max(STATE["confirmed"], off)
        elif off < 0:
            ups = ups[off:]
        deadline = time.time() + timeout

        def ready():
            al = STATE["allowed"]
            return [u for u in (STATE["updates"] if off >= 0 else ups)
                    if al is None or ARGS.all_kinds or kind_of(u) in al]
        got = ready()
        while not got and time.time() < deadline:
            COND.wait(deadline - time.time())
            got = ready()
        return got[:limit]


def m_sendMessage(p):
    need(p, "chat_id")
    check_text(p)
    with LOCK:
        mid = STATE["next_msg"]
        STATE["next_msg"] += 1
        STATE["msgs"][(str(p["chat_id"]), mid)] = p["text"]
    return message(p, mid)


def m_editMessageText(p):
    need(p, "chat_id", "message_id")
    check_text(p)
    key = (str(p["chat_id"]), int(p["message_id"]))
    with LOCK:
        if key not in STATE["msgs"]:
            raise ApiError(400, "Bad Request: message to edit not found")
        if STATE["msgs"][key] == p["text"]:
            raise ApiError(400, "Bad Request: message is not modified: "
                           "specified new message content and reply markup "
                           "are exactly the same as a current content and "
                           "reply markup of the message")
        STATE["msgs"][key] = p["text"]
    return message(p, key[1])


def m_sendMessageDraft(p):
    need(p, "chat_id", "draft_id")
    if str(p["chat_id"]).startswith("-"):
        raise ApiError(400, "Bad Request: TEXTDRAFT_PEER_INVALID")
    if int(p["draft_id"]) == 0:
        raise ApiError(400, "Bad Request: draft_id must be non-zero")
    check_text(p, empty_ok=True)
    return True


def m_sendChatAction(p):
    need(p, "chat_id", "action")
    return True


def m_answerCallbackQuery(p):
    need(p, "callback_query_id")
    return True


def m_getFile(p):
    need(p, "file_id")
    with LOCK:
        f = STATE["files"].get(p["file_id"])
    if not f:
        raise ApiError(400, "Bad Request: invalid file_id")
    name, data = f
    if len(data) > ARGS.file_max:
        raise ApiError(400, "Bad Request: file is too big")
    f = {"file_id": p["file_id"],
         "file_unique_id": "u-" + os.path.splitext(name)[0],
         "file_size": len(data), "file_path": "files/" + name}
    if ARGS.no_sizes:
        del f["file_size"]
    return f


def m_setWebhook(p):
    with COND:
        if p.get("url"):
            STATE["webhook"] = dict(p)
        else:
            STATE["webhook"] = None
        if p.get("drop_pending_updates") in (True, "true"):
            STATE["updates"] = []
    return True


def m_deleteWebhook(p):
    with COND:
        STATE["webhook"] = None
        if p.get("drop_pending_updates") in (True, "true"):
            STATE["updates"] = []
    return True


def m_getWebhookInfo(p):
    with LOCK:
        w = STATE["webhook"] or {}
        return {"url": w.get("url", ""), "has_custom_certificate": False,
                "pending_update_count": len(STATE["updates"])}


METHODS = {k[2:]: v for k, v in globals().items() if k.startswith("m_")}


def injected(method, p):
    """the failure injected for this call of method with params p"""
    with LOCK:
        for f in STATE["fails"]:
            if f["method"] in (method, "*") and f["count"] > 0 and \
                    str(f.get("chat", p.get("chat_id"))) == \
                    str(p.get("chat_id")):
                if f.get("skip", 0) > 0:
                    f["skip"] -= 1
                    continue
                f["count"] -= 1
                return f
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *a):
        pass

    def reply(self, code, body, ctype="application/json", extra=()):
        if not isinstance(body, bytes):
            body = json.dumps(body).encode()
        head = "HTTP/1.1 %d %s\r\n" % (code, self.responses.get(
            code, ("X",))[0])
        head += "Content-Type: %s\r\nContent-Length: %d\r\n" % (ctype,
                                                                len(body))
        for k, v in extra:
            head += "%s: %s\r\n" % (k, v)
        head += "\r\n"
        self.wfile.write(head.encode() + body)
        self.wfile.flush()

    def fail(self, code, desc, params=None):
        b = {"ok": False, "error_code": code, "description": desc}
        if params:
            b["parameters"] = params
        extra = ()
        if params and params.get("retry_after") is not None:
            extra = (("Retry-After", str(params["retry_after"])),)
        self.reply(code, b, extra=extra)

    def params(self, raw):
        q = {k: v[-1] for k, v in parse_qs(urlsplit(self.path).query).items()}
        ct = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if raw and ct == "application/json":
            body = json.loads(raw)
            if isinstance(body, dict):
                q.update(body)
        elif raw and ct == "application/x-www-form-urlencoded":
            q.update({k: v[-1] for k, v in parse_qs(raw.decode()).items()})
        for k in ("reply_markup", "reply_parameters", "allowed_updates",
                  "entities", "link_preview_options"):
            if isinstance(q.get(k), str):
                try:
                    q[k] = json.loads(q[k])
                except ValueError:
                    pass
        return q

    def log(self, method, p):
        with LOCK:
            STATE["calls"] += 1
        if ARGS.log:
            rec = {"method": method, "params": p, "http": self.command,
                   "ts": time.time()}
            with LOCK, open(ARGS.log, "a") as f:
                f.write(json.dumps(rec) + "\n")

    def control(self, raw):
        path = urlsplit(self.path).path
        if path == "/control/updates":
            add_updates(parse_lines(raw.decode()))
            return self.reply(200, {"ok": True})
        if path == "/control/fail":
            f = json.loads(raw)
            f.setdefault("count", 1)
            with LOCK:
                STATE["fails"].append(f)
            return self.reply(200, {"ok": True})
        if path == "/control/file":
            f = json.loads(raw)
            with LOCK:
                STATE["files"][f["file_id"]] = (
                    f.get("name", f["file_id"]),
                    base64.b64decode(f.get("data_b64", "")))
            return self.reply(200, {"ok": True})
        if path == "/control/state":
            with LOCK:
                msgs = {}
                for (chat, mid), text in sorted(STATE["msgs"].items()):
                    msgs.setdefault(chat, []).append({"id": mid,
                                                      "text": text})
                st = {"pending": len(STATE["updates"]),
                      "confirmed": STATE["confirmed"],
                      "next_id": STATE["next_id"],
                      "webhook": STATE["webhook"], "calls": STATE["calls"],
                      "messages": msgs}
            return self.reply(200, st)
        return self.reply(404, {"ok": False})

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        path = urlsplit(self.path).path
        if path.startswith("/control/"):
            return self.control(raw)
        m = re.match(r"^/file/bot([^/]+)/(.+)$", path)
        if m:
            if m.group(1) != ARGS.token:
                return self.fail(401, "Unauthorized")
            self.log("file", {"path": m.group(2)})
            f = injected("file", {})
            if f:
                return self.fail(f.get("code", 404), f.get("description",
                                                           "Not Found"))
            name = m.group(2)[len("files/"):] if m.group(2).startswith(
                "files/") else None
            with LOCK:
                hit = [d for (nm, d) in STATE["files"].values() if nm == name]
            if not hit:
                return self.fail(404, "Not Found")
            if ARGS.slow_files:
                time.sleep(ARGS.slow_files)
            return self.reply(200, hit[0], "application/octet-stream")
        m = re.match(r"^/bot([^/]+)/([A-Za-z]+)$", path)
        if not m:
            return self.fail(404, "Not Found")
        if m.group(1) != ARGS.token:
            return self.fail(401, "Unauthorized")
        method = m.group(2)
        try:
            p = self.params(raw)
        except ValueError:
            return self.fail(400, "Bad Request: can't parse JSON")
        self.log(method, p)
        f = injected(method, p)
        if f:
            params = {k: f[k] for k in ("retry_after", "migrate_to_chat_id")
                      if k in f}
            return self.fail(f.get("code", 400), f.get(
                "description", "Too Many Requests: retry after %s" %
                f.get("retry_after", 1)), params or None)
        fn = METHODS.get(method)
        if not fn:
            return self.fail(404, "Not Found")
        try:
            res = fn(p)
        except ApiError as e:
            return self.fail(e.code, e.desc, e.params)
        except (ValueError, KeyError, TypeError) as e:
            return self.fail(400, "Bad Request: %s" % e)
        return self.reply(200, {"ok": True, "result": res})

    do_GET = handle_any
    do_POST = handle_any


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log")
    ap.add_argument("--token", default="123456:TEST-token_0123456789abcdef")
    ap.add_argument("--username", default="oxi_test_bot")
    ap.add_argument("--updates")
    ap.add_argument("--files")
    ap.add_argument("--first-id", type=int, default=100)
    ap.add_argument("--file-max", type=int, default=20 * 1024 * 1024)
    ap.add_argument("--all-kinds", action="store_true")
    ap.add_argument("--no-sizes", action="store_true")
    ap.add_argument("--slow-files", type=float, default=0)
    ARGS = ap.parse_args()
    STATE["next_id"] = ARGS.first_id
    if ARGS.updates:
        with open(ARGS.updates) as f:
            add_updates(parse_lines(f.read()))
    if ARGS.files:
        for name in sorted(os.listdir(ARGS.files)):
            with open(os.path.join(ARGS.files, name), "rb") as f:
                STATE["files"][name] = (name, f.read())
    ThreadingHTTPServer.allow_reuse_address = True
    srv = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    srv.daemon_threads = True
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, ARGS.port_file)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
