#!/usr/bin/env python3
"""mcp-stdio.py - a fake MCP server on stdin/stdout for oxi-tool's tests.

--mode modern   the stateless revision 2026-07-28: answers server/discover,
                wants the _meta on every request, puts resultType in results,
                knows no initialize
--mode legacy   2025-11-25: server/discover before initialize is -32601;
                wants initialize, then notifications/initialized
--mode old      legacy, but speaks 2025-06-18 whatever is offered
--mode ancient  legacy, but speaks 2024-11-05 only
--mode silent   legacy that never answers a method it does not know
--mode mute     reads everything, answers nothing

--crash-after N exits (status 3) on the Nth tools/call, unanswered
--page N        tools/list returns N tools a page (nextCursor)
--log FILE      appends each message received, one per line
--mark WORD     ignored, for tests to find it with pgrep

Tools: echo {text}, fail (isError), mixed (non-text content), hang
(never answers), env {name} (a variable's value, or "unset"), pid,
"dot.name" (a name oxi must sanitise), and for the sandbox tests read
{path}, write {path}, connect {port} (to 127.0.0.1) and environ (the
names of its environment), and quit (answers, then exits).  Logs to stderr as servers do;
before answering initialize or server/discover it sends a notification,
and after notifications/initialized a ping request of its own.
"""
import argparse
import json
import os
import socket
import sys
import time

MODERN = "2026-07-28"

ap = argparse.ArgumentParser()
ap.add_argument("--mode", default="modern")
ap.add_argument("--crash-after", type=int, default=0)
ap.add_argument("--page", type=int, default=0)
ap.add_argument("--log")
ap.add_argument("--mark")       # ignored: for pgrep
ap.add_argument("--nul-names", action="store_true")  # names with a NUL
opt = ap.parse_args()

TOOLS = [
    {"name": "echo", "description": "Echo the text back",
     "inputSchema": {"type": "object",
                     "properties": {"text": {"type": "string"}},
                     "required": ["text"]}},
    {"name": "fail", "description": "Always fails",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "mixed", "description": "Text, an image, a link, a resource",
     "inputSchema": {"type": "object"}},
    {"name": "hang", "description": "Never answers"},
    {"name": "env", "description": "The value of an environment variable",
     "inputSchema": {"type": "object",
                     "properties": {"name": {"type": "string"}}}},
    {"name": "pid", "description": "The server's process id",
     "inputSchema": {"type": "object"}},
    {"name": "dot.name", "description": "A name with a dot",
     "inputSchema": {"type": "object"}},
    {"name": "read", "description": "Read a file: {path}"},
    {"name": "write", "description": "Write a file: {path}"},
    {"name": "connect", "description": "Connect to 127.0.0.1: {port}"},
    {"name": "environ", "description": "The names in the environment"},
    {"name": "quit", "description": "Answers, then exits"},
]
if opt.nul_names:
    TOOLS += [{"name": "evil\u0000echo", "description": "Cut at the NUL"},
              {"name": "\u0000", "description": "Only a NUL"},
              {"name": "", "description": "No name"}]

state = {"init": False, "initialized": False, "calls": 0}


def log(msg):
    if opt.log:
        with open(opt.log, "a") as f:
            f.write(json.dumps(msg, sort_keys=True) + "\n")


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def reply(mid, result):
    if opt.mode == "modern":
        result["resultType"] = "complete"
    send({"jsonrpc": "2.0", "id": mid, "result": result})


def error(mid, code, message, data=None):
    e = {"code": code, "message": message}
    if data is not None:
        e["data"] = data
    send({"jsonrpc": "2.0", "id": mid, "error": e})


def call(mid, params):
    name = params.get("name")
    args = params.get("arguments", {})
    state["calls"] += 1
    if opt.crash_after and state["calls"] >= opt.crash_after:
        sys.stderr.write("fake mcp: crashing\n")
        sys.exit(3)
    if name == "echo":
        reply(mid, {"content": [{"type": "text", "text": args.get("text", "")}],
                    "isError": False})
    elif name == "fail":
        reply(mid, {"content": [{"type": "text", "text": "it failed"}],
                    "isError": True})
    elif name == "mixed":
        reply(mid, {"content": [
            {"type": "text", "text": "first"},
            {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "file:///x.txt", "name": "x"},
            {"type": "resource", "resource": {"uri": "file:///y.txt",
                                              "text": "inside y"}}]})
    elif name == "hang":
        time.sleep(3600)
    elif name == "env":
        v = os.environ.get(args.get("name", ""), "unset")
        reply(mid, {"content": [{"type": "text", "text": v}]})
    elif name == "pid":
        reply(mid, {"content": [{"type": "text", "text": str(os.getpid())}]})
    elif name == "dot.name":
        reply(mid, {"content": [{"type": "text", "text": "dotted"}]})
    elif name in ("read", "write", "connect"):
        try:
            if name == "read":
                text = open(args["path"]).read()
            elif name == "write":
                open(args["path"], "w").write("written by the fake\n")
                text = "wrote " + args["path"]
            else:
                c = socket.create_connection(("127.0.0.1", args["port"]), 5)
                c.sendall(b"hello\n")
                text = "connected"
            reply(mid, {"content": [{"type": "text", "text": text}]})
        except Exception as e:
            reply(mid, {"content": [{"type": "text", "text": repr(e)}],
                        "isError": True})
    elif name == "quit":
        reply(mid, {"content": [{"type": "text", "text": "bye"}]})
        sys.exit(0)
    elif name == "environ":
        reply(mid, {"content": [{"type": "text",
                                 "text": " ".join(sorted(os.environ))}]})
    else:
        error(mid, -32602, "Unknown tool: %s" % name)


def tools_list(mid, params):
    start = int((params or {}).get("cursor") or 0)
    n = opt.page or len(TOOLS)
    res = {"tools": TOOLS[start:start + n]}
    if start + n < len(TOOLS):
        res["nextCursor"] = str(start + n)
    reply(mid, res)


def modern(mid, method, params):
    meta = (params or {}).get("_meta", {})
    if meta.get("io.modelcontextprotocol/protocolVersion") != MODERN or \
            "io.modelcontextprotocol/clientCapabilities" not in meta:
        error(mid, -32022, "Unsupported protocol version",
              {"supported": [MODERN]})
        return
    if method == "server/discover":
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "data": "hello"}})
        reply(mid, {"supportedVersions": [MODERN],
                    "capabilities": {"tools": {}},
                    "_meta": {"io.modelcontextprotocol/serverInfo":
                              {"name": "fake", "version": "1"}},
                    "ttlMs": 3600000, "cacheScope": "public"})
    elif method == "tools/list":
        tools_list(mid, params)
    elif method == "tools/call":
        call(mid, params)
    else:
        error(mid, -32601, "Method not found")


def legacy(mid, method, params):
    if method == "initialize":
        if opt.mode == "old":
            v = "2025-06-18"
        elif opt.mode == "ancient":
            v = "2024-11-05"
        else:
            v = params.get("protocolVersion")
        state["init"] = True
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        reply(mid, {"protocolVersion": v,
                    "capabilities": {"tools": {"listChanged": True}},
                    "serverInfo": {"name": "fake", "version": "1"}})
        return
    if method == "ping":
        reply(mid, {})
        return
    if method not in ("tools/list", "tools/call"):
        if opt.mode != "silent":
            error(mid, -32601, "Method not found")
        return
    if not state["init"] or not state["initialized"]:
        error(mid, -32600, "Not initialized")
        return
    if method == "tools/list":
        tools_list(mid, params)
    else:
        call(mid, params)


sys.stderr.write("fake mcp: started in mode %s\n" % opt.mode)
for line in sys.stdin:
    msg = json.loads(line)
    log(msg)
    if opt.mode == "mute":
        continue
    method = msg.get("method")
    if method is None:
        continue            # a response to our ping
    if "id" not in msg:     # a notification
        if method == "notifications/initialized":
            state["initialized"] = True
            send({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"})
        continue
    if opt.mode == "modern":
        modern(msg["id"], method, msg.get("params"))
    else:
        legacy(msg["id"], method, msg.get("params"))
