#!/usr/bin/env bash
# make check, readme numbers: every measured figure a README quotes carries
# a marker naming its CSV, row and column, and matches the committed data
# (common/charts/readme_numbers.py says how).  Then a self-test: a figure
# that disagrees with its CSV, and an unmarked figure, must both fail.
# set -u without -e: a check that fails says FAIL and the next one still runs.
set -u
cd "$(dirname "$0")/../../.."
tmp=${TMP:-$(mktemp -d)}/readme_numbers
mkdir -p "$tmp"
if ! command -v python3 >/dev/null 2>&1; then
	echo "FAIL readme numbers: python3 is needed to check the READMEs' figures"
	exit 0
fi
only=${LAB:-}
readmes=(README.md labs/README.md solutions/README.md data/README.md common/DESIGN.md)
for r in labs/*/README.md; do
	lab=$(basename "$(dirname "$r")")
	if [ -z "$only" ] || [[ ",$only," == *",${lab%%_*},"* ]]; then
		readmes+=("$r")
	fi
done
python3 common/charts/readme_numbers.py "${readmes[@]}"

# Self-test on a scratch README and CSV.
cat >"$tmp/t.csv" <<'CSV'
# date: x
mode,lag_ms
a,1.25
b,4.5
CSV
cat >"$tmp/good.md" <<'MD'
## Numbers from this machine
lag 1.3 ms<!-- data: t.csv; mode=a; lag_ms --> and 1.25–4.5 ms<!-- data: t.csv; *; range:lag_ms -->
| a | 1.25 ms | 3.6× <!-- row: t.csv; mode=a; _ lag_ms [mode=b]lag_ms/lag_ms --> |
MD
sed 's/lag 1.3 ms/lag 1.4 ms/' "$tmp/good.md" >"$tmp/wrong.md"
printf '## Numbers from this machine\n| a | 1.25 ms |\n' >"$tmp/unmarked.md"
if python3 common/charts/readme_numbers.py --data "$tmp" "$tmp/good.md" >/dev/null &&
	! python3 common/charts/readme_numbers.py --data "$tmp" "$tmp/wrong.md" >/dev/null &&
	! python3 common/charts/readme_numbers.py --data "$tmp" "$tmp/unmarked.md" >/dev/null; then
	echo "PASS readme numbers: the checker accepts a right figure, rejects a wrong one and an unmarked one"
else
	echo "FAIL readme numbers: the checker's self-test failed"
fi
