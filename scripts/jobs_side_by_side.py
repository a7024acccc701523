#!/usr/bin/env python3
"""Runs the job graph of `tablebase plan GAME FLAGS --json` with `generate --only`, up to N
jobs at a time, each as soon as the jobs it comes after have ended (what a scheduler such as
Snakemake or Slurm does), then checks that the files are byte for byte those of one plain
`generate` in another directory (docs/RELIABILITY.md, "jobs side by side").

    scripts/jobs_side_by_side.py TABLEBASE N RUNS GAME [FLAGS...]

Exit status 0 when every run gives the plain generate's bytes; it prints what differs."""
import json, os, subprocess, sys, tempfile, time


def run_graph(tablebase, n, game, flags, directory):
    plan = json.loads(subprocess.run([tablebase, "plan", game, *flags, "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    waiting = {job["id"]: set(job["after"]) for job in plan["jobs"]}
    running, done = {}, set()
    while waiting or running:
        ready = [j for j, after in waiting.items() if after <= done]
        while ready and len(running) < n:
            job = ready.pop(0)
            del waiting[job]
            running[job] = subprocess.Popen(
                [tablebase, "generate", game, *flags, "--only", job, "--dir", directory],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(0.01)
        for job, process in list(running.items()):
            if process.poll() is not None:
                if process.returncode != 0:
                    sys.exit(f"job {job}: exit {process.returncode}: {process.stderr.read().decode()}")
                del running[job]
                done.add(job)


def files(directory):
    return {name: open(os.path.join(directory, name), "rb").read()
            for name in sorted(os.listdir(directory)) if name.endswith((".tbl", ".set"))}


def main():
    tablebase, n, runs, game, flags = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5:]
    with tempfile.TemporaryDirectory() as scratch:
        plain = os.path.join(scratch, "plain")
        subprocess.run([tablebase, "generate", game, *flags, "--dir", plain], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        expected = files(plain)
        failed = 0
        for run in range(1, runs + 1):
            directory = os.path.join(scratch, f"run{run}")
            run_graph(tablebase, n, game, flags, directory)
            got = files(directory)
            differ = sorted(name for name in expected.keys() | got.keys() if expected.get(name) != got.get(name))
            print(f"run {run}: {len(got)} files, {'the bytes of a plain generate' if not differ else 'DIFFERENT: ' + ', '.join(differ)}")
            failed += bool(differ)
        sys.exit(1 if failed else 0)


main()
