#!/usr/bin/env python3
"""responses.py - a fake OpenAI Responses server for oxi's tests

usage: python3 tests/fake/responses.py --port-file FILE [--log FILE]
           [--status CODE] [--hang] [--replay FILE] [--chunk-sizes L]

POST .../responses, answered by the scripted model of llmbase.py as typed
events (response.created, output items, output_text and
function_call_arguments deltas, a terminal response.completed or
.incomplete or .failed; no [DONE]) or one response object when "stream"
is false.  "think" starts with a reasoning item whose encrypted_content
is "enc-1"; "refuse" answers with refusal deltas; "long" ends
incomplete at max_output_tokens; "overload" ends with an error event and
response.failed; "cut" has no terminal event.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llmbase import Provider, Turn, pieces, serve, sse  # noqa: E402


def text_of(c):
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "".join(p.get("text", "") for p in c if isinstance(p, dict))
    return ""


class Responses(Provider):
    name = "responses"

    def serves(self, path):
        return path.rstrip("/").endswith("/responses")

    def turn(self, req):
        items = req.get("input")
        if isinstance(items, str):
            return Turn(items, None)
        items = items or []
        res = []
        for it in reversed(items):
            if it.get("type") != "function_call_output":
                break
            res.insert(0, it.get("output", ""))
        if res:
            return Turn("", res)
        for it in reversed(items):
            if it.get("role") == "user":
                return Turn(text_of(it.get("content")), None)
        return Turn("", None)

    def usage(self, req, t):
        return {"input_tokens": len(json.dumps(req.get("input"))) // 4,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 5 + 8 * len(t.calls),
                "output_tokens_details": {"reasoning_tokens":
                                          4 if t.think else 0},
                "total_tokens": 99}

    def items(self, t):
        out = []
        if t.think:
            out.append({"id": "rs_1", "type": "reasoning", "summary": [],
                        "encrypted_content": "enc-1"})
        if t.text is not None:
            kind = "refusal" if t.end == "refusal" else "output_text"
            out.append({"id": "msg_1", "type": "message", "role":
                        "assistant", "status": "completed", "content": [
                            {"type": kind, kind if kind == "refusal"
                             else "text": t.text}]})
        for k, (name, args) in enumerate(t.calls):
            out.append({"id": "fc_%d" % (k + 1), "type": "function_call",
                        "status": "completed", "call_id": "call_%d" % (k + 1),
                        "name": name, "arguments": json.dumps(args)})
        return out

    def response(self, req, t, status):
        r = {"id": "resp_fake", "object": "response", "status": status,
             "model": req.get("model"), "output": self.items(t),
             "usage": self.usage(req, t), "error": None,
             "incomplete_details": None}
        if status == "incomplete":
            r["incomplete_details"] = {"reason": "max_output_tokens"}
        return r

    def stream(self, req, t):
        out = []
        n = [0]

        def ev(typ, **kw):
            d = dict({"type": typ, "sequence_number": n[0]}, **kw)
            n[0] += 1
            out.append(sse(typ, d))

        ev("response.created", response=dict(self.response(
            req, t, "in_progress"), output=[]))
        idx = 0
        if t.think:
            it = self.items(t)[0]
            ev("response.output_item.added", output_index=idx,
               item=dict(it, encrypted_content="enc-0"))
            ev("response.output_item.done", output_index=idx, item=it)
            idx += 1
        if t.text is not None:
            ev("response.output_item.added", output_index=idx, item={
                "id": "msg_1", "type": "message", "role": "assistant",
                "status": "in_progress", "content": []})
            kind = "refusal" if t.end == "refusal" else "output_text"
            for p in pieces(t.text, 4):
                ev("response.%s.delta" % kind, item_id="msg_1",
                   output_index=idx, content_index=0, delta=p)
            if t.end == "overload":
                ev("error", error={"type": "server_error", "code":
                                   "server_error", "message":
                                   "The server is overloaded."})
                ev("response.failed", response=dict(self.response(
                    req, t, "failed"), error={
                        "code": "server_error",
                        "message": "The server is overloaded."}))
                return "".join(out)
            if t.end == "cut":
                return "".join(out)
            ev("response.%s.done" % kind, item_id="msg_1",
               output_index=idx, content_index=0,
               **{"refusal" if kind == "refusal" else "text": t.text})
            idx += 1
        for k, (name, args) in enumerate(t.calls):
            item = {"id": "fc_%d" % (k + 1), "type": "function_call",
                    "status": "in_progress", "call_id": "call_%d" % (k + 1),
                    "name": name, "arguments": ""}
            ev("response.output_item.added", output_index=idx, item=item)
            a = json.dumps(args)
            for p in pieces(a, 5):
                ev("response.function_call_arguments.delta",
                   item_id=item["id"], output_index=idx, delta=p)
            ev("response.function_call_arguments.done", item_id=item["id"],
               output_index=idx, arguments=a)
            ev("response.output_item.done", output_index=idx,
               item=dict(item, status="completed", arguments=a))
            idx += 1
        if t.end == "length":
            ev("response.incomplete", response=self.response(
                req, t, "incomplete"))
        else:
            ev("response.completed", response=self.response(
                req, t, "completed"))
        return "".join(out)

    def whole(self, req, t):
        return self.response(req, t, "incomplete" if t.end == "length"
                             else "completed")

    def error(self, code):
        types = {401: "invalid_request_error", 429: "rate_limit_exceeded",
                 500: "server_error"}
        return {"error": {"message": "fake error %d" % code,
                          "type": types.get(code, "invalid_request_error"),
                          "param": None, "code": None}}


if __name__ == "__main__":
    serve(Responses())
