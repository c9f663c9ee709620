#!/usr/bin/env python3
"""llm-stage.py - a stand-in for `oxi-llm -j` that answers at once.

Speaks the llm.request -> llm.delta/llm.response records of oxi(7) with the
same scripted model as fake/openai.py, with no network: used to test
oxi-loop alone and to measure the pipeline's own latency.

  last message role "tool"        -> "The tool said: <content>"
  last user text "read PATH"      -> a read_file tool call
  last user text "schedule W | T" -> a schedule_add call (when W, text T)
  last user text "my schedules"   -> a schedule_list call
  last user text "unschedule ID"  -> a schedule_cancel call
  last user text "fail"           -> an error record
  last user text "crash"          -> exits at once (stage death)
  last user text "huge N"         -> one reply of N bytes, no deltas
  anything else                   -> "echo: <text>" in two deltas

Environment: FAKE_LLM_LOG appends each request line to that file;
FAKE_LLM_DELAY sleeps that many seconds before each answer;
FAKE_LLM_DOWN_UNTIL (a Unix time): until then every request gets a
retryable "server" error, as from a provider that is down.
"""
import json
import os
import re
import sys
import time

LOG = os.environ.get("FAKE_LLM_LOG")
DELAY = float(os.environ.get("FAKE_LLM_DELAY", "0"))
DOWN = float(os.environ.get("FAKE_LLM_DOWN_UNTIL", "0"))

n = 0


def unwrap(s):
    """the content inside oxi-loop's markers: a model reads through them"""
    m = re.match(r'<external_content [^\n]*id="([0-9a-f]+)">\n(.*)\n'
                 r'</external_content id="\1">$', s, re.S)
    return m.group(2) if m else s


def out(rec):
    sys.stdout.write(json.dumps(rec, separators=(",", ":")) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    try:
        req = json.loads(line)
    except ValueError:
        continue
    if req.get("type") != "llm.request":
        out(req)
        continue
    if LOG:
        with open(LOG, "a") as f:
            f.write(line + "\n")
    if DELAY:
        time.sleep(DELAY)
    rid = req["id"]
    if time.time() < DOWN:
        out({"v": 1, "type": "error", "ref": rid, "code": "server",
             "message": "HTTP 503", "retryable": True})
        continue
    msgs = req.get("messages", [])
    last = msgs[-1] if msgs else {}
    text = last.get("content") or ""
    if last.get("role") == "user" and isinstance(text, str):
        text = unwrap(text)	# a model reads through the markers
    usage = {"input": 10, "output": 5, "cache_read": 0, "cache_write": 0}
    if last.get("role") == "tool":
        reply = "The tool said: " + unwrap(text)
    elif text.startswith("read "):
        n += 1
        out({"v": 1, "type": "llm.response", "id": rid,
             "message": {"role": "assistant", "content": None,
                         "tool_calls": [{"id": "call_%d" % n,
                                         "name": "read_file",
                                         "args": {"path": text[5:]}}]},
             "stop": "tool_use", "usage": usage, "cost_usd": None,
             "model": req.get("model")})
        continue
    elif (text.startswith("schedule ") and " | " in text) or \
            text == "my schedules" or text.startswith("unschedule "):
        n += 1
        if text.startswith("schedule "):
            w, t = text[9:].split(" | ", 1)
            name, args = "schedule_add", {"when": w, "text": t}
        elif text.startswith("unschedule "):
            name, args = "schedule_cancel", {"id": text[11:]}
        else:
            name, args = "schedule_list", {}
        out({"v": 1, "type": "llm.response", "id": rid,
             "message": {"role": "assistant", "content": None,
                         "tool_calls": [{"id": "call_%d" % n,
                                         "name": name, "args": args}]},
             "stop": "tool_use", "usage": usage, "cost_usd": None,
             "model": req.get("model")})
        continue
    elif text == "fail":
        out({"v": 1, "type": "error", "ref": rid, "code": "http_500",
             "message": "upstream failed", "retryable": True})
        continue
    elif text == "crash":
        sys.exit(3)
    elif text.startswith("huge "):
        out({"v": 1, "type": "llm.response", "id": rid,
             "message": {"role": "assistant",
                         "content": "x" * int(text[5:])},
             "stop": "end", "usage": usage, "cost_usd": None,
             "model": req.get("model")})
        continue
    else:
        reply = "echo: " + text
    half = len(reply) // 2
    for part in (reply[:half], reply[half:]):
        out({"v": 1, "type": "llm.delta", "id": rid, "text": part})
    out({"v": 1, "type": "llm.response", "id": rid,
         "message": {"role": "assistant", "content": reply},
         "stop": "end", "usage": usage, "cost_usd": None,
         "model": req.get("model")})
