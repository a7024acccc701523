#!/usr/bin/env bash
# How `generate` scales with threads: the same Morris subset generated from nothing with each
# thread count in turn, alone, into fresh directories, and every run's files compared with the
# first run's (they must be the same bytes). A run that could not finish in the time left is
# skipped, so that the script fits a lease of a few minutes.
#
#   scripts/scaling.sh BINARY OUTDIR SECONDS UP_TO THREADS...
#   scripts/scaling.sh target/device/tablebase $OUT 540 7-7 16 2 8 4
#
# Writes OUTDIR/times.tsv (threads, exit status, wall seconds, user and system CPU seconds,
# peak resident kB, bytes written) and OUTDIR/machine.txt.
set -u
binary=$(realpath "$1") out=$2 budget=$3 up_to=$4
shift 4
work=$(mktemp -d "${TMPDIR:-/tmp}/scaling.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
{
    date -u
    uname -a
    nproc
    grep -m1 'model name' /proc/cpuinfo
    grep MemTotal /proc/meminfo
} > "$out/machine.txt"
printf 'threads\tstatus\twall_s\tuser_s\tsys_s\tpeak_kb\tbytes\tsame_bytes\n' > "$out/times.tsv"
first=""
for threads in "$@"; do
    left=$((budget - ($(date +%s) - start)))
    if ((left < 20)); then
        printf '%s\tskipped: %s s left\n' "$threads" "$left" >> "$out/times.tsv"
        continue
    fi
    dir=$work/t$threads
    mkdir -p "$dir"
    command=(timeout "$left" "$binary" generate morris --up-to "$up_to" --no-opening
        --threads "$threads" --dir "$dir")
    peak=""
    if [[ -x /usr/bin/time ]]; then
        /usr/bin/time -o "$work/time" -f '%e %U %S %M' "${command[@]}" > "$out/generate-$threads.log" 2>&1
        status=$?
        # GNU time puts "Command exited with non-zero status N" before its figures.
        read -r wall user sys peak < <(tail -n 1 "$work/time")
    else
        # bash's own time where GNU time is missing: no peak memory then.
        TIMEFORMAT='%R %U %S'
        { time "${command[@]}" > "$out/generate-$threads.log" 2>&1; } 2> "$work/time"
        status=$?
        read -r wall user sys < "$work/time"
    fi
    bytes=$(du -sb "$dir" | cut -f1)
    same=first
    if [[ -n $first ]]; then
        same=yes
        for f in "$first"/*.tbl; do
            cmp -s "$f" "$dir/$(basename "$f")" || same=no
        done
    else
        first=$dir
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$threads" "$status" "$wall" "$user" "$sys" "${peak:-}" \
        "$bytes" "$same" >> "$out/times.tsv"
done
cat "$out/times.tsv"
