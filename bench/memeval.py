#!/usr/bin/env python3
"""bench/memeval.py - recall@5 of oxi-mem on a labelled set

usage: python3 bench/memeval.py [--set tests/mem/set.json] [--min H,W,V]

Plants the facts of tests/mem/set.json for one person through oxi-mem,
with vectors from oxi-llm -j and the fake embedding server
(tests/fake/embed.py --words: a bag of words that knows the set's
synonyms), then asks each query in three modes, words (FTS5 bm25 only),
vectors (cosine only) and hybrid (both, reciprocal rank fusion), and
prints recall@5: the share of a query's relevant facts among its first
five, averaged over the queries.  --min fails (exit 1) if a mode's
figure is below its minimum.  Hermetic: the fake listens on 127.0.0.1.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default=os.path.join(TOP, "tests/mem/set.json"))
    ap.add_argument("--min")
    a = ap.parse_args()
    data = json.load(open(a.set))
    tmp = tempfile.mkdtemp(prefix="memeval.")
    port = os.path.join(tmp, "port")
    fake = subprocess.Popen([sys.executable, os.path.join(
        TOP, "tests/fake/embed.py"), "--port-file", port, "--words", a.set],
        stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(port):
                break
            time.sleep(0.05)
        env = dict(os.environ, OXI_HOME=tmp,
                   PATH=os.path.join(TOP, "bin") + ":" + os.environ["PATH"],
                   OXI_OPENAI_BASE_URL="http://127.0.0.1:%s/v1" %
                   open(port).read().strip(),
                   OXI_MEM_LLM="oxi-llm -j",
                   OXI_MEM_EMBED_MODEL="openai/text-embedding-3-small",
                   OXI_DEADLETTER=os.path.join(tmp, "dead"))
        reqs = []
        for i, f in enumerate(data["facts"]):
            reqs.append({"type": "mem.remember", "id": "f%d" % i,
                         "scope": "eval:x:1", "text": f})
        modes = ["words", "vectors", "hybrid"]
        for m in modes:
            for j, q in enumerate(data["queries"]):
                reqs.append({"type": "mem.recall", "id": "%s:%d" % (m, j),
                             "scope": "eval:x:1", "query": q["q"], "k": 5,
                             "mode": m})
        out = subprocess.run([os.path.join(TOP, "bin/oxi-mem"), "-f",
                              os.path.join(tmp, "mem.db")],
                             input="".join(json.dumps(r) + "\n"
                                           for r in reqs),
                             capture_output=True, text=True, env=env,
                             check=True).stdout
        uid = {}
        got = {}
        for line in out.splitlines():
            r = json.loads(line)
            if r["type"] == "mem.remembered":
                uid[r["fact"]] = int(r["ref"][1:])
            elif r["type"] == "mem.recalled":
                got[r["ref"]] = [uid.get(f["fact"]) for f in r["facts"]]
        if len(uid) != len(data["facts"]):
            print("memeval: %d facts planted of %d (duplicates?)" %
                  (len(uid), len(data["facts"])), file=sys.stderr)
        res = {}
        for m in modes:
            tot = 0.0
            for j, q in enumerate(data["queries"]):
                top = got.get("%s:%d" % (m, j), [])[:5]
                rel = q["relevant"]
                tot += sum(1 for x in rel if x in top) / len(rel)
            res[m] = tot / len(data["queries"])
        print("oxi-mem recall@5 on %d facts, %d queries: words (FTS5) %.2f,"
              " vectors %.2f, hybrid (RRF) %.2f" % (
                  len(data["facts"]), len(data["queries"]), res["words"],
                  res["vectors"], res["hybrid"]))
        if a.min:
            mins = [float(x) for x in a.min.split(",")]
            for m, lo in zip(["hybrid", "words", "vectors"], mins):
                if res[m] < lo:
                    print("memeval: %s %.2f below %.2f" % (m, res[m], lo),
                          file=sys.stderr)
                    return 1
        return 0
    finally:
        fake.terminate()
        fake.wait()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
