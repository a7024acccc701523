#!/usr/bin/env python3
"""Checks Connect Four 7x6 book values against Pascal Pons's solver, an independent program.

    book_vs_pons.py C4SOLVER TABLEBASE DIR [--plies P ...] [--count N] [--seed S]

For each ply P, draws N random games of P moves (no game won on the way, so Pons's solver
accepts them), asks `c4solver` (the solver of github.com/PascalPons/connect4, built without
its opening book) for each position's score, and `tablebase probe connect4 --size 7x6 --dir DIR
--brief -` for its value and distance, and compares them after converting Pons's score: a
position scores (22 - k) for the side to move when it wins on its own k-th stone, minus that
when it loses to the opponent's k-th stone, 0 for a draw. Exits 1 on the first mismatch.
"""
import argparse
import random
import subprocess
import sys

WIDTH, HEIGHT = 7, 6


def won(cells, who):
    for c in range(WIDTH):
        for r in range(HEIGHT):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                if all(
                    0 <= c + i * dc < WIDTH
                    and 0 <= r + i * dr < HEIGHT
                    and cells.get((c + i * dc, r + i * dr)) == who
                    for i in range(4)
                ):
                    return True
    return False


def random_line(rng, plies):
    """A random game of `plies` moves in which nobody has won, or None if one ran into a win."""
    heights, cells, moves = [0] * WIDTH, {}, ""
    for ply in range(plies):
        open_columns = [c for c in range(WIDTH) if heights[c] < HEIGHT]
        c = rng.choice(open_columns)
        cells[(c, heights[c])] = ply % 2
        heights[c] += 1
        moves += str(c + 1)
        if won(cells, ply % 2):
            return None
    return moves


def expected(score, plies):
    """Pons's score of a position after `plies` moves, as tablebase's `value\tplies`."""
    mover_stones, other_stones = plies // 2, plies - plies // 2
    if score == 0:
        return "draw\t-"
    if score > 0:
        k = 22 - score  # the mover wins on its own k-th stone
        return f"win\t{2 * (k - mover_stones) - 1}"
    k = 22 + score  # the opponent wins on its own k-th stone
    return f"loss\t{2 * (k - other_stones)}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("c4solver")
    parser.add_argument("tablebase")
    parser.add_argument("dir")
    parser.add_argument("--plies", type=int, nargs="+", default=[8])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lines = []
    for plies in args.plies:
        drawn = set()
        while len(drawn) < args.count:
            line = random_line(rng, plies)
            if line is not None:
                drawn.add(line)
        lines += sorted(drawn)
    text = "".join(line + "\n" for line in lines)
    pons = subprocess.run(
        [args.c4solver], input=text, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    ours = subprocess.run(
        [args.tablebase, "probe", "connect4", "--size", "7x6", "--dir", args.dir, "--brief", "-"],
        input=text, capture_output=True, text=True, check=True,
    ).stdout.split("\n")
    # Each program answers a line per position and ends with a newline; fewer answers would
    # leave positions unchecked.
    for name, answers in (("c4solver", pons), ("tablebase", ours)):
        if len(answers) != len(lines) + 1:
            sys.exit(f"{name} answered {len(answers) - 1} lines for {len(lines)} positions")
    for line, theirs, mine in zip(lines, pons, ours):
        fields = theirs.split()
        if fields[0] != line:
            sys.exit(f"c4solver answered {theirs!r} for {line}")
        want = expected(int(fields[1]), len(line))
        if mine != want:
            sys.exit(f"{line}: tablebase says {mine!r}, Pons's score {fields[1]} means {want!r}")
    print(f"{len(lines)} positions (plies {args.plies}), every value and distance equal to Pons's")


if __name__ == "__main__":
    main()
