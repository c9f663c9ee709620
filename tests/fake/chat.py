#!/usr/bin/env python3
"""chat.py - a fake Chat Completions server for the provider presets,
extra headers and prompt-guided tools of oxi's tests

usage: python3 tests/fake/chat.py --port-file FILE [--log FILE]
           [--status CODE] [--hang] [--replay FILE] [--chunk-sizes L]

POST .../chat/completions, answered by the scripted model of llmbase.py
as chunk events ending in data: [DONE].  Like a model without native
tool calling, when the system prompt describes tools with <tool_call>
blocks (prompt-guided tools) its calls are written as such blocks in the
text, and <tool_result> blocks in the last user message are tool results.
--log keeps the request headers, so that tests see keys and extra
headers arrive (tests/fake/openai.py is the fake for everything else).
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llmbase import Provider, Turn, pieces, serve, sse  # noqa: E402


def text_of(c):
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "".join(p.get("text", "") for p in c if isinstance(p, dict))
    return ""


def prompted(req):
    return any(m.get("role") == "system" and "<tool_call>" in
               text_of(m.get("content")) for m in req.get("messages") or [])


class Chat(Provider):
    name = "chat"

    def serves(self, path):
        return path.rstrip("/").endswith("/chat/completions")

    def turn(self, req):
        msgs = req.get("messages") or []
        res = []
        for m in reversed(msgs):
            if m.get("role") != "tool":
                break
            res.insert(0, text_of(m.get("content")))
        if res:
            return Turn("", res)
        last = text_of(msgs[-1].get("content")) if msgs else ""
        got = re.findall(r"<tool_result[^>]*>\n?(.*?)\n?</tool_result>",
                         last, re.S)
        if got:
            return Turn("", got)
        return Turn(last, None)

    def stream(self, req, t):
        out = []

        def delta(d, finish=None):
            out.append(sse(None, {
                "id": "chatcmpl-fake", "object": "chat.completion.chunk",
                "model": req.get("model"), "choices": [{
                    "index": 0, "delta": d, "finish_reason": finish}]}))

        text = t.text
        calls = t.calls
        if calls and prompted(req):
            text = "Let me look.\n" + "".join(
                "<tool_call>%s</tool_call>\n" % json.dumps(
                    {"name": n, "arguments": a}) for n, a in calls)
            calls = []
        delta({"role": "assistant", "content": ""})
        for p in pieces(text or "", 4):
            if p:
                delta({"content": p})
        for i, (name, args) in enumerate(calls):
            delta({"tool_calls": [{"index": i, "id": "call_%d" % (i + 1),
                                   "type": "function", "function": {
                                       "name": name,
                                       "arguments": json.dumps(args)}}]})
        delta({}, "tool_calls" if calls else "stop")
        out.append(sse(None, {"id": "chatcmpl-fake", "choices": [],
                              "usage": {"prompt_tokens": 9,
                                        "completion_tokens": 3}}))
        out.append("data: [DONE]\n\n")
        return "".join(out)

    def whole(self, req, t):
        return {"id": "chatcmpl-fake", "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant",
                                         "content": t.text or ""}}],
                "usage": {"prompt_tokens": 9, "completion_tokens": 3}}


if __name__ == "__main__":
    serve(Chat())
