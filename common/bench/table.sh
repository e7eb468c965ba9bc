#!/usr/bin/env bash
# table.sh DIR: the `make bench` table from DIR/bench_*.csv.  Every row
# shows its ratio to its reference (measured in the same run) and, where the
# issue sets a target, whether it meets it.  Only reads; never measures.
#
# Environment: HAVE_PYTHON=0 (print why the asyncio rows are missing),
# SKIP_GRADING=1 (no grading rows).
set -u
dir=$1
HAVE_PYTHON=${HAVE_PYTHON:-1}
SKIP_GRADING=${SKIP_GRADING:-0}
out=$(mktemp "${TMPDIR:-/tmp}/yieldlab-table.XXXXXX") || exit 3
trap 'rm -f "$out"' EXIT

rows() { grep -v '^#' "$1" | tail -n +2; }
meta() { sed -n "s/^# $2: //p" "$1" | head -1; }

# The columns of every section: what, reference, ratio, target, result.
AWK_COMMON='
function verdict(ratio, op, target) {
	if (op == "<=")
		return ratio <= target ? "meets" : sprintf("MISSES by %.0f%%", (ratio / target - 1) * 100)
	return ratio >= target ? "meets" : sprintf("MISSES (%.1fx < %gx)", ratio, target)
}
function line(what, value, ref, ratio, target, result) {
	printf "  %-43s %11s  %-24s %8s  %-8s %s\n", what, value, ref, ratio, target, result
}
function x(r) { return sprintf(r < 100 ? "%.2fx" : "%.0fx", r) }
'

header() {
	printf '  %-43s %11s  %-24s %8s  %-8s %s\n' "row" "$1" "reference" "ratio" "target" "result"
}

yield_section() {
	local f=$dir/bench_yield_cost.csv
	echo "1. Yield cost: ns per yield, one task re-scheduling itself (medians of rounds;"
	echo "   each ratio is the median of ratios taken within one round)"
	header "ns/yield"
	rows "$f" | awk -F, "$AWK_COMMON"'
	BEGIN {
		split("epoll_wait0 epoll_wait0_tfd active once active_lowprio timer0 rr_yield max_dispatch1 timer1us", order, " ")
		name["epoll_wait0"] = "epoll_wait(fd, ..., 0): the floor"
		name["epoll_wait0_tfd"] = "epoll_wait(0) + timerfd_settime"
		name["active"] = "event_active alone"
		name["once"] = "event_base_once, no delay"
		name["active_lowprio"] = "event_active, lower priority"
		name["timer0"] = "event_add, zero timeout"
		name["rr_yield"] = "active + loopcontinue: REFERENCE"
		name["max_dispatch1"] = "max_dispatch 1 + event_active"
		name["timer1us"] = "a 1 us timer"
	}
	{ k = $1 "/" $2; ns[k] = $5; real[k] = $3; rf[k] = $7; rt[k] = $8; ra[k] = $9 }
	END {
		split("none default precise", bases, " ")
		for (b = 1; b <= 3; b++) for (i = 1; i <= 9; i++) {
			k = order[i] "/" bases[b]
			if (!(k in ns)) continue
			what = name[order[i]] (bases[b] == "none" ? "" : " [" bases[b] "]")
			v = sprintf("%.1f", ns[k])
			if (order[i] == "epoll_wait0")
				line(what, v, "-", "1.00x", "-", "the floor")
			else if (real[k] == "no")
				line(what, v, "-", "-", "-", "not a yield: no poll, I/O waits")
			else if (order[i] == "rr_yield")
				line(what, v, "epoll_wait(0) floor", x(rf[k]), "<= 1.2x", verdict(rf[k], "<=", 1.2) \
				     (bases[b] == "precise" && rt[k] ? sprintf("; %.2fx epoll+timerfd", rt[k]) : ""))
			else
				line(what, v, "epoll_wait(0) floor", x(rf[k]), "-", real[k] == "floor" ? "a precise base polls this" : "a yield (no target)")
		}
		if ("asyncio_sleep0/asyncio" in ns) {
			py = ns["asyncio_sleep0/asyncio"]
			for (b = 2; b <= 3; b++) {
				k = "rr_yield/" bases[b]
				if (k in ns && ra[k])
					line("await asyncio.sleep(0), Python", sprintf("%.1f", py), "the reference [" bases[b] "]", x(ra[k]), ">= 3x", verdict(ra[k], ">=", 3))
			}
		}
	}'
	[ "$HAVE_PYTHON" = 1 ] || echo "  (asyncio rows skipped: python3 was not found; install it to compare)"
}

lag_section() {
	local f=$dir/bench_lag.csv
	echo
	rows "$f" | awk -F, '
		$2 == 0 && $1 == "c_libevent" { c = $4; n = $3; cr = $8 * 1e6 / $3 }
		$2 == 0 && $1 == "python_asyncio" { p = $4; pr = $8 * 1e6 / $3 }
		END {
			printf "2. Heartbeat lag: a 5 ms heartbeat beside %d items of ~3 us (ms; medians of runs)\n", n
			printf "   an item: C %s ns (calibrated spin), asyncio %s ns (pure Python, calibrated);\n", c, p ? p : "-"
			printf "   in the never-yield run (loop total / items): C %.0f ns, asyncio %s ns\n", cr, pr ? sprintf("%.0f", pr) : "-"
		}'
	header "C worst ms"
	rows "$f" | awk -F, "$AWK_COMMON"'
	{ k = $2; order[k] = NR; if ($1 == "c_libevent") { cw[k] = $6; cm[k] = $7; ct[k] = $8 } else { pw[k] = $6; pm[k] = $7; pt[k] = $8 } }
	END {
		split("0 1 10 100 1000", ev, " ")
		for (i = 1; i <= 5; i++) {
			k = ev[i]
			if (!(k in cw)) continue
			what = "yield every " (k == 0 ? "never" : k " items")
			if (k == 0 && (k in pw))
				# Never yielding compares two work loops, not two yields:
				# it flips by a few % from run to run.  No target.
				line(what, cw[k], sprintf("asyncio %s ms", pw[k]), x(cw[k] / pw[k]), "-", "two work loops (no target)")
			else if (k in pw)
				line(what, cw[k], sprintf("asyncio %s ms", pw[k]), x(cw[k] / pw[k]), "<= 1.0x", verdict(cw[k] / pw[k], "<=", 1.0))
			else
				line(what, cw[k], "-", "-", "-", "no asyncio row")
			printf "  %-43s median C %s / asyncio %s ms; loop total C %s / asyncio %s ms\n", "", cm[k], (k in pm) ? pm[k] : "-", ct[k], (k in pt) ? pt[k] : "-"
		}
	}'
}

hash_section() {
	local f=$dir/bench_hash.csv
	echo
	echo "3. Hash kernel: ns per SHA-256 chain link of 32 bytes (medians of rounds; every"
	echo "   kernel, C and Python, ended on the same digest)"
	if [ ! -f "$f" ]; then
		echo "  (skipped: common/lib/hashwork.h is not in this tree yet)"
		return
	fi
	header "ns/link"
	rows "$f" | awk -F, "$AWK_COMMON"'
	{ ns[$1] = $3; al[$1] = $4; rf[$1] = $7; rh[$1] = $8 }
	END {
		line("SHA256_Init/Update/Final: the floor", ns["sha256_lowlevel"], "-", "1.00x", "-", "the floor")
		line("hashwork_chain (EVP, one context)", ns["hashwork_chain"], "low-level floor", x(rf["hashwork_chain"]), "<= 1.3x", verdict(rf["hashwork_chain"], "<=", 1.3) sprintf("; %s allocs/link", al["hashwork_chain"]))
		line("EVP_Digest one-shot per link", ns["evp_digest_oneshot"], "low-level floor", x(rf["evp_digest_oneshot"]), "-", sprintf("what hashwork avoids; %s allocs/link", al["evp_digest_oneshot"]))
		if ("python_hashlib" in ns)
			line("Python hashlib chain, as the source does", ns["python_hashlib"], "hashwork_chain", x(rh["python_hashlib"]), "-", sprintf("C is %.1fx faster (floor: %.1fx)", rh["python_hashlib"], rf["python_hashlib"]))
	}'
}

doorbell_section() {
	local f=$dir/bench_doorbell.csv
	echo
	echo "4. Wake-up from a worker thread to a loop callback (us)"
	header "median us"
	rows "$f" | awk -F, "$AWK_COMMON"'
	{ med[$1] = $3; p99[$1] = $4; n[$1] = $2 }
	END {
		line("pipe write, loop reads it", med["pipe_write"], "-", "1.00x", "-", sprintf("p99 %s us", p99["pipe_write"]))
		r = med["event_active"] / med["pipe_write"]
		line("event_active from the worker (ex04)", med["event_active"], "pipe write", x(r), "<= 2x", verdict(r, "<=", 2) sprintf("; p99 %s us (%.2fx)", p99["event_active"], p99["event_active"] / p99["pipe_write"]))
	}'
}

servers_section() {
	local f=$dir/bench_servers.csv
	echo
	echo "5. Save server: ours (evhttp) against its aiohttp twin, the same client and load"
	if [ ! -f "$f" ]; then
		echo "  (skipped: no aiohttp; Debian: apt-get install python3-aiohttp)"
		return
	fi
	rows "$f" | awk -F, 'NR == 1 { printf "   %s saves over %s connections, server cap %s; medians of %s rounds\n", $3, $4, $5, $11 }'
	header "us CPU/save"
	rows "$f" | awk -F, "$AWK_COMMON"'
	{
		what = ($1 == "c_evhttp" ? "saveserver (C, evhttp)" : "aio_saveserver.py (aiohttp)") ", delay " $2 " ms"
		extra = sprintf("%s saves/s, p50 %s / p99 %s ms, RSS %.1f MB", $6, $7, $8, $10 / 1024)
		if ($1 == "c_evhttp")
			line(what, $9, "-", "1.00x", "-", extra)
		else
			line(what, $9, "the C server", x($12), "-", extra sprintf(" (%.1fx)", $13))
	}'
}

grading_section() {
	local f=$dir/bench_grading.csv
	echo
	echo "6. Grading speed: wall time of make -s grade SOL=1 (already built)"
	if [ "$SKIP_GRADING" = 1 ] || [ ! -f "$f" ]; then
		echo "  (skipped)"
		return
	fi
	header "wall s"
	rows "$f" | awk -F, "$AWK_COMMON"'
	{
		if ($5 == "not_built") { line($1, "-", "-", "-", "-", "not timed: its grader did not build"); next }
		score = $3 != "" ? sprintf("; %s/%s", $3, $4) : ""
		fail = $5 != 0 ? sprintf("; make exited %s", $5) : ""
		if ($1 == "all") all = $2
		if ($1 == "all_j2")
			line("every lab, make -j2 grade", $2, "30 s budget", x($2 / 30), "<= 1.0x",
			     verdict($2 / 30, "<=", 1) score fail (all > 0 ? sprintf("; %.2fx the one-at-a-time run", $2 / all) : ""))
		else if ($1 == "all" || $1 == "sum_built")
			line($1 == "all" ? "every lab (one make grade)" : "labs that built (sum of the above)",
			     $2, "30 s budget", x($2 / 30), "<= 1.0x", verdict($2 / 30, "<=", 1) score fail)
		else
			line("LAB=" $1, $2, "5 s budget", x($2 / 5), "<= 1.0x", verdict($2 / 5, "<=", 1) score fail)
	}'
}

{
	f=$dir/bench_yield_cost.csv
	echo "yieldlab bench, $(meta "$f" date): $(meta "$f" machine); $(meta "$f" kernel)"
	py=$(meta "$f" python)
	echo "libevent $(meta "$f" libevent); python: ${py:-not found}; load $(meta "$f" load)"
	echo "Each ratio is to the row's reference, measured in the same run."
	echo
	yield_section
	lag_section
	hash_section
	doorbell_section
	servers_section
	grading_section
} >"$out"
cat "$out"
met=$(grep -c ' meets' "$out")
missed=$(grep -c ' MISSES' "$out")
printf '\nTargets: %d met, %d missed (data/README.md says why).\n' "$met" "$missed"
