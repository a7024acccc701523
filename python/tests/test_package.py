"""The package's answers against the command line's, on every game of the registry."""

import gc
import json
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys

import pytest

import tablebase
from conftest import SMALL, TABLES, flags


def walk(tb, count, seed):
    """Up to `count` distinct positions reached by random moves from the start (the start
    first), each game played on until it ends."""
    rng = random.Random(seed)
    seen, order = set(), []
    while len(order) < count:
        position = tb.start
        for _ in range(200):
            if position not in seen:
                seen.add(position)
                order.append(position)
            moves = tb.probe(position)["moves"]
            if not moves:
                break
            position = tb.after(position, rng.choice(moves)["move"])
        if len(seen) >= count or len(order) > 5 * count:
            break
    return order[:count]


def json_lines(text):
    return [json.loads(line) for line in text.splitlines()]


def test_games_are_the_command_lines_subcommands(cli):
    listed = cli("probe", "--help").stdout
    commands = listed.split("Commands:")[1].split("Options:")[0]
    keys = [line.split()[0] for line in commands.splitlines() if line.startswith("  ") and line.split()[0] != "help"]
    assert [g["key"] for g in tablebase.games()] == keys
    for game in tablebase.games():
        assert f"{game['name']}." in commands
        helped = cli("probe", game["key"], "--help").stdout
        for setting in game["settings"]:
            if "probe" in setting["commands"]:
                assert f"--{setting['name'].replace('_', '-')}" in helped


def test_generated_tables_equal_the_command_lines_byte_for_byte(cli, tables, tmp_path):
    for game in TABLES:
        cli("generate", game, "--dir", tmp_path, *flags(SMALL[game]))
    ours = sorted(p.name for p in tables.iterdir() if p.suffix in (".tbl", ".set"))
    theirs = sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".tbl", ".set"))
    assert ours == theirs and len(ours) > 0
    for name in ours:
        assert (tables / name).read_bytes() == (tmp_path / name).read_bytes(), name


@pytest.mark.parametrize("game", TABLES)
def test_probe_equals_probe_json(cli, tables, game):
    tb = tablebase.open(game, dir=str(tables), **SMALL[game])
    positions = walk(tb, 300, seed=65)
    assert len(positions) >= 30
    lines = json_lines(cli("probe", game, "--dir", tables, "--json", "-", *flags(SMALL[game]), stdin="\n".join(positions) + "\n").stdout)
    many = tb.probe_many(positions)
    assert many == lines
    # Keys in the command line's order too, and each move's name the string it prints.
    assert [[list(m) for m in [d, *d["moves"]]] for d in many] == [[list(m) for m in [d, *d["moves"]]] for d in lines]
    assert all(type(m["move"]) is str for d in many for m in d["moves"])
    # A batch of several pieces (their dicts made while the next piece is answered), in order;
    # the garbage collector paused while they are made, and left as it was found.
    assert gc.isenabled() and tb.probe_many(positions * 12) == lines * 12 and gc.isenabled()
    gc.disable()
    try:
        assert tb.probe_many(positions[:5]) == lines[:5] and not gc.isenabled()
    finally:
        gc.enable()
    assert [tb.probe(p) for p in positions[:20]] == lines[:20]
    # With the best line, position by position as arguments.
    few = positions[:8]
    with_line = json_lines(cli("probe", game, "--dir", tables, "--json", "--line", *flags(SMALL[game]), *few).stdout)
    assert [tb.probe(p, line=True) for p in few] == with_line
    assert tb.probe_many(few, line=True) == with_line


@pytest.mark.parametrize("game", TABLES)
def test_values_equal_probe_brief(cli, tables, game):
    tb = tablebase.open(game, dir=str(tables), **SMALL[game])
    positions = walk(tb, 300, seed=66)
    brief = cli("probe", game, "--dir", tables, "--brief", "-", *flags(SMALL[game]), stdin="\n".join(positions) + "\n").stdout
    values = tb.probe_many(positions, moves=False)
    assert [f"{v['value']}\t{'-' if v['plies'] is None else v['plies']}" for v in values] == brief.splitlines()
    full = tb.probe_many(positions)
    assert [v["position"] for v in values] == [f["position"] for f in full]


@pytest.mark.parametrize("game,position", [("qubic", "a11 a12 b11 b12 c11 c12"), ("sogo", "a1a1b1b1c1c1")])
def test_search_games_equal_probe_json(cli, tmp_path, game, position):
    # Two seconds: Sogo's moves other than the win are unknown after 30 s as after 2.
    tb = tablebase.open(game, dir=str(tmp_path), max_time=2)
    line = json.loads(cli("probe", game, "--dir", tmp_path, "--json", "--max-time", "2", position).stdout)
    assert tb.probe(position) == line
    assert line["value"] != "unknown"


def test_search_out_of_time_is_a_search_error(cli, tmp_path):
    won = "a11 d44 b22 c33 a44 d11"  # a proved win, whose proof takes longer than 0.05 s
    tb = tablebase.open("qubic", dir=str(tmp_path), max_time=0.05)
    with pytest.raises(tablebase.SearchError) as raised:
        tb.probe_many([won], moves=False)
    assert str(raised.value).startswith(f"position 0 ('{won}'): the search needs more than ")
    assert "allowed (max_time)" in str(raised.value)
    said = cli("probe", "qubic", "--dir", tmp_path, "--brief", "--max-time", "0.05", won, check=False)
    assert said.returncode == 1 and "allowed (--max-time)" in said.stderr
    # Probed with its moves, what the time did not settle is unknown, as in probe --json.
    assert tb.probe(won)["value"] == "unknown"


@pytest.mark.parametrize("game", TABLES)
def test_verify_equals_verify_json(cli, tables, game):
    reports = tablebase.verify(game, dir=str(tables), **SMALL[game])
    lines = json_lines(cli("verify", game, "--dir", tables, "--json", *flags(SMALL[game])).stdout)
    assert reports == lines
    assert len(reports) > 0
    assert all(r["status"] == "complete" and r["checksum"] == "ok" and r["consistent"] is True for r in reports)


def test_missing_table_names_the_file(cli, tmp_path):
    tb = tablebase.open("connect4", dir=str(tmp_path), size="4x4")
    with pytest.raises(tablebase.TableError) as raised:
        tb.probe("12")
    said = cli("probe", "connect4", "--size", "4x4", "--dir", tmp_path, "--json", "12", check=False)
    assert said.returncode == 1
    path = str(tmp_path / "connect4-4x4-ply02.set")
    assert str(raised.value).startswith(f"{path}: table not generated (run: tablebase.generate('connect4', dir=")
    assert said.stderr.startswith(f"tablebase: '12': {path}: table not generated")
    with pytest.raises(tablebase.TableError) as raised:
        tablebase.verify("connect4", dir=str(tmp_path), size="4x4")
    assert "connect4-4x4-ply00" in str(raised.value) and "not generated" in str(raised.value)
    assert raised.value.reports == json_lines(cli("verify", "connect4", "--size", "4x4", "--dir", tmp_path, "--json", check=False).stdout)


def test_damaged_table_names_the_file_and_the_cause(cli, tables, tmp_path):
    for name in os.listdir(tables):
        if name.startswith("connect4-4x4-"):
            shutil.copy(tables / name, tmp_path / name)
    damaged = tmp_path / "connect4-4x4-ply04.tbl"
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    with pytest.raises(tablebase.TableError) as raised:
        tablebase.verify("connect4", dir=str(tmp_path), size="4x4")
    said = cli("verify", "connect4", "--size", "4x4", "--dir", tmp_path, "--json", check=False)
    assert said.returncode == 3
    assert raised.value.reports == json_lines(said.stdout)
    assert str(damaged) in str(raised.value)
    first_problem = [line for line in said.stderr.splitlines() if line.startswith("tablebase: ")][0]
    first_problem = first_problem.removeprefix("tablebase: ")
    assert str(raised.value).startswith(first_problem)
    # A truncated table: probing raises, naming the file, as the command line says it.
    truncated = tmp_path / "connect4-4x4-ply02.tbl"
    truncated.write_bytes(truncated.read_bytes()[:40])
    tb = tablebase.open("connect4", dir=str(tmp_path), size="4x4")
    with pytest.raises(tablebase.TableError) as raised:
        tb.probe("12")
    said = cli("probe", "connect4", "--size", "4x4", "--dir", tmp_path, "12", check=False)
    assert said.returncode == 1 and str(truncated) in str(raised.value)
    assert said.stderr.strip() == f"tablebase: '12': {raised.value}"


def test_bad_input_is_a_value_error(cli, tables, tmp_path):
    tb = tablebase.open("connect4", dir=str(tables), size="4x4")
    with pytest.raises(ValueError) as raised:
        tb.probe("55")
    said = cli("probe", "connect4", "--size", "4x4", "--dir", tables, "55", check=False)
    assert said.returncode == 2 and said.stderr.strip() == f"tablebase: '55': {raised.value}"
    with pytest.raises(ValueError, match="position 1 \\('1111111'\\)"):
        tb.probe_many(["1", "1111111"])
    # Past the first piece of a batch, the first bad position still raises, by its place.
    with pytest.raises(ValueError, match="^position 2500 \\('1111111'\\)"):
        tb.probe_many(["1"] * 2500 + ["1111111", "55"] + ["1"] * 2000)
    # Quoted there as the command line quotes input: 60 characters at most, control characters
    # escaped, not a megabyte of message.
    with pytest.raises(ValueError) as raised:
        tb.probe_many(["1", "9" * 10**6])
    assert len(str(raised.value)) < 300 and f"('{'9' * 60}...')" in str(raised.value)
    with pytest.raises(ValueError) as raised:
        tb.probe_many(["1", "1\x1b[31m"])
    assert "\x1b" not in str(raised.value) and "\\u{1b}" in str(raised.value)
    # Or, asked for, the lines of `probe --json -`: the error in place, the batch going on.
    batch = ["1", "1111111", "", "x" * 100, "12"]
    lines = json_lines(cli("probe", "connect4", "--size", "4x4", "--dir", tables, "--json", "-", stdin="\n".join(batch) + "\n", check=False).stdout)
    assert tb.probe_many(batch, errors="dict") == lines
    assert [set(d) for d in lines[1:2] + lines[3:4]] == [{"position", "error"}] * 2
    assert tb.probe_many(batch, moves=False, errors="dict")[1] == lines[1]
    with pytest.raises(ValueError, match="'raise' or 'dict'"):
        tb.probe_many(batch, errors="ignore")
    with pytest.raises(ValueError, match="no game 'chess'"):
        tablebase.open("chess")
    with pytest.raises(ValueError, match="takes no setting 'stone'"):
        tablebase.open("morris", stone=3)
    with pytest.raises(ValueError, match="size: missing"):
        tablebase.open("connect4")
    with pytest.raises(ValueError, match="not a legal move"):
        tb.after("", "7")
    # Arguments and settings are named as Python spells them, not as Rust or the command line.
    with pytest.raises(TypeError, match="^move: expected str, not NoneType$"):
        tb.after("", None)
    with pytest.raises(ValueError, match="^move: not valid Unicode"):
        tb.after("", "\udcff")
    with pytest.raises(ValueError) as raised:
        tb.after("", "9" * 10**6 + "\x1b[31m")
    assert len(str(raised.value)) < 300 and "\x1b" not in str(raised.value)
    with pytest.raises(ValueError, match="^line=True needs moves=True"):
        tb.probe_many(["1"], moves=False, line=True)
    with pytest.raises(TypeError, match="^dir: expected str, bytes or os.PathLike, not int$"):
        tablebase.open("connect4", dir=123, size="4x4")
    with pytest.raises(ValueError, match="^up_to 5-5 and stones 3 contradict each other"):
        tablebase.generate("morris", dir=str(tables), stones=3, up_to="5-5")
    # A path as bytes or as a pathlib.Path is the same directory.
    as_bytes = tablebase.open("connect4", dir=os.fsencode(tables), size="4x4")
    as_path = tablebase.open("connect4", dir=pathlib.Path(tables), size="4x4")
    assert as_bytes.probe("12") == as_path.probe("12") == tb.probe("12")
    # A directory whose name is not UTF-8, as os.listdir gives it (surrogate escapes).
    odd = os.path.join(os.fsencode(tmp_path), b"odd-\xff")
    os.mkdir(odd)
    for name in os.listdir(tables):
        if name.startswith("connect4-4x4-"):
            shutil.copy(os.path.join(tables, name), os.fsdecode(odd))
    escaped = tablebase.open("connect4", dir=os.fsdecode(odd), size="4x4")
    assert escaped.probe("12") == tb.probe("12")


# Run in a Python of its own: Ctrl-C is sent to that process (pytest's own handler stays out of
# it), one second after the call starts; the script prints how long the call took to raise.
INTERRUPTED = """
import os, signal, sys, threading, time, tablebase
call, directory = sys.argv[1], sys.argv[2]
# Python's own handler, even where this process was started with SIGINT ignored (a job put in
# the background by a shell, as CI may run it), which would leave Ctrl-C nothing to raise.
signal.signal(signal.SIGINT, signal.default_int_handler)
started = time.monotonic()
threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    if call == "probe":
        tablebase.open("qubic", dir=directory, max_time=600).probe("b11")
    elif call == "probe_many":
        tablebase.open("sogo", dir=directory, max_time=600).probe_many(["a1", "b1", "a1b1"], moves=False)
    elif call == "probe_many_moves":
        tablebase.open("sogo", dir=directory, max_time=600).probe_many(["a1", "b1", "a1b1"])
    elif call == "generate":
        tablebase.generate("morris", dir=directory, stones=5)
    elif call == "verify":
        tablebase.verify("morris", dir=directory, stones=5)
    print("returned")
except KeyboardInterrupt:
    print("interrupted after", round(time.monotonic() - started, 2))
"""


def interrupted(tmp_path, call, directory):
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED)
    done = subprocess.run([sys.executable, str(script), call, str(directory)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    words = done.stdout.split()
    assert words[:2] == ["interrupted", "after"], f"{call}: {done.stdout} {done.stderr}"
    return float(words[2])


@pytest.mark.parametrize("call", ["probe", "probe_many", "probe_many_moves"])
def test_ctrl_c_stops_a_search(tmp_path, call):
    # Searches of ten minutes (Qubic's weak first move, Sogo's first moves) end at once.
    assert interrupted(tmp_path, call, tmp_path) < 4


def test_ctrl_c_stops_generate_and_verify_and_the_next_generate_goes_on(cli, tmp_path):
    # Morris to 5 stones takes some 15 s of a 2-core machine; stopped after one, the files
    # finished stay, and the next call completes tables the command line finds sound.
    tables = tmp_path / "tables"
    assert interrupted(tmp_path, "generate", tables) < 4
    assert any(tables.iterdir())
    reports = tablebase.generate("morris", dir=str(tables), stones=5)
    assert any(r["skipped"] for r in reports) and not all(r["skipped"] for r in reports)
    assert interrupted(tmp_path, "verify", tables) < 4
    cli("verify", "morris", "--stones", "5", "--quick", "--dir", tables)


FORKED = """
import multiprocessing, sys, tablebase
directory = sys.argv[1]
tb = tablebase.open("tictactoe", dir=directory)
before = tb.probe_many(["", "b2"] * 5000, moves=False)  # the parent's threads are at work

def child(answers):
    answers.put(tb.probe_many(["", "b2"] * 5000, moves=False) == before)
    answers.put(len(tablebase.generate("connect4", dir=directory, size="4x4")))

forked = multiprocessing.get_context("fork")
answers = forked.Queue()
process = forked.Process(target=child, args=(answers,))
process.start()
print(answers.get(timeout=60), answers.get(timeout=60))
process.join()
"""


def test_a_forked_child_probes_and_generates(tmp_path):
    # multiprocessing's default start on Linux: the child has none of the parent's threads.
    tablebase.generate("tictactoe", dir=str(tmp_path))
    script = tmp_path / "forked.py"
    script.write_text(FORKED)
    done = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "34"]


CUT_UNDER_A_READ = """
import faulthandler, os, shutil, sys, tablebase, time
directory, whole = sys.argv[1], sys.argv[2]
table = os.path.join(directory, "morris-3-3.tbl")
# A handler of SIGBUS installed after the package's first open (as pytest's faulthandler may
# be) gives way to the package's at its next open, and gets the faults that are not a table's.
tablebase.open("morris", dir=directory, stones=3)
faulthandler.enable()
tb = tablebase.open("morris", dir=directory, stones=3)
positions = ["W:a1,d1,g1 B:a7,d7,g7 w", "W:a1,d1,g1 B:a7,d7,f6 w"]
before = [tb.probe(p) for p in positions], tb.probe_many(positions * 500)

def raised(call):
    try:
        call()
    except tablebase.TableError as e:
        return str(e)
    return "nothing raised"

# Cut to nothing (the next read raises SIGBUS), then within its last page (no signal), then
# written in place: each is an error that names the file, never an answer from what is there.
os.truncate(table, 0)
print(raised(lambda: tb.probe(positions[1])))
print(raised(lambda: tb.probe_many(positions, moves=False)))
shutil.copy(whole, table)
print(tb.probe_many(positions * 500) == before[1])
os.truncate(table, os.path.getsize(whole) - 100)
print(raised(lambda: tb.probe_many(positions * 500)))
shutil.copy(whole, table)
print([tb.probe(p) for p in positions] == before[0])
# Written in place, then a whole copy renamed over its name: the file read is the one written.
time.sleep(0.05)
with open(table, "r+b") as f:
    f.seek(200)
    f.write(bytes([f.read(1)[0] ^ 1]))
shutil.copy(whole, table + ".new")
os.rename(table + ".new", table)
print(raised(lambda: tb.probe(positions[0])))
print([tb.probe(p) for p in positions] == before[0])
"""

FAULT_OF_ITS_OWN = """
import mmap, os, sys, tablebase
tablebase.open("tictactoe", dir=sys.argv[1]).probe("")
# Named as a table is: what counts is whose map it is, not the file's name.
path = os.path.join(sys.argv[1], "mine.tbl")
with open(path, "wb") as f:
    f.write(bytes(8192))
with open(path, "rb") as f:
    mine = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
os.truncate(path, 0)
print("read", flush=True)
mine[5000]
print("not reached")
"""


def test_a_table_cut_short_under_a_read_raises_and_other_faults_stay_the_programs(tables, tmp_path):
    # Run apart: before, the interpreter ended with SIGBUS ("Bus error") at the first read.
    directory = tmp_path / "tables"
    directory.mkdir()
    for name in os.listdir(tables):
        if name.startswith("morris-"):
            shutil.copy(tables / name, directory / name)
    shutil.copy(tables / "morris-3-3.tbl", tmp_path / "whole.tbl")
    script = tmp_path / "cut.py"
    script.write_text(CUT_UNDER_A_READ)
    done = subprocess.run([sys.executable, str(script), str(directory), str(tmp_path / "whole.tbl")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    changed = f"{directory / 'morris-3-3.tbl'}: changed while it was read (cut short or written by another program)"
    lines = done.stdout.splitlines()
    assert lines[0].startswith(changed), lines
    assert lines[1].startswith("position 0") and "morris-3-3.tbl" in lines[1], lines
    assert lines[2] == "True", lines
    assert lines[3].startswith(changed), lines
    assert lines[4] == "True", lines
    assert lines[5].startswith(changed), lines
    assert lines[6] == "True", lines
    assert done.stderr == ""
    # A fault in a map of the program's own is left to it: the default action, as before.
    tablebase.generate("tictactoe", dir=str(tmp_path))
    script.write_text(FAULT_OF_ITS_OWN)
    done = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (-signal.SIGBUS, "read\n"), done.stderr
    # The same with faulthandler enabled between two opens: it says so once and the process
    # ends, the signal never passed to and fro between the two handlers.
    script.write_text(FAULT_OF_ITS_OWN.replace("import mmap,", "import faulthandler, mmap,").replace('.probe("")', '.probe(""); faulthandler.enable(); tablebase.open("tictactoe", dir=sys.argv[1]).probe("")', 1))
    done = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (-signal.SIGBUS, "read\n"), done.stderr
    assert done.stderr.count("Fatal Python error: Bus error") == 1, done.stderr
    script.write_text("import os, signal, tablebase\ntablebase.open('tictactoe')\nos.kill(os.getpid(), signal.SIGBUS)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGBUS, done.stderr


CUT_AND_PUT_BACK = """
import os, random, sys, threading, time, tablebase
directory = sys.argv[1]
table = os.path.join(directory, "tictactoe-ply5.tbl")
tb = tablebase.open("tictactoe", dir=directory)
rng, seen = random.Random(1), set()
for _ in range(400):
    p = tb.start
    while True:
        seen.add(p)
        moves = tb.probe(p)["moves"]
        if not moves:
            break
        p = tb.after(p, rng.choice(moves)["move"])
positions = sorted(seen)
before = tb.probe_many(positions, moves=False)
state, data = os.stat(table), open(table, "rb").read()
out = {}

def work():
    try:
        out["answers"] = tb.probe_many(positions * 1000, moves=False)
    except tablebase.TableError as e:
        out["error"] = str(e)

thread = threading.Thread(target=work)
thread.start()
time.sleep(0.3)
# Cut to nothing under the call (its reads fault and get zeros), then put back as it was, with
# its time of modification: the file looks as it did, and only the count of cuts tells.
os.truncate(table, 0)
time.sleep(0.3)
with open(table, "r+b") as f:
    f.write(data)
os.utime(table, ns=(state.st_atime_ns, state.st_mtime_ns))
thread.join()
print(out.get("error") or ("answered right" if out["answers"] == before * 1000 else "WRONG"))
print(tb.probe_many(positions, moves=False) == before)
"""


def test_a_table_cut_and_put_back_as_it_was_under_a_call_is_never_answered_from_zeros(tables, tmp_path):
    for name in os.listdir(tables):
        if name.startswith("tictactoe-"):
            shutil.copy(tables / name, tmp_path / name)
    script = tmp_path / "cut.py"
    script.write_text(CUT_AND_PUT_BACK)
    done = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # The call (some 3 s on a 2-core machine) read the zeros and raises; its dicts are dropped.
    assert lines[0] == "a table file was cut short (by another program) while this call read it; its tables are opened again for the next call", lines
    assert lines[1] == "True", lines
