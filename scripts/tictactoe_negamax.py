#!/usr/bin/env python3
"""Every reachable tic-tac-toe position with its value and exact distance, by a plain memoised
negamax written from the rules alone (no code of the project): rows `moves<TAB>value<TAB>plies`
as `tablebase probe tictactoe --brief` prints them (`win\t3`, `loss\t0`, `draw\t-`), one row
per distinct position (the first move order found), in the order of a depth-first walk.

    scripts/tictactoe_negamax.py > tables/reference/outside-truth/tictactoe.tsv
"""
import sys

# Cells a1..c3: column letter from the left, row digit from the bottom.
CELLS = [c + r for r in "123" for c in "abc"]
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def three(board, player):
    return any(all(board[i] == player for i in line) for line in LINES)


memo = {}


def solve(board, ply):
    """('win', n) / ('loss', n) / ('draw',) for the side to move."""
    key = tuple(board)
    if key in memo:
        return memo[key]
    if ply > 0 and three(board, (ply - 1) % 2):
        result = ("loss", 0)
    elif ply == 9:
        result = ("draw",)
    else:
        best = None
        for cell in range(9):
            if board[cell] is None:
                board[cell] = ply % 2
                child = solve(board, ply + 1)
                board[cell] = None
                if child[0] == "loss":
                    mine = ("win", child[1] + 1)
                elif child[0] == "win":
                    mine = ("loss", child[1] + 1)
                else:
                    mine = ("draw",)
                if best is None or rank(mine) > rank(best):
                    best = mine
        result = best
    memo[key] = result
    return result


def rank(value):
    # The winner hurries, the loser delays.
    if value[0] == "win":
        return (2, -value[1])
    if value[0] == "draw":
        return (1, 0)
    return (0, value[1])


seen = {}


def walk(board, ply, moves):
    key = tuple(board)
    if key in seen:
        return
    seen[key] = moves
    if ply > 0 and three(board, (ply - 1) % 2):
        return
    for cell in range(9):
        if board[cell] is None:
            board[cell] = ply % 2
            walk(board, ply + 1, moves + CELLS[cell])
            board[cell] = None


walk([None] * 9, 0, "")
print("# Every reachable tic-tac-toe position (5,478, images apart): cells played, value, plies.")
print("# By scripts/tictactoe_negamax.py (a memoised negamax from the rules, no code of the crate).")
for key, moves in seen.items():
    value = solve(list(key), len(moves) // 2)
    distance = "-" if value[0] == "draw" else str(value[1])
    print(f"{moves}\t{value[0]}\t{distance}")
print("positions", len(seen), file=sys.stderr)
