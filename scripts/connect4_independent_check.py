#!/usr/bin/env python3
"""Every reachable Connect Four position of a small board, checked against the program from the
outside: its own rules and a plain memoised negamax (no code of the project), every position
asked of `tablebase probe connect4 --brief -` in one batch, each answer compared with the
value and exact distance found here. Exit 1 on any mismatch.

    scripts/connect4_independent_check.py W H DIR [BINARY]   # DIR from `tablebase generate connect4 --size WxH`

With `--rows N [SEED]` instead of DIR it asks nothing of the program: it writes N distinct
positions met in random games (seeded, so the same rows each time; the empty board first), each
with the value and distance found here, as rows `moves<TAB>value<TAB>plies` for the data-driven
test of outside truth (tests/outside_truth.rs):

    scripts/connect4_independent_check.py 5 4 --rows 3000 > tables/reference/outside-truth/connect4-5x4.tsv
"""
import sys, subprocess, random
W, H = int(sys.argv[1]), int(sys.argv[2])
ROWS = sys.argv[3] == "--rows"
DIR = None if ROWS else sys.argv[3]
B = sys.argv[4] if len(sys.argv) > 4 and not ROWS else "tablebase"
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
def brief(v):
    return "draw\t-" if v[0] == 'draw' else f"{v[0]}\t{v[1]}"
if ROWS:
    count = int(sys.argv[4])
    rng = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    rows = {"": None}
    while len(rows) < count:
        # A random game cut at a random ply (or where it makes four): every ply is met.
        cols, moves = [[] for _ in range(W)], ""
        for ply in range(rng.randrange(W * H + 1)):
            if ply > 0 and four(cols, (ply - 1) % 2): break
            c = rng.choice([c for c in range(W) if len(cols[c]) < H])
            cols[c].append(ply % 2); moves += str(c + 1)
        rows.setdefault(moves, None)
    print(f"# Connect Four {W}x{H}: {count} positions of random games, value and plies by the memoised negamax of")
    print(f"# scripts/connect4_independent_check.py (no code of the crate): {' '.join(sys.argv[1:])}")
    for moves in rows:
        cols = [[] for _ in range(W)]
        for i, m in enumerate(moves): cols[int(m) - 1].append(i % 2)
        print(f"{moves}\t{brief(solve(cols, len(moves)))}")
    sys.exit(0)
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
    exp = brief(v)
    if line != exp:
        bad += 1
        if bad < 10: print("MISMATCH", repr(moves), line, exp)
print("compared", len(items), "mismatches", bad)
sys.exit(1 if bad else 0)
