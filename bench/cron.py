#!/usr/bin/env python3
# cron.py - the figures of oxi-cron for make bench: its CPU while idle
# (a schedule due in an hour: nothing to do for 10 s; the target is 0),
# the wake-ups it took meanwhile, and the lateness of each fire (when its
# msg.in could be read, less its due time): an interval every second for
# 10 s, then 200 one-shots due in the same second
import json
import os
import select
import subprocess
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRON = os.path.join(TOP, 'bin', 'oxi-cron')
MAKER = {'channel': 'cli', 'chat': 'c', 'from': 'u', 'trust': 'owner'}


def cputime(pid):
    """the CPU seconds a process has used so far"""
    f = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf('SC_CLK_TCK')


def switches(pid):
    """its voluntary context switches: each a wake-up from a sleep"""
    for line in open('/proc/%d/status' % pid):
        if line.startswith('voluntary_ctxt_switches'):
            return int(line.split()[1])
    return 0


def due(line):
    r = json.loads(line)
    d = r['cron']['due']
    return time.mktime(time.strptime(d, '%Y-%m-%dT%H:%M:%SZ')) - time.timezone


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))]


def main():
    d = tempfile.mkdtemp(prefix='oxi-bench-cron.')
    fin, fout = os.path.join(d, 'in'), os.path.join(d, 'fire')
    os.mkfifo(fin)
    os.mkfifo(fout)
    env = dict(os.environ, OXI_HOME=d, OXI_CRON_MIN_INTERVAL='1',
               OXI_CRON_MAX='1000')
    env.pop('OXI_HEARTBEAT', None)
    rd = os.open(fout, os.O_RDWR | os.O_NONBLOCK)
    w = os.open(fin, os.O_RDWR)
    p = subprocess.Popen([CRON, '-o', fout], stdin=w, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def req(i, when, text='bench'):
        os.write(w, (json.dumps({'v': 1, 'type': 'cron.add', 'id': 'b%d' % i,
                                 'when': when, 'text': text,
                                 'maker': MAKER}) + '\n').encode())

    buf = b''

    def lines(secs):
        nonlocal buf
        got, end = [], time.time() + secs
        while time.time() < end:
            r, _, _ = select.select([rd], [], [], max(0, end - time.time()))
            if not r:
                break
            now = time.time()
            buf += os.read(rd, 1 << 20)
            *done, buf = buf.split(b'\n')
            got += [(now, x.decode()) for x in done if b'msg.in' in x]
        return got

    req(0, 'in 1h')
    lines(1.0)
    c0, s0 = cputime(p.pid), switches(p.pid)
    time.sleep(10)
    c1, s1 = cputime(p.pid), switches(p.pid)
    print('oxi-cron idle 10 s (a schedule due in an hour): CPU %.0f ms, '
          '%d wake-ups' % ((c1 - c0) * 1000, s1 - s0))

    req(1, 'every 1s', 'tick')
    late = [(t - due(x)) * 1000 for t, x in lines(10.5)]
    print('oxi-cron lateness, every 1s for 10 s: %d fires, p50 %.1f ms, '
          'p99 %.1f ms, max %.1f ms' % (len(late), pct(late, .5),
                                        pct(late, .99), max(late)))
    os.write(w, (json.dumps({'v': 1, 'type': 'cron.cancel', 'id': 'k1',
                             'ref': '', 'maker': MAKER}) + '\n').encode())
    at = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(time.time() + 3))
    for i in range(200):
        req(100 + i, at, 'burst')
    got = [x for x in lines(6) if 'burst' in x[1]]
    late = [(t - due(x)) * 1000 for t, x in got]
    print('oxi-cron lateness, 200 one-shots due in the same second: '
          '%d fires, p50 %.1f ms, max %.1f ms' % (len(late), pct(late, .5),
                                                  max(late)))
    p.terminate()
    p.wait()
    subprocess.call(['rm', '-rf', d])


main()
