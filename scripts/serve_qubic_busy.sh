#!/usr/bin/env bash
# Three Qubic probes sent to `serve` at once while BUSY shell loops keep the processors busy
# (docs/BENCHMARKS.md, "What a short search pays for its tables"):
#   scripts/serve_qubic_busy.sh BINARY [BUSY]
# Prints each probe's seconds, its HTTP status and any error, then the server's resident memory
# just after the answers and 5 s later.
set -euo pipefail
binary=$1 busy=${2:-4} port=${PORT:-18481}
dir=$(mktemp -d)
loops=()
trap 'kill "${loops[@]}" $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
"$binary" serve --dir "$dir" --port "$port" 2>/dev/null &
server=$!
sleep 1
# The tables opened once before the probes timed.
curl -s "http://127.0.0.1:$port/api/probe?game=qubic&position=a11a22b11b22c11c22d11" >/dev/null
for _ in $(seq "$busy"); do (while :; do :; done) & loops+=($!); done
probes=()
for position in a11b22 a11c33 a11b12; do
  (
    start=$(date +%s.%N)
    answer=$(curl -s -w ' HTTP%{http_code}' "http://127.0.0.1:$port/api/probe?game=qubic&position=$position")
    end=$(date +%s.%N)
    echo "$position $(echo "$end - $start" | bc) s ${answer: -7} $(echo "$answer" | grep -o '"error": "[^"]*"' || true)"
  ) &
  probes+=($!)
done
wait "${probes[@]}"
kill "${loops[@]}"
grep VmRSS "/proc/$server/status"
sleep 5
grep VmRSS "/proc/$server/status"
