#!/usr/bin/env python3
"""ptykeys.py - type at a command on a pseudo-terminal, for oxi's tests

usage: python3 tests/ptykeys.py OUT SHOWN SCRIPT CMD [ARG...]

Runs CMD with stdin and stderr on a pseudo-terminal (80 columns), stdout
to the file OUT, and on fd 3 the read end of a pipe the script writes
receipts to.  SHOWN gets every byte the terminal showed (CR LF and CR CR LF as LF).
SCRIPT is a file of steps, one a line:
  wait TEXT      until the terminal has shown TEXT (a Python string
                 literal) since the last wait, at most 10 s
  keys TEXT      type TEXT (a Python string literal: "hi\\r", "\\x03")
  records N      until OUT has N lines, at most 10 s
  receipt N      a receipt answering the Nth record of OUT, on fd 3
  sleep S        wait S seconds
After the script, CMD gets 10 s to exit, then SIGKILL.  Exit: CMD's
status (137 if killed; 2 when a wait or records step timed out).
SHOWN.modes gets "same" if the terminal's modes after CMD are those
before it, else "changed".
"""
import ast
import json
import os
import pty
import subprocess
import sys
import termios
import threading
import time
import fcntl
import struct


def main():
    out, shown, script = sys.argv[1:4]
    cmd = sys.argv[4:]
    m, s = pty.openpty()
    fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    before = termios.tcgetattr(s)
    r, w = os.pipe()
    p = subprocess.Popen(cmd, stdin=s, stdout=open(out, "wb"), stderr=s,
                         pass_fds=(r, 3), preexec_fn=lambda: os.dup2(r, 3))
    os.close(r)
    data = bytearray()
    lock = threading.Lock()

    def reader():
        while True:
            try:
                chunk = os.read(m, 4096)
            except OSError:
                return
            if not chunk:
                return
            with lock:
                data.extend(chunk)

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    seen = 0
    status = 0

    def lines():
        with open(out, "rb") as f:
            return f.read().splitlines()

    for step in open(script):
        step = step.strip()
        if not step:
            continue
        op, _, arg = step.partition(" ")
        if op == "wait":
            want = ast.literal_eval(arg).encode()
            end = time.time() + 10
            while time.time() < end:
                with lock:
                    i = data.find(want, seen)
                if i >= 0:
                    seen = i + len(want)
                    break
                time.sleep(0.02)
            else:
                sys.stderr.write("ptykeys: never shown: %r\n" % want)
                status = 2
                break
        elif op == "keys":
            os.write(m, ast.literal_eval(arg).encode())
        elif op == "records":
            end = time.time() + 10
            while len(lines()) < int(arg) and time.time() < end:
                time.sleep(0.02)
            if len(lines()) < int(arg):
                sys.stderr.write("ptykeys: fewer than %s records\n" % arg)
                status = 2
                break
        elif op == "receipt":
            rec = json.loads(lines()[int(arg) - 1])
            os.write(w, (json.dumps({"v": 1, "type": "receipt",
                                     "ref": "out-" + rec["id"],
                                     "in_reply_to": rec["id"],
                                     "ok": True}) + "\n").encode())
        elif op == "sleep":
            time.sleep(float(arg))
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    time.sleep(0.1)
    after = termios.tcgetattr(s)
    os.close(s)
    t.join(2)
    with lock:
        open(shown, "wb").write(bytes(data).replace(b"\r\r\n", b"\n")
                                .replace(b"\r\n", b"\n"))
    open(shown + ".modes", "w").write(
        "same\n" if after == before else "changed\n")
    os.close(w)
    if rc < 0:
        rc = 128 - rc
    sys.exit(status or rc)


if __name__ == "__main__":
    main()
