#!/usr/bin/env bash
# make check, docs: the generated tables of the guides match the tree
# (common/docs/tables.py; `make docs` rewrites them).
cd "$(dirname "$0")/../../.." || exit 3
python3 common/docs/tables.py --check
exit 0
