#!/usr/bin/env bash
# The Python package (python/): builds and installs its wheel with pip (maturin and pytest from
# PyPI, installed when missing), then runs its tests against target/release/tablebase. Called by
# tests/run.sh after the Rust tests; the wheel is one more release build of the library.
set -euo pipefail
cd "$(dirname "$0")/.."
for module in maturin pytest; do
    if ! python3 -c "import $module" >/dev/null 2>&1; then
        echo "tests/python.sh: installing $module for the Python package" >&2
        python3 -m pip install --quiet "$module"
    fi
done
python3 -m pip install --quiet ./python
# From target/, so that `import tablebase` finds the installed package and not python/'s sources.
export TABLEBASE_BIN="${TABLEBASE_BIN:-$PWD/target/release/tablebase}"
cd target
status=0
python3 -m pytest -q ../python/tests || status=$?
# Exit 5 is "no tests collected": a package test that ran nothing has not passed.
[ $status = 0 ] || { echo "tests/python.sh: pytest failed (exit $status)" >&2; exit $status; }
