#!/usr/bin/env python3
# guardout.py - the figures of oxi-guard out for make bench: the latency of
# one 4 KB reply through a running filter with secrets and a canary
# configured (p50, p99), 1 MB of tool output in a reply, and each 1 MB
# adversarial text (ReDoS shapes, encodings, pieces of a secret) through a
# fresh one; the targets of ../shared/SECURITY-TESTS.md (SEC-10, SEC-11)
import base64
import json
import os
import random
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUARD = os.path.join(TOP, 'bin', 'oxi-guard')
WORDS = ('the a of to and in is you that it for on with as this be are '
         'here is your summary the file was saved key token password api '
         'function error report meeting tomorrow weather recipe python '
         'shell server data project team email draft review'.split())
SECRET = 'sk-proj-Vb6Kp3AcZ9fQ2xLm4Tz8Rw1Nq7Hs5Dj0'


def env(d):
    return dict(os.environ, OXI_HOME=d, OXI_CONFIG_DIR=d,
                OXI_GUARD_MAX_OUT='4m', OXI_AUDIT_LOG=os.path.join(d, 'a'),
                OXI_CANARY_KEY_FILE=os.path.join(d, 'canary.key'))


def rec(i, text):
    return json.dumps({'v': 1, 'type': 'msg.out', 'id': 'b%d' % i,
                       'session': 'cli::s1', 'channel': 'cli', 'chat': 'c',
                       'text': text}) + '\n'


def words(rnd, n):
    t = ''
    while len(t) < n:
        t += rnd.choice(WORDS) + ' '
    return t[:n]


def latency(d, n=1000):
    rnd = random.Random(4)
    p = subprocess.Popen([GUARD, 'out', '-s', os.path.join(d, 'secrets')],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env(d), text=True,
                         bufsize=1)
    times = []
    for i in range(n):
        t = words(rnd, 4096)
        t0 = time.perf_counter()
        p.stdin.write(rec(i, t))
        p.stdin.flush()
        p.stdout.readline()
        times.append(time.perf_counter() - t0)
    p.stdin.close()
    p.wait()
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.99)]


def tool_output(rnd):
    lines, n = [], 0
    while n < 1 << 20:
        line = rnd.choice([
            '-rw-r--r-- 1 oxi oxi %d Nov 26 07:%02d notes-%d.md' % (
                rnd.randint(10, 99999), rnd.randint(0, 59), rnd.randint(1, 99)),
            '2026-11-26T07:%02d:%02dZ INFO request id=%s took %d ms' % (
                rnd.randint(0, 59), rnd.randint(0, 59),
                os.urandom(8).hex(), rnd.randint(1, 900)),
            'config: timeout = 30, retries = 3, token_ttl = 3600',
            words(rnd, 70)])
        lines.append(line)
        n += len(line) + 1
    return '\n'.join(lines)[:1 << 20]


def adversarial():
    rnd = random.Random(5)
    mb = 1 << 20
    yield 'a x 1 MB', 'a' * mb
    yield 'random base64', base64.b64encode(os.urandom(mb * 3 // 4)).decode()
    yield 'key= repeated', 'key=' * (mb // 4)
    yield 'random characters', ''.join(rnd.choice(
        'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/=-_')
        for _ in range(mb))
    yield 'invalid UTF-8', (b'\xff\xfe\xc3' * (mb // 3)).decode('latin-1')
    yield 'percent escapes', '%41' * (mb // 3)
    yield 'PEM headers', '-----BEGIN PRIVATE KEY-----' * (mb // 27)
    yield 'JWT heads', 'eyJhbGciOiJIUzI1NiJ9.' * (mb // 21)
    yield 'spaced letters', 'a ' * (mb // 2)
    yield 'pieces of the secret', ' '.join(
        SECRET[i:i + 7] for i in range(0, len(SECRET) - 7)) * (mb // 250)
    yield 'markdown links', '[a](https://x.example/?q=1) ' * (mb // 28)


def main():
    fail = 0
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, 'secrets'), 'w') as f:
            f.write(SECRET + '\nghp_Zq7vW2kLm9Xc4Rt8Yb1Nh6Jd3Fs5Pg0AeUoI\n')
        with open(os.path.join(d, 'canary.key'), 'w') as f:
            f.write(os.urandom(32).hex() + '\n')
        p50, p99 = latency(d)
        print('oxi-guard out: a 4 KB reply through the filter: p50 %.2f ms, '
              'p99 %.2f ms' % (p50 * 1e3, p99 * 1e3))
        args = [GUARD, 'out', '-l', '8m', '-s', os.path.join(d, 'secrets')]
        t = tool_output(random.Random(6))
        t0 = time.perf_counter()
        p = subprocess.run(args, input=rec(0, t), env=env(d),
                           capture_output=True, text=True)
        dt = time.perf_counter() - t0
        ok = dt <= 0.1 and p.returncode == 0
        print('  1 MB of tool output in a reply: %.0f ms%s' % (
            dt * 1e3, '' if ok else '  OVER 100 ms'))
        for name, text in adversarial():
            t0 = time.perf_counter()
            p = subprocess.run(args, input=rec(0, text), env=env(d),
                               capture_output=True, text=True)
            dt = time.perf_counter() - t0
            how = 'withheld' if 'withheld' in p.stdout else \
                'redacted' if 'REDACTED' in p.stdout else \
                'passed' if p.stdout else 'dead-lettered'
            ok = dt <= 2.0 and p.returncode in (0, 1)
            fail |= not ok
            print('  1 MB %-28s %5.2f s  %s%s' % (name, dt, how,
                                                 '' if ok else '  OVER 2 s'))
    return fail


if __name__ == '__main__':
    sys.exit(main())
