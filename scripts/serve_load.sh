#!/usr/bin/env bash
# Idle load of `serve`, two binaries side by side in alternating rounds (docs/BENCHMARKS.md):
#   scripts/serve_load.sh OLD_BINARY NEW_BINARY [ROUNDS] [SEARCHES]
# Each serves Connect Four 4x4 tables made in a scratch directory; wrk (Debian's) asks a 4x4
# probe with 64 connections for 6 s a run, with keep-alive and with `Connection: close`. With
# SEARCHES=8 a third server (the new binary) is asked the same while a loop of curl keeps 8
# searches in flight on it.
set -euo pipefail
old=$1 new=$2 rounds=${3:-5} searches=${4:-0}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
"$new" generate connect4 --size 4x4 --dir "$dir" >/dev/null 2>&1
"$old" serve --dir "$dir" --port 18101 2>/dev/null &
"$new" serve --dir "$dir" --port 18102 2>/dev/null &
servers="before 18101|after 18102"
if [ "$searches" -gt 0 ]; then
  "$new" serve --dir "$dir" --port 18103 2>/dev/null &
  servers="$servers|after-with-searches 18103"
  sleep 1
  ( while true; do
      for t in "sogo&position=" "sogo&position=a1" "sogo&position=b2" "sogo&position=a1b2" \
               "connect4&size=7x6&position=" "connect4&size=7x6&position=4" \
               "connect4&size=8x7&position=" "connect4&size=8x7&position=1"; do
        curl -s -o /dev/null --max-time 45 "http://127.0.0.1:18103/api/probe?game=$t" &
      done
      wait
    done ) &
fi
sleep 2
query="api/probe?game=connect4&size=4x4&position=12"
for round in $(seq "$rounds"); do
  IFS='|' read -ra list <<<"$servers"
  for entry in "${list[@]}"; do
    set -- $entry
    for mode in keep-alive close; do
      header=()
      [ "$mode" = close ] && header=(-H "Connection: close")
      rate=$(wrk -t2 -c64 -d6s --latency "${header[@]}" "http://127.0.0.1:$2/$query" | awk '/Requests\/sec/ {print $2} / 99%/ {print $2}' | paste -sd' ')
      echo "round $round	$1	$mode	$rate"
    done
  done
done
