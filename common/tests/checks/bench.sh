#!/usr/bin/env bash
# Checks of make bench, in the format of common/tests/checks/*.sh (PASS/FAIL
# lines): every bench program and the asyncio harness answer bad arguments
# with the usage and exit 2 and print well-formed CSV; the mechanisms that
# are not yields are measured as such; a quick run of the whole driver
# writes CSVs that check_csv.sh accepts.  Tiny runs: no timing is asserted.
#
#   BUILD=build TMP=/tmp/x bash common/tests/checks/bench.sh
# set -u without -e: a check that fails says FAIL and the next one still runs.
set -u
cd "$(dirname "$0")/../../.." || exit 3
B=${BUILD:-build}
if [ -z "${TMP:-}" ]; then
	TMP=$(mktemp -d) || exit 3
	trap 'rm -rf "$TMP"' EXIT
fi
tmp=$TMP/bench
mkdir -p "$tmp"
# As run.sh: the packaged interpreter first (it has Debian's aiohttp).
if [ -z "${PYTHON:-}" ]; then
	PYTHON=python3
	[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3
fi

pass() { echo "PASS bench: $*"; }
fail() { echo "FAIL bench: $*"; }

# csv_ok FILE: one header row, units-free names allowed, >= 1 row, every
# row as wide as the header.
csv_ok() {
	awk -F, 'NR == 1 { n = NF; next } NF != n { bad = 1 } END { exit (NR < 2 || bad) }' "$1"
}

# usage_ok NAME CMD...: CMD with a bad argument exits 2 and prints usage.
usage_ok() {
	local name=$1 rc
	shift
	"$@" --no-such-option >/dev/null 2>"$tmp/usage.err"
	rc=$?
	if [ $rc = 2 ] && grep -q 'usage' "$tmp/usage.err"; then
		pass "$name: a bad argument prints the usage and exits 2"
	else
		fail "$name: a bad argument gave exit $rc, expected 2 with the usage"
	fi
}

# quick_csv NAME OUT CMD...: a tiny --csv run gives well-formed CSV.
quick_csv() {
	local name=$1 out=$2
	shift 2
	if "$@" --csv >"$out" 2>"$tmp/run.err" && csv_ok "$out"; then
		pass "$name: --csv prints a header row and rows of the same width"
	else
		fail "$name: '$* --csv' failed or printed bad CSV: $(head -3 "$tmp/run.err" | tr '\n' ' ')"
	fi
}

progs=(bench-yield bench-lag bench-doorbell bench-hash bench-saveload)
for p in "${progs[@]}"; do
	if [ ! -x "$B/bin/$p" ]; then
		fail "$p: $B/bin/$p was not built"
		continue
	fi
	usage_ok "$p" "$B/bin/$p"
done

quick_csv bench-yield "$tmp/yield.csv" "$B/bin/bench-yield" --budget-ms 2 --reps 1
# Not a yield = the byte sent at the task's first step waits for the end.
want="active:no once:no active_lowprio:no timer0:yes rr_yield:yes max_dispatch1:yes timer1us:yes"
got=$(awk -F, '$2 == "precise" { printf "%s%s:%s", sep, $1, $3; sep = " " }' "$tmp/yield.csv")
if [ "$got" = "$want" ]; then
	pass "bench-yield: only the mechanisms that poll let the socket's byte in"
else
	fail "bench-yield: expected '$want', got '$got'"
fi
quick_csv bench-lag "$tmp/lag.csv" "$B/bin/bench-lag" --items 500 --reps 1 --every 10
quick_csv bench-doorbell "$tmp/bell.csv" "$B/bin/bench-doorbell" --wakeups 20 --gap-us 10
if [ -x "$B/bin/bench-hash" ]; then
	# It exits 1 when the kernels end on different digests.
	quick_csv bench-hash "$tmp/hash.csv" "$B/bin/bench-hash" --links 1000 --reps 1
fi

if command -v "$PYTHON" >/dev/null 2>&1; then
	usage_ok asyncio_bench.py "$PYTHON" common/bench/asyncio_bench.py lag
	quick_csv "asyncio_bench.py yield" "$tmp/pyyield.csv" \
		"$PYTHON" common/bench/asyncio_bench.py yield --budget-ms 2 --reps 1
	quick_csv "asyncio_bench.py lag" "$tmp/pylag.csv" \
		"$PYTHON" common/bench/asyncio_bench.py lag --items 300 --reps 1 --every 10
	usage_ok hash_peer.py "$PYTHON" common/bench/hash_peer.py
	quick_csv hash_peer.py "$tmp/pyhash.csv" "$PYTHON" common/bench/hash_peer.py --links 1000 --reps 1
	# The Python peer must do the C kernels' work: the same digest.
	c=$(awk -F, '$1 == "hashwork_chain" { print $5 }' "$tmp/hash.csv" 2>/dev/null)
	py=$(awk -F, '$1 == "python_hashlib" { print $5 }' "$tmp/pyhash.csv" 2>/dev/null)
	[ -n "$c" ] && [ "$c" = "$py" ] &&
		pass "hash_peer.py: hashlib ends on the C kernels' digest ($c)" ||
		fail "hash_peer.py: digest '$py', the C kernels' '$c'"
	if "$PYTHON" -c 'import aiohttp' 2>/dev/null; then
		usage_ok aio_saveserver.py "$PYTHON" common/bench/aio_saveserver.py
		# The twin answers as the C server does, to the same client.
		"$PYTHON" common/bench/aio_saveserver.py --delay-ms 1 --max-in-flight 5 \
			>"$tmp/aio.out" 2>&1 &
		aio=$!
		for _ in $(seq 100); do
			port=$(sed -n 's/^listening 127.0.0.1://p' "$tmp/aio.out")
			[ -n "$port" ] && break
			sleep 0.1
		done
		if [ -n "$port" ] && "$B/bin/bench-saveload" --port "$port" --saves 40 --conns 4 --csv \
			>"$tmp/aioload.csv" 2>"$tmp/run.err" &&
			curl -s "http://127.0.0.1:$port/stats" | grep -q '"stored": 40'; then
			pass "aio_saveserver.py: bench-saveload stores 40 saves in the Python twin"
		else
			fail "aio_saveserver.py: the twin did not store 40 saves: $(cat "$tmp/run.err" "$tmp/aio.out" | head -3 | tr '\n' ' ')"
		fi
		kill "$aio" 2>/dev/null
		wait "$aio" 2>/dev/null
	else
		echo "bench: aio_saveserver.py not checked: $PYTHON has no aiohttp (apt-get install python3-aiohttp)"
	fi
fi

# The driver end to end, tiny: every CSV it writes passes check_csv.sh.
if BIN=$B/bin GRADE_BUILD=$tmp/grade-tree BENCH_QUICK=1 BENCH_OUT=$tmp/data \
	bash common/bench/run.sh >"$tmp/table.txt" 2>"$tmp/driver.err" &&
	grep -q '^Targets: ' "$tmp/table.txt"; then
	pass "run.sh: a quick run prints the table"
else
	fail "run.sh: the quick run failed: $(tail -3 "$tmp/driver.err" | tr '\n' ' ')"
fi
for csv in "$tmp"/data/bench_*.csv; do
	[ -f "$csv" ] || continue
	if bash common/charts/check_csv.sh "$csv" 2>"$tmp/csv.err"; then
		pass "run.sh: $(basename "$csv") has the make data header and well-formed rows"
	else
		fail "run.sh: $(cat "$tmp/csv.err")"
	fi
done
