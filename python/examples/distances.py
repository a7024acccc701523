"""The distribution of distances to the end of one class of Nine Men's Morris with 3 stones a
side: every position of the class probed (by the batch path), counted by value and plies, and
drawn with matplotlib.

    tablebase generate morris --stones 3 --dir tables   # or tablebase.generate(...)
    python python/examples/distances.py --dir tables --out distances.png
"""

import argparse
import collections
import itertools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import tablebase

POINTS = "a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7".split()


def positions(white, black):
    """Every placement of `white` and `black` stones with both placed (the class W:white B:black
    of the moving phase), White to move, in the notation `probe` takes."""
    for w in itertools.combinations(POINTS, white):
        rest = [p for p in POINTS if p not in w]
        for b in itertools.combinations(rest, black):
            yield f"W:{','.join(w)} B:{','.join(b)} w"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="tables")
    parser.add_argument("--out", default="distances.png")
    args = parser.parse_args()
    tb = tablebase.open("morris", dir=args.dir, stones=3)
    answers = tb.probe_many(list(positions(3, 3)), moves=False)
    counts = collections.Counter((a["value"], a["plies"]) for a in answers)
    draws = counts.pop(("draw", None), 0)
    fig, ax = plt.subplots(figsize=(8, 4))
    for value, colour in (("win", "tab:green"), ("loss", "tab:red")):
        plies = sorted(p for v, p in counts if v == value)
        ax.bar(plies, [counts[(value, p)] for p in plies], color=colour, label=value)
    ax.set_xlabel("plies to the end with perfect play")
    ax.set_ylabel("positions")
    ax.set_title(f"Nine Men's Morris, 3 stones each, White to move: {len(answers)} positions, {draws} draws")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"{args.out}: {len(answers)} positions, {draws} drawn, {sum(counts.values())} won or lost")


if __name__ == "__main__":
    main()
