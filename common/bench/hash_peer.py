#!/usr/bin/env python3
"""hash_peer: the source experiment's hash chain in Python, for `make bench`.

The same chain as bench-hash (the seed "yl" and 30 zero bytes, then `links`
times out = SHA-256(out)) through hashlib, so its digest must equal the C
kernels'.  Prints bench-hash's CSV columns (allocs_per_link is not
measured: 0).

    hash_peer.py [--links N] [--reps N] [--csv]
"""
import argparse
import hashlib
import statistics
import sys
import time


def chain(links):
    cur = b"yl" + bytes(30)
    sha256 = hashlib.sha256
    for _ in range(links):
        cur = sha256(cur).digest()
    return cur


def main(argv):
    p = argparse.ArgumentParser(description="SHA-256 chain in hashlib")
    p.add_argument("--links", type=int, default=262144)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--csv", action="store_true")
    a = p.parse_args(argv)
    if not (1000 <= a.links <= 100000000 and 1 <= a.reps <= 99):
        p.print_usage(sys.stderr)
        print("hash_peer.py: --links 1000..1e8, --reps 1..99", file=sys.stderr)
        return 2
    per_link = []
    for _ in range(a.reps):
        start = time.perf_counter_ns()
        digest = chain(a.links)
        per_link.append((time.perf_counter_ns() - start) / a.links)
    ns = statistics.median_low(per_link)
    if a.csv:
        print("kernel,links,ns_per_link,allocs_per_link,digest")
        print(f"python_hashlib,{a.links},{ns:.1f},0,{digest.hex()}")
    else:
        print(f"hashlib chain of {a.links} links: {ns:.1f} ns/link, "
              f"digest {digest.hex()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
