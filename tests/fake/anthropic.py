#!/usr/bin/env python3
"""anthropic.py - a fake Anthropic Messages server for oxi's tests

usage: python3 tests/fake/anthropic.py --port-file FILE [--log FILE]
           [--status CODE] [--hang] [--replay FILE] [--chunk-sizes L]

POST .../messages, answered by the scripted model of llmbase.py as a real
event stream (message_start, content blocks with text_delta,
input_json_delta, thinking_delta and signature_delta, ping,
message_delta, message_stop) or one Message when "stream" is false.
"think" answers with a thinking block (signature "sig-think-1") and a
redacted_thinking block ("REDACTED-1") before its tool call; "overload"
ends in an overloaded_error event; "cut" stops before message_stop.
With "cache_control" on the system prompt, usage reports 3 tokens read
from the cache.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llmbase import Provider, Turn, pieces, serve, sse  # noqa: E402

STOPS = {"stop": "end_turn", "refusal": "refusal", "length": "max_tokens"}


def text_of(c):
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "".join(b.get("text", "") for b in c
                       if isinstance(b, dict) and b.get("type") == "text")
    return ""


class Anthropic(Provider):
    name = "anthropic"

    def serves(self, path):
        return path.rstrip("/").endswith("/messages")

    def turn(self, req):
        msgs = req.get("messages") or []
        last = msgs[-1] if msgs else {}
        c = last.get("content")
        if last.get("role") == "user" and isinstance(c, list) and any(
                b.get("type") == "tool_result" for b in c):
            return Turn("", [text_of(b.get("content")) for b in c
                             if b.get("type") == "tool_result"])
        return Turn(text_of(c), None)

    def usage(self, req):
        cached = any(isinstance(b, dict) and "cache_control" in b
                     for b in req.get("system") or [])
        return {"input_tokens": len(json.dumps(req.get("messages"))) // 4,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 3 if cached else 0,
                "output_tokens": 1}

    def stream(self, req, t):
        out = [sse("message_start", {
            "type": "message_start", "message": {
                "id": "msg_fake", "type": "message", "role": "assistant",
                "content": [], "model": req.get("model"),
                "stop_reason": None, "usage": self.usage(req)}})]
        i = 0

        def block(start, deltas):
            nonlocal i
            out.append(sse("content_block_start", {
                "type": "content_block_start", "index": i,
                "content_block": start}))
            for d in deltas:
                out.append(sse("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": d}))
            out.append(sse("content_block_stop", {
                "type": "content_block_stop", "index": i}))
            i += 1

        if t.think:
            block({"type": "thinking", "thinking": "", "signature": ""},
                  [{"type": "thinking_delta", "thinking": "I should "},
                   {"type": "thinking_delta", "thinking": "read it."},
                   {"type": "signature_delta",
                    "signature": "sig-think-1"}])
            block({"type": "redacted_thinking", "data": "REDACTED-1"}, [])
        if t.text is not None:
            out.append(sse("content_block_start", {
                "type": "content_block_start", "index": i,
                "content_block": {"type": "text", "text": ""}}))
            out.append(sse("ping", {"type": "ping"}))
            for p in pieces(t.text, 4):
                out.append(sse("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "text_delta", "text": p}}))
            if t.end == "overload":
                out.append(sse("error", {"type": "error", "error": {
                    "type": "overloaded_error", "message": "Overloaded"}}))
                return "".join(out)
            if t.end == "cut":
                return "".join(out)
            out.append(sse("content_block_stop", {
                "type": "content_block_stop", "index": i}))
            i += 1
        for k, (name, args) in enumerate(t.calls):
            block({"type": "tool_use", "id": "toolu_%d" % (k + 1),
                   "name": name, "input": {}},
                  [{"type": "input_json_delta", "partial_json": p}
                   for p in [""] + pieces(json.dumps(args), 5)])
        stop = "tool_use" if t.calls else STOPS[t.end]
        out.append(sse("message_delta", {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 5 + 8 * len(t.calls)}}))
        out.append(sse("message_stop", {"type": "message_stop"}))
        return "".join(out)

    def whole(self, req, t):
        content = []
        if t.text is not None:
            content.append({"type": "text", "text": t.text})
        for k, (name, args) in enumerate(t.calls):
            content.append({"type": "tool_use", "id": "toolu_%d" % (k + 1),
                            "name": name, "input": args})
        u = self.usage(req)
        u["output_tokens"] = 5
        return {"id": "msg_fake", "type": "message", "role": "assistant",
                "model": req.get("model"), "content": content,
                "stop_reason": "tool_use" if t.calls else STOPS.get(
                    t.end, "end_turn"), "usage": u}

    def error(self, code):
        types = {400: "invalid_request_error", 401: "authentication_error",
                 403: "permission_error", 404: "not_found_error",
                 429: "rate_limit_error", 500: "api_error",
                 529: "overloaded_error"}
        return {"type": "error", "error": {
            "type": types.get(code, "api_error"),
            "message": "fake error %d" % code}}


if __name__ == "__main__":
    serve(Anthropic())
