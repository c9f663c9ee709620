#!/usr/bin/env python3
"""tcp-sink.py - listens on 127.0.0.1 (a free port, written to
--port-file) and appends what each connection sends to --log."""
import argparse
import os
import socket

ap = argparse.ArgumentParser()
ap.add_argument("--port-file", required=True)
ap.add_argument("--log", required=True)
opt = ap.parse_args()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(8)
with open(opt.port_file + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(opt.port_file + ".tmp", opt.port_file)
while True:
    c, _ = s.accept()
    c.settimeout(5)
    try:
        data = c.recv(1024)
    except OSError:
        data = b""
    with open(opt.log, "ab") as f:
        f.write(b"connection: " + data)
    c.close()
