#!/usr/bin/env python3
"""The page of `tablebase serve`, used as a person would, in headless Chromium.

Generates small tables (Connect Four 5x4, the 3-stone Morris game), starts `serve` on a free
port, opens the page in Chromium (driven over the DevTools protocol through a pipe: no
packages beyond Python's own), plays moves by clicking the marks on the board and the rows of
the move list, steps through the best line, and after every step checks the value and the
moves the page shows against `tablebase probe --json`. Screenshots are kept in the artifact
directory.

usage: check_page.py TABLEBASE_BINARY ARTIFACT_DIR
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

BINARY, ARTIFACTS = sys.argv[1], sys.argv[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
checks = 0


def fail(message):
    print(f"browser test: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    global checks
    if not condition:
        fail(message)
    checks += 1


class Browser:
    """Chromium with --remote-debugging-pipe: commands on fd 3, answers on fd 4, NUL-separated."""

    def __init__(self, profile):
        os.makedirs(profile, exist_ok=True)
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def wire():
            # Through fresh numbers first: dup2 onto the same number would keep close-on-exec.
            read, write = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(read, 3)
            os.dup2(write, 4)

        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--remote-debugging-pipe", f"--user-data-dir={profile}",
             "--window-size=1280,1000", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            # Chromium puts its singleton socket under TMPDIR: inside the profile, it goes with it.
            env={**os.environ, "TMPDIR": profile},
            preexec_fn=wire, close_fds=False)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_browser, 1 << 16)
                if not chunk:
                    fail("chromium closed the pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    fail(f"{method}: {answer['error']}")
                return answer["result"]

    def open(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        self.send("Page.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.navigate", {"url": url})

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            fail(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_ready(self, previous_position=None):
        """Until the page has answered (and, after a move, shows another position)."""
        for _ in range(200):
            state = self.evaluate("""document.body && document.getElementById('position') && JSON.stringify({ready: document.body.dataset.ready,
                position: document.getElementById('position').value,
                error: document.getElementById('error').textContent})""")
            state = json.loads(state) if state else {}
            if state.get("ready") == "1" and state.get("position") != previous_position:
                if state["error"]:
                    fail(f"the page shows an error: {state['error']}")
                return state["position"]
            time.sleep(0.05)
        fail("the page did not answer within 10 s")

    def click(self, selector):
        """A real click: the mouse pressed and released at the middle of the element."""
        box = self.evaluate(f"""(() => {{
            const e = document.querySelector({json.dumps(selector)});
            if (!e) return null;
            e.scrollIntoView({{block: 'center'}});
            const r = e.getBoundingClientRect();
            return {{x: r.left + r.width / 2, y: r.top + r.height / 2}};
        }})()""")
        if box is None:
            fail(f"nothing to click at {selector}")
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": box["x"], "y": box["y"],
                                                   "button": "left", "clickCount": 1})

    def screenshot(self, path):
        import base64
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        self.process.kill()
        self.process.wait()


def tablebase(*args):
    result = subprocess.run([BINARY, *args], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"tablebase {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


def shown(browser):
    """The value and the moves the page shows."""
    return json.loads(browser.evaluate("""JSON.stringify({
        value: document.getElementById('value').dataset.value,
        plies: document.getElementById('value').dataset.plies,
        moves: [...document.querySelectorAll('#moves tr.move-row')].map(r =>
            [r.dataset.move, r.dataset.value, r.dataset.plies]),
        marks: [...document.querySelectorAll('#board g.move')].map(g => g.dataset.moves)})"""))


def agrees_with_probe(browser, game_args, position):
    probe = json.loads(tablebase("probe", *game_args, "--json", position))
    page = shown(browser)
    plies = "" if probe["plies"] is None else str(probe["plies"])
    check((page["value"], page["plies"]) == (probe["value"], plies),
          f"{position}: the page shows {page['value']} {page['plies']}, probe says {probe['value']} {plies}")
    expected = [[m["move"], m["value"], "" if m["plies"] is None else str(m["plies"])] for m in probe["moves"]]
    check(page["moves"] == expected, f"{position}: moves {page['moves']} against probe {expected}")
    marked = sorted(name for mark in page["marks"] for name in mark.split(" "))
    check(marked == sorted(m["move"] for m in probe["moves"]), f"{position}: one mark per legal move")
    return probe


def click_and_check(browser, selector, game_args, position):
    """Clicks `selector`, waits for the page to show another position, checks what it shows
    against probe, and returns the new position."""
    browser.click(selector)
    position = browser.wait_ready(previous_position=position)
    agrees_with_probe(browser, game_args, position)
    return position


def main():
    if not CHROMIUM:
        fail("chromium is not installed (apt-get install chromium)")
    os.makedirs(ARTIFACTS, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="tablebase-browser-")
    tables = os.path.join(scratch, "tables")
    tablebase("generate", "connect4", "--size", "5x4", "--dir", tables)
    tablebase("generate", "morris", "--stones", "3", "--dir", tables)
    server = subprocess.Popen([BINARY, "serve", "--dir", tables, "--port", "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    address = server.stderr.readline().split("http://")[1].split("/")[0]
    empty = os.path.join(scratch, "empty")
    os.makedirs(empty)
    bare = subprocess.Popen([BINARY, "serve", "--dir", empty, "--port", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    bare_address = bare.stderr.readline().split("http://")[1].split("/")[0]
    browser = Browser(os.path.join(scratch, "profile"))
    try:
        # Without a game in the address the page opens on tables that are there: the 3-stone
        # Morris game, not the 9-stone one a newcomer has not generated.
        browser.open(f"http://{address}/")
        position = browser.wait_ready(previous_position=None)
        check(position == "W: B: w 3 3", f"the page opens on the tables present: {position!r}")
        check(browser.evaluate("document.getElementById('stones').value") == "3", "3 stones chosen")
        # With no tables at all, it says how to make some, and shows no error.
        browser.open(f"http://{bare_address}/")
        for _ in range(200):
            if browser.evaluate("document.body && document.body.dataset.ready") == "1":
                break
            time.sleep(0.05)
        shown_text = browser.evaluate("document.getElementById('error').textContent")
        check("tablebase generate morris --stones 3" in shown_text, f"a hint to generate: {shown_text!r}")
        check(browser.evaluate("document.getElementById('error').classList.contains('hint')"),
              "the hint is shown as a hint, not as an error")
        browser.screenshot(os.path.join(ARTIFACTS, "no-tables.png"))

        c4 = ["connect4", "--size", "5x4", "--dir", tables]
        browser.open(f"http://{address}/#game=connect4&size=5x4&position=")
        position = browser.wait_ready(previous_position=None)
        check(position == "", f"the empty board first, got {position!r}")
        agrees_with_probe(browser, c4, position)
        # Three moves by clicking the marks over the columns, one by clicking a row.
        for column in ["3", "3", "4"]:
            position = click_and_check(browser, f'#board g.move[data-moves="{column}"] circle', c4, position)
        check(position == "334", f"the clicks played 3, 3, 4: {position!r}")
        position = click_and_check(browser, '#moves tr.move-row[data-move="2"]', c4, position)
        check(position == "3342", f"the row click played 2: {position!r}")
        # The best line, one step forward: the position after its first move.
        line = json.loads(tablebase("probe", *c4, "--json", "--line", position))["line"]
        position = click_and_check(browser, "#next", c4, position)
        check(position == "3342" + line[0], f"one step along the best line: {position!r}")
        browser.screenshot(os.path.join(ARTIFACTS, "connect4-5x4.png"))

        morris = ["morris", "--stones", "3", "--dir", tables]
        # Choosing a game offers the settings whose tables are there: 3 stones.
        browser.evaluate("location.hash = ''; document.getElementById('game').value = 'morris';"
                         "document.getElementById('game').dispatchEvent(new Event('change'))")
        position = browser.wait_ready(previous_position=position)
        check(browser.evaluate("document.getElementById('stones').value") == "3",
              "the game's settings offer the tables present")
        check(position == "W: B: w 3 3", f"the 3-stone start: {position!r}")
        agrees_with_probe(browser, morris, position)
        for point in ["d7", "a7", "d6"]:
            position = click_and_check(browser, f'#board g.move[data-moves="{point}"] circle', morris, position)
        check(position == "W:d6,d7 B:a7 b 1 2", f"placements d7, a7, d6: {position!r}")
        position = click_and_check(browser, "#back", morris, position)
        check(position == "W:d7 B:a7 w 2 2", f"Back takes the last placement back: {position!r}")
        position = click_and_check(browser, "#reply", morris, position)
        browser.screenshot(os.path.join(ARTIFACTS, "morris-3.png"))

        # The cube games need no tables: late positions, solved by search with distances.
        qubic = ["qubic", "--dir", tables]
        late = ("b14a14c34c32c11c12d13b33a42b32a23d23c43d12c33a41d22c21a31c14a32b43b41b42"
                "b31c44a21b44d42d24b24c31a13a33c42d43b12d33d34c13d32a11a44d44d11a12b23d21c24b13")
        browser.open(f"http://{address}/#game=qubic&position={late}")
        position = browser.wait_ready(previous_position=None)
        check(position == late, f"the late Qubic position: {position!r}")
        best = agrees_with_probe(browser, qubic, position)["moves"][0]["move"]
        position = click_and_check(browser, f'#board g.move[data-moves="{best}"] circle', qubic, position)
        check(position == late + best, f"the click played {best}: {position!r}")
        browser.screenshot(os.path.join(ARTIFACTS, "qubic.png"))
        sogo = ["sogo", "--dir", tables]
        late = "b1d1a2c4a3b4b3a2d2a3c1b3c1d1a2a2d1c4d1c1a3a1a4b1c4d2c1d2a4a4b1d3d3b2d4d2a1d4a4d4d3a1a3d4b4d3c4b3b2b4"
        browser.open(f"http://{address}/#game=sogo&position={late}")
        position = browser.wait_ready(previous_position=None)
        best = agrees_with_probe(browser, sogo, position)["moves"][0]["move"]
        position = click_and_check(browser, f'#board g.move[data-moves="{best}"] circle', sogo, position)
        check(position == late + best, f"the click dropped a stone in {best}: {position!r}")
        browser.screenshot(os.path.join(ARTIFACTS, "sogo.png"))
    finally:
        browser.close()
        for process in (server, bare):
            process.kill()
            process.wait()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"browser test: all {checks} checks passed; screenshots in {ARTIFACTS}")


main()
