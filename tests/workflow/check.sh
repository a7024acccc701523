#!/usr/bin/env bash
# The Snakemake workflow (workflow/Snakefile) with the real engines, as tests/run.sh runs it:
#   1. on this machine (`--cores 2`): Morris with 4 stones and Connect Four 5x4, every file
#      byte-identical to a plain `generate` and `verify` clean; and a job killed half-way (its
#      process stopped, then killed with SIGKILL), the workflow run again to the same bytes;
#   2. on a real one-node Slurm cluster (tests/workflow/slurm_cluster.sh) through Snakemake's
#      Slurm executor plugin: Morris with 3 stones, one job cancelled with `scancel` half-way,
#      the workflow run again to the same bytes.
# Snakemake comes from PyPI into target/snakemake (kept between runs). A part this machine
# cannot run (no network for PyPI, not root, no Slurm packages) is skipped with one line saying
# why. Everything started here is stopped on the way out.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bin=$root/target/release/tablebase
venv=$root/target/snakemake
work=$(mktemp -d "${TMPDIR:-/var/tmp}/tablebase-workflow.XXXXXX")
chmod 755 "$work" # the Slurm part's daemons run as munge and mysql
slurm_state=

say() { echo "tests/workflow: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }
skip() { say "skipped: $*"; }

cleanup() {
    # A workflow started in the background with a job stopped half-way, when the test is stopped
    # before it waited for them: the job is killed, and the workflow waiting on it stopped.
    if [ -n "${stopped:-}" ]; then kill -9 "$stopped" 2>/dev/null || true; fi
    if [ -n "${running:-}" ]; then kill "$running" 2>/dev/null && wait "$running" 2>/dev/null || true; fi
    if [ -n "$slurm_state" ]; then
        scancel --user=root >/dev/null 2>&1 || true
        bash tests/workflow/slurm_cluster.sh stop "$slurm_state" || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT # so that the cleanup runs when the test is stopped too

[ -x "$bin" ] || fail "$bin is missing: cargo build --release first"

# Snakemake and its Slurm plugin, the versions this test was written against.
if [ ! -x "$venv/bin/snakemake" ]; then
    rm -rf "$venv"
    if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check \
        snakemake==9.27.1 snakemake-executor-plugin-slurm==2.8.0; } >"$work/pip.log" 2>&1; then
        rm -rf "$venv"
        skip "Snakemake cannot be installed from PyPI here ($(tail -1 "$work/pip.log"))"
        exit 0
    fi
fi
snakemake=$venv/bin/snakemake

# The tables of a plain `generate GAME FLAGS...` in DIR.
plain() {
    local dir=$1
    shift
    "$bin" generate "$@" --dir "$dir" 2>"$work/plain.log" || { cat "$work/plain.log" >&2; fail "generate $*"; }
}

# Whether directories A and B hold the same table files, byte for byte.
same_bytes() {
    local a=$1 b=$2 what=$3
    local files_a files_b
    files_a=$(cd "$a" && find . -maxdepth 1 -type f ! -name '.*' | sort)
    files_b=$(cd "$b" && find . -maxdepth 1 -type f ! -name '.*' | sort)
    [ "$files_a" = "$files_b" ] || fail "$what: not the same files: $(diff <(echo "$files_a") <(echo "$files_b") | tr '\n' ' ')"
    local file
    for file in $files_a; do
        cmp -s "$a/$file" "$b/$file" || fail "$what: $file differs from a plain generate"
    done
    say "$what: $(echo "$files_a" | wc -l) files byte-identical to a plain generate"
}

verified() {
    local dir=$1
    shift
    "$bin" verify "$@" --dir "$dir" --json >"$work/verify.json" 2>"$work/verify.log" \
        || { cat "$work/verify.log" >&2; fail "verify $* in $dir"; }
}

# A tablebase that stops (SIGSTOP) the process of job ID a moment after it starts, the first time
# only, and writes its pid to MARK: the test then kills it half-way, the way a node dies or a
# scheduler cancels.
stopper() {
    local id=$1 mark=$2 path="$work/stopper-$1"
    cat >"$path" <<EOF
#!/usr/bin/env bash
if [[ " \$* " == *" --only $id "* ]] && mkdir "$mark.first" 2>/dev/null; then
    "$bin" "\$@" &
    pid=\$!
    sleep 0.05
    kill -STOP \$pid
    echo \$pid >"$mark.tmp" && mv "$mark.tmp" "$mark"
    wait \$pid
    exit \$?
fi
exec "$bin" "\$@"
EOF
    chmod +x "$path"
    echo "$path"
}

wait_for_file() {
    local file=$1 deadline=$((SECONDS + $2))
    while [ ! -e "$file" ]; do
        [ $SECONDS -lt $deadline ] || fail "timed out waiting for $file"
        sleep 0.1
    done
}

# The workflow in DIR (its .snakemake state there, the tables in DIR/tables) for GAME with FLAGS,
# through the program PROGRAM, with the profile's arguments after; its log in snakemake.log.
workflow() {
    local dir=$1 game=$2 flags=$3 program=$4
    shift 4
    mkdir -p "$dir"
    (cd "$dir" && "$snakemake" -s "$root/workflow/Snakefile" "$@" \
        --config game="$game" flags="$flags" dir="$dir/tables" tablebase="$program") >"$work/snakemake.log" 2>&1
}

# `workflow` that must succeed.
workflow_completes() {
    workflow "$@" || { tail -30 "$work/snakemake.log" >&2; fail "snakemake $2 $3 in $1"; }
}

# Starts `workflow` in the background with job ID stopped half-way (its pid in $stopped, the
# workflow's in $running), once job ID's file FILE is known not to be there yet.
start_with_a_stopped_job() {
    local dir=$1 game=$2 flags=$3 id=$4 file=$5
    shift 5
    workflow "$dir" "$game" "$flags" "$(stopper "$id" "$work/mark-$id")" "$@" &
    running=$!
    wait_for_file "$work/mark-$id" 180
    [ ! -e "$dir/tables/$file" ] || fail "job $id finished before it could be stopped"
    stopped=$(cat "$work/mark-$id")
}

# Waits for the workflow of `start_with_a_stopped_job`, whose stopped job was then killed or
# cancelled: it must fail; where it did not, the test fails with the message given.
expect_failed_workflow() {
    local status=0
    wait "$running" || status=$?
    running= stopped=
    [ "$status" != 0 ] || fail "$1"
}

# 1. On this machine.
local_profile=(--profile "$root/workflow/profiles/local" --cores 2 --quiet all)

plain "$work/plain-c4" connect4 --size 5x4
workflow_completes "$work/local-c4" connect4 "--size 5x4" "$bin" "${local_profile[@]}"
same_bytes "$work/plain-c4" "$work/local-c4/tables" "snakemake --cores 2, connect4 5x4"
verified "$work/local-c4/tables" connect4 --size 5x4

plain "$work/plain-morris4" morris --stones 4
start_with_a_stopped_job "$work/local-morris" morris "--stones 4" 4-4 morris-4-4.tbl "${local_profile[@]}"
kill -9 "$stopped"
expect_failed_workflow "snakemake succeeded although job 4-4 was killed"
say "snakemake --cores 2, morris 4: job 4-4 killed half-way, the workflow failed as it should"
workflow_completes "$work/local-morris" morris "--stones 4" "$bin" "${local_profile[@]}"
same_bytes "$work/plain-morris4" "$work/local-morris/tables" "snakemake --cores 2, morris 4, run again after the kill"
verified "$work/local-morris/tables" morris --stones 4

# 2. On a real one-node Slurm cluster.
if [ "$(id -u)" != 0 ]; then
    skip "the Slurm part needs root, to start munged, MariaDB and the Slurm daemons"
    exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmdbd >/dev/null || ! command -v mariadbd >/dev/null \
    || ! command -v munged >/dev/null; then
    say "installing slurm-wlm, slurmdbd, munge and mariadb-server"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        slurm-wlm slurmdbd munge mariadb-server; } >"$work/apt.log" 2>&1; then
        skip "the Slurm part: Debian's Slurm packages cannot be installed ($(tail -1 "$work/apt.log"))"
        exit 0
    fi
fi
slurm_state=$work/slurm
status=0
bash tests/workflow/slurm_cluster.sh start "$slurm_state" >"$work/slurm.env" 2>"$work/slurm.log" || status=$?
if [ $status = 3 ]; then
    slurm_state=
    skip "the Slurm part: $(tail -1 "$work/slurm.log")"
    exit 0
fi
[ $status = 0 ] || { cat "$work/slurm.log" >&2; fail "the one-node Slurm cluster did not start"; }
account=$(sed -n 's/^SLURM_ACCOUNT=//p' "$work/slurm.env")
partition=$(sed -n 's/^SLURM_PARTITION=//p' "$work/slurm.env")
slurm_profile=(--profile "$root/workflow/profiles/slurm" --quiet all
    --default-resources "slurm_partition=$partition" "slurm_account=$account"
    --slurm-init-seconds-before-status-checks 1 --seconds-between-status-checks 2 --latency-wait 5
    --slurm-status-command squeue)

plain "$work/plain-morris3" morris --stones 3
start_with_a_stopped_job "$work/slurm-morris" morris "--stones 3" 3-3 morris-3-3.tbl "${slurm_profile[@]}"
job=$(squeue -h -o "%A %k" | awk '$2 == "rule_job_3_3" { print $1 }')
[ -n "$job" ] || fail "no Slurm job for rule job_3_3 in squeue"
scancel "$job"
expect_failed_workflow "snakemake succeeded although Slurm job $job (job 3-3) was cancelled"
state=$(sacct -n -X -P -j "$job" -o State | head -1)
say "snakemake on Slurm, morris 3: job 3-3 (Slurm job $job) cancelled half-way, $state; the workflow failed as it should"
workflow_completes "$work/slurm-morris" morris "--stones 3" "$bin" "${slurm_profile[@]}"
same_bytes "$work/plain-morris3" "$work/slurm-morris/tables" "snakemake on Slurm, morris 3, run again after scancel"
verified "$work/slurm-morris/tables" morris --stones 3
jobs=$(sacct -n -X -a -o State | grep -c COMPLETED || true)
say "Slurm ran $jobs jobs to completion"
