#!/usr/bin/env python3
"""openai.py - a fake OpenAI Chat Completions server for oxi's tests

usage: python3 tests/fake/openai.py --port-file FILE [--log FILE]
           [--replay FILE] [--status CODE] [--hang] [--truncate]
           [--fail-times N] [--retry-after S] [--access-log FILE]
           [--chunk-sizes 1,2,3,5,7,11] [--delay S] [--garbage]
           [--trickle]

Listens on 127.0.0.1 (a free port, written to --port-file once listening),
HTTP/1.1 with keep-alive, one thread per connection, TCP_NODELAY.

POST .../chat/completions appends the raw request body as one line to
--log, then answers:
  --status N    that status with an OpenAI-style JSON error body (a 401
                message repeats the bearer token, as real servers echo part
                of a bad key, so clients must scrub it; 429 sends
                Retry-After: 1)
  --hang        200 and event-stream headers, then nothing
  --replay F    F's bytes as the event-stream body
  --fail-times N  only the first N requests get --status, --hang,
                --truncate or --replay; the later ones the scripted model
                (with none of those, --status 500 is meant)
  otherwise a scripted model:
    last message role "tool"        -> "The tool said: " + its content
    last user text "read PATH"      -> tool call read_file {"path": PATH}
    last user text "run CMD"        -> shell {"command": CMD}
    last user text "netrun CMD"     -> shell {"command": CMD, "network": true}
    last user text "fetch URL"      -> web_fetch {"url": URL}; its result, if
                                       it holds "CALL {json}", is obeyed: a
                                       tool call of that name and arguments,
                                       "{DATA}" in them replaced by data of
                                       the conversation (the user's words)
    last user text "two tools..."   -> list_dir {"path":"."} and
                                       read_file {"path":"notes.txt"}
    last user text "slow..."        -> "echo: " + it, streamed with 20 ms
                                       between pieces (a reply to stop)
    anything else                   -> "echo: " + the last user text
A model whose name holds "novision" answers a request with an image_url
part as OpenAI does a model without vision: a 400 ("Invalid content
type. image_url is only supported by certain models.").
POST .../audio/transcriptions takes a multipart/form-data body, parsed
here by its boundary (not by a library that might forgive a bad one):
--log gets one JSON line {"path", "model", "response_format", "filename",
"type", "size", "sha256", "authorization"} for it; --status and the like
apply as above; a file whose name's extension is not one of OpenAI's
(flac m4a mp3 mp4 mpeg mpga ogg wav webm), or a body without "file" and
"model", gets a 400.  The text: a file starting "SAY:" says the rest of
its first line, any other "heard N bytes, sha256 HEX" (its first 12 hex
digits).  Its usage: tokens for a model with "transcribe" in its name
(input N/100+1, output len(text)/4+1), else {"type":"duration",
"seconds":3}, as whisper-1's.
Streamed replies (the default, unless the request has "stream": false) are
real chunk events: a role delta, the content in several deltas, the
finish_reason, a usage chunk and "data: [DONE]", sent with chunked transfer
encoding in pieces of --chunk-sizes bytes (cycling) so that clients see
lines split anywhere.  --truncate ends the body cleanly before the
finish_reason and [DONE].  "stream": false gets one chat.completion.
--retry-after S sets the Retry-After of a 429 (default 1; "none" sends
none).  --access-log appends "TIME CONN METHOD PATH" for every request:
the Unix time in seconds with a fraction, when the request arrived, and
the number of the TCP connection it came on (1, 2, ... in order of
accept), so tests can see retries' spacing and connection reuse.
--delay S waits S seconds (a fraction allowed) before answering, as a
slow model does.  --garbage answers a line that is not HTTP and closes;
--trickle sends 200 and event-stream headers, then one byte a second.
"""
import argparse
import hashlib
import json
import os
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
LOCK = threading.Lock()
COUNT = {"conns": 0, "posts": 0}


def user_text(msg):
    c = msg.get("content")
    if isinstance(c, list):
        return "".join(p.get("text", "") for p in c if isinstance(p, dict))
    return c if isinstance(c, str) else ""


def unwrap(s):
    """the content inside oxi-loop's markers: a model reads through them"""
    m = re.match(r'<external_content [^\n]*id="([0-9a-f]+)">\n(.*)\n'
                 r'</external_content id="\1">$', s, re.S)
    return m.group(2) if m else s


def script(req):
    """the scripted model: (text or None, [(name, args)])"""
    msgs = req.get("messages") or []
    last = msgs[-1] if msgs else {}
    user, ui = "", 0
    for i in range(len(msgs) - 1, -1, -1):
        if msgs[i].get("role") == "user":
            user, ui = unwrap(user_text(msgs[i])), i
            break
    if last.get("role") == "tool":
        body = unwrap(user_text(last))
        k = body.find("CALL ")
        tools = [m for m in msgs[ui:] if m.get("role") == "tool"]
        if user.startswith("fetch ") and k >= 0 and len(tools) == 1:
            c, _ = json.JSONDecoder().raw_decode(body[k + 5:])
            data = re.sub(r"\W", "", user)[-12:]
            c = json.loads(json.dumps(c).replace("{DATA}", data))
            return None, [(c["name"], c["args"])]
        return "The tool said: " + body, []
    if user.startswith("read "):
        return None, [("read_file", {"path": user[5:]})]
    if user.startswith("run "):
        return None, [("shell", {"command": user[4:]})]
    if user.startswith("netrun "):
        return None, [("shell", {"command": user[7:], "network": True})]
    if user.startswith("fetch "):
        return None, [("web_fetch", {"url": user[6:]})]
    if user.startswith("two tools"):
        return None, [("list_dir", {"path": "."}),
                      ("read_file", {"path": "notes.txt"})]
    return "echo: " + user, []


def pieces(s, n):
    return [s[i:i + n] for i in range(0, len(s), n)] or [""]


def usage(req, text, calls):
    p = len(json.dumps(req.get("messages", []))) // 4 + 1
    c = len(text or "") // 4 + 1 + 8 * len(calls)
    return {"prompt_tokens": p, "completion_tokens": c,
            "total_tokens": p + c,
            "prompt_tokens_details": {"cached_tokens": 0}}


def sse_body(req, truncate):
    text, calls = script(req)
    model = req.get("model", "fake")
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}
    out = []

    def ev(choices, **kw):
        d = dict(base, choices=choices, **kw)
        out.append("data: " + json.dumps(d) + "\n\n")

    def delta(d, finish=None):
        ev([{"index": 0, "delta": d, "logprobs": None,
             "finish_reason": finish}])

    delta({"role": "assistant", "content": "" if text is not None
           else None})
    if text is not None:
        for p in pieces(text, 4):
            delta({"content": p})
    for i, (name, args) in enumerate(calls):
        delta({"tool_calls": [{"index": i, "id": "call_%d" % (i + 1),
                               "type": "function",
                               "function": {"name": name,
                                            "arguments": ""}}]})
        for p in pieces(json.dumps(args), 5):
            delta({"tool_calls": [{"index": i,
                                   "function": {"arguments": p}}]})
    if not truncate:
        delta({}, "tool_calls" if calls else "stop")
        ev([], usage=usage(req, text, calls))
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def completion(req):
    text, calls = script(req)
    msg = {"role": "assistant", "content": text}
    if calls:
        msg["tool_calls"] = [
            {"id": "call_%d" % (i + 1), "type": "function",
             "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(calls)]
    return {"id": "chatcmpl-fake", "object": "chat.completion",
            "created": int(time.time()), "model": req.get("model", "fake"),
            "choices": [{"index": 0, "message": msg, "logprobs": None,
                         "finish_reason": "tool_calls" if calls
                         else "stop"}],
            "usage": usage(req, text, calls)}


ERRORS = {
    400: ("invalid_request_error", "Invalid request."),
    401: ("invalid_request_error", "Incorrect API key provided: %s."),
    403: ("permission_denied", "You are not allowed to use this model."),
    404: ("invalid_request_error", "The model does not exist."),
    429: ("rate_limit_exceeded", "Rate limit reached for requests."),
    500: ("server_error", "The server had an error while processing"
                          " your request."),
    503: ("server_error", "The engine is currently overloaded."),
}


AUDIO = ("flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "ogg", "wav", "webm")


def multipart(ctype, raw):
    """the parts of a multipart/form-data body, {name: {"filename",
    "type", "data"}}, or None if it is not one"""
    m = re.match(r'multipart/form-data;\s*boundary="?([^";]+)"?$',
                 ctype or "")
    if not m:
        return None
    chunks = raw.split(b"--" + m.group(1).encode())
    if len(chunks) < 3 or chunks[0] != b"" or \
            chunks[-1] not in (b"--", b"--\r\n"):
        return None
    parts = {}
    for c in chunks[1:-1]:
        if not c.startswith(b"\r\n") or not c.endswith(b"\r\n"):
            return None
        head, sep, body = c[2:-2].partition(b"\r\n\r\n")
        if not sep:
            return None
        hdrs = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            k, _, v = line.partition(":")
            hdrs[k.strip().lower()] = v.strip()
        cd = hdrs.get("content-disposition", "")
        name = re.search(r'(?:^|;)\s*name="([^"]*)"', cd)
        fn = re.search(r'filename="([^"]*)"', cd)
        if not cd.startswith("form-data") or not name:
            return None
        parts[name.group(1)] = {"filename": fn.group(1) if fn else None,
                                "type": hdrs.get("content-type"),
                                "data": body}
    return parts


def transcription(form):
    """the reply to a transcription form: (status, body)"""
    f, model = form.get("file"), form.get("model")
    if not f or not model or not f["filename"]:
        return 400, {"error": {"message": "file and model are required",
                               "type": "invalid_request_error"}}
    ext = f["filename"].rsplit(".", 1)[-1].lower()
    if "." not in f["filename"] or ext not in AUDIO:
        return 400, {"error": {"message": "Invalid file format. Supported"
                               " formats: %s" % list(AUDIO),
                               "type": "invalid_request_error"}}
    data = f["data"]
    if data.startswith(b"SAY:"):
        text = data[4:].split(b"\n")[0].decode("utf-8", "replace").strip()
    else:
        text = "heard %d bytes, sha256 %s" % (
            len(data), hashlib.sha256(data).hexdigest()[:12])
    name = model["data"].decode()
    if "transcribe" in name:
        u = {"type": "tokens", "input_tokens": len(data) // 100 + 1,
             "output_tokens": len(text) // 4 + 1}
    else:
        u = {"type": "duration", "seconds": 3}
    return 200, {"text": text, "usage": u}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with LOCK:
            COUNT["conns"] += 1
            self.conn_no = COUNT["conns"]

    def access(self):
        if ARGS.access_log:
            with LOCK, open(ARGS.access_log, "a") as f:
                f.write("%.6f %d %s %s\n" % (time.time(), self.conn_no,
                                             self.command, self.path))

    def log_message(self, fmt, *a):
        sys.stderr.write("openai.py: " + (fmt % a) + "\n")

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

    def do_GET(self):
        self.access()
        if self.path.rstrip("/").endswith("/models"):
            self.send_json(200, {"object": "list", "data": [
                {"id": "fake", "object": "model"}]})
        else:
            self.send_json(404, {"error": {"message": "not found",
                                           "type": "invalid_request_error"}})

    def do_HEAD(self):
        self.access()
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        self.access()
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        audio = self.path.rstrip("/").endswith("/audio/transcriptions")
        if not audio and not self.path.rstrip("/").endswith(
                "/chat/completions"):
            self.send_json(404, {"error": {"message": "unknown path",
                                           "type": "invalid_request_error"}})
            return
        form = multipart(self.headers.get("Content-Type"), raw) \
            if audio else None
        if ARGS.log and audio:
            f = (form or {}).get("file") or {"data": b""}
            rec = {"path": self.path,
                   "authorization": self.headers.get("Authorization"),
                   "size": len(f["data"]),
                   "sha256": hashlib.sha256(f["data"]).hexdigest()}
            for k in ("model", "response_format"):
                if form and k in form:
                    rec[k] = form[k]["data"].decode("utf-8", "replace")
            for k in ("filename", "type"):
                rec[k] = f.get(k)
            with LOCK, open(ARGS.log, "a") as fp:
                fp.write(json.dumps(rec) + "\n")
        elif ARGS.log:
            with LOCK, open(ARGS.log, "ab") as f:
                f.write(raw.replace(b"\n", b" ") + b"\n")
        with LOCK:
            COUNT["posts"] += 1
            failing = ARGS.fail_times is None or \
                COUNT["posts"] <= ARGS.fail_times
        status, hang, truncate, replay = (
            (ARGS.status, ARGS.hang, ARGS.truncate, ARGS.replay)
            if failing else (None, False, False, None))
        if failing and ARGS.fail_times is not None and not (
                status or hang or truncate or replay):
            status = 500
        if status:
            code = status
            typ, msg = ERRORS.get(code, ("api_error", "HTTP error %d." % code))
            if "%s" in msg:
                auth = self.headers.get("Authorization") or ""
                msg = msg % (auth[7:] if auth.startswith("Bearer ") else "")
            extra = ([("Retry-After", ARGS.retry_after)]
                     if code == 429 and ARGS.retry_after != "none" else [])
            self.send_json(code, {"error": {"message": msg, "type": typ,
                                            "param": None, "code": None}},
                           extra)
            return
        if audio:
            if form is None:
                self.send_json(400, {"error": {
                    "message": "not a multipart/form-data body",
                    "type": "invalid_request_error"}})
            else:
                if ARGS.delay:
                    time.sleep(ARGS.delay)
                self.send_json(*transcription(form))
            return
        try:
            req = json.loads(raw)
        except ValueError:
            self.send_json(400, {"error": {"message": "bad JSON body",
                                           "type": "invalid_request_error"}})
            return
        if "novision" in str(req.get("model")) and any(
                isinstance(p, dict) and p.get("type") == "image_url"
                for m in req.get("messages") or []
                if isinstance(m.get("content"), list)
                for p in m["content"]):
            self.send_json(400, {"error": {
                "message": "Invalid content type. image_url is only"
                           " supported by certain models.",
                "type": "invalid_request_error", "param": "messages",
                "code": None}})
            return
        if ARGS.delay:
            time.sleep(ARGS.delay)
        if ARGS.garbage:
            self.close_connection = True
            self.wfile.write(b"hello, this is not HTTP\r\n")
            self.wfile.flush()
            return
        if ARGS.trickle:
            self.close_connection = True
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: "
                             b"text/event-stream\r\n\r\n")
            for _ in range(600):
                self.wfile.write(b":")
                self.wfile.flush()
                time.sleep(1)
            return
        if req.get("stream") is False and not replay and not hang:
            self.send_json(200, completion(req))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        if hang:
            self.close_connection = True
            time.sleep(600)
            return
        if replay:
            with open(replay, "rb") as f:
                body = f.read()
        else:
            body = sse_body(req, truncate)
        sizes, i, k = ARGS.chunk_sizes, 0, 0
        msgs = req.get("messages") or [{}]
        slow = msgs[-1].get("role") == "user" and \
            user_text(msgs[-1]).startswith("slow")
        while i < len(body):
            p = body[i:i + sizes[k % len(sizes)]]
            i += len(p)
            k += 1
            self.wfile.write(b"%x\r\n%s\r\n" % (len(p), p))
            self.wfile.flush()
            if slow:
                time.sleep(0.02)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--replay")
    ap.add_argument("--status", type=int)
    ap.add_argument("--hang", action="store_true")
    ap.add_argument("--truncate", action="store_true")
    ap.add_argument("--fail-times", type=int)
    ap.add_argument("--retry-after", default="1")
    ap.add_argument("--access-log")
    ap.add_argument("--delay", type=float, default=0)
    ap.add_argument("--garbage", action="store_true")
    ap.add_argument("--trickle", action="store_true")
    ap.add_argument("--chunk-sizes", default="1,2,3,5,7,11,13",
                    type=lambda s: [int(x) for x in s.split(",") if x])
    ARGS = ap.parse_args()
    if not ARGS.chunk_sizes or min(ARGS.chunk_sizes) < 1:
        ap.error("--chunk-sizes needs positive sizes")
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.request_queue_size = 4096  # many clients at once
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
