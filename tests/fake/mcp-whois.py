#!/usr/bin/env python3
"""mcp-whois.py - an MCP server (stdio, revision 2025-11-25) for the
indirect-injection tests (T-IND)

usage: python3 tests/fake/mcp-whois.py RECORDS-DIR

Tools:
  whois {domain}          the WHOIS record of domain: the file
                          RECORDS-DIR/DOMAIN, a record that may carry
                          an injection
  send_message {to, text} sends a message to a third party: appends
                          "to<TAB>text" to sent.log in its working
                          directory (the workspace), the trace a test
                          counts
"""
import json
import os
import sys

RECORDS = sys.argv[1] if len(sys.argv) > 1 else "."
TOOLS = [
    {"name": "whois", "description": "Look up the WHOIS record of a domain",
     "inputSchema": {"type": "object", "properties": {
         "domain": {"type": "string"}}, "required": ["domain"]}},
    {"name": "send_message", "description": "Send a message to someone",
     "inputSchema": {"type": "object", "properties": {
         "to": {"type": "string"}, "text": {"type": "string"}},
         "required": ["to", "text"]}},
]


def send(m):
    sys.stdout.write(json.dumps(m) + "\n")
    sys.stdout.flush()


def text(t, err=False):
    return {"content": [{"type": "text", "text": t}], "isError": err}


for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if "id" not in m or "method" not in m:
        continue
    meth, mid, p = m["method"], m["id"], m.get("params") or {}
    if meth == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "whois", "version": "1"}}})
    elif meth == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
    elif meth == "tools/call":
        a = p.get("arguments") or {}
        if p.get("name") == "whois":
            d = os.path.basename(str(a.get("domain", "")))
            try:
                with open(os.path.join(RECORDS, d)) as f:
                    r = text(f.read())
            except OSError:
                r = text("no match for " + d, True)
        elif p.get("name") == "send_message":
            with open("sent.log", "a") as f:
                f.write("%s\t%s\n" % (a.get("to"), a.get("text")))
            r = text("sent")
        else:
            r = text("unknown tool", True)
        send({"jsonrpc": "2.0", "id": mid, "result": r})
    elif meth == "ping":
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": mid,
              "error": {"code": -32601, "message": "unknown method"}})
