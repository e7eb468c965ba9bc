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
PYTHON=${PYTHON:-python3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/yieldlab-bench.XXXXXX") || exit 3
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT" || exit 3

say() { printf 'make bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

for prog in bench-yield bench-lag bench-doorbell; do
	[ -x "$BIN/$prog" ] || die "$BIN/$prog is missing (run it through 'make bench')"
done
have_python=0
if command -v "$PYTHON" >/dev/null 2>&1; then
	have_python=1
	py_version=$("$PYTHON" -c 'import sys; print(sys.version.split()[0])')
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
	[ $have_python = 1 ] && echo "# python: $py_version"
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

measure_yield() {
	local runs=("$(cmd "$BIN/bench-yield" "${yield_args[@]}" --csv)")
	say "[1/5] yield cost: 7 mechanisms x 2 bases and the floors (~10 s)"
	run_csv "$TMP/yield.csv" "$BIN/bench-yield" "${yield_args[@]}" --csv
	if [ $have_python = 1 ]; then
		say "      and await asyncio.sleep(0) on Python $py_version"
		run_csv "$TMP/pyyield.csv" "$PYTHON" "$here/asyncio_bench.py" yield \
			"${pyyield_args[@]}" --csv
		rows "$TMP/pyyield.csv" >>"$TMP/yield.csv"
		runs+=("$(cmd "$PYTHON" "$here/asyncio_bench.py" yield "${pyyield_args[@]}" --csv)")
	fi
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
	say "[2/5] heartbeat lag: 40,000 items of ~3 us, yield every never/1/10/100/1000;"
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

measure_hash() {
	say "[3/5] hash kernel: SHA-256 chain against the low-level floor (~2 s)"
	if [ ! -x "$BIN/bench-hash" ]; then
		say "      skipped: common/hashwork.h is not in this tree yet"
		return
	fi
	run_csv "$TMP/hash.csv" "$BIN/bench-hash" "${hash_args[@]}" --csv
	write_csv hash "ns per SHA-256 chain link" "$TMP/hash.csv" \
		"$(cmd "$BIN/bench-hash" "${hash_args[@]}" --csv)"
}

measure_doorbell() {
	say "[4/5] wake-up from a worker: event_active against a pipe write (~3 s)"
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
	for mk in labs/*/lab.mk; do
		id=$(basename "$(dirname "$mk")")
		ids+=("${id%%_*}")
		targets+=("$GRADE_BUILD/grader/${id%%_*}-sol")
	done
	say "[5/5] grading speed: building $GRADE_BUILD first (not timed)"
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
	fi
	write_csv grading "wall time of make grade SOL=1, per lab and in total" \
		"$TMP/grading.csv" "${runs[@]}"
}

measure_yield
measure_lag
measure_hash
measure_doorbell
if [ "$QUICK" = 1 ]; then
	say "[5/5] grading speed: skipped (BENCH_QUICK=1)"
else
	measure_grading
fi

HAVE_PYTHON=$have_python SKIP_GRADING=$QUICK \
	bash "$here/table.sh" "$OUT" | tee "$OUT/bench_summary.txt"
say "wrote $OUT/bench_summary.txt"
