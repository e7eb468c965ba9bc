#!/usr/bin/env bash
# make check, bench: the bench programs, the asyncio harness and the driver
# (tiny runs; nothing is timed against a target).
exec bash common/bench/check.sh
