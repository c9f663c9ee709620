#!/usr/bin/env python3
"""tool-stage.py - a stand-in for oxi-tool: --list prints one tool
definition; each tool.call gets a tool.result "FILE:<path>"."""
import json
import sys

if sys.argv[1:] == ["--list"]:
    print(json.dumps([{"name": "read_file", "description": "read a file",
                       "parameters": {"type": "object",
                                      "properties": {"path": {"type": "string"}},
                                      "required": ["path"]}}]))
    sys.exit(0)
for line in sys.stdin:
    r = json.loads(line)
    out = {"v": 1, "type": "tool.result", "id": r["id"],
           "content": "FILE:" + r["args"].get("path", ""), "is_error": False,
           "taint": []}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
