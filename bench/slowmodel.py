#!/usr/bin/env python3
"""slowmodel.py - a model that takes DELAY seconds, for make bench

usage: python3 bench/slowmodel.py --port-file FILE [--delay S]

An OpenAI-compatible Chat Completions endpoint on 127.0.0.1 in one
asyncio thread: every POST is answered after DELAY seconds with a short
streamed reply (a role delta, one content delta, the finish reason, a
usage chunk, [DONE]).  The tests' fake (tests/fake/openai.py) runs a
thread per connection and parses each request in full; a thousand at
once cost it a core, which would be counted against oxi.  This one costs
little, so that the figure is oxi's.
"""
import argparse
import asyncio
import json
import os

BODY = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in [
    {"id": "b", "object": "chat.completion.chunk", "model": "m",
     "choices": [{"index": 0, "delta": {"role": "assistant"},
                  "finish_reason": None}]},
    {"id": "b", "object": "chat.completion.chunk", "model": "m",
     "choices": [{"index": 0, "delta": {"content": "ok"},
                  "finish_reason": None}]},
    {"id": "b", "object": "chat.completion.chunk", "model": "m",
     "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    {"id": "b", "object": "chat.completion.chunk", "model": "m",
     "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 1,
                              "total_tokens": 11}},
]) + b"data: [DONE]\n\n"
HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        b"Content-Length: %d\r\n\r\n" % len(BODY))


async def serve(reader, writer, delay):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            n = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    n = int(line.split(b":", 1)[1])
            if n:
                await reader.readexactly(n)
            await asyncio.sleep(delay)
            writer.write(HEAD + BODY)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--delay", type=float, default=1.0)
    a = ap.parse_args()
    srv = await asyncio.start_server(
        lambda r, w: serve(r, w, a.delay), "127.0.0.1", 0, backlog=4096)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.sockets[0].getsockname()[1])
    os.rename(tmp, a.port_file)
    async with srv:
        await srv.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
