#!/usr/bin/env python3
"""Where does I/O that became ready during a step run, after
await asyncio.sleep(0)?  A task takes 5 steps of 2 ms, yielding with
sleep(0) after each; during step 0 it makes a socket readable, whose
reader logs "io".  Prints the order (t0 t1 io t2 ...) and the number of
task steps that ran between the socket becoming ready and its callback.

Usage: asyncio_order.py [--csv]     (make data runs it for ex01)
"""
import asyncio
import platform
import socket
import sys
import time


async def run(steps=5, step_s=0.002):
    loop = asyncio.get_running_loop()
    r, w = socket.socketpair()
    r.setblocking(False)
    log = []

    def on_read():
        r.recv(16)
        log.append("io")
        loop.remove_reader(r)

    loop.add_reader(r, on_read)
    for i in range(steps):
        log.append(f"t{i}")
        if i == 0:
            w.send(b"x")            # ready from now on, during step 0
        end = time.perf_counter() + step_s
        while time.perf_counter() < end:
            pass
        await asyncio.sleep(0)
    r.close()
    w.close()
    return log


def main(argv):
    if any(a not in ("--csv",) for a in argv):
        print(__doc__, file=sys.stderr)
        return 2
    log = asyncio.run(run())
    steps_before_io = log.index("io") - 1   # steps after t0, before io
    if "--csv" in argv:
        print("python,steps,order,steps_between_ready_and_io")
        print(f"{platform.python_version()},5,{' '.join(log)},{steps_before_io}")
    else:
        print(" ".join(log))
        print(f"the socket became ready during t0; its callback ran after "
              f"{steps_before_io} more step(s) of the task")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
