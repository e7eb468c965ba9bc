#!/usr/bin/env python3
"""The asyncio side of `make bench`: standard library only.

  asyncio_bench.py yield [--budget-ms N] [--reps N] [--csv]
      ns per `await asyncio.sleep(0)`, one task yielding N times (the rows
      have bench-yield's columns, so the two tables join).
  asyncio_bench.py lag [--every N] [--items N] [--work-ns N] [--beat-ms N]
                       [--reps N] [--csv]
      the heartbeat experiment of bench-lag on asyncio: items of pure-Python
      arithmetic, calibrated on this machine to --work-ns per item, yield
      every N items, a heartbeat every --beat-ms; worst and median lateness.

Lateness is measured as common/lib/lag.c does it: against the schedule
start + k * period, read from time.perf_counter(), skipping the slots a
stall swallowed, so one stall gives one large sample.
"""
import argparse
import asyncio
import math
import socket
import sys
import time

INTERVALS = (0, 1, 10, 100, 1000)


def nearest_rank(values, pct):
    """The smallest value with at least pct% of the values at or below it
    (the definition common/lib/lag.c uses)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(pct * len(ordered) / 100))
    return ordered[rank - 1]


# ---- yield cost ----------------------------------------------------------

async def yield_run(count):
    """Seconds for `count` sleep(0) calls, and whether a byte sent at the
    first step was read before the task finished (the yield let I/O in)."""
    loop = asyncio.get_running_loop()
    rx, tx = socket.socketpair()
    rx.setblocking(False)
    seen = []
    finished = False

    def on_readable():
        rx.recv(1)
        loop.remove_reader(rx.fileno())
        seen.append(not finished)

    loop.add_reader(rx.fileno(), on_readable)
    start = time.perf_counter()
    tx.send(b"x")
    for _ in range(count):
        await asyncio.sleep(0)
    elapsed = time.perf_counter() - start
    finished = True
    await asyncio.sleep(0)
    rx.close()
    tx.close()
    return elapsed, bool(seen and seen[0])


def measure_yield(args):
    budget = args.budget_ms / 1000
    count = 1000
    elapsed, _ = asyncio.run(yield_run(count))
    count = max(1000, int(count * budget / elapsed))
    results = [asyncio.run(yield_run(count)) for _ in range(args.reps)]
    per_yield = nearest_rank([e / count * 1e9 for e, _ in results], 50)
    real = "yes" if all(ok for _, ok in results) else "no"
    if args.csv:
        print("mechanism,base,real_yield,yields_per_run,ns_per_yield")
        print(f"asyncio_sleep0,asyncio,{real},{count},{per_yield:.1f}")
    else:
        print(f"await asyncio.sleep(0): {per_yield:.1f} ns per yield "
              f"(median of {args.reps} runs of {count}; lets I/O in: {real}; "
              f"Python {sys.version.split()[0]})")


# ---- heartbeat lag -------------------------------------------------------

def work(i, size):
    """One item: pure-Python arithmetic, the kind of loop body that has no
    await inside it."""
    acc = 0
    for k in range(size):
        acc += k * i
    return acc


def item_cost_ns(size, n=300):
    """ns per item at this size: the fastest of 7 batches of n.  Load on a
    shared machine only ever adds time, so the minimum is the steadiest
    estimate (bench-lag calibrates its spin the same way)."""
    best = math.inf
    for _ in range(7):
        start = time.perf_counter()
        for i in range(n):
            work(i, size)
        best = min(best, time.perf_counter() - start)
    return best / n * 1e9


def calibrate(target_ns):
    """The inner size whose item costs about target_ns here, and its cost."""
    item_cost_ns(16)               # warm the interpreter up first
    small, large = 16, 128
    at_small, at_large = item_cost_ns(small), item_cost_ns(large)
    slope = max((at_large - at_small) / (large - small), 1e-3)
    size = max(1, round(small + (target_ns - at_small) / slope))
    for _ in range(2):             # correct from measurements at that size
        size = max(1, round(size + (target_ns - item_cost_ns(size)) / slope))
    return size, item_cost_ns(size)


async def heartbeat(period, start, stop, lates):
    due = start + period
    while True:
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        now = time.perf_counter()
        lates.append(max(0.0, now - due))
        while due <= now:          # skip the slots a stall swallowed
            due += period
        if stop.is_set():
            return


async def lag_run(items, size, every, period):
    """One run: (lateness samples in s, loop total in s)."""
    stop, lates = asyncio.Event(), []
    start = time.perf_counter()
    beat = asyncio.create_task(heartbeat(period, start, stop, lates))
    await asyncio.sleep(0)         # the heartbeat arms its first sleep first
    t0 = time.perf_counter()
    for i in range(items):
        work(i, size)
        if every and (i + 1) % every == 0 and i + 1 < items:
            await asyncio.sleep(0)
    total = time.perf_counter() - t0
    stop.set()
    await beat                     # a starved beat still fires, and counts
    return lates, total


def measure_lag(args):
    size, item_ns = calibrate(args.work_ns)
    period = args.beat_ms / 1000
    intervals = INTERVALS if args.every is None else (args.every,)
    if args.csv:
        print("runtime,yield_every,items,item_ns,beats,worst_lag_ms,"
              "median_lag_ms,loop_total_ms")
    else:
        print(f"{args.items} items of {item_ns:.0f} ns each (pure Python, "
              f"inner size {size}) beside a {args.beat_ms} ms heartbeat; "
              f"medians of {args.reps} runs; Python {sys.version.split()[0]}")
        print(f"{'yield every':<12} {'worst ms':>10} {'median ms':>10} "
              f"{'total ms':>10} {'beats':>6}")
    # Reps outside, intervals inside: a burst of load on a shared machine
    # then falls on every interval alike (bench-lag does the same).
    runs = {every: [] for every in intervals}
    for rep in range(args.reps):
        print(f"asyncio_bench: round {rep + 1} of {args.reps}", file=sys.stderr)
        for every in intervals:
            runs[every].append(asyncio.run(lag_run(args.items, size, every, period)))
    for every in intervals:
        lates = [l for l, _ in runs[every]]
        worst = nearest_rank([max(l) * 1e3 for l in lates], 50)
        median = nearest_rank([nearest_rank(l, 50) * 1e3 for l in lates], 50)
        total = nearest_rank([t * 1e3 for _, t in runs[every]], 50)
        beats = len(lates[-1])
        if args.csv:
            print(f"python_asyncio,{every},{args.items},{item_ns:.0f},{beats},"
                  f"{worst:.3f},{median:.3f},{total:.3f}")
        else:
            label = "never" if every == 0 else str(every)
            print(f"{label:<12} {worst:10.2f} {median:10.2f} {total:10.1f} "
                  f"{beats:6d}")


# ---- arguments -----------------------------------------------------------

def whole(lo, hi):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number")
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is not from {lo} to {hi}")
        return value
    return parse


def parse_args(argv):
    # argparse reports a bad argument with the usage and exit status 2.
    p = argparse.ArgumentParser(prog="asyncio_bench.py",
                                description="the asyncio side of make bench")
    sub = p.add_subparsers(dest="what", required=True)
    y = sub.add_parser("yield", help="ns per await asyncio.sleep(0)")
    y.add_argument("--budget-ms", type=whole(1, 10000), default=100)
    y.add_argument("--reps", type=whole(1, 99), default=5)
    y.add_argument("--csv", action="store_true")
    g = sub.add_parser("lag", help="heartbeat lag beside a CPU loop")
    g.add_argument("--every", type=whole(0, 10_000_000), default=None,
                   help="yield every N items, 0 = never (default: 0 1 10 100 1000)")
    g.add_argument("--items", type=whole(1, 10_000_000), default=40_000)
    g.add_argument("--work-ns", type=whole(100, 10_000_000), default=3000)
    g.add_argument("--beat-ms", type=whole(1, 1000), default=5)
    g.add_argument("--reps", type=whole(1, 99), default=5)
    g.add_argument("--csv", action="store_true")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if args.what == "yield":
        measure_yield(args)
    else:
        measure_lag(args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
