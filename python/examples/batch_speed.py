"""probe_many against the command line's batch: 100,000 positions of the 3:3 class of Nine Men's
Morris (every 26th), answered by `probe --brief -` and `probe_many(moves=False)`, then by
`probe --json -` and `probe_many()`, alternating, three rounds; the medians. The tables:
`tablebase generate morris --stones 3 --dir DIR`.

    python python/examples/batch_speed.py --dir tables --cli target/release/tablebase
"""

import argparse
import itertools
import statistics
import subprocess
import tempfile
import time

import tablebase

POINTS = "a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7".split()


def positions():
    every = (
        f"W:{','.join(w)} B:{','.join(b)} w"
        for w in itertools.combinations(POINTS, 3)
        for b in itertools.combinations([p for p in POINTS if p not in w], 3)
    )
    return list(itertools.islice(every, 0, None, 26))[:100_000]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="tables")
    parser.add_argument("--cli", default="target/release/tablebase")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    batch = positions()
    tb = tablebase.open("morris", dir=args.dir, stones=3)
    tb.probe_many(batch[:1000], moves=False)  # the tables opened, as the command line's are at once
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as questions:
        questions.write("\n".join(batch) + "\n")
        questions.flush()

        def cli(flag):
            command = [args.cli, "probe", "morris", "--stones", "3", "--dir", args.dir, flag, "-"]
            with open(questions.name) as stdin, open("/dev/null", "w") as stdout:
                subprocess.run(command, stdin=stdin, stdout=stdout, check=True)

        runs = {
            "probe --brief -": lambda: cli("--brief"),
            "probe_many(moves=False)": lambda: tb.probe_many(batch, moves=False),
            "probe --json -": lambda: cli("--json"),
            "probe_many()": lambda: tb.probe_many(batch),
        }
        seconds = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, run in runs.items():
                start = time.perf_counter()
                answers = run()
                seconds[name].append(time.perf_counter() - start)
                del answers  # freed outside the next measurement
    for name, times in seconds.items():
        print(f"{name:<24} median {statistics.median(times):.3f} s  ({', '.join(f'{t:.3f}' for t in times)})")


if __name__ == "__main__":
    main()
