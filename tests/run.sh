#!/usr/bin/env bash
# The whole test suite: the Rust tests (by cargo-nextest where it is installed, else cargo test);
# the Snakemake workflow on this machine and on a real one-node Slurm cluster
# (tests/workflow/check.sh, beside the Rust tests: it waits mostly on Slurm's scheduling); then
# the page of `serve` in a real headless browser (Debian's chromium, installed when missing);
# then the Python package's tests (its wheel built beside the Rust tests).
# README.md and .ci/run both call this.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
    echo "tests/run.sh: installing chromium for the browser test" >&2
    apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null
fi
cargo build --release --quiet
mkdir -p target
bash tests/workflow/check.sh >target/workflow-check.log 2>&1 &
workflow=$!
# The Python package's wheel, built beside the Rust tests at a lower priority: it takes the
# processor time they leave (about a sixth of it, where a test waits on a deadline or a
# prompt) instead of a minute of its own after them, and slows no test that times an answer.
# In a process group of its own (setsid), so that a failing step stops pip's build with it.
nice -n 10 setsid bash tests/python.sh --install >target/python-install.log 2>&1 &
wheel=$!
# Stopped with the rest when a step fails: the workflow's own cleanup stops what it started.
trap 'kill $workflow 2>/dev/null && wait $workflow 2>/dev/null; kill -- -$wheel 2>/dev/null' EXIT
if cargo nextest --version >/dev/null 2>&1; then
    # Each test in its own process, one per processor across all the test binaries: a binary with
    # one long test no longer leaves a processor idle while it runs. Nextest skips doc tests.
    cargo nextest run --release
    cargo test --release --doc
else
    cargo test --release
fi
python3 tests/browser/check_page.py target/release/tablebase target/browser
wheel_status=0
wait $wheel || wheel_status=$?
if [ $wheel_status != 0 ]; then
    cat target/python-install.log >&2
    echo "tests/run.sh: the Python package's wheel did not build (exit $wheel_status)" >&2
    exit $wheel_status
fi
bash tests/python.sh --test
status=0
wait $workflow || status=$?
cat target/workflow-check.log
[ $status = 0 ] || { echo "tests/run.sh: the workflow test failed (exit $status)" >&2; exit $status; }
