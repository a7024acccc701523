#!/usr/bin/env python3
"""Drawn Sogo positions, as early in the game as the prover can reach, for measuring what a
draw's two failed proofs cost (docs/BENCHMARKS.md, "Sogo's prover: drawn positions").

Sogo: the 4x4x4 cube, a stone drops to the lowest empty cell of its column (`a1`..`d4`), four
in a row on any of the 76 lines wins, White first. Draws are rare off the best line, so they are
found late and walked back:
1. random games (seeded) to ply START, each side taking a win in one where it has one (such a
   game is dropped), blocking a single threat of the other side and never playing beneath the
   other side's winning cell, otherwise at random; every such position is proved both ways by
   `tablebase bench sogo-prove --both --max-time SECONDS`, and the draws kept (both proofs fail:
   "does not win" twice);
2. from each drawn position two stones are lifted, the top stone of one column of each colour,
   and the rest put in an order of play (White and Black in turn, each column from the bottom:
   a depth-first search; a position with no such order is skipped); up to TRIES such positions
   two plies earlier are proved, and the draws kept, at most BEAM of them, until a ply has none.

Prints one line per position proved: `ply<TAB>moves<TAB>white<TAB>black<TAB>nodes`, where white
and black are the outcomes of the proofs that White, and Black, wins, and nodes their sum.

    scripts/sogo_drawn_positions.py BINARY START GAMES SECONDS TRIES BEAM SEED [TABLE_MB [FROM]]

With FROM, a file of drawn positions (moves, one a line), the walk starts from them instead of
from random games (START and GAMES are then unused).
"""
import random
import subprocess
import sys
import tempfile

BINARY = sys.argv[1]
START, GAMES = int(sys.argv[2]), int(sys.argv[3])
SECONDS = float(sys.argv[4])
TRIES, BEAM, SEED = (int(a) for a in sys.argv[5:8])
TABLE_MB = sys.argv[8] if len(sys.argv) > 8 else "1024"
FROM = sys.argv[9] if len(sys.argv) > 9 else None
COLUMNS = [x + 4 * y for y in range(4) for x in range(4)]


def column_name(column):
    return "abcd"[column % 4] + str(column // 4 + 1)


def lines():
    """The 76 lines as lists of cells x + 4 y + 16 z."""
    found = set()
    steps = [(dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1) if (dx, dy, dz) != (0, 0, 0)]
    for x in range(4):
        for y in range(4):
            for z in range(4):
                for dx, dy, dz in steps:
                    cells = [(x + k * dx, y + k * dy, z + k * dz) for k in range(4)]
                    if all(0 <= c < 4 for cell in cells for c in cell):
                        found.add(tuple(sorted(a + 4 * b + 16 * c for a, b, c in cells)))
    return [list(line) for line in found]


LINES = lines()
assert len(LINES) == 76
LINES_OF = [[line for line in LINES if cell in line] for cell in range(64)]


def stacks(moves):
    """Each column's stones from the bottom (0 White, 1 Black)."""
    stack = [[] for _ in range(16)]
    for ply, column in enumerate(moves):
        stack[column].append(ply % 2)
    return stack


def board(stack):
    cells = [None] * 64
    for column, stones in enumerate(stack):
        for level, colour in enumerate(stones):
            cells[column + 16 * level] = colour
    return cells


def winning_cells(cells, colour):
    """Empty cells that would complete a line of `colour`."""
    wins = set()
    for line in LINES:
        own = [c for c in line if cells[c] == colour]
        empty = [c for c in line if cells[c] is None]
        if len(own) == 3 and len(empty) == 1:
            wins.add(empty[0])
    return wins


def random_game(rng):
    """A sensible random game to ply START, or None where a side wins on the way."""
    stack = [[] for _ in range(16)]
    moves = []
    for ply in range(START):
        me = ply % 2
        cells = board(stack)
        playable = {column: column + 16 * len(stack[column]) for column in COLUMNS if len(stack[column]) < 4}
        if any(cell in winning_cells(cells, me) for cell in playable.values()):
            return None
        theirs = winning_cells(cells, 1 - me)
        blocks = [column for column, cell in playable.items() if cell in theirs]
        if len(blocks) > 1:
            return None
        safe = [column for column, cell in playable.items() if cell + 16 not in theirs]
        choice = blocks or safe or list(playable)
        column = rng.choice(choice)
        stack[column].append(me)
        moves.append(column)
    return moves


def order_of_play(stack, rng):
    """Moves that build `stack`, White and Black in turn, or None."""
    total = sum(len(s) for s in stack)
    failed = set()
    heights = [0] * 16
    moves = []

    def place():
        if len(moves) == total:
            return True
        state = tuple(heights)
        if state in failed:
            return False
        colour = len(moves) % 2
        columns = [c for c in COLUMNS if heights[c] < len(stack[c]) and stack[c][heights[c]] == colour]
        rng.shuffle(columns)
        for column in columns:
            heights[column] += 1
            moves.append(column)
            if place():
                return True
            moves.pop()
            heights[column] -= 1
        failed.add(state)
        return False

    return list(moves) if place() else None


def earlier(moves, rng):
    """Positions two plies before `moves`: a top stone of each colour lifted."""
    stack = stacks(moves)
    tops = [[c for c in COLUMNS if stack[c] and stack[c][-1] == colour] for colour in (0, 1)]
    found = []
    for white in tops[0]:
        for black in tops[1]:
            if white == black:
                continue
            lifted = [list(s) for s in stack]
            lifted[white].pop()
            lifted[black].pop()
            order = order_of_play(lifted, rng)
            if order is not None:
                found.append(order)
    rng.shuffle(found)
    return found


def prove(positions):
    """For each position in turn, as its proofs end: (White's outcome, Black's outcome, nodes)."""
    if not positions:
        return
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as listed:
        listed.write("".join("".join(column_name(c) for c in p) + "\n" for p in positions))
        listed.flush()
        command = [BINARY, "bench", "sogo-prove", "--both", "--max-time", str(SECONDS), "--table-mb", TABLE_MB,
                   "--file", listed.name]
        with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as run:
            run.stdout.readline()
            for position in positions:
                mover, other = (run.stdout.readline().split("\t") for _ in range(2))
                if len(other) < 4:
                    break
                white, black = (mover, other) if len(position) % 2 == 0 else (other, mover)
                yield white[2], black[2], int(mover[3]) + int(other[3])
        if run.returncode != 0:
            sys.exit(f"{BINARY} failed: exit {run.returncode}")


def report(positions):
    draws = []
    for position, (white, black, nodes) in zip(positions, prove(positions)):
        text = "".join(column_name(c) for c in position)
        print(f"{len(position)}\t{text}\t{white}\t{black}\t{nodes}", flush=True)
        if white == black == "does not win":
            draws.append(position)
    return draws


def column_of(name):
    return "abcd".index(name[0]) + 4 * (int(name[1]) - 1)


def main():
    rng = random.Random(SEED)
    if FROM is not None:
        # Going on from drawn positions found before (the moves, one a line).
        drawn = [[column_of(text[i:i + 2]) for i in range(0, len(text), 2)] for text in open(FROM).read().split()]
    else:
        games = []
        while len(games) < GAMES:
            game = random_game(rng)
            if game is not None:
                games.append(game)
        drawn = report(games)[:BEAM]
    while drawn and len(drawn[0]) >= 2:
        candidates = []
        for position in drawn:
            candidates.extend(earlier(position, rng)[: max(1, TRIES // len(drawn))])
        drawn = report(candidates[:TRIES])[:BEAM]


main()
