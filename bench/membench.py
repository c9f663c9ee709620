#!/usr/bin/env python3
"""bench/membench.py - oxi-mem's recall latency with many facts of one person

usage: python3 bench/membench.py [--facts 10000,100000] [--dims 1536]
           [--queries 30]

For each size, makes a memory database (oxi-mem migrates it; the rows go
in straight through sqlite3, the FTS5 index filled by oxi-mem's
triggers) holding that many facts of one person (eight words each from a
vocabulary of 5,000, a unit vector of --dims float32 each) and 1,000 of
another, then times mem.recall records through one oxi-mem process, one
at a time (write one, read its answer), in the three modes, each query
with its vector given (no model in the way).  Prints the median and the
95th percentile in ms.  The vector scan is exact: every one of the
person's vectors is read and dotted.
"""
import argparse
import array
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def unit(rnd, dims):
    v = [rnd.gauss(0, 1) for _ in range(dims)]
    s = sum(x * x for x in v) ** 0.5
    return [x / s for x in v]


def build(path, n, dims, rnd, vocab, bases):
    subprocess.run([os.path.join(TOP, "bin/oxi-mem"), "-f", path, "links"],
                   check=True, stdout=subprocess.DEVNULL)
    db = sqlite3.connect(path)
    db.execute("PRAGMA synchronous=OFF")
    rows = []
    for i in range(n + 1000):
        person = "bench:x:1" if i < n else "bench:x:2"
        text = " ".join(rnd.choice(vocab) for _ in range(8))
        rows.append(("B%025d" % i, person, text, 0.9, 1795000000,
                     1795000000, bases[i % len(bases)]))
        if len(rows) == 5000:
            db.executemany("INSERT INTO facts(uid, person, text, confidence,"
                           " created, confirmed, vec) VALUES (?,?,?,?,?,?,?)",
                           rows)
            rows = []
    if rows:
        db.executemany("INSERT INTO facts(uid, person, text, confidence,"
                       " created, confirmed, vec) VALUES (?,?,?,?,?,?,?)",
                       rows)
    db.commit()
    db.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", default="10000,100000")
    ap.add_argument("--dims", type=int, default=1536)
    ap.add_argument("--queries", type=int, default=30)
    a = ap.parse_args()
    rnd = random.Random(7)
    vocab = ["w%04d" % i for i in range(5000)]
    vecs = [unit(rnd, a.dims) for _ in range(200)]
    bases = [array.array("f", v).tobytes() for v in vecs]
    tmp = tempfile.mkdtemp(prefix="membench.")
    env = dict(os.environ, OXI_HOME=tmp, OXI_MEM_LLM="none")
    try:
        for n in [int(x) for x in a.facts.split(",")]:
            path = os.path.join(tmp, "mem%d.db" % n)
            t0 = time.time()
            build(path, n, a.dims, rnd, vocab, bases)
            made = time.time() - t0
            size = os.path.getsize(path) >> 20
            p = subprocess.Popen([os.path.join(TOP, "bin/oxi-mem"), "-f",
                                  path], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True, env=env)
            line = []
            for mode in ["words", "vectors", "hybrid"]:
                ms = []
                for q in range(a.queries + 2):
                    req = {"type": "mem.recall", "id": "q%d" % q,
                           "scope": "bench:x:1", "mode": mode,
                           "query": " ".join(rnd.choice(vocab)
                                             for _ in range(3)),
                           "vector": vecs[rnd.randrange(len(vecs))]}
                    t = time.perf_counter()
                    p.stdin.write(json.dumps(req) + "\n")
                    p.stdin.flush()
                    r = json.loads(p.stdout.readline())
                    ms.append((time.perf_counter() - t) * 1000)
                    assert r["type"] == "mem.recalled", r
                    assert len(r["facts"]) > 0
                ms = sorted(ms[2:])	# the first two warm the cache
                line.append("%s p50 %.1f ms p95 %.1f ms" % (
                    mode, ms[len(ms) // 2], ms[int(len(ms) * 0.95) - 1]))
            p.stdin.close()
            p.wait()
            print("oxi-mem recall, %d facts of one person (%d dims, %d MiB,"
                  " made in %.0f s): %s" % (n, a.dims, size, made,
                                          "; ".join(line)))
            os.unlink(path)
    finally:
        subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
