#!/usr/bin/env bash
# Re-proves each line of a proof by parts's journal on its own, without the journal
# (docs/CLI.md, "bench cube-prove --journal"), so that the journal's outcomes need not be taken
# on trust:
#   scripts/recheck_parts_journal.sh BINARY JOURNAL [GAME] [SECONDS]
# GAME is qubic (default) or sogo; SECONDS (default 600) bounds each proof. A `wins` line is
# proved by parts on two threads; a `cannot-win` line by the prover alone (the side to move
# does not win). Prints each line with `agrees`, `DISAGREES` or `not settled`, and exits 1 if
# any line disagrees.
set -uo pipefail
binary=$1 journal=$2 game=${3:-qubic} seconds=${4:-600}
disagreements=0
while read -r outcome moves; do
  [ -z "$outcome" ] && continue
  if [ "$outcome" = wins ]; then
    result=$("$binary" bench cube-prove "$game" "$moves" --parts 2 --max-time "$seconds" 2>/dev/null | tail -1 | cut -f2)
    expected=wins
  else
    result=$("$binary" bench cube-prove "$game" "$moves" --max-time "$seconds" 2>/dev/null | tail -1 | cut -f2)
    expected="does not win"
  fi
  if [ -z "$result" ]; then
    verdict="not settled"
  elif [ "$result" = "$expected" ]; then
    verdict=agrees
  else
    verdict=DISAGREES
    disagreements=$((disagreements + 1))
  fi
  echo "$outcome $moves: $verdict"
done < "$journal"
[ "$disagreements" -eq 0 ]
