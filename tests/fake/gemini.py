#!/usr/bin/env python3
"""gemini.py - a fake Gemini generateContent server for oxi's tests

usage: python3 tests/fake/gemini.py --port-file FILE [--log FILE]
           [--status CODE] [--hang] [--replay FILE] [--chunk-sizes L]

POST .../models/MODEL:streamGenerateContent?alt=sse (an event stream of
GenerateContentResponse objects) or :generateContent (one of them),
answered by the scripted model of llmbase.py.  "think" sends a thought
summary part and then the call with thoughtSignature "sig-gem-1";
"refuse" ends with finishReason SAFETY, "long" with MAX_TOKENS;
"overload" ends with a bare JSON error object after the events, as
Vertex AI does; "cut" never sends a finishReason.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llmbase import Provider, Turn, pieces, serve, sse  # noqa: E402

FINISH = {"stop": "STOP", "refusal": "SAFETY", "length": "MAX_TOKENS"}


class Gemini(Provider):
    name = "gemini"

    def serves(self, path):
        return "/models/" in path and (":streamGenerateContent" in path or
                                       ":generateContent" in path)

    def streamed(self, req, path):
        return ":streamGenerateContent" in path

    def turn(self, req):
        cs = req.get("contents") or []
        last = cs[-1] if cs else {}
        parts = last.get("parts") or []
        res = [p["functionResponse"] for p in parts
               if "functionResponse" in p]
        if res:
            return Turn("", [r.get("response", {}).get(
                "output", json.dumps(r.get("response"))) for r in res])
        return Turn("".join(p.get("text", "") for p in parts), None)

    def usage(self, req, t):
        return {"promptTokenCount": len(json.dumps(req.get("contents"))) // 4,
                "candidatesTokenCount": 5 + 8 * len(t.calls),
                "thoughtsTokenCount": 7 if t.think else 0,
                "totalTokenCount": 99}

    def calls(self, t):
        out = []
        for k, (name, args) in enumerate(t.calls):
            p = {"functionCall": {"name": name, "args": args}}
            if t.think and k == 0:
                p["thoughtSignature"] = "sig-gem-1"
            out.append(p)
        return out

    def stream(self, req, t):
        out = []

        def chunk(parts, finish=None, usage=None):
            c = {"content": {"role": "model", "parts": parts}, "index": 0}
            if finish:
                c["finishReason"] = finish
            d = {"candidates": [c], "modelVersion": "fake"}
            if usage:
                d["usageMetadata"] = usage
            out.append(sse(None, d))

        if t.think:
            chunk([{"text": "**Planning**\n\nRead the notes.",
                    "thought": True}])
        if t.text is not None:
            for p in pieces(t.text, 4):
                chunk([{"text": p}])
            if t.end == "overload":
                out.append(json.dumps({"error": {
                    "code": 503, "message": "The model is overloaded.",
                    "status": "UNAVAILABLE"}}, indent=2) + "\n")
                return "".join(out)
            if t.end == "cut":
                return "".join(out)
        if t.calls:
            chunk(self.calls(t), "STOP", self.usage(req, t))
        else:
            chunk([{"text": ""}], FINISH[t.end], self.usage(req, t))
        return "".join(out)

    def whole(self, req, t):
        parts = [{"text": t.text}] if t.text is not None else []
        parts += self.calls(t)
        return {"candidates": [{"content": {"role": "model",
                                            "parts": parts},
                                "finishReason": FINISH.get(t.end, "STOP"),
                                "index": 0}],
                "usageMetadata": self.usage(req, t), "modelVersion": "fake"}

    def error(self, code):
        status = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED",
                  403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                  429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
                  503: "UNAVAILABLE"}
        return {"error": {"code": code, "message": "fake error %d" % code,
                          "status": status.get(code, "UNKNOWN")}}


if __name__ == "__main__":
    serve(Gemini())
