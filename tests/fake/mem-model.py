#!/usr/bin/env python3
"""mem-model.py - a stand-in for `oxi-llm -j` under oxi-mem's extraction

Answers llm.request records at once with no network: the reply is the
JSON array written after "facts=" in the last user message (up to the
end of that line), or [] when there is none; usage 100 tokens in, 20
out.  embed.request gets an error record (no embeddings).
FAKE_LLM_LOG appends each request line to that file.
"""
import json
import os
import re
import sys

LOG = os.environ.get("FAKE_LLM_LOG")


def out(rec):
    sys.stdout.write(json.dumps(rec, separators=(",", ":")) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    if LOG:
        with open(LOG, "a") as f:
            f.write(line)
    req = json.loads(line)
    if req.get("type") == "embed.request":
        out({"v": 1, "type": "error", "ref": req["id"], "code": "config",
             "message": "no embeddings here", "retryable": False})
        continue
    if req.get("type") != "llm.request":
        continue
    last = [m for m in req["messages"] if m["role"] == "user"][-1]
    m = re.search(r"facts=(\[.*?\])\s*$", last["content"], re.M)
    out({"v": 1, "type": "llm.response", "id": req["id"],
         "message": {"role": "assistant",
                     "content": m.group(1) if m else "[]"},
         "stop": "end", "usage": {"input": 100, "output": 20},
         "model": req.get("model")})
