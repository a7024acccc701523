#!/usr/bin/env bash
# The whole test suite: the Rust tests (by cargo-nextest where it is installed, else cargo test);
# the Snakemake workflow on this machine and on a real one-node Slurm cluster
# (tests/workflow/check.sh, beside the Rust tests: it waits mostly on Slurm's scheduling); then
# the page of `serve` in a real headless browser (Debian's chromium, installed when missing);
# then the Python package (tests/python.sh).
# README.md and .ci/run both call this.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
    echo "tests/run.sh: installing chromium for the browser test" >&2
    apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null
fi
cargo build --release --quiet
mkdir -p target
workflow=
# The workflow test is stopped with the rest when a step fails (its own cleanup stops what it
# started); never a failure of its own: the script exits with the status of the step that
# ended it.
stop_workflow() {
    set +e
    [ -n "$workflow" ] && kill "$workflow" 2>/dev/null && wait "$workflow" 2>/dev/null
    return 0
}
trap stop_workflow EXIT
bash tests/workflow/check.sh >target/workflow-check.log 2>&1 &
workflow=$!
if cargo nextest --version >/dev/null 2>&1; then
    # Each test in its own process, one per processor across all the test binaries: a binary with
    # one long test no longer leaves a processor idle while it runs. Nextest skips doc tests.
    cargo nextest run --release
    cargo test --release --doc
else
    cargo test --release
fi
python3 tests/browser/check_page.py target/release/tablebase target/browser
bash tests/python.sh
status=0
wait $workflow || status=$?
workflow=
cat target/workflow-check.log
[ $status = 0 ] || { echo "tests/run.sh: the workflow test failed (exit $status)" >&2; exit $status; }
