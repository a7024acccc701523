#!/usr/bin/env bash
# Goes on with the proof that White wins Qubic after the weak first move b11 (docs/RESULTS.md,
# "Qubic and Sogo"): each of Black's replies not yet proved is searched by parts in turn, for at
# most SECONDS each (default 3600), on two threads, with the journal JOURNAL (default
# tables/qubic-parts.journal), so that every run goes on from what the runs before it showed:
#   scripts/qubic_weak_first_move.sh BINARY [JOURNAL] [SECONDS] [REPLY...]
# A reply the journal already records as won is skipped. Each run's log goes to
# LOGS/b11-REPLY.log (LOGS default /var/tmp/qubic-b11).
set -uo pipefail
binary=$1 journal=${2:-tables/qubic-parts.journal} seconds=${3:-3600}
shift $(($# < 3 ? $# : 3))
replies=("$@")
[ ${#replies[@]} -eq 0 ] && replies=(c32 a44 b32 a11 a41 b22 c22)
logs=${LOGS:-/var/tmp/qubic-b11}
mkdir -p "$logs"
for reply in "${replies[@]}"; do
  if grep -qx "wins b11 $reply" "$journal" 2>/dev/null; then
    echo "b11 $reply: proved (journal)"
    continue
  fi
  start=$(date +%s)
  "$binary" bench cube-prove qubic "b11 $reply" --parts 2 --parts-depth 4 --split-open-parts 3 \
    --max-time "$seconds" --journal "$journal" > "$logs/b11-$reply.out" 2> "$logs/b11-$reply.log"
  status=$?
  echo "b11 $reply: exit $status after $(($(date +%s) - start)) s: $(tail -1 "$logs/b11-$reply.out" | cut -f2)"
done
