#!/usr/bin/env bash
# make check, charts: every committed CSV passes check_csv.sh, and every
# chart re-renders from the committed data (gnuplot exits 0, the PNG and SVG
# are not empty).  Nothing is measured again.
# set -u without -e: a check that fails says FAIL and the next one still runs.
set -u
tmp=${TMP:-$(mktemp -d)}/charts
mkdir -p "$tmp"
for csv in data/*.csv; do
	[ -f "$csv" ] || continue
	if bash common/charts/check_csv.sh "$csv" 2>"$tmp/err"; then
		echo "PASS data: $csv is well formed"
	else
		echo "FAIL data: $(cat "$tmp/err")"
	fi
done
for gp in plots/*.gp; do
	chart=$(basename "$gp" .gp)
	[ "$chart" = style ] && continue
	if bash common/charts/render.sh data "$tmp" "$chart" 2>"$tmp/err" &&
		[ -s "$tmp/$chart.png" ] && [ -s "$tmp/$chart.svg" ]; then
		echo "PASS plots: $chart renders from the committed data"
	else
		echo "FAIL plots: $chart: $(tr '\n' ' ' <"$tmp/err")"
	fi
done
# A malformed CSV must stop the chart with a message naming the file.
mkdir -p "$tmp/bad"
printf '# date: x\nyield,worst_lag_ms\nrr_yield\n' >"$tmp/bad/ex01_round_robin_mechanisms.csv"
if ! bash common/charts/render.sh "$tmp/bad" "$tmp/bad" ex01_yield_mechanisms 2>"$tmp/err" &&
	grep -q "ex01_round_robin_mechanisms.csv" "$tmp/err"; then
	echo "PASS plots: a malformed CSV stops the chart, naming the file"
else
	echo "FAIL plots: a malformed CSV was not reported"
fi
# make plots SRC=labs: a student's data drawn beside the reference's, one
# page per chart; a chart without the student's data is skipped, not failed.
mkdir -p "$tmp/mine" "$tmp/beside"
cp data/ex01_*.csv "$tmp/mine/"
if bash common/charts/render.sh --beside data "$tmp/mine" "$tmp/beside" 2>"$tmp/err" &&
	[ -s "$tmp/beside/ex01_yield_mechanisms.png" ] && [ ! -e "$tmp/beside/ex03_budget_vs_count.png" ] &&
	grep -q "ex03_budget_vs_count: no data of yours yet" "$tmp/err"; then
	echo "PASS plots: make plots SRC=labs draws the student's data beside the reference, and skips what was not measured"
else
	echo "FAIL plots: make plots SRC=labs: $(tr '\n' ' ' <"$tmp/err")"
fi
# The handout ships a data/ file only when a README names it: every chart's
# input must be named, or plain make plots fails in the handout.
for gp in plots/*.gp; do
	for csv in $(sed -n 's/^# inputs: //p' "$gp"); do
		# The same rule as make handout (common/workflow/handout.sh).
		if grep -rqF --include=README.md --exclude-dir=solutions --exclude-dir='build*' \
			--exclude-dir=dist "$csv" .; then
			echo "PASS plots: $(basename "$gp" .gp) input $csv is named by a README (shipped in the handout)"
		else
			echo "FAIL plots: $(basename "$gp" .gp) input $csv is named by no README: the handout will not ship it"
		fi
	done
done
