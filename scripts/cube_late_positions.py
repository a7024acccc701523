#!/usr/bin/env python3
"""Late positions of Qubic and Sogo (the 4x4x4 cube, four in a row on any of its 76 lines wins,
a full cube is a draw; in Sogo a stone drops to the lowest empty cell of its column), each with
its value and exact distance found by a plain memoised negamax over every way to fill the
cube's last cells, written from the rules alone (no code of the project). The positions come
from random games (seeded: the same rows each time) in which no side makes four in a row until
EMPTY cells are left, EMPTY drawn between the bounds given, each side blocking the other's four
where it can; a position whose side to move makes four at once is left out. Rows `moves<TAB>value<TAB>plies` as
`tablebase probe qubic|sogo --brief` prints them (`win\t5`, `loss\t4`, `draw\t-`).

    scripts/cube_late_positions.py qubic|sogo ROWS MIN_EMPTY MAX_EMPTY SEED > FILE
"""
import random
import sys

GAME = sys.argv[1]
ROWS, LOW, HIGH, SEED = (int(a) for a in sys.argv[2:6])
SOGO = GAME == "sogo"
assert GAME in ("qubic", "sogo")

# Cell (x, y, z) is number x + 4 y + 16 z; written column letter x, row digit y, height digit z.
CELLS = [(x, y, z) for z in range(4) for y in range(4) for x in range(4)]


def name(cell):
    x, y, z = CELLS[cell]
    return "abcd"[x] + str(y + 1) + ("" if SOGO else str(z + 1))


# The 76 lines: every direction (dx, dy, dz) up to sign, every start whose 4 steps stay inside.
LINES = set()
for dx in (-1, 0, 1):
    for dy in (-1, 0, 1):
        for dz in (-1, 0, 1):
            if (dx, dy, dz) == (0, 0, 0):
                continue
            for x, y, z in CELLS:
                line = [(x + k * dx, y + k * dy, z + k * dz) for k in range(4)]
                if all(0 <= c < 4 for p in line for c in p):
                    LINES.add(tuple(sorted(a + 4 * b + 16 * c for a, b, c in line)))
LINES = sorted(LINES)
assert len(LINES) == 76
THROUGH = [[line for line in LINES if cell in line] for cell in range(64)]


def four(stones, cell):
    """Whether the stone just put on `cell` makes four in a row with `stones` (a bit set)."""
    return any(all(stones >> c & 1 for c in line) for line in THROUGH[cell])


def moves(taken):
    if SOGO:
        # The lowest empty cell of each column.
        result = []
        for column in range(16):
            for z in range(4):
                if not taken >> (column + 16 * z) & 1:
                    result.append(column + 16 * z)
                    break
        return result
    return [c for c in range(64) if not taken >> c & 1]


memo = {}


def solve(mover, other):
    """('win', n) / ('loss', n) / ('draw',) for the side to move, whose stones are `mover`."""
    key = (mover, other)
    if key in memo:
        return memo[key]
    taken = mover | other
    if taken == (1 << 64) - 1:
        return ("draw",)
    best = None
    for cell in moves(taken):
        placed = mover | 1 << cell
        if four(placed, cell):
            best = ("win", 1)
            break
        child = solve(other, placed)
        if child[0] == "loss":
            mine = ("win", child[1] + 1)
        elif child[0] == "win":
            mine = ("loss", child[1] + 1)
        else:
            mine = ("draw",)
        if best is None or rank(mine) > rank(best):
            best = mine
    memo[key] = best
    return best


def rank(value):
    # The winner hurries, the loser delays.
    if value[0] == "win":
        return (2, -value[1])
    if value[0] == "draw":
        return (1, 0)
    return (0, value[1])


rng = random.Random(SEED)
print(f"# {GAME}: {ROWS} positions of random games without four in a row, {LOW} to {HIGH} cells empty, with the value and")
print(f"# plies by the memoised negamax of scripts/cube_late_positions.py (no code of the crate): {' '.join(sys.argv[1:])}")
written = set()
while len(written) < ROWS:
    empty = rng.randint(LOW, HIGH)
    stones, played = [0, 0], []
    while 64 - len(played) > empty:
        side = len(played) % 2
        legal = moves(stones[0] | stones[1])
        quiet = [c for c in legal if not four(stones[side] | 1 << c, c)]
        # A side blocks the other's four where it can, so that the game is not decided at once.
        blocks = [c for c in quiet if four(stones[1 - side] | 1 << c, c)]
        if not quiet:
            break
        cell = rng.choice(blocks or quiet)
        stones[side] |= 1 << cell
        played.append(cell)
    text = "".join(name(c) for c in played)
    side = len(played) % 2
    won_at_once = any(four(stones[side] | 1 << c, c) for c in moves(stones[0] | stones[1]))
    if 64 - len(played) != empty or text in written or won_at_once:
        continue
    written.add(text)
    memo.clear()
    value = solve(stones[side], stones[1 - side])
    print(f"{text}\t{value[0]}\t{value[1] if value[0] != 'draw' else '-'}", flush=True)
