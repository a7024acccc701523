#!/usr/bin/env python3
"""Holds N connections open to a local server, the way slow or silent clients do, for the serve
benchmark in docs/BENCHMARKS.md: a third send nothing, a third a request line cut short, a third
`Expect: 100-continue` headers and then withhold the body. A connection the server closes (after
its time limit) is opened again at once, so N are held all the time.

usage: hold_connections.py PORT [N] [SECONDS]
"""
import socket
import sys
import time

KINDS = [
    b"",
    b"GET /api/probe?game=conn",
    b"POST /api/probe HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 100\r\n\r\n",
]


def open_one(port, k):
    s = socket.create_connection(("127.0.0.1", port))
    s.setblocking(False)
    if KINDS[k % 3]:
        s.sendall(KINDS[k % 3])
    return s


def main():
    port = int(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 60
    held = [open_one(port, k) for k in range(count)]
    reopened = 0
    end = time.time() + seconds
    while time.time() < end:
        time.sleep(0.05)
        for k, s in enumerate(held):
            try:
                data = s.recv(4096)
                closed = data == b""
            except BlockingIOError:
                closed = False
            except OSError:
                closed = True
            if closed:
                s.close()
                held[k] = open_one(port, k)
                reopened += 1
    print(f"held {count} connections for {seconds:.0f} s, reopened {reopened} the server closed")


if __name__ == "__main__":
    main()
