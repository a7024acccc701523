#!/usr/bin/env python3
"""What a job graph asks of a cluster, from `tablebase plan GAME ... --json` on standard input.

    tablebase plan lasker --stones 10 --threads 16 --json | python3 workflow/plan_summary.py

prints the number of jobs, the largest job's memory, the total disk, the critical path of the
graph in CPU time, and the wall time on 1, 4 and 16 nodes of 16 cores (and --memory GB each,
128 by default), by simulating a list scheduler over the plan's estimates: a job runs on one
node with its `threads` cores for cpu_seconds / threads seconds (perfect scaling within a job,
which makes these figures lower bounds), jobs on the longest remaining path first. docs/DISTRIBUTED.md
gives the figures for the games this project plans.
"""

import argparse
import heapq
import json
import sys


def hours(seconds):
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


def gigabytes(n):
    return f"{n / 1e9:.1f} GB"


def simulate(jobs, order, tail, nodes, cores, memory):
    """Makespan of the graph on `nodes` nodes of `cores` cores and `memory` bytes each."""
    remaining = {j["id"]: len(set(j["after"])) for j in jobs}
    children = {j["id"]: [] for j in jobs}
    for j in jobs:
        for a in set(j["after"]):
            children[a].append(j["id"])
    by_id = {j["id"]: j for j in jobs}
    ready = [(-tail[i], order[i], i) for i, n in remaining.items() if n == 0]
    heapq.heapify(ready)
    free = [[cores, memory] for _ in range(nodes)]
    running = []  # (end, id, node)
    now = 0.0
    done = 0
    while done < len(jobs):
        waiting = []
        while ready:
            item = heapq.heappop(ready)
            job = by_id[item[2]]
            threads = min(job["threads"], cores)
            need = job["memory_bytes"]
            node = next((n for n, (c, m) in enumerate(free) if c >= threads and m >= need), None)
            if node is None:
                waiting.append(item)
                continue
            free[node][0] -= threads
            free[node][1] -= need
            wall = (job["cpu_seconds"] or 0) / threads
            heapq.heappush(running, (now + wall, item[2], node, threads, need))
        for item in waiting:
            heapq.heappush(ready, item)
        if not running:
            raise SystemExit("a job fits no node: " + ", ".join(by_id[i[2]]["id"] for i in ready))
        end, job_id, node, threads, need = heapq.heappop(running)
        now = end
        free[node][0] += threads
        free[node][1] += need
        done += 1
        for child in children[job_id]:
            remaining[child] -= 1
            if remaining[child] == 0:
                heapq.heappush(ready, (-tail[child], order[child], child))
    return now


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=16)
    parser.add_argument("--memory", type=float, default=128, help="GB per node")
    args = parser.parse_args()
    plan = json.load(sys.stdin)
    jobs = plan["jobs"]
    unknown = [j["id"] for j in jobs if j["cpu_seconds"] is None]
    order = {j["id"]: k for k, j in enumerate(jobs)}
    # The longest path from each job to the end, in CPU seconds and in wall seconds on its threads.
    tail, tail_cpu = {}, {}
    children = {j["id"]: [] for j in jobs}
    for j in jobs:
        for a in set(j["after"]):
            children[a].append(j["id"])
    for j in reversed(jobs):
        cpu = j["cpu_seconds"] or 0
        wall = cpu / min(j["threads"], args.cores)
        tail[j["id"]] = wall + max((tail[c] for c in children[j["id"]]), default=0)
        tail_cpu[j["id"]] = cpu + max((tail_cpu[c] for c in children[j["id"]]), default=0)
    total_cpu = sum(j["cpu_seconds"] or 0 for j in jobs)
    largest = max(jobs, key=lambda j: j["memory_bytes"])
    print(f"game: {plan['game']}")
    print(f"jobs: {len(jobs)}" + (f" ({len(unknown)} without a CPU estimate, counted as 0)" if unknown else ""))
    print(f"largest job's memory: {gigabytes(largest['memory_bytes'])} ({largest['id']})")
    print(f"total disk: {gigabytes(sum(j['disk_bytes'] for j in jobs))}")
    print(f"total CPU: {hours(total_cpu)}")
    print(f"critical path: {hours(max(tail_cpu.values()))} of CPU, {hours(max(tail.values()))} of wall time on {args.cores} cores")
    memory = args.memory * 1e9
    for nodes in (1, 4, 16):
        wall = simulate(jobs, order, tail, nodes, args.cores, memory)
        print(f"wall time on {nodes} node{'s' if nodes > 1 else ''} of {args.cores} cores: {hours(wall)}")


if __name__ == "__main__":
    main()
