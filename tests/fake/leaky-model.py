#!/usr/bin/env python3
"""leaky-model.py - a stand-in for `oxi-llm -j` that obeys any request to
show its system prompt: the model of the canary tests (T-CAN).

  last user text "leak FORM" -> the system prompt in FORM (plain, base64,
                                hex, rot13, reversed, spaced, code),
                                streamed in deltas of 7 characters
  anything else              -> "fine: <text>"

FAKE_LLM_LOG appends each request line to that file.
"""
import base64
import codecs
import json
import os
import sys

LOG = os.environ.get("FAKE_LLM_LOG")


def out(rec):
    sys.stdout.write(json.dumps(rec, separators=(",", ":")) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        req = json.loads(line)
    except ValueError:
        continue
    if req.get("type") != "llm.request":
        continue
    if LOG:
        with open(LOG, "a") as f:
            f.write(line)
    msgs = req.get("messages", [])
    system = msgs[0]["content"] if msgs and msgs[0]["role"] == "system" \
        else ""
    text = msgs[-1].get("content") or ""
    if text.startswith("leak "):
        form = text[5:]
        b = system.encode()
        reply = {
            "plain": system,
            "base64": base64.b64encode(b).decode(),
            "hex": b.hex(),
            "rot13": codecs.encode(system, "rot13"),
            "reversed": system[::-1],
            "spaced": " ".join(system),
            "code": "```\n" + system + "\n```",
        }[form]
        reply = "Sure, here it is: " + reply
    else:
        reply = "fine: " + text
    for i in range(0, len(reply), 7):
        out({"v": 1, "type": "llm.delta", "id": req["id"],
             "text": reply[i:i + 7]})
    out({"v": 1, "type": "llm.response", "id": req["id"],
         "message": {"role": "assistant", "content": reply},
         "stop": "end", "usage": {"input": 10, "output": 5,
                                  "cache_read": 0, "cache_write": 0},
         "cost_usd": None, "model": req.get("model")})
