#!/usr/bin/env bash
# Compares the speed of two builds of `tablebase` (a refactor must be "no slower"): medians of
# alternating runs (before, after, before, after, ...) of wall time, CPU time (user+sys) and
# peak RSS on four workloads, and checks that both builds give the same tables and answers.
#
# Usage: scripts/compare_speed.sh BEFORE AFTER [--runs N] [--only 1,2,3,4] [--work DIR] [--small] [--up-to CLASS]
#   1  generate morris --up-to 6-6           (fresh directory each run)
#   2  generate connect4 --size 6x5          (fresh directory each run)
#   3  probe morris --brief, 1,000,000 positions on stdin, tables made once by BEFORE
#   4  probe connect4 --size 7x6 --brief, no tables (search): first 100 lines of 5 Pons sets
#      and 10 of Test_L1_R3, all through one process per run
# --small (for trying the script out): 4-4, 5x4, 10,000 positions, 20 lines of L3_R1, L2_R1.
# --up-to CLASS (after --small, if both): the Morris classes of workloads 1 and 3 (7-7 is the
#   size issue 65 names; 6-6 the default, a fifth of its time).
# Markdown table on stdout; raw per-run numbers in WORK/compare_speed.log (overwritten).
set -euo pipefail

usage() { sed -n '6p' "$0" | sed 's/^# *//' >&2; exit 2; }
[ $# -ge 2 ] || usage
BEFORE=$1 AFTER=$2; shift 2
RUNS=5 ONLY=1,2,3,4 WORK=/var/tmp/compare_speed SMALL=0 UPTO_ASKED=
while [ $# -gt 0 ]; do
  case $1 in
    --runs) RUNS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --small) SMALL=1; shift ;;
    --up-to) UPTO_ASKED=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ && $ONLY =~ ^[1-4](,[1-4])*$ && $UPTO_ASKED =~ ^([3-9]-[3-9])?$ ]] || usage
[ "$RUNS" -ge 5 ] || echo "note: --runs $RUNS is below the 5 runs a verdict needs" >&2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PONS=$ROOT/tables/reference/connect4-pons

if [ $SMALL = 1 ]; then
  UPTO=4-4 C4SIZE=5x4 NPOS=10000 SETS="Test_L3_R1:20 Test_L2_R1:20"
else
  UPTO=6-6 C4SIZE=6x5 NPOS=1000000
  SETS="Test_L3_R1:100 Test_L2_R1:100 Test_L1_R1:100 Test_L2_R2:100 Test_L1_R2:100 Test_L1_R3:10"
fi
[ -z "$UPTO_ASKED" ] || UPTO=$UPTO_ASKED

mkdir -p "$WORK/bin"
# Copies, so that a `cargo build` elsewhere during a long comparison cannot swap a binary
# under us halfway through.
cp "$BEFORE" "$WORK/bin/before"; cp "$AFTER" "$WORK/bin/after"
declare -A BIN=([before]=$WORK/bin/before [after]=$WORK/bin/after)
LOG=$WORK/compare_speed.log
echo "# $(date -Is) before=$BEFORE after=$AFTER runs=$RUNS small=$SMALL" > "$LOG"
echo "# workload run build wall_s user_s sys_s peak_rss_kb" >> "$LOG"
TIMES=$WORK/time.out ERR=$WORK/stderr.out

die() { echo "compare_speed: $*" >&2; exit 1; }

# timed WORKLOAD RUN BUILD STDIN CMD...: one timed run; the program's log lines go to $ERR so
# that they do not mix with GNU time's figures (-o), and are shown if the run fails.
timed() {
  local w=$1 r=$2 b=$3 in=$4; shift 4
  if ! /usr/bin/time -o "$TIMES" -f '%e %U %S %M' "$@" < "$in" > /dev/null 2> "$ERR"; then
    tail -5 "$ERR" >&2; cat "$TIMES" >&2; die "workload $w run $r ($b) failed: $*"
  fi
  echo "$w $r $b $(tail -1 "$TIMES")" >> "$LOG"
}

# same_tables DIR1 DIR2: byte-identical table files; .generate.lock holds a process id.
same_tables() {
  local a b
  a=$(cd "$1" && find . -type f ! -name .generate.lock | sort)
  b=$(cd "$2" && find . -type f ! -name .generate.lock | sort)
  [ "$a" = "$b" ] || { echo "different file lists"; return 1; }
  [ -n "$a" ] || { echo "no files"; return 1; }
  while read -r f; do cmp -s "$1/$f" "$2/$f" || { echo "$f differs"; return 1; }; done <<< "$a"
  echo "byte-identical ($(wc -l <<< "$a") files)"
}

# generate_workload W ARGS...: a fresh directory per run; the first run of each build is kept
# to compare the tables afterwards (the comparison adds nothing to the timed runs).
generate_workload() {
  local w=$1 r b dir; shift
  rm -rf "$WORK/gen" "$WORK/keep-before" "$WORK/keep-after"
  for ((r = 1; r <= RUNS; r++)); do
    for b in before after; do
      dir=$WORK/gen; rm -rf "$dir"; mkdir "$dir"
      timed "$w" "$r" "$b" /dev/null "${BIN[$b]}" "$@" --dir "$dir"
      if [ "$r" = 1 ]; then mv "$dir" "$WORK/keep-$b"; else rm -rf "$dir"; fi
    done
  done
  CHECK[$w]="tables $(same_tables "$WORK/keep-before" "$WORK/keep-after")" || FAILED=1
  rm -rf "$WORK/keep-before" "$WORK/keep-after"
}

# probe_workload W INPUT ARGS...: one untimed run of each build first, to compare the answers
# and check that none is an error (this also warms the page cache for both alike).
probe_workload() {
  local w=$1 in=$2 r b; shift 2
  for b in before after; do
    "${BIN[$b]}" "$@" - < "$in" > "$WORK/answers-$w-$b" 2> "$ERR" \
      || { tail -5 "$ERR" >&2; die "workload $w: $b failed on $in"; }
  done
  local errors; errors=$(grep -c '^error' "$WORK/answers-$w-before" || true)
  if [ "$errors" != 0 ]; then CHECK[$w]="$errors error answers"; FAILED=1
  elif cmp -s "$WORK/answers-$w-before" "$WORK/answers-$w-after"; then
    CHECK[$w]="answers identical ($(wc -l < "$WORK/answers-$w-before") lines)"
  else CHECK[$w]="answers DIFFER (diff $WORK/answers-$w-before $WORK/answers-$w-after)"; FAILED=1; fi
  for ((r = 1; r <= RUNS; r++)); do
    for b in before after; do timed "$w" "$r" "$b" "$in" "${BIN[$b]}" "$@" -; done
  done
}

# Legal moving-phase positions of the 9-stone game, hands 0 0 (so the hand fields are left
# out, as docs/CLI.md allows): 3..MAX stones a side on distinct points, either side to move.
# All classes 3-3..MAX-MAX are among the tables `--up-to MAX-MAX` builds. Fixed seed: the
# same file every time.
write_positions() {
  python3 - "$1" "$2" > "$3" <<'EOF'
import random, sys
most, count = int(sys.argv[1]), int(sys.argv[2])
points = "a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7".split()
rng = random.Random(20240601)
for _ in range(count):
    w, b = rng.randint(3, most), rng.randint(3, most)
    chosen = rng.sample(points, w + b)
    print("W:%s B:%s %s" % (",".join(chosen[:w]), ",".join(chosen[w:]), rng.choice("wb")))
EOF
}

declare -A CHECK NAME
NAME=([1]="generate morris --up-to $UPTO" [2]="generate connect4 --size $C4SIZE"
      [3]="probe morris --brief, $NPOS positions" [4]="probe connect4 7x6 --brief (search)")
FAILED=0
for w in ${ONLY//,/ }; do
  echo "workload $w: ${NAME[$w]}" >&2
  case $w in
    1) generate_workload 1 generate morris --up-to "$UPTO" ;;
    2) generate_workload 2 generate connect4 --size "$C4SIZE" ;;
    3) tables=$WORK/tables-morris-$UPTO
       # Made once and kept across invocations; generate is resumable, so on complete tables
       # this only checks them.
       "${BIN[before]}" generate morris --up-to "$UPTO" --dir "$tables" 2> "$ERR" \
         || { tail -5 "$ERR" >&2; die "generating $tables failed"; }
       pos=$WORK/positions-$UPTO-$NPOS.txt
       [ -s "$pos" ] || write_positions "${UPTO%-*}" "$NPOS" "$pos"
       probe_workload 3 "$pos" probe morris --brief --dir "$tables" ;;
    4) mkdir -p "$WORK/empty"; [ -z "$(ls -A "$WORK/empty")" ] || die "$WORK/empty is not empty"
       moves=$WORK/connect4-moves-$SMALL.txt; : > "$moves"
       for s in $SETS; do head -n "${s#*:}" "$PONS/${s%:*}" | cut -d' ' -f1 >> "$moves"; done
       probe_workload 4 "$moves" probe connect4 --size 7x6 --dir "$WORK/empty" --brief ;;
  esac
done

# Medians from the log: wall, CPU = user+sys, peak RSS (MB); the mean of the middle two for
# an even count.
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
col() { awk -v w="$1" -v b="$2" -v f="$3" '$1==w && $3==b {print f=="cpu" ? $5+$6 : f=="rss" ? $7/1024 : $4}' "$LOG"; }
echo
echo "| workload | before wall (s) | after wall (s) | after/before | before CPU (s) | after CPU (s) | after/before | peak RSS before/after (MB) |"
echo "|---|---|---|---|---|---|---|---|"
for w in ${ONLY//,/ }; do
  bw=$(col $w before wall | median) aw=$(col $w after wall | median)
  bc=$(col $w before cpu | median) ac=$(col $w after cpu | median)
  br=$(col $w before rss | median) ar=$(col $w after rss | median)
  awk -v n="$w. ${NAME[$w]}" -v bw=$bw -v aw=$aw -v bc=$bc -v ac=$ac -v br=$br -v ar=$ar 'BEGIN {
    printf "| %s | %.2f | %.2f | %s | %.2f | %.2f | %s | %.0f / %.0f |\n", n, bw, aw,
      (bw > 0 ? sprintf("%.3f", aw / bw) : "-"), bc, ac, (bc > 0 ? sprintf("%.3f", ac / bc) : "-"), br, ar }'
done
echo
echo "Medians of $RUNS alternating runs each; raw numbers in $LOG."
for w in ${ONLY//,/ }; do echo "- workload $w: ${CHECK[$w]}"; done
[ $FAILED = 0 ] || die "before and after do not agree (above)"
