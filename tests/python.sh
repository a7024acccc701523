#!/usr/bin/env bash
# The Python package (python/): builds and installs its wheel with pip (maturin and pytest from
# PyPI, installed when missing), then runs its tests against target/release/tablebase.
#   tests/python.sh [--install | --test]
# Without an argument it does both; tests/run.sh builds the wheel (one more release build of the
# library) beside the Rust tests with --install, then runs --test after them.
set -euo pipefail
cd "$(dirname "$0")/.."
phase=${1:-all}
case $phase in
    all | --install | --test) ;;
    *) echo "usage: tests/python.sh [--install | --test]" >&2; exit 2 ;;
esac
if [ "$phase" != --test ]; then
    for module in maturin pytest; do
        if ! python3 -c "import $module" >/dev/null 2>&1; then
            echo "tests/python.sh: installing $module for the Python package" >&2
            python3 -m pip install --quiet "$module"
        fi
    done
    python3 -m pip install --quiet ./python
fi
[ "$phase" = --install ] && exit 0
# From target/, so that `import tablebase` finds the installed package and not python/'s sources.
export TABLEBASE_BIN="${TABLEBASE_BIN:-$PWD/target/release/tablebase}"
cd target
status=0
python3 -m pytest -q ../python/tests || status=$?
# Exit 5 is "no tests collected": a package test that ran nothing has not passed.
[ $status = 0 ] || { echo "tests/python.sh: pytest failed (exit $status)" >&2; exit $status; }
