#!/usr/bin/env bash
# Re-proves each line of a proof journal on its own, without the journal, so that the journal's
# outcomes need not be taken on trust:
#   scripts/recheck_parts_journal.sh BINARY JOURNAL [GAME] [SECONDS]
# Two journals are read:
# - a proof by parts's (docs/CLI.md, "bench cube-prove --journal"; tables/qubic-parts.journal):
#   `wins MOVES` or `cannot-win MOVES`, of GAME, qubic (default) or sogo. A `wins` line is proved
#   by parts on two threads; a `cannot-win` line by the prover alone (the side to move does not
#   win);
# - Sogo's proof journal (tables/sogo-proof.journal): `white|black wins|cannot-win POSITION
#   NODES`, proved by `bench sogo-prove` for the colour named, whichever side is to move.
# SECONDS (default 600) bounds each proof. Prints each line with `agrees`, `DISAGREES`,
# `not settled` (out of time) or `ERROR` (a line that is not a record, or a position the binary
# refuses, with its message), and exits 1 if any line disagrees or is in error, or if the
# journal holds no record. A last line without its newline is read too.
set -uo pipefail
# Each proof's failure is read from its status: a caller's errexit (an exported SHELLOPTS) must not end the loop.
set +e
if [ $# -lt 2 ]; then
  echo "usage: scripts/recheck_parts_journal.sh BINARY JOURNAL [GAME] [SECONDS]" >&2
  exit 2
fi
binary=$1 journal=$2 game=${3:-qubic} seconds=${4:-600}
[ -r "$journal" ] || { echo "$journal: cannot be read" >&2; exit 1; }
failures=0 number=0 records=0
errors=$(mktemp)
trap 'rm -f "$errors" "$errors.out"' EXIT
while IFS= read -r line || [ -n "$line" ]; do
  number=$((number + 1))
  line=${line%$'\r'}
  read -r -a words <<< "$line"
  [ ${#words[@]} -eq 0 ] && continue
  records=$((records + 1))
  result="" verdict=""
  case "${words[0]}" in
    wins|cannot-win)
      outcome=${words[0]} moves="${words[*]:1}"
      parts=() expected="does not win"
      [ "$outcome" = wins ] && parts=(--parts 2) expected=wins
      "$binary" bench cube-prove "$game" "$moves" "${parts[@]}" --max-time "$seconds" > "$errors.out" 2> "$errors"
      status=$?
      result=$(tail -1 "$errors.out" | cut -f2)
      ;;
    white|black)
      colour=${words[0]} outcome=${words[1]:-} position=${words[2]:-}
      if [ ${#words[@]} -ne 4 ] || { [ "$outcome" != wins ] && [ "$outcome" != cannot-win ]; }; then
        verdict="ERROR: not a record of Sogo's proof journal (white|black wins|cannot-win POSITION NODES)"
      else
        # White is to move where the stones of both colours are as many.
        whites=${position//[^x]/} blacks=${position//[^o]/}
        white_to_move=$([ ${#whites} -eq ${#blacks} ] && echo yes || echo no)
        other=()
        if { [ "$colour" = white ] && [ "$white_to_move" = no ]; } || { [ "$colour" = black ] && [ "$white_to_move" = yes ]; }; then
          other=(--other)
        fi
        "$binary" bench sogo-prove "$position" "${other[@]}" --max-time "$seconds" > "$errors.out" 2> "$errors"
        status=$?
        result=$(tail -1 "$errors.out" | cut -f3)
        [ "$result" = "out of time" ] && result=""
        expected=$([ "$outcome" = wins ] && echo wins || echo "does not win")
      fi
      ;;
    *)
      verdict="ERROR: not a journal record (it starts wins, cannot-win, white or black)"
      ;;
  esac
  if [ -z "$verdict" ]; then
    if [ "$status" -ne 0 ] && ! grep -q 'needs more than' "$errors"; then
      verdict="ERROR: $(head -1 "$errors")"
    elif [ -z "$result" ]; then
      verdict="not settled"
    elif [ "$result" = "$expected" ]; then
      verdict=agrees
    else
      verdict=DISAGREES
    fi
  fi
  case "$verdict" in
    DISAGREES|ERROR*) failures=$((failures + 1)) ;;
  esac
  echo "line $number: $line: $verdict"
done < "$journal"
if [ "$records" -eq 0 ]; then
  # An empty journal proves nothing: a file cut to nothing, or the wrong one, must not agree.
  echo "$journal: no records to re-prove" >&2
  exit 1
fi
[ "$failures" -eq 0 ]
