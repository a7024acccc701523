#!/usr/bin/env bash
# Runs one segment of a long generation and keeps its CPU on record even if the session ends:
#   scripts/run_segment.sh LOGDIR NAME COMMAND...
# COMMAND runs under /usr/bin/time -v (its stdout to LOGDIR/NAME.log, its log lines and time's
# figures to LOGDIR/NAME.err), and the command's CPU (user and system seconds) is sampled every
# 30 seconds into LOGDIR/NAME.cpu, whose last line is the segment's CPU when it is cut off.
# Start it with nohup ... & and resume with the same generate command in a new segment.
set -u
[ $# -ge 3 ] || { sed -n '2,8p' "$0" | sed 's/^# *//' >&2; exit 2; }
logs=$1 name=$2; shift 2
mkdir -p "$logs"
/usr/bin/time -v "$@" > "$logs/$name.log" 2> "$logs/$name.err" &
pid=$!
tick=$(getconf CLK_TCK)
while kill -0 "$pid" 2>/dev/null; do
  child=$(pgrep -P "$pid" | head -1)
  if [ -n "$child" ] && [ -r "/proc/$child/stat" ]; then
    read -r user sys < <(awk '{print $14, $15}' "/proc/$child/stat")
    echo "$(date -u +%FT%TZ) user=$((user / tick)) sys=$((sys / tick))" >> "$logs/$name.cpu"
  fi
  sleep 30
done
wait "$pid"
echo "exit $?" >> "$logs/$name.cpu"
