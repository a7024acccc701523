#!/usr/bin/env bash
# Instructions a cheap `serve` request costs, counted by callgrind (deterministic, unlike
# requests/s on a shared machine; docs/BENCHMARKS.md, "serve idle"):
#   scripts/serve_instructions.sh BINARY [keep-alive|close] [PORT]
# Serves Connect Four 4x4 tables made in a scratch directory under valgrind, asks a 4x4 probe
# with wrk (1 thread, 4 connections, 8 s), stops the server, and prints the inclusive
# instructions of `Shared::work` (all a connection's thread does) divided by the requests.
set -euo pipefail
bin=$1 mode=${2:-keep-alive} port=${3:-18301}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" generate connect4 --size 4x4 --dir "$dir/tables" >/dev/null 2>&1
out=$dir/callgrind.out
valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" serve --dir "$dir/tables" --port "$port" 2>/dev/null &
pid=$!
url="http://127.0.0.1:$port/api/probe?game=connect4&size=4x4&position=12"
until curl -s -o /dev/null "$url"; do sleep 1; done
header=()
[ "$mode" = close ] && header=(-H "Connection: close")
requests=$(wrk -t1 -c4 -d8s "${header[@]}" "$url" | awk '/requests in/ {print $1}')
sleep 1; kill -TERM "$pid"; wait "$pid" || true
work=$(callgrind_annotate --inclusive=yes "$out" 2>/dev/null | grep -m1 'Shared<H>::work \[' | awk '{gsub(",", "", $1); print $1}')
echo "$mode: $requests requests (plus the first), $((work / (requests + 1))) instructions a request"
