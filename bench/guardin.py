#!/usr/bin/env python3
# guardin.py - the figures of oxi-guard in for make bench: the latency of
# one 4 KB message through a running filter (p50, p99), and the time of
# each 1 MB adversarial text (ReDoS shapes, encodings) through a fresh one
import base64
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUARD = os.path.join(TOP, 'bin', 'oxi-guard')
WORDS = ('the a of to and in is you that it for on with as this be are '
         'please can could would help me write explain summary list code '
         'function error file report meeting tomorrow weather recipe '
         'python shell server data project team email draft review').split()


def env(d):
    return dict(os.environ, OXI_HOME=d, OXI_CONFIG_DIR=d,
                OXI_GUARD_MAX_IN='2m')


def rec(i, text):
    return json.dumps({'v': 1, 'type': 'msg.in', 'id': 'b%d' % i,
                       'channel': 'bench', 'chat': 'c', 'from': 'u',
                       'text': text}) + '\n'


def cpu():
    """seconds of CPU the children waited for used so far"""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def latency(d, n=1000):
    rnd = random.Random(4)
    c0 = cpu()
    p = subprocess.Popen([GUARD, 'in', '-a', '*', '-R', '0'],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env(d), text=True,
                         bufsize=1)
    times = []
    for i in range(n):
        t = ''
        while len(t) < 4096:
            t += rnd.choice(WORDS) + ' '
        t = t[:4096]
        t0 = time.perf_counter()
        p.stdin.write(rec(i, t))
        p.stdin.flush()
        p.stdout.readline()
        times.append(time.perf_counter() - t0)
    p.stdin.close()
    p.wait()
    times.sort()
    return (times[len(times) // 2], times[int(len(times) * 0.99)],
            (cpu() - c0) / n)


def adversarial():
    rnd = random.Random(5)
    mb = 1 << 20
    yield 'a x 1 MB', 'a' * mb
    yield 'random base64', base64.b64encode(os.urandom(mb * 3 // 4)).decode()
    yield 'key= repeated', 'key=' * (mb // 4)
    yield 'ignore repeated', 'ignore ' * (mb // 7)
    yield 'spaced letters', 'a ' * (mb // 2)
    yield 'percent escapes', '%41' * (mb // 3)
    yield 'random hex', os.urandom(mb // 2).hex()
    yield 'trigger words', ' '.join(rnd.choice(
        ['you', 'are', 'the', 'instructions', 'previous', 'act', 'as',
         'system', 'prompt', 'no', 'rules', 'without', 'restrictions'])
        for _ in range(mb // 7))
    yield 'zero-width between letters', '\u200b'.join('abcdefgh' * (mb // 24))


def main():
    fail = 0
    with tempfile.TemporaryDirectory() as d:
        p50, p99, c = latency(d)
        print('oxi-guard in: a 4 KB message through the filter: p50 %.2f ms, '
              'p99 %.2f ms (CPU %.2f ms a message; load average %.1f)' %
              (p50 * 1e3, p99 * 1e3, c * 1e3, os.getloadavg()[0]))
        for name, text in adversarial():
            t0, c0 = time.perf_counter(), cpu()
            p = subprocess.run([GUARD, 'in', '-l', '8m', '-a', '*', '-R',
                                '0'], input=rec(0, text), env=env(d),
                               capture_output=True, text=True)
            dt, dc = time.perf_counter() - t0, cpu() - c0
            out = p.stdout.split('"type":"')[1][:6] if p.stdout else 'none'
            ok = dt <= 2.0 and p.returncode in (0, 1)
            fail |= not ok
            print('  1 MB %-28s %5.2f s (CPU %4.2f s)  %s%s' %
                  (name, dt, dc, out.rstrip('",'), '' if ok else
                   '  OVER 2 s'))
    return fail


if __name__ == '__main__':
    sys.exit(main())
