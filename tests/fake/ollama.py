#!/usr/bin/env python3
"""ollama.py - a fake Ollama /api/chat server for oxi's tests

usage: python3 tests/fake/ollama.py --port-file FILE [--log FILE]
           [--status CODE] [--hang] [--replay FILE] [--chunk-sizes L]

POST .../api/chat, answered by the scripted model of llmbase.py as an
NDJSON stream (message chunks, then "done": true with done_reason and
the token counts) or one object when "stream" is false.  Tool calls come
whole, their arguments objects.  "think" streams "thinking" first;
"overload" ends with an {"error": ...} line; "cut" never sends done.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llmbase import Provider, Turn, pieces, serve  # noqa: E402


class Ollama(Provider):
    name = "ollama"
    content_type = "application/x-ndjson"

    def serves(self, path):
        return path.rstrip("/").endswith("/api/chat")

    def turn(self, req):
        msgs = req.get("messages") or []
        res = []
        for m in reversed(msgs):
            if m.get("role") != "tool":
                break
            res.insert(0, m.get("content", ""))
        if res:
            return Turn("", res)
        last = msgs[-1] if msgs else {}
        return Turn(last.get("content") or "", None)

    def line(self, req, msg, done=False, reason=None):
        d = {"model": req.get("model"), "created_at": "2026-01-01T00:00:00Z",
             "message": dict({"role": "assistant", "content": ""}, **msg),
             "done": done}
        if done:
            d.update(done_reason=reason, total_duration=1,
                     prompt_eval_count=len(json.dumps(req["messages"])) // 4,
                     eval_count=5)
        return json.dumps(d) + "\n"

    def calls(self, t):
        return [{"function": {"name": n, "arguments": a}} for n, a in t.calls]

    def stream(self, req, t):
        out = []
        if t.think:
            for p in pieces("I should read the notes.", 6):
                out.append(self.line(req, {"thinking": p}))
        if t.text is not None:
            for p in pieces(t.text, 4):
                out.append(self.line(req, {"content": p}))
            if t.end == "overload":
                out.append(json.dumps({"error": "server busy, try again"}) +
                           "\n")
                return "".join(out)
            if t.end == "cut":
                return "".join(out)
        if t.calls:
            out.append(self.line(req, {"tool_calls": self.calls(t)}))
        out.append(self.line(req, {}, True,
                             "length" if t.end == "length" else "stop"))
        return "".join(out)

    def whole(self, req, t):
        msg = {"content": t.text or ""}
        if t.calls:
            msg["tool_calls"] = self.calls(t)
        return json.loads(self.line(req, msg, True, "stop"))

    def error(self, code):
        return {"error": "fake error %d" % code}


if __name__ == "__main__":
    serve(Ollama())
