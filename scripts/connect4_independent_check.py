#!/usr/bin/env python3
"""Every reachable Connect Four position of a small board, checked against the program from the
outside: its own rules and a plain memoised negamax (no code of the project), every position
asked of `tablebase probe connect4 --brief -` in one batch, each answer compared with the
value and exact distance found here. Exit 1 on any mismatch.

    scripts/connect4_independent_check.py W H DIR [BINARY]   # DIR from `tablebase generate connect4 --size WxH`
"""
import sys, subprocess, random
W, H = int(sys.argv[1]), int(sys.argv[2])
DIR = sys.argv[3]
B = sys.argv[4] if len(sys.argv) > 4 else "tablebase"
sys.setrecursionlimit(10000)
# Independent solver: boards as dict-free tuples of columns (lists of 0/1 players)
def four(cols, p):
    g = lambda c, r: cols[c][r] if 0 <= c < W and 0 <= r < len(cols[c]) else None
    for c in range(W):
        for r in range(len(cols[c])):
            if cols[c][r] != p: continue
            for dc, dr in ((1,0),(0,1),(1,1),(1,-1)):
                if all(g(c+k*dc, r+k*dr) == p for k in range(4)): return True
    return False
memo = {}
def solve(cols, ply):
    # value for side to move: ('win',n)/('loss',n)/('draw',)
    key = tuple(tuple(c) for c in cols)
    if key in memo: return memo[key]
    prev = (ply - 1) % 2
    if ply > 0 and four(cols, prev):
        res = ('loss', 0)
    elif ply == W * H:
        res = ('draw',)
    else:
        best = None
        for c in range(W):
            if len(cols[c]) < H:
                cols[c].append(ply % 2)
                v = solve(cols, ply + 1)
                cols[c].pop()
                # child value from child's mover -> ours
                if v[0] == 'loss': mine = ('win', v[1] + 1)
                elif v[0] == 'win': mine = ('loss', v[1] + 1)
                else: mine = ('draw',)
                best = mine if best is None else better(best, mine)
        res = best
    memo[key] = res
    return res
def rank(v):
    if v[0] == 'win': return (2, -v[1])
    if v[0] == 'draw': return (1, 0)
    return (0, v[1])
def better(a, b): return a if rank(a) >= rank(b) else b
# enumerate reachable positions (game stops at four) with one move string each
seen = {}
def walk(cols, ply, moves):
    key = tuple(tuple(c) for c in cols)
    if key in seen: return
    seen[key] = moves
    if ply > 0 and four(cols, (ply - 1) % 2): return
    for c in range(W):
        if len(cols[c]) < H:
            cols[c].append(ply % 2); walk(cols, ply + 1, moves + str(c + 1)); cols[c].pop()
walk([[] for _ in range(W)], 0, "")
items = list(seen.items())
print("positions", len(items), file=sys.stderr)
inp = "\n".join(m for _, m in items) + "\n"
out = subprocess.run([B, "probe", "connect4", "--size", f"{W}x{H}", "--dir", DIR, "--brief", "-"], input=inp, capture_output=True, text=True).stdout.splitlines()
assert len(out) == len(items), (len(out), len(items))
bad = 0
for (key, moves), line in zip(items, out):
    cols = [list(c) for c in key]
    v = solve(cols, len(moves))
    exp = "draw\t-" if v[0] == 'draw' else f"{v[0]}\t{v[1]}"
    if line != exp:
        bad += 1
        if bad < 10: print("MISMATCH", repr(moves), line, exp)
print("compared", len(items), "mismatches", bad)
sys.exit(1 if bad else 0)
