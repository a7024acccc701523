#!/usr/bin/env python3
"""Plays Black against `tablebase play qubic --side black`, a random empty cell at each prompt,
and prints each of White's moves with the seconds it took: how long the perfect player takes to
find a move that keeps White's win, and whether each is proved (docs/BENCHMARKS.md).

    scripts/play_qubic_as_black.py BINARY [SEED] [BLACK_SEED] [DIR]
"""
import random
import re
import subprocess
import sys
import time

binary = sys.argv[1]
seed = sys.argv[2] if len(sys.argv) > 2 else "1"
black = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
tables = sys.argv[4] if len(sys.argv) > 4 else "tables"
game = subprocess.Popen(
    [binary, "play", "qubic", "--side", "black", "--seed", seed, "--dir", tables],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
cells = [f"{c}{r}{h}" for c in "abcd" for r in "1234" for h in "1234"]
started = time.time()
while True:
    asked = time.time()
    said = ""
    while not said.endswith("your move: "):
        char = game.stdout.read(1)
        if not char:
            break
        said += char
    for line in said.splitlines():
        if line.startswith("White plays ") or line.startswith("The perfect player") or line.startswith("You "):
            print(f"{time.time() - asked:6.1f} s  {line}", flush=True)
    if not said.endswith("your move: "):
        break
    position = re.findall(r"position: (\S*)", said)[-1]
    taken = {position[i:i + 3] for i in range(0, len(position), 3)}
    game.stdin.write(black.choice([c for c in cells if c not in taken]) + "\n")
    game.stdin.flush()
print(f"{time.time() - started:.1f} s in all")
sys.exit(game.wait())
