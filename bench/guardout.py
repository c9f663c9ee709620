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
import resource
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


def cputime(pid):
    """the CPU seconds a process has used so far"""
    f = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf('SC_CLK_TCK')


def latency(d, big, n=1000):
    """per reply, the wall time from its line written to its line read;
    then the CPU time of one big reply through the same filter"""
    rnd = random.Random(4)
    lines = [rec(i, words(rnd, 4096)).encode() for i in range(n)]
    p = subprocess.Popen([GUARD, 'out', '-l', '8m', '-s',
                          os.path.join(d, 'secrets')],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env(d), bufsize=0)
    wfd, rfd, got = p.stdin.fileno(), p.stdout.fileno(), b''
    times = []
    for line in lines + [rec(n, big).encode()]:
        t0, c0 = time.perf_counter(), cputime(p.pid)
        os.write(wfd, line)
        while b'\n' not in got:
            got += os.read(rfd, 1 << 20)
        got = got[got.index(b'\n') + 1:]
        times.append(time.perf_counter() - t0)
    cpu = cputime(p.pid) - c0
    p.stdin.close()
    p.wait()
    times = sorted(times[:-1])
    return times[len(times) // 2], times[int(len(times) * 0.99)], cpu


def run(args, d, text):
    """one record through a fresh filter: its output, exit status, wall
    and CPU seconds"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(args, input=rec(0, text), env=env(d),
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                before.ru_stime)
    return p, wall, cpu


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
        tool = tool_output(random.Random(6))
        p50, p99, cpu = latency(d, tool)
        ok = p99 <= 0.002
        print('oxi-guard out: a 4 KB reply through the filter: p50 %.2f ms, '
              'p99 %.2f ms%s' % (p50 * 1e3, p99 * 1e3,
                                 '' if ok else '  OVER 2 ms (a busy machine?)'))
        ok = cpu <= 0.1
        fail |= not ok
        print('  1 MB of tool output in a reply through it: %.0f ms CPU%s' % (
            cpu * 1e3, '' if ok else '  OVER 100 ms'))
        args = [GUARD, 'out', '-l', '8m', '-s', os.path.join(d, 'secrets')]
        p, wall, cpu = run(args, d, tool)
        print('  ... through a fresh filter: %.0f ms CPU, %.0f ms wall' % (
            cpu * 1e3, wall * 1e3))
        for name, text in adversarial():
            p, wall, cpu = run(args, d, text)
            how = 'withheld' if 'withheld' in p.stdout else \
                'redacted' if 'REDACTED' in p.stdout else \
                'passed' if p.stdout else 'dead-lettered'
            ok = wall <= 2.0 and p.returncode in (0, 1)
            fail |= not ok
            print('  1 MB %-22s %5.2f s (CPU %4.2f s)  %s%s' % (
                name, wall, cpu, how, '' if ok else '  OVER 2 s'))
    return fail


if __name__ == '__main__':
    sys.exit(main())
