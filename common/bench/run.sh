#!/usr/bin/env bash
# make bench: the suite measures itself.  Runs the bench programs, the
# asyncio harness and the graders, writes data/bench_*.csv (with the '#'
# header lines of make data) and prints one table of ratios against each
# row's reference, measured in this same run (also data/bench_summary.txt).
#
#   BIN=build/bin GRADE_BUILD=build/bench-grade bash common/bench/run.sh
#
# Environment: BIN (the bench programs), GRADE_BUILD (a build tree of its
# own for the grading-speed rows), BENCH_OUT (default data), BENCH_QUICK=1
# (tiny runs and no grading: a smoke test, numbers meaningless), PYTHON
# (default python3).  Progress goes to stderr, the table to stdout.
set -u
cd "$(dirname "$0")/../.." || exit 3
here=common/bench
BIN=${BIN:-build/bin}
GRADE_BUILD=${GRADE_BUILD:-build/bench-grade}
QUICK=${BENCH_QUICK:-0}
# Quick numbers are meaningless: never over the committed data by default.
if [ "$QUICK" = 1 ]; then
	OUT=${BENCH_OUT:-$(dirname "$GRADE_BUILD")/bench-quick}
else
	OUT=${BENCH_OUT:-data}
fi
# The system's packaged interpreter when there is one: a self-built Python
# without its optimised build was ~15% slower on asyncio here.
if [ -z "${PYTHON:-}" ]; then
	PYTHON=python3
	[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/yieldlab-bench.XXXXXX") || exit 3
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT" || exit 3

say() { printf 'make bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

for prog in bench-yield bench-lag bench-doorbell bench-hash bench-saveload saveserver; do
	[ -x "$BIN/$prog" ] || die "$BIN/$prog is missing (run it through 'make bench')"
done
have_python=0
if command -v "$PYTHON" >/dev/null 2>&1; then
	have_python=1
	py_version=$("$PYTHON" -c 'import sys; print(sys.version.split()[0])')
	py_exe=$(readlink -f "$(command -v "$PYTHON")")
	py_pkg=$(dpkg-query -S "$py_exe" 2>/dev/null | cut -d: -f1 | head -1)
	py_build="$py_exe, ${py_pkg:+Debian package $py_pkg}"
	[ -n "$py_pkg" ] || py_build="$py_exe, not a Debian package (self-built?)"
	have_aiohttp=0
	"$PYTHON" -c 'import aiohttp' 2>/dev/null && have_aiohttp=1
fi

if [ "$QUICK" = 1 ]; then
	yield_args=(--budget-ms 5 --reps 1) lag_args=(--items 2000)
	hash_args=(--links 2000 --reps 1) bell_args=(--wakeups 40 --gap-us 10)
	pyyield_args=(--budget-ms 5 --reps 1)
else
	yield_args=() lag_args=() hash_args=() bell_args=() pyyield_args=()
fi

# ---- CSV files ------------------------------------------------------------

machine_header() {
	local cpu
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
	echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# machine: ${cpu:-unknown CPU}, $(nproc) cores"
	echo "# kernel: $(uname -sr)"
	echo "# libevent: $(pkg-config --modversion libevent 2>/dev/null || echo unknown);" \
		"openssl: $(pkg-config --modversion libcrypto 2>/dev/null || echo unknown)"
	[ $have_python = 1 ] && echo "# python: $py_version ($py_build)"
	echo "# load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) when the run began"
}

# write_csv NAME WHAT BODY RUN...: data/bench_NAME.csv from the header
# lines, one '# run:' line per command, and BODY (header row + rows).
write_csv() {
	local name=$1 what=$2 body=$3 run
	shift 3
	{
		echo "# yieldlab bench: $what"
		machine_header
		for run in "$@"; do echo "# run: $run"; done
		cat "$body"
	} >"$OUT/bench_$name.csv.tmp" && mv "$OUT/bench_$name.csv.tmp" "$OUT/bench_$name.csv"
	say "wrote $OUT/bench_$name.csv"
}

rows() { grep -v '^#' "$1" | tail -n +2; }
# cmd WORD...: the words as one line, for a '# run:' header.
cmd() { echo "$*"; }

# run_csv OUT CMD...: runs CMD, its CSV into OUT; its own progress lines
# are kept back and shown only if it fails.
run_csv() {
	local out=$1
	shift
	if ! "$@" >"$out" 2>"$TMP/run.err"; then
		cat "$TMP/run.err" >&2
		die "'$*' failed"
	fi
}

# ---- 1. yield cost ---------------------------------------------------------

# paired_rows ROUNDS_FILE: rows "round,<bench-yield columns>" from several
# rounds -> one row per (mechanism, base) with the median ns and, for each
# ratio, the median of the ratios taken within one round (a burst of load
# then falls on both sides of a ratio alike).
paired_yield_rows() {
	awk -F, -v OFS=, '
	function median(list,    v, n, i, j, t) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return n ? v[int((n + 1) / 2)] : ""
	}
	{
		k = $2 OFS $3
		if (!(k in real)) { order[++nk] = k; real[k] = $4; per[k] = $5 }
		ns[k, $1] = $6; rounds[$1] = 1
	}
	END {
		for (i = 1; i <= nk; i++) {
			k = order[i]; l = f = t = a = ""
			for (r in rounds) {
				if (!((k, r) in ns)) continue
				l = l " " ns[k, r]
				if (("epoll_wait0" OFS "none", r) in ns) f = f " " ns[k, r] / ns["epoll_wait0" OFS "none", r]
				if (("epoll_wait0_tfd" OFS "none", r) in ns) t = t " " ns[k, r] / ns["epoll_wait0_tfd" OFS "none", r]
				if (("asyncio_sleep0" OFS "asyncio", r) in ns) a = a " " ns["asyncio_sleep0" OFS "asyncio", r] / ns[k, r]
			}
			printf "%s,%s,%s,%s,%d,%s,%s,%s\n", k, real[k], per[k], median(l),
			    split(l, tmp, " "), median(f), median(t), median(a)
		}
	}'
}

# C and asyncio take turns, one run each per round; every ratio in the
# table is the median of per-round ratios.
measure_yield() {
	local rounds=7 r runs=()
	[ "$QUICK" = 1 ] && rounds=2
	say "[1/6] yield cost: 7 mechanisms x 2 bases and the floors, $rounds rounds"
	say "      (each round: one C run of every row, then one asyncio run) (~$((rounds * 3)) s)"
	: >"$TMP/yield.rows"
	for r in $(seq "$rounds"); do
		say "      round $r of $rounds"
		run_csv "$TMP/y1.csv" "$BIN/bench-yield" "${yield_args[@]}" --reps 1 --csv
		rows "$TMP/y1.csv" | sed "s/^/$r,/" >>"$TMP/yield.rows"
		if [ $have_python = 1 ]; then
			run_csv "$TMP/py1.csv" "$PYTHON" "$here/asyncio_bench.py" yield \
				"${pyyield_args[@]}" --reps 1 --csv
			rows "$TMP/py1.csv" | sed "s/^/$r,/" >>"$TMP/yield.rows"
		fi
	done
	{
		echo "$(head -1 "$TMP/y1.csv"),rounds,ratio_to_floor,ratio_to_floor_tfd,asyncio_over_this"
		paired_yield_rows <"$TMP/yield.rows"
	} >"$TMP/yield.csv"
	runs+=("$(cmd "$BIN/bench-yield" "${yield_args[@]}" --reps 1 --csv) (x$rounds, taking turns; medians of per-round ratios)")
	[ $have_python = 1 ] &&
		runs+=("$(cmd "$PYTHON" "$here/asyncio_bench.py" yield "${pyyield_args[@]}" --reps 1 --csv) (x$rounds, taking turns)")
	write_csv yield_cost "ns per yield by mechanism and base" "$TMP/yield.csv" "${runs[@]}"
}

# ---- 2. heartbeat lag ------------------------------------------------------

# medians_by_key: rows of bench-lag's columns from several rounds -> one
# row per (runtime, yield_every) with the nearest-rank median of every
# measured column, in the order the keys first appeared.
medians_by_key() {
	awk -F, -v OFS=, '
	function median(list,    v, n, i, j, t) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return v[int((n + 1) / 2)]
	}
	{
		k = $1 OFS $2
		if (!(k in items)) { order[++nk] = k; items[k] = $3 }
		for (c = 4; c <= 8; c++) col[k, c] = col[k, c] " " $c
	}
	END {
		for (i = 1; i <= nk; i++) {
			k = order[i]
			printf "%s,%s", k, items[k]
			for (c = 4; c <= 8; c++) printf ",%s", median(col[k, c])
			printf "\n"
		}
	}'
}

# C and asyncio take turns, one run each per round, so that load from
# other work on this machine falls on both alike.
measure_lag() {
	local rounds=5 r runs=()
	[ "$QUICK" = 1 ] && rounds=1
	say "[2/6] heartbeat lag: 40,000 items of ~3 us, yield every never/1/10/100/1000;"
	say "      $rounds rounds of one C run and one asyncio run each (~$((rounds * 3)) s)"
	: >"$TMP/lag.rows"
	for r in $(seq "$rounds"); do
		say "      round $r of $rounds"
		run_csv "$TMP/lag1.csv" "$BIN/bench-lag" "${lag_args[@]}" --reps 1 --csv
		head -1 "$TMP/lag1.csv" >"$TMP/lag.head"
		rows "$TMP/lag1.csv" >>"$TMP/lag.rows"
		if [ $have_python = 1 ]; then
			run_csv "$TMP/pylag1.csv" "$PYTHON" "$here/asyncio_bench.py" lag \
				"${lag_args[@]}" --reps 1 --csv
			rows "$TMP/pylag1.csv" >>"$TMP/lag.rows"
		fi
	done
	{ cat "$TMP/lag.head"; medians_by_key <"$TMP/lag.rows"; } >"$TMP/lag.csv"
	runs+=("$(cmd "$BIN/bench-lag" "${lag_args[@]}" --reps 1 --csv) (x$rounds, taking turns; medians)")
	[ $have_python = 1 ] &&
		runs+=("$(cmd "$PYTHON" "$here/asyncio_bench.py" lag "${lag_args[@]}" --reps 1 --csv) (x$rounds, taking turns; medians)")
	write_csv lag "heartbeat lag beside a CPU loop, C against asyncio" "$TMP/lag.csv" "${runs[@]}"
}

# ---- 3. hash kernel, 4. doorbell --------------------------------------------

# The C kernels and hashlib take turns; ratios are medians of per-round
# ratios: to the low-level floor, and hashlib's to hashwork_chain.
measure_hash() {
	local rounds=5 r runs=()
	[ "$QUICK" = 1 ] && rounds=1
	say "[3/6] hash kernel: SHA-256 chain, the low-level floor and Python's hashlib, $rounds rounds"
	[ "$QUICK" = 1 ] || hash_args=(--links 262144)
	: >"$TMP/hash.rows"
	for r in $(seq "$rounds"); do
		run_csv "$TMP/h1.csv" "$BIN/bench-hash" "${hash_args[@]}" --reps 1 --csv
		rows "$TMP/h1.csv" | sed "s/^/$r,/" >>"$TMP/hash.rows"
		if [ $have_python = 1 ]; then
			run_csv "$TMP/ph1.csv" "$PYTHON" "$here/hash_peer.py" "${hash_args[@]}" --reps 1 --csv
			rows "$TMP/ph1.csv" | sed "s/^/$r,/" >>"$TMP/hash.rows"
		fi
	done
	if [ "$(cut -d, -f6 "$TMP/hash.rows" | sort -u | wc -l)" != 1 ]; then
		cat "$TMP/hash.rows" >&2
		die "the hash kernels (C and Python) ended on different digests"
	fi
	{
		echo "$(head -1 "$TMP/h1.csv"),rounds,ratio_to_floor,ratio_to_hashwork"
		awk -F, -v OFS=, '
		function median(list,    v, n, i, j, t) {
			n = split(list, v, " ")
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
				}
			return n ? v[int((n + 1) / 2)] : ""
		}
		{ if (!($2 in links)) { order[++nk] = $2; links[$2] = $3; al[$2] = $5; dg[$2] = $6 }
		  ns[$2, $1] = $4; rounds[$1] = 1 }
		END {
			for (i = 1; i <= nk; i++) {
				k = order[i]; l = f = h = ""
				for (r in rounds) {
					if (!((k, r) in ns)) continue
					l = l " " ns[k, r]
					f = f " " ns[k, r] / ns["sha256_lowlevel", r]
					h = h " " ns[k, r] / ns["hashwork_chain", r]
				}
				printf "%s,%s,%s,%s,%s,%d,%.3f,%.3f\n", k, links[k], median(l), al[k], dg[k],
				    split(l, tmp, " "), median(f), median(h)
			}
		}' "$TMP/hash.rows"
	} >"$TMP/hash.csv"
	runs+=("$(cmd "$BIN/bench-hash" "${hash_args[@]}" --reps 1 --csv) (x$rounds, taking turns)")
	[ $have_python = 1 ] &&
		runs+=("$(cmd "$PYTHON" "$here/hash_peer.py" "${hash_args[@]}" --reps 1 --csv) (x$rounds, taking turns)")
	write_csv hash "ns per SHA-256 chain link, C kernels and Python's hashlib" "$TMP/hash.csv" "${runs[@]}"
}

measure_doorbell() {
	say "[4/6] wake-up from a worker: event_active against a pipe write (~3 s)"
	run_csv "$TMP/bell.csv" "$BIN/bench-doorbell" "${bell_args[@]}" --csv
	write_csv doorbell "worker -> loop wake-up latency" "$TMP/bell.csv" \
		"$(cmd "$BIN/bench-doorbell" "${bell_args[@]}" --csv)"
}

# ---- 5. grading speed -------------------------------------------------------

# A make of our own: not the jobserver or the variables of `make bench`.
submake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s BUILD="$GRADE_BUILD" "$@"; }

# time_grade LOG ARGS...: wall seconds of `make -s grade SOL=1 ARGS`.
time_grade() {
	local log=$1 start end rc
	shift
	start=$(date +%s%N)
	submake grade SOL=1 "$@" >"$log" 2>&1
	rc=$?
	end=$(date +%s%N)
	awk -v ns=$((end - start)) -v rc=$rc 'BEGIN { printf "%.2f %d\n", ns / 1e9, rc }'
}

# score LOG PATTERN: "X Y" from the line "PATTERN X/Y", or "- -".
score() {
	sed -n "s/^$2 \([0-9]*\)\/\([0-9]*\).*/\1 \2/p" "$1" | tail -1 | grep . || echo "- -"
}

measure_grading() {
	local ids=() targets=() id t rc s
	for id in $(make -s --no-print-directory labs-info LAB= | awk 'NR > 1 { print $1 }'); do
		ids+=("$id")
		targets+=("$GRADE_BUILD/grader/$id-sol")
	done
	say "[6/6] grading speed: building $GRADE_BUILD first (not timed)"
	submake -k -j2 "${targets[@]}" "$GRADE_BUILD/bin/grade-report" >"$TMP/gbuild.log" 2>&1 ||
		say "      some graders did not build (see below); their labs are marked"
	echo "lab,wall_s,score,max_score,exit_status" >"$TMP/grading.csv"
	local runs=()
	for id in "${ids[@]}"; do
		if [ ! -x "$GRADE_BUILD/grader/$id-sol" ]; then
			say "      $id: its grader did not build; not timed"
			echo "$id,,,,not_built" >>"$TMP/grading.csv"
			continue
		fi
		say "      make grade SOL=1 LAB=$id"
		read -r t rc < <(time_grade "$TMP/grade-$id.log" LAB="$id")
		read -r s max < <(score "$TMP/grade-$id.log" "Score:")
		echo "$id,$t,${s/-/},${max/-/},$rc" >>"$TMP/grading.csv"
		runs+=("make -s grade SOL=1 LAB=$id BUILD=$GRADE_BUILD")
	done
	if grep -q ',not_built$' "$TMP/grading.csv"; then
		# A lab in progress breaks the one-make run: add the labs up.
		say "      every lab: the sum of the labs above (one has no grader)"
		awk -F, 'NR > 1 && $5 != "not_built" { t += $2; s += $3; m += $4 }
			END { printf "sum_built,%.2f,%d,%d,0\n", t, s, m }' \
			"$TMP/grading.csv" >>"$TMP/grading.csv"
	else
		say "      make grade SOL=1 (every lab)"
		read -r t rc < <(time_grade "$TMP/grade-all.log")
		read -r s max < <(score "$TMP/grade-all.log" "Total score:")
		echo "all,$t,${s/-/},${max/-/},$rc" >>"$TMP/grading.csv"
		runs+=("make -s grade SOL=1 BUILD=$GRADE_BUILD")
		# Two labs at a time (the runner's pool): opt-in, see labs/README.md.
		say "      make -j2 grade SOL=1 (every lab, two at a time)"
		read -r t rc < <(time_grade "$TMP/grade-all-j2.log" -j2)
		read -r s max < <(score "$TMP/grade-all-j2.log" "Total score:")
		echo "all_j2,$t,${s/-/},${max/-/},$rc" >>"$TMP/grading.csv"
		runs+=("make -s -j2 grade SOL=1 BUILD=$GRADE_BUILD")
	fi
	write_csv grading "wall time of make grade SOL=1, per lab and in total" \
		"$TMP/grading.csv" "${runs[@]}"
}

# ---- 5. the save server against its aiohttp twin ---------------------------

# cpu_ns PID: CPU time of every thread of PID so far, in ns (schedstat:
# ns resolution, where /proc/PID/stat counts 10 ms ticks).
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}

# serve_once NAME DELAY CMD...: starts a server, sends it the load, prints
# "NAME,DELAY,<bench-saveload row>,cpu_us_per_save,rss_kb" and stops it.
serve_once() {
	local name=$1 delay=$2 pid port cpu0 cpu1 rss i
	shift 2
	# Emptied here, not only by the child's redirection: that one runs
	# after the fork, and the loop below could read the last server's
	# port (a dead one: every save then fails with "connection refused").
	: >"$TMP/srv.out"
	"$@" --delay-ms "$delay" --max-in-flight "$PEER_CAP" >"$TMP/srv.out" 2>"$TMP/srv.err" &
	pid=$!
	for i in $(seq 100); do
		port=$(sed -n 's/^listening 127.0.0.1://p' "$TMP/srv.out")
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || { kill "$pid"; cat "$TMP/srv.err" >&2; die "$name did not start"; }
	cpu0=$(cpu_ns "$pid")
	run_csv "$TMP/load.csv" "$BIN/bench-saveload" --port "$port" \
		--saves "$PEER_SAVES" --conns "$PEER_CONNS" --csv
	cpu1=$(cpu_ns "$pid")
	rss=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/"$pid"/status)
	kill "$pid" && wait "$pid" 2>/dev/null
	echo "$name,$delay,$(rows "$TMP/load.csv"),$(awk -v c=$((cpu1 - cpu0)) -v n="$PEER_SAVES" 'BEGIN { printf "%.1f", c / n / 1000 }'),$rss"
}

measure_servers() {
	local rounds=3 r d runs=()
	[ "$QUICK" = 1 ] && rounds=1 PEER_SAVES=200
	say "[5/6] save server: ours against its aiohttp twin, $PEER_SAVES saves over"
	say "      $PEER_CONNS connections, cap $PEER_CAP, delay 0 and 50 ms, $rounds rounds"
	if [ $have_python = 0 ] || [ "${have_aiohttp:-0}" = 0 ]; then
		say "      skipped: $PYTHON has no aiohttp (Debian: apt-get install python3-aiohttp)"
		return
	fi
	: >"$TMP/srv.rows"
	for d in 0 50; do
		for r in $(seq "$rounds"); do
			serve_once c_evhttp "$d" "$BIN/saveserver" >"$TMP/one.row"
			serve_once python_aiohttp "$d" "$PYTHON" "$here/aio_saveserver.py" >>"$TMP/one.row"
			sed "s/^/$r,/" "$TMP/one.row" >>"$TMP/srv.rows"
		done
	done
	{
		echo "server,delay_ms,saves,conns,cap,saves_per_s,p50_ms,p99_ms,cpu_us_per_save,rss_kb,rounds,cpu_ratio_to_c,rss_ratio_to_c"
		awk -F, -v OFS=, -v cap="$PEER_CAP" '
		function median(list,    v, n, i, j, t) {
			n = split(list, v, " ")
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
				}
			return n ? v[int((n + 1) / 2)] : ""
		}
		# round,server,delay,saves,conns,wall_s,saves_per_s,p50,p99,failed,cpu_us,rss
		{ k = $2 OFS $3; if (!(k in sv)) { order[++nk] = k; sv[k] = $4 OFS $5 }
		  rate[k] = rate[k] " " $7; p50[k] = p50[k] " " $8; p99[k] = p99[k] " " $9
		  cpu[k, $1] = $11; rss[k, $1] = $12; rounds[$1] = 1 }
		END {
			for (i = 1; i <= nk; i++) {
				k = order[i]; split(k, kk, OFS); c = "c_evhttp" OFS kk[2]
				cl = rl = cr = rr = ""
				for (r in rounds) {
					cl = cl " " cpu[k, r]; rl = rl " " rss[k, r]
					cr = cr " " cpu[k, r] / cpu[c, r]; rr = rr " " rss[k, r] / rss[c, r]
				}
				printf "%s,%s,%s,%s,%s,%s,%s,%s,%d,%.2f,%.2f\n", k, sv[k], cap, median(rate[k]),
				    median(p50[k]), median(p99[k]), median(cl), median(rl),
				    split(cl, tmp, " "), median(cr), median(rr)
			}
		}' "$TMP/srv.rows"
	} >"$TMP/servers.csv"
	runs+=("$(cmd "$BIN/saveserver" --delay-ms D --max-in-flight "$PEER_CAP") and $(cmd "$PYTHON" "$here/aio_saveserver.py" --delay-ms D --max-in-flight "$PEER_CAP"), each loaded by $(cmd "$BIN/bench-saveload" --port P --saves "$PEER_SAVES" --conns "$PEER_CONNS" --csv) (D = 0, 50; x$rounds, taking turns)")
	write_csv servers "the save server and its aiohttp twin under the same load" "$TMP/servers.csv" "${runs[@]}"
}
PEER_SAVES=2000 PEER_CONNS=50 PEER_CAP=50

measure_yield
measure_lag
measure_hash
measure_doorbell
measure_servers
if [ "$QUICK" = 1 ]; then
	say "[6/6] grading speed: skipped (BENCH_QUICK=1)"
else
	measure_grading
fi

HAVE_PYTHON=$have_python SKIP_GRADING=$QUICK \
	bash "$here/table.sh" "$OUT" | tee "$OUT/bench_summary.txt"
say "wrote $OUT/bench_summary.txt"
