#!/usr/bin/env python3
"""aio_saveserver: the save server's Python twin, for `make bench` only.

The source experiment saves its hashes to an aiohttp server that answers
after 50 ms; this is that server with the routes, answers, delay and cap of
common/saveserver (README there), so the same client and the same load can
be pointed at either one.  It is not part of the labs: the graders always
use the C server.

    aio_saveserver.py [--port N] [--delay-ms N] [--max-in-flight N]

Prints "listening 127.0.0.1:PORT" once ready, like the C server.
"""
import argparse
import asyncio
import re
import sys

from aiohttp import web

ID_RE = re.compile(r"[0-9]{1,20}")
DIGEST_RE = re.compile(r"[0-9a-fA-F]{64}")


class Store:
    def __init__(self, delay_s, cap):
        self.delay_s = delay_s
        # asyncio.Semaphore wakes its waiters first-in, first-out: the
        # same FIFO of held requests as the C server's.
        self.slots = asyncio.Semaphore(cap)
        self.digests = {}
        self.stats = {"received": 0, "stored": 0, "duplicates": 0,
                      "conflicts": 0, "rejected": 0, "cap": cap,
                      "delay_ms": int(delay_s * 1000)}

    def reject(self, status, why):
        self.stats["rejected"] += 1
        return web.Response(status=status, text=why + "\n")

    def decide(self, key, digest):
        """Stores a save when its delay ends, in arrival order."""
        known = self.digests.get(key)
        if known is None:
            self.digests[key] = digest
            self.stats["stored"] += 1
            return web.Response(status=201, text="stored\n")
        if known == digest:
            self.stats["duplicates"] += 1
            return web.Response(status=200, text="already stored\n")
        self.stats["conflicts"] += 1
        return web.Response(status=409, text="another digest is stored\n")

    async def save(self, request):
        self.stats["received"] += 1
        ctype = request.headers.get("Content-Type", "")
        if ctype and ctype != "application/x-www-form-urlencoded":
            return self.reject(415, "the body must be a form")
        form = await request.post()
        if sorted(form.keys()) != ["digest", "id"] or len(form) != 2:
            return self.reject(400, "want exactly id and digest")
        sid, digest = form["id"], form["digest"]
        if not ID_RE.fullmatch(sid) or int(sid) >= 2 ** 64:
            return self.reject(400, "bad id")
        if not DIGEST_RE.fullmatch(digest):
            return self.reject(400, "bad digest")
        async with self.slots:
            await asyncio.sleep(self.delay_s)
            return self.decide(int(sid), digest.lower())

    async def get_save(self, request):
        sid = request.match_info["id"]
        if not ID_RE.fullmatch(sid) or int(sid) not in self.digests:
            return web.Response(status=404, text="no such save\n")
        return web.Response(text=self.digests[int(sid)] + "\n")

    async def get_stats(self, request):
        return web.json_response(self.stats)


def parse_args(argv):
    p = argparse.ArgumentParser(description="the save server's aiohttp twin")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--delay-ms", type=int, default=50)
    p.add_argument("--max-in-flight", type=int, default=10)
    args = p.parse_args(argv)
    if not (0 <= args.port < 65536 and 0 <= args.delay_ms <= 600000
            and 1 <= args.max_in_flight <= 100000):
        p.print_usage(sys.stderr)
        print("aio_saveserver.py: an option is out of range", file=sys.stderr)
        sys.exit(2)
    return args


async def serve(args):
    store = Store(args.delay_ms / 1000, args.max_in_flight)
    app = web.Application()
    app.add_routes([web.post("/save", store.save),
                    web.get("/saves/{id}", store.get_save),
                    web.get("/stats", store.get_stats)])
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", args.port)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(f"listening 127.0.0.1:{port}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    try:
        asyncio.run(serve(parse_args(sys.argv[1:])))
    except KeyboardInterrupt:
        pass
