#!/usr/bin/env bash
# The whole test suite: the Rust tests, then the page of `serve` in a real headless browser
# (Debian's chromium, installed when missing). README.md and .ci/run both call this.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release
if ! command -v chromium >/dev/null 2>&1; then
    echo "tests/run.sh: installing chromium for the browser test" >&2
    apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null
fi
cargo build --release --quiet
python3 tests/browser/check_page.py target/release/tablebase target/browser
