#!/usr/bin/env python3
"""The browser panel in a real (headless, Debian) Chromium against a real tapgridd.

    python3 Tests/panel/test_browser.py [--daemon .build/debug/tapgridd] [unittest options]

Each class starts its own daemon (temp config, socket, event log, panel on a free loopback port)
and its own chromium, and always kills both. What the page did is read back from the DOM (what it
draws) and from the event log (what the daemon recognized). PANEL_SCREENSHOT=PATH keeps the
screenshot of the example's page there (docs/panel.png is made that way).
"""
import argparse
import atexit
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devtools import Browser  # noqa: E402

DAEMON = ".build/debug/tapgridd"
TITLE = 'Kitchen & "test" <panel>'   # the page must show it as text: the daemon escapes it
LONG_PRESS_MS = 400
DOUBLE_TAP_MS = 350

# Like examples/tapgrid.json: a title bar with a page button, a pad of six, and a footer with a
# toggle (lamp), a cell the tests set text on (volume), one routed "long" (menu) and one routed
# "double" (zoom); "settings" is a second page with a back button.
CONFIG = {
    "initialLayout": "home",
    "layouts": {
        "home": {
            "width": 800, "height": 480, "longPressMs": LONG_PRESS_MS, "doubleTapMs": DOUBLE_TAP_MS,
            "grid": {"rows": [
                {"size": 60, "padding": "{8,16,8,16}", "spacing": 8, "cols": [
                    {"name": "title", "size": "fill", "tag": 40},
                    {"name": "settings", "size": 120, "tag": 20, "action-data": "settings"}]},
                {"name": "pad", "size": "fill", "padding": "{8,16,8,16}",
                 "matrix": {"cols": 3, "count": 6, "margin": 12, "tag": 10}},
                {"size": 80, "padding": "{0,16,8,16}", "spacing": 8, "cols": [
                    {"name": "lamp", "size": "fill", "tag": 50, "toggle": True},
                    {"name": "volume", "size": "fill", "tag": 51},
                    {"name": "menu", "size": "fill", "tag": 30},
                    {"name": "zoom", "size": "fill", "tag": 31}]},
            ]},
        },
        "settings": {
            "width": 800, "height": 480,
            "grid": {"padding": "{16,16,16,16}", "spacing": 16, "rows": [
                {"size": 56, "cols": [{"name": "back", "size": 160, "tag": 21, "action-data": "home"},
                                      {"size": "fill"}]},
                {"name": "options", "size": "fill",
                 "matrix": {"cols": 3, "count": 9, "cell": [220, 80], "distribute": "evenly", "tag": 100,
                            "action-data": ["brightness", "volume", "network", "language", "about",
                                            "logs", "restart", "power", "help"]}}]},
        },
    },
    "handlers": {"pages": {"type": "layout"}, "audit": {"type": "log"}, "menu": {"type": "log"},
                 "zoom": {"type": "log"}},
    "routes": [
        {"tags": [20, 21], "handler": "pages"},
        {"tags": [30], "handler": "menu", "on": "long"},
        {"tags": [31], "handler": "zoom", "on": "double"},
        {"handler": "audit"},
    ],
    # The screen (docs/screen.md): its idle timers far off, so only ScreenTests darken it (by op).
    "screen": {"dimSeconds": 3000, "offSeconds": 3600},
}


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import free_port, read_records, socket_request, wait_until  # noqa: E402


class Daemon:
    """A tapgridd with the panel on 127.0.0.1:port; start() may be called again after stop()."""

    def __init__(self, binary, folder, port, base=None):
        self.binary, self.dir, self.port = binary, folder, port
        self.config_path = os.path.join(folder, "tapgrid.json")
        self.socket_path = os.path.join(folder, "s.sock")
        self.log_path = os.path.join(folder, "events.jsonl")
        self.stderr_path = os.path.join(folder, "stderr.txt")
        config = dict(base or CONFIG, socket={"path": self.socket_path}, eventLog={"path": self.log_path},
                      panel={"listen": f"127.0.0.1:{port}", "title": TITLE})
        with open(self.config_path, "w") as f:
            json.dump(config, f, indent=1)
        self.proc = None
        atexit.register(self.stop)   # even when the run is interrupted

    def start(self, timeout=10):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("TAPGRID_", "NOTIFY_SOCKET", "LISTEN_", "WATCHDOG_"))}
        env["XDG_STATE_HOME"] = self.dir
        with open(self.stderr_path, "ab") as err:
            self.proc = subprocess.Popen([self.binary, "--config", self.config_path], env=env,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=err, start_new_session=True)

        def ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"tapgridd exited with {self.proc.returncode}: {self.stderr()}")
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(self.socket_path)
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return True
            except OSError:
                return False
        if not wait_until(ready, timeout, 0.02):
            self.stop()
            raise AssertionError(f"tapgridd's socket or panel port {self.port} did not accept "
                                 f"within {timeout} s: {self.stderr()}")

    def stop(self, sig=signal.SIGTERM):
        """Signals the daemon and waits (SIGKILL after 5 s); its exit status, None if not running."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        status, self.proc = self.proc.returncode, None
        return status

    def stop_cleanly(self):
        """SIGTERM; fails unless the daemon, having served a browser, exits with 0."""
        status = self.stop()
        if status not in (0, None):
            raise AssertionError(f"tapgridd exited with {status} after SIGTERM: {self.stderr(12)}")

    def stderr(self, lines=30):
        """The end of what the daemon wrote (of a crash: up to its backtrace, not the registers)."""
        try:
            with open(self.stderr_path, errors="replace") as f:
                text = f.read()
        except OSError:
            return ""
        all_lines = text.split("\nRegisters:")[0].rstrip().split("\n")
        crash = next((i for i, line in enumerate(all_lines) if "Fatal error" in line or "crashed" in line), None)
        return "\n".join(all_lines[crash:crash + lines] if crash is not None else all_lines[-lines:])

    def request(self, obj, timeout=5):
        """One socket request, its reply."""
        return socket_request(self.socket_path, obj, timeout)

    def control(self, obj):
        reply = self.request(obj)
        if "error" in reply:
            raise AssertionError(f"{obj} -> {reply}")
        return reply

    def get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/{path}", timeout=5) as r:
            return json.load(r)

    def records(self):
        """The event log's records (a torn last line is left out)."""
        return read_records(self.log_path)


def is_tap(record):
    return "outcome" in record and "event" not in record


class PanelCase(unittest.TestCase):
    """A daemon and a chromium showing its panel at 800x480, for the tests of one class."""

    touch = False
    viewport = (800, 480, 1)
    config = None            # CONFIG unless a class has its own
    files = {}               # name -> text, written beside the config

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="tapgrid-panel-")
        cls.addClassCleanup(shutil.rmtree, cls.dir, True)
        atexit.register(shutil.rmtree, cls.dir, True)   # after the daemon's stop (atexit runs LIFO)
        for name, text in cls.files.items():
            os.makedirs(os.path.dirname(os.path.join(cls.dir, name)), exist_ok=True)
            with open(os.path.join(cls.dir, name), "w") as f:
                f.write(text)
        cls.daemon = Daemon(DAEMON, cls.dir, free_port(), cls.config)
        cls.addClassCleanup(cls.daemon.stop)          # runs last: kills it if stop_cleanly failed
        cls.addClassCleanup(cls.daemon.stop_cleanly)
        cls.daemon.start()
        cls.browser = Browser()
        cls.addClassCleanup(cls.browser.close)
        cls.browser.set_viewport(*cls.viewport)
        if cls.touch:
            cls.browser.enable_touch()
        cls.browser.navigate(f"http://127.0.0.1:{cls.daemon.port}/")
        if not cls.browser.wait_for("document.getElementById('panel')?.dataset.layout === 'home'", 5):
            raise AssertionError("the page did not show layout home within 5 s: "
                                 + str(cls.browser.evaluate("document.documentElement.outerHTML.slice(0, 500)")))

    # ---- The page ------------------------------------------------------------------------------

    def shown(self):
        """What the page draws: its layout, viewport and each [data-path] element."""
        return self.browser.evaluate("""(() => {
            const panel = document.getElementById("panel");
            const cells = {};
            for (const el of document.querySelectorAll("[data-path]")) {
              const r = el.getBoundingClientRect();
              cells[el.dataset.path] = {rect: [r.left, r.top, r.width, r.height],
                text: el.textContent, active: el.dataset.active, enabled: el.dataset.enabled};
            }
            return {layout: panel ? panel.dataset.layout : null, cells,
                    viewport: [innerWidth, innerHeight, devicePixelRatio],
                    badge: !document.getElementById("badge").hidden};
        })()""")

    def wait_shows(self, layout, timeout=1.0):
        """Waits until the page draws exactly /layout's cells of `layout`; fails saying what differs."""
        expected = None

        def check():
            nonlocal expected
            expected = self.daemon.get("layout")
            page = self.shown()
            return (expected["layout"] == layout and page["layout"] == layout
                    and set(page["cells"]) == {g["path"] for g in expected["grids"]})
        if not wait_until(check, timeout):
            page = self.shown()
            raise AssertionError(
                f"after {timeout} s the page shows layout {page['layout']!r} with cells "
                f"{sorted(page['cells'])}, want {layout!r} with /layout's "
                f"{sorted(g['path'] for g in expected['grids'])} (daemon's layout {expected['layout']!r})"
                f"{self.console()}")
        return expected

    def console(self):
        lines = []
        for e in self.browser.events:
            if e["method"] == "Runtime.consoleAPICalled":
                lines.append(" ".join(str(a.get("value", a.get("description", ""))) for a in e["params"]["args"]))
            elif e["method"] == "Runtime.exceptionThrown":
                lines.append(e["params"]["exceptionDetails"].get("text", "exception"))
        return ("; page console: " + " | ".join(lines[-10:])) if lines else ""

    def centre(self, layout, name_or_path):
        """CSS pixels of a cell's centre, from /layout's rect and the page's expected scaling."""
        grid = next((g for g in layout["grids"] if name_or_path in (g["name"], g["path"])), None)
        self.assertIsNotNone(grid, f"no grid {name_or_path!r} in /layout")
        (W, H, _), (x, y, w, h) = self.shown()["viewport"], grid["rect"]
        s = min(W / layout["width"], H / layout["height"])
        ox, oy = (W - layout["width"] * s) / 2, (H - layout["height"] * s) / 2
        return ox + (x + w / 2) * s, oy + (y + h / 2) * s, grid["path"]

    # ---- The event log ---------------------------------------------------------------------------

    def mark(self):
        return len(self.daemon.records())

    def wait_records(self, since, predicate, count=1, timeout=3.0):
        """The records after `since` matching predicate, once there are `count`; fails naming what came."""
        def matching():
            found = [r for r in self.daemon.records()[since:] if predicate(r)]
            return found[:count] if len(found) >= count else None
        found = wait_until(matching, timeout)
        if not found:
            came = self.daemon.records()[since:]
            raise AssertionError(f"within {timeout} s, {count} matching record(s) did not come; the log got "
                                 f"{len(came)} record(s): {json.dumps(came)[:1500]}{self.console()}")
        return found

    def settle(self, timeout=3.0):
        """Waits until every contact the page began has ended in the log, so that no record of an
        earlier test comes after the next one's mark."""
        def ended():
            touches = [r for r in self.daemon.records() if r.get("event") == "touch" and r.get("source") == "panel"]
            downs = sum(r.get("phase") == "down" for r in touches)
            return sum(r.get("phase") in ("up", "cancel") for r in touches) >= downs
        self.assertTrue(wait_until(ended, timeout), "contacts of an earlier test never ended")
        self.assertTrue(self.browser.wait_for("!document.querySelector('.pressed')", timeout))

    def tap_at(self, x, y, fingers=0):
        self.browser.touch("touchStart", [(x, y, fingers)])
        self.browser.touch("touchEnd", [])


class GeometryTests(PanelCase):
    """The page draws every hittable grid at its rect, however the window is sized."""

    VIEWPORTS = [(800, 480, 1), (1600, 960, 1), (1000, 1000, 1), (800, 480, 2), (480, 272, 1),
                 (1280, 400, 1)]

    def check_geometry(self, W, H, dpr):
        self.browser.set_viewport(W, H, dpr)
        layout = self.daemon.get("layout")
        s = min(W / layout["width"], H / layout["height"])
        ox, oy = (W - layout["width"] * s) / 2, (H - layout["height"] * s) / 2
        want = {g["path"]: [ox + g["rect"][0] * s, oy + g["rect"][1] * s, g["rect"][2] * s, g["rect"][3] * s]
                for g in layout["grids"]}

        def differences():
            page = self.shown()
            if page["viewport"] != [W, H, dpr]:
                return [f"viewport is {page['viewport']}, not yet {[W, H, dpr]}"]
            out = []
            if set(page["cells"]) != set(want):
                out.append(f"drawn paths {sorted(page['cells'])} != /layout's {sorted(want)}")
            for path, rect in want.items():
                got = page["cells"].get(path, {}).get("rect")
                if got and any(abs(a - b) > 0.5 for a, b in zip(got, rect)):
                    out.append(f"{path}: drawn at {[round(v, 2) for v in got]}, want {[round(v, 2) for v in rect]}")
            return out
        wait_until(lambda: not differences(), 2)   # the page re-fits on its resize event
        diff = differences()
        if diff:
            self.fail(f"layout {layout['layout']!r} in a {W}x{H} window at dpr {dpr} (scale {s:.4f}), "
                      f"{len(diff)} difference(s): " + "; ".join(diff[:6]) + ("; ..." if len(diff) > 6 else ""))

    def test_cells_at_their_rects(self):
        try:
            for W, H, dpr in self.VIEWPORTS:
                with self.subTest(viewport=(W, H, dpr)):
                    self.check_geometry(W, H, dpr)
            self.daemon.control({"op": "use", "layout": "settings"})
            self.wait_shows("settings")
            for W, H, dpr in [(800, 480, 1), (1000, 1000, 2)]:
                with self.subTest(layout="settings", viewport=(W, H, dpr)):
                    self.check_geometry(W, H, dpr)
        finally:
            self.daemon.control({"op": "use", "layout": "home"})
            self.wait_shows("home")
            self.check_geometry(800, 480, 1)

    def test_page_is_kiosk_safe(self):
        b = self.browser
        self.assertEqual(b.evaluate("document.title"), TITLE, "the configured title, HTML-escaped by the daemon")
        # The daemon embeds page.html at build time: a stale build serves an older page.
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../Sources/TapgridDaemon/Panel/page.html")
        if os.path.exists(source):
            with open(source) as f:
                want = f.read()
            with urllib.request.urlopen(f"http://127.0.0.1:{self.daemon.port}/", timeout=5) as r:
                served = r.read().decode()
            untitled = lambda page: re.sub(r"<title>.*?</title>", "<title></title>", page, count=1, flags=re.S)
            self.assertEqual(untitled(served), untitled(want),
                             f"GET / is not {os.path.normpath(source)} as it is now: rebuild tapgridd")
        viewport = b.evaluate("document.querySelector('meta[name=viewport]')?.content || ''")
        self.assertIn("user-scalable=no", viewport.replace(" ", ""))
        style = b.evaluate("""(() => { const p = getComputedStyle(document.getElementById("panel")),
            bs = getComputedStyle(document.body);
            return {touch: p.touchAction, select: bs.userSelect, overflow: bs.overflow,
                    callout: bs.webkitTouchCallout || "none",
                    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight,
                             innerWidth, innerHeight]}; })()""")
        self.assertEqual(style["touch"], "none", style)
        self.assertEqual(style["select"], "none", style)
        self.assertEqual(style["overflow"], "hidden", style)
        sw, sh, w, h = style["scroll"]
        self.assertTrue(sw <= w and sh <= h, f"the page scrolls: {style['scroll']}")
        prevented = b.evaluate("""(() => { const e = new MouseEvent("contextmenu", {bubbles: true, cancelable: true});
            document.querySelector("[data-path]").dispatchEvent(e); return e.defaultPrevented; })()""")
        self.assertTrue(prevented, "a contextmenu event is not prevented")
        # Nothing from outside: no script, style or image with a src/href, no external font.
        external = b.evaluate("""[...document.querySelectorAll("[src],link[href]")].map(e => e.outerHTML)""")
        self.assertEqual(external, [], "outside resources")

    def test_screenshot(self):
        """The state set shows in a screenshot of the page."""
        d = self.daemon
        d.control({"op": "set", "grid": "title", "text": "Kitchen"})
        d.control({"op": "set", "grid": "volume", "text": "Volume 42 %", "value": 42})
        d.control({"op": "set", "grid": "lamp", "text": "Lamp", "active": True})
        d.control({"op": "set", "grid": "zoom", "text": "Zoom (off)", "enabled": False})
        labels = ["Lights", "Blinds", "Music", "Radio", "Timer", "Scenes"]
        pad = [g["path"] for g in d.get("layout")["grids"] if g["path"].startswith("1/")]
        for path, label in zip(pad, labels):
            d.control({"op": "set", "grid": path, "text": label})
        d.control({"op": "set", "grid": pad[2], "active": True})
        try:
            self.browser.set_viewport(800, 480)
            ok = self.browser.wait_for("document.querySelector('[data-active=\"true\"]') && "
                                       "document.querySelector('[data-enabled=\"false\"]') && "
                                       "[...document.querySelectorAll('[data-path]')].some(e => e.textContent === 'Scenes')", 2)
            self.assertTrue(ok, f"the state set is not shown: {self.shown()}")
            time.sleep(0.3)  # let the 120 ms colour transitions finish
            path = os.path.join(self.dir, "panel.png")
            self.browser.screenshot(path)
            with open(path, "rb") as f:
                head = f.read(24)
            self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
            self.assertEqual(struct.unpack(">II", head[16:24]), (800, 480), f"{path}'s size")
            print(f"\n  screenshot: {path}", file=sys.stderr)
        finally:
            for grid in ["title", "volume", "lamp", "zoom"] + pad:
                d.control({"op": "set", "grid": grid, "text": None, "active": None, "value": None,
                           "enabled": None})


class InputTests(PanelCase):
    """Touches and clicks in the page are contacts the daemon classes like the socket's."""

    touch = True
    viewport = (1000, 800, 1.5)   # scale 1.25, centred 100 px down: layout units are not CSS pixels

    def setUp(self):
        self.layout = self.wait_shows("home")
        self.settle()
        # Which cells the page flashes (on the daemon's `tap` events).
        self.browser.evaluate("""window.flashed = []; window.flashWatch?.disconnect();
            window.flashWatch = new MutationObserver(changes => { for (const c of changes)
                if (c.target.classList.contains("flash")) flashed.push(c.target.dataset.path); });
            flashWatch.observe(document.getElementById("panel"), {subtree: true, attributeFilter: ["class"]});""")

    def test_touch_taps_each_cell(self):
        names = [g["path"] for g in self.layout["grids"] if g["path"].startswith("1/")][:4] + ["title", "volume"]
        for name in names:
            x, y, path = self.centre(self.layout, name)
            since = self.mark()
            self.tap_at(x, y)
            tap = self.wait_records(since, is_tap)[0]
            self.assertEqual((tap.get("hit"), tap.get("class"), tap.get("source")), (path, "tap", "panel"),
                             f"a touch at ({x:.1f}, {y:.1f}) on {name} ({path}) was recorded as {tap}")
            down = [r for r in self.daemon.records()[since:] if r.get("event") == "touch" and r.get("phase") == "down"]
            self.assertTrue(down and down[0].get("layout") == "home" and down[0].get("source") == "panel"
                            and "conn" in down[0], f"the down record: {down}")
            grid = next(g for g in self.layout["grids"] if g["path"] == path)
            cx, cy = grid["rect"][0] + grid["rect"][2] / 2, grid["rect"][1] + grid["rect"][3] / 2
            self.assertTrue(abs(down[0]["x"] - cx) <= 1 and abs(down[0]["y"] - cy) <= 1,
                            f"the down on {path} at layout ({down[0]['x']}, {down[0]['y']}), want its centre ({cx}, {cy})")
            self.assertTrue(self.browser.wait_for(f"flashed.includes({json.dumps(path)})", 1),
                            f"the page did not flash {path} on the daemon's tap event (flashed "
                            f"{self.browser.evaluate('flashed')}){self.console()}")

    def test_two_fingers_two_slots(self):
        p = [g["path"] for g in self.layout["grids"] if g["path"].startswith("1/")]
        (x0, y0, a), (x1, y1, b) = self.centre(self.layout, p[0]), self.centre(self.layout, p[4])
        since = self.mark()
        self.browser.touch("touchStart", [(x0, y0, 0), (x1, y1, 1)])
        self.browser.touch("touchEnd", [])
        taps = self.wait_records(since, is_tap, count=2)
        self.assertEqual(sorted(t.get("hit") for t in taps), sorted([a, b]), f"two fingers: {taps}")
        slots = sorted(r.get("slot") for r in self.daemon.records()[since:]
                       if r.get("event") == "touch" and r.get("phase") == "down")
        self.assertEqual(slots, [0, 1], "each finger its own slot")

    def test_long_press(self):
        x, y, path = self.centre(self.layout, "menu")
        since = self.mark()
        self.browser.touch("touchStart", [(x, y)])
        time.sleep((LONG_PRESS_MS + 300) / 1000)
        self.browser.touch("touchEnd", [])
        tap = self.wait_records(since, is_tap)[0]
        self.assertEqual((tap.get("hit"), tap.get("class"), tap.get("handler")), (path, "long", "menu"),
                         f"a {LONG_PRESS_MS + 300} ms press on menu: {tap}")
        time.sleep(0.2)
        self.assertEqual(len([r for r in self.daemon.records()[since:] if is_tap(r)]), 1,
                         "the release after a long press must fire nothing")

    def test_double_tap(self):
        x, y, path = self.centre(self.layout, "zoom")
        since = self.mark()
        self.tap_at(x, y)
        self.tap_at(x + 2, y)
        tap = self.wait_records(since, is_tap)[0]
        self.assertEqual((tap.get("hit"), tap.get("class"), tap.get("handler")), (path, "double", "zoom"),
                         f"two quick taps on zoom: {tap}")
        time.sleep(DOUBLE_TAP_MS / 1000 + 0.15)
        self.assertEqual(len([r for r in self.daemon.records()[since:] if is_tap(r)]), 1,
                         f"one double, nothing else: {[r for r in self.daemon.records()[since:] if is_tap(r)]}")

    def test_swipe_is_no_tap(self):
        x, y, _ = self.centre(self.layout, [g["path"] for g in self.layout["grids"] if g["path"].startswith("1/")][1])
        since = self.mark()
        self.browser.touch("touchStart", [(x, y)])
        for dx in (10, 20, 30, 40):
            self.browser.touch("touchMove", [(x + dx, y)])
        self.browser.touch("touchEnd", [])
        self.wait_records(since, lambda r: r.get("event") == "touch" and r.get("phase") in ("up", "cancel"))
        time.sleep(0.3)
        records = self.daemon.records()[since:]
        phases = [r["phase"] for r in records if r.get("event") == "touch" and r.get("source") == "panel"]
        self.assertEqual((phases[0], phases[-1]), ("down", "up"), f"touch records of the swipe: {phases}")
        self.assertIn("move", phases)
        self.assertEqual([r for r in records if is_tap(r)], [], "a swipe is not a tap")

    def test_mouse_click(self):
        x, y, path = self.centre(self.layout, [g["path"] for g in self.layout["grids"] if g["path"].startswith("1/")][5])
        since = self.mark()
        self.browser.click(x, y, "right")           # not the primary button: nothing
        self.browser.click(x, y)
        tap = self.wait_records(since, is_tap)[0]
        self.assertEqual((tap.get("hit"), tap.get("class"), tap.get("source")), (path, "tap", "panel"),
                         f"a left click on {path}: {tap}")
        time.sleep(0.2)
        taps = [r for r in self.daemon.records()[since:] if is_tap(r)]
        self.assertEqual(len(taps), 1, f"a right click must not tap: {taps}")

    def test_blur_cancels_contacts(self):
        x, y, path = self.centre(self.layout, [g["path"] for g in self.layout["grids"] if g["path"].startswith("1/")][3])
        since = self.mark()
        self.browser.touch("touchStart", [(x, y)])
        self.browser.evaluate("window.dispatchEvent(new Event('blur'))")   # the kiosk window lost focus
        cancel = self.wait_records(since, lambda r: r.get("event") == "touch" and r.get("phase") == "cancel")
        self.assertEqual(cancel[0].get("source"), "panel", f"the cancel record: {cancel}")
        self.assertFalse(self.browser.evaluate("!!document.querySelector('.pressed')"), "pressed after the blur")
        self.browser.touch("touchEnd", [])
        time.sleep(0.3)
        records = self.daemon.records()[since:]
        self.assertEqual([r for r in records if is_tap(r)], [], "a contact cancelled by a blur must not tap")
        self.assertNotIn("up", [r.get("phase") for r in records if r.get("event") == "touch"],
                         "the page sent an up for a contact it had cancelled")

    def test_pressed_at_once(self):
        x, y, path = self.centre(self.layout, "volume")
        self.browser.touch("touchStart", [(x, y)])
        try:
            pressed = self.browser.evaluate("[...document.querySelectorAll('.pressed')].map(e => e.dataset.path)")
            self.assertEqual(pressed, [path], "the touched cell shows pressed before any reply")
        finally:
            self.browser.touch("touchEnd", [])
        self.assertTrue(self.browser.wait_for("!document.querySelector('.pressed')", 1), "pressed stays after up")


class LiveTests(PanelCase):
    """What the daemon changes shows in the page within a second."""

    touch = True

    def setUp(self):
        self.daemon.control({"op": "use", "layout": "home"})
        self.layout = self.wait_shows("home")
        self.settle()

    def test_use_switches_the_page(self):
        self.daemon.control({"op": "use", "layout": "settings"})
        self.wait_shows("settings", 1.0)
        self.daemon.control({"op": "use", "layout": "home"})
        self.wait_shows("home", 1.0)

    def test_set_shows_text_and_state(self):
        b = self.browser
        path = self.daemon.control({"op": "set", "grid": "volume", "text": "42 %"})["grid"]
        cell = f"document.querySelector('[data-path=\"{path}\"]')"
        self.assertTrue(b.wait_for(f"{cell}.textContent === '42 %'", 1.0),
                        f"set text: the cell shows {b.evaluate(cell + '.textContent')!r}{self.console()}")
        self.daemon.control({"op": "set", "grid": "volume", "enabled": False, "active": True})
        self.assertTrue(b.wait_for(f"{cell}.dataset.enabled === 'false' && {cell}.dataset.active === 'true'", 1.0),
                        f"set enabled false, active true: {b.evaluate(cell + '.outerHTML')}")
        self.daemon.control({"op": "set", "grid": "volume", "text": None, "enabled": None, "active": None})
        self.assertTrue(b.wait_for(f"{cell}.textContent === 'volume' && {cell}.dataset.enabled === 'true' "
                                   f"&& {cell}.dataset.active === 'false'", 1.0),
                        f"cleared state: the name again: {b.evaluate(cell + '.outerHTML')}")

    def test_toggle_shows_active(self):
        x, y, path = self.centre(self.layout, "lamp")
        cell = f"document.querySelector('[data-path=\"{path}\"]').dataset.active"
        self.assertEqual(self.browser.evaluate(cell), "false")
        self.tap_at(x, y)
        self.assertTrue(self.browser.wait_for(f"{cell} === 'true'", 1.0), "a toggle tap: data-active not true")
        self.tap_at(x, y)
        self.assertTrue(self.browser.wait_for(f"{cell} === 'false'", 1.0), "a second toggle tap: not false again")

    def test_tap_flips_the_page(self):
        x, y, _ = self.centre(self.layout, "settings")
        self.tap_at(x, y)
        settings = self.wait_shows("settings", 1.0)
        x, y, _ = self.centre(settings, "back")
        self.tap_at(x, y)
        self.wait_shows("home", 1.0)


class ScreenTests(PanelCase):
    """The page shows the daemon's screen (dim darkens, off is black), and a touch on the dark
    page is sent as any contact: the daemon uses it up to wake the screen, records `wake` and no
    tap, and the next touch taps."""

    touch = True

    def setUp(self):
        self.daemon.control({"op": "screen", "state": "on"})
        self.layout = self.wait_shows("home")
        self.assertTrue(self.browser.wait_for("document.body.dataset.screen === 'on'", 1))
        self.settle()

    def screen_opacity(self):
        return float(self.browser.evaluate("getComputedStyle(document.getElementById('screen')).opacity"))

    def test_dim_and_off_show_in_the_page(self):
        for state, opacity in (("dim", 0.6), ("off", 1.0), ("on", 0.0)):
            started = time.monotonic()
            self.daemon.control({"op": "screen", "state": state})
            self.assertTrue(self.browser.wait_for(f"document.body.dataset.screen === {json.dumps(state)}", 1),
                            f"the page did not show the screen {state}{self.console()}")
            took = time.monotonic() - started
            self.assertLess(took, 0.5, f"the page showed {state} {took * 1000:.0f} ms after the op")
            self.assertAlmostEqual(self.screen_opacity(), opacity, places=2)
        self.assertEqual(self.daemon.get("layout").get("screen"), "on")

    def test_a_touch_on_the_dark_page_wakes_the_screen_and_taps_nothing(self):
        self.daemon.control({"op": "screen", "state": "off"})
        self.assertTrue(self.browser.wait_for("document.body.dataset.screen === 'off'", 1))
        self.assertEqual(self.daemon.get("layout").get("screen"), "off")
        x, y, path = self.centre(self.layout, "volume")
        since = self.mark()
        self.tap_at(x, y)
        wake = self.wait_records(since, lambda r: r.get("event") == "wake")[0]
        self.assertEqual(wake.get("source"), "panel")
        self.assertTrue(self.browser.wait_for("document.body.dataset.screen === 'on'", 1), "the page lit again")
        screen = self.wait_records(since, lambda r: r.get("event") == "screen")[0]
        self.assertEqual((screen.get("state"), screen.get("reason")), ("on", "touch"))
        time.sleep(0.3)
        came = self.daemon.records()[since:]
        self.assertFalse([r for r in came if is_tap(r) or r.get("event") == "touch"],
                         f"the waking touch tapped or was recorded as a contact: {came}")
        since = self.mark()
        self.tap_at(x, y)
        tap = self.wait_records(since, is_tap)[0]
        self.assertEqual((tap.get("hit"), tap.get("class")), (path, "tap"))


ICON_FONT = """<svg xmlns="http://www.w3.org/2000/svg"><defs><font id="t" horiz-adv-x="512">
<font-face units-per-em="512" ascent="448" descent="-64"/>
<glyph glyph-name="lightbulb" unicode="a" d="M256 448L64 0H448Z"/>
<glyph glyph-name="fan" unicode="b" d="M0 0H512V448H0Z"/>
</font></defs></svg>
"""

# What a cell shows (docs/panel.md): a default style, two named ones, an inline one, icons from
# the config's own SVG font; the plain cell shows the page's colours.
LOOK_CONFIG = {
    "initialLayout": "home",
    "iconFont": "icons.svg",
    "styles": {"default": {"color": "#f0f0f0"},
               "warm": {"background": "#aa5500", "color": "#ffffff", "radius": 8, "border": {"color": "#ffcc00", "thick": 3}},
               "cool": {"background": "#004488", "activeBackground": "#00aa44", "activeColor": "#000000"}},
    "layouts": {"home": {"width": 800, "height": 480, "grid": {"padding": "{16,16,16,16}", "spacing": 16,
        "top-borderline": {"color": "#8000ff00", "thick": 2, "offset": 4},
        "left-borderline": {"color": "blue", "thick": 3, "dash": 6, "head": 20}, "cols": [
        {"name": "lamp", "size": "fill", "tag": 1, "text": "Lamp", "icon": "mdi:lightbulb", "style": "warm",
         "bottom-borderline": {"color": "#ff0000", "thick": 4, "head": 10, "tail": 6}},
        {"name": "fan", "size": "fill", "tag": 2, "icon": "mdi:fan", "text": "", "style": "cool", "toggle": True},
        {"name": "plain", "size": "fill", "tag": 3},
        {"name": "mint", "size": "fill", "tag": 4, "style": {"background": "#113322", "fontSize": 30}}]}}},
    "handlers": {"audit": {"type": "log"}},
    "routes": [{"handler": "audit"}],
}


def css_colour(hex_colour):
    """#rrggbb as getComputedStyle gives it."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


class LookTests(PanelCase):
    """Each cell drawn from /layout's label, icon and style: its computed background and text
    colour, its icon as an SVG path inside its rect, and a set of icon and style within 1 s."""

    config = LOOK_CONFIG
    files = {"icons.svg": ICON_FONT}
    touch = True

    def setUp(self):
        self.daemon.control({"op": "set", "grid": "plain", "icon": None, "style": None, "active": None})
        self.daemon.control({"op": "set", "grid": "fan", "active": None})
        self.layout = self.wait_shows("home")

    def drawn(self):
        return self.browser.evaluate("""(() => {
            const out = {};
            for (const el of document.querySelectorAll("[data-path]")) {
              const cs = getComputedStyle(el), r = el.getBoundingClientRect();
              const path = el.querySelector("svg path"), box = path ? path.getBoundingClientRect() : null;
              out[el.dataset.path] = {background: cs.backgroundColor, color: cs.color, radius: cs.borderTopLeftRadius,
                fontSize: cs.fontSize, text: el.textContent, rect: [r.left, r.top, r.right, r.bottom],
                d: path ? path.getAttribute("d") : null, icon: box ? [box.left, box.top, box.right, box.bottom] : null};
            }
            return out;
        })()""")

    def expected_colours(self, grid):
        style, active = grid["style"], grid["active"] is True
        background = style.get("activeBackground" if active else "background")
        colour = style.get("activeColor" if active else "color")
        return (css_colour(background) if background else ("rgb(31, 111, 235)" if active else "rgb(42, 46, 55)"),
                css_colour(colour) if colour else ("rgb(255, 255, 255)" if active else "rgb(232, 234, 237)"))

    def check_cells(self, layout):
        drawn = self.drawn()
        for grid in layout["grids"]:
            cell = drawn[grid["path"]]
            self.assertEqual((cell["background"], cell["color"]), self.expected_colours(grid), grid["name"])
            if grid["icon"]:
                self.assertEqual(cell["d"], layout["icons"][grid["icon"]], grid["name"])
                left, top, right, bottom = cell["rect"]
                l, t, r, b = cell["icon"]
                self.assertTrue(left <= l < r <= right and top <= t < b <= bottom,
                                f"{grid['name']}: icon {cell['icon']} outside the cell {cell['rect']}")
            else:
                self.assertIsNone(cell["d"], grid["name"])
        return drawn

    def test_each_cell_shows_its_style_and_icon(self):
        layout = self.layout
        self.assertEqual(sorted(layout["icons"]), ["mdi:fan", "mdi:lightbulb"])
        drawn = self.check_cells(layout)
        lamp = next(g for g in layout["grids"] if g["name"] == "lamp")
        self.assertEqual(drawn[lamp["path"]]["radius"], "10px", "radius 8 at the fill's edge, inside the 2 px gap")
        mint = next(g for g in layout["grids"] if g["name"] == "mint")
        self.assertEqual(drawn[mint["path"]]["fontSize"], "30px")
        # Active: activeBackground and activeColor; without them the accent.
        self.daemon.control({"op": "set", "grid": "fan", "active": True})
        self.daemon.control({"op": "set", "grid": "plain", "active": True})
        self.assertTrue(wait_until(lambda: self.daemon.get("layout")["grids"][1]["active"] is True, 1))
        layout = self.daemon.get("layout")
        self.assertTrue(self.browser.wait_for("document.querySelectorAll('[data-active=\"true\"]').length === 2", 1))
        self.check_cells(layout)
        # Only the daemon's own URLs.
        urls = self.browser.evaluate("performance.getEntries().map(e => e.name)")
        self.assertEqual([u for u in urls if u.startswith("http") and not u.startswith(f"http://127.0.0.1:{self.daemon.port}/")], [])

    def test_pressed_and_disabled(self):
        """Pressed shows the page's pressed grey over a style's colour at once; a disabled cell
        keeps its style's colours at opacity 0.35."""
        x, y, path = self.centre(self.layout, "lamp")
        cell = f"getComputedStyle(document.querySelector('[data-path=\"{path}\"]'))"
        try:
            self.browser.touch("touchStart", [(x, y, 0)])
            self.assertTrue(self.browser.wait_for(f"{cell}.backgroundColor === 'rgb(75, 82, 99)'", 1.0),
                            f"pressed: {self.browser.evaluate(cell + '.backgroundColor')}")
        finally:
            self.browser.touch("touchEnd", [])
        self.assertTrue(self.browser.wait_for(f"{cell}.backgroundColor === 'rgb(170, 85, 0)'", 1.0))
        self.settle()
        self.daemon.control({"op": "set", "grid": "lamp", "enabled": False})
        try:
            self.assertTrue(self.browser.wait_for(f"{cell}.opacity === '0.35' && {cell}.backgroundColor === 'rgb(170, 85, 0)'", 1.0),
                            f"disabled: {self.browser.evaluate(cell + '.opacity')} {self.browser.evaluate(cell + '.backgroundColor')}")
        finally:
            self.daemon.control({"op": "set", "grid": "lamp", "enabled": None})

    def test_borderlines_where_the_svg_draws_them(self):
        """/layout's borderlines (BorderlineSegment's, the SVG's) drawn at their place within
        0.5 CSS px at two window sizes and DPR 2."""
        try:
            for W, H, dpr in [(800, 480, 1), (1000, 1000, 1), (800, 480, 2)]:
                with self.subTest(viewport=(W, H, dpr)):
                    self.browser.set_viewport(W, H, dpr)
                    layout = self.daemon.get("layout")
                    self.assertEqual(len(layout["borderlines"]), 3)
                    s = min(W / layout["width"], H / layout["height"])
                    ox, oy = (W - layout["width"] * s) / 2, (H - layout["height"] * s) / 2

                    def drawn():
                        return self.browser.evaluate("""(() => {
                            if (innerWidth !== %d || innerHeight !== %d) return null;
                            return Array.from(document.querySelectorAll("#lines > *"), e => {
                              const r = e.getBoundingClientRect();
                              return {tag: e.tagName, rect: [r.left, r.top, r.width, r.height], dash: e.getAttribute("stroke-dasharray")};
                            });
                        })()""" % (W, H))
                    self.assertTrue(wait_until(lambda: drawn() is not None, 2))
                    time.sleep(0.05)
                    got = drawn()
                    self.assertEqual(len(got), 3)
                    for line, page in zip(layout["borderlines"], got):
                        x, y, w, h = line["rect"]
                        if line["dash"] > 0:   # a stroke along the middle of the vertical box
                            want = [ox + (x + w / 2) * s, oy + y * s, 0, h * s]
                            self.assertEqual((page["tag"], page["dash"]), ("line", f"{line['dash']:g} {line['dash']:g}"))
                        else:
                            want = [ox + x * s, oy + y * s, w * s, h * s]
                            self.assertEqual(page["tag"], "rect")
                        self.assertTrue(all(abs(a - b) <= 0.5 for a, b in zip(page["rect"], want)),
                                        f"{line}: drawn at {page['rect']}, want {want}")
        finally:
            self.browser.set_viewport(*self.viewport)

    def test_a_set_of_icon_and_style_shows_within_a_second(self):
        path = next(g["path"] for g in self.layout["grids"] if g["name"] == "plain")
        started = time.monotonic()
        self.daemon.control({"op": "set", "grid": "plain", "icon": "mdi:fan", "style": "warm"})
        cell = f"document.querySelector('[data-path=\"{path}\"]')"
        shown = self.browser.wait_for(
            f"{cell}.querySelector('svg path')?.getAttribute('d') === 'M0 0H512V448H0Z' "
            f"&& getComputedStyle({cell}).backgroundColor === 'rgb(170, 85, 0)'", 1.0)
        took = time.monotonic() - started
        self.assertTrue(shown, f"after 1 s: {self.browser.evaluate(cell + '.outerHTML')}{self.console()}")
        self.assertLess(took, 1.0)
        self.check_cells(self.daemon.get("layout"))
        self.daemon.control({"op": "set", "grid": "plain", "icon": None, "style": None})
        self.assertTrue(self.browser.wait_for(f"!{cell}.querySelector('svg') "
                                              f"&& getComputedStyle({cell}).backgroundColor === 'rgb(42, 46, 55)'", 1.0))


SLIDER_CONFIG = {
    "initialLayout": "home",
    "layouts": {"home": {"width": 800, "height": 480, "grid": {"cols": [
        {"size": 560, "padding": "{40,40,40,40}", "rows": [
            {"name": "volume", "size": 120, "tag": 1, "slider": {"min": 0, "max": 100, "step": 1, "changeMs": 50}},
            {"size": "fill"}]},
        {"name": "blind", "size": "fill", "tag": 2, "slider": {"min": 0, "max": 10, "step": 0.5, "changeMs": 5000}}]}}},
    "handlers": {"level": {"type": "log"}},
    "routes": [{"tags": [1, 2], "handler": "level", "on": ["change", "release"]}],
}


class SliderTests(PanelCase):
    """A slider's fill (docs/touch.md "Sliders") follows the finger at once, the daemon records
    the same values, and a set of the value moves the fill within 1 s."""

    config = SLIDER_CONFIG
    touch = True
    viewport = (1000, 800, 1.5)   # scale 1.25, centred: layout units are not CSS pixels

    def setUp(self):
        self.layout = self.wait_shows("home")
        self.settle()

    def grid(self, name):
        return next(g for g in self.layout["grids"] if g["name"] == name)

    def to_css(self, x, y):
        W, H, _ = self.shown()["viewport"]
        s = min(W / self.layout["width"], H / self.layout["height"])
        return (W - self.layout["width"] * s) / 2 + x * s, (H - self.layout["height"] * s) / 2 + y * s, s

    def fill(self, name):
        """The fill's share of the cell's fill rect (the cell's rect less its 2-unit gap), as drawn."""
        return self.browser.evaluate("""(path => {
            const el = document.querySelector(`[data-path="${path}"]`), f = el && el.querySelector(".fill");
            if (!f) return null;
            const c = el.getBoundingClientRect(), r = f.getBoundingClientRect(), cs = getComputedStyle(el);
            const bx = parseFloat(cs.borderLeftWidth) * c.width / el.offsetWidth;
            const by = parseFloat(cs.borderTopWidth) * c.height / el.offsetHeight;
            const inner = {left: c.left + bx, right: c.right - bx, top: c.top + by, bottom: c.bottom - by};
            return {from: f.dataset.from, w: r.width / (inner.right - inner.left), h: r.height / (inner.bottom - inner.top),
                    left: r.left - inner.left, right: inner.right - r.right, bottom: inner.bottom - r.bottom,
                    colour: getComputedStyle(f).backgroundColor};
        })(%s)""" % json.dumps(self.grid(name)["path"]))

    def wait_fill(self, name, want, axis="w", timeout=0.5):
        """Waits until the fill covers `want` of the cell (within 1 %); fails saying what it covers."""
        if not wait_until(lambda: abs(self.fill(name)[axis] - want) < 0.011, timeout):
            raise AssertionError(f"after {timeout} s the fill of {name} is {self.fill(name)}, want {want}{self.console()}")
        return self.fill(name)

    def test_a_drag_moves_the_fill_with_the_finger_and_the_daemon_records_the_same_values(self):
        x, y, w, h = self.grid("volume")["rect"]
        since = self.mark()
        points = [x + w * f for f in (0.1, 0.3, 0.55, 0.8, 0.95)]
        cx, cy, _ = self.to_css(points[0], y + h / 2)
        self.browser.touch("touchStart", [(cx, cy)])
        try:
            for n, lx in enumerate(points):
                cx, cy, _ = self.to_css(lx, y + h / 2)
                if n:
                    self.browser.touch("touchMove", [(cx, cy)])
                fill = self.wait_fill("volume", round((lx - x) / w * 100) / 100)
                self.assertEqual((fill["from"], round(fill["left"], 2), round(fill["bottom"], 2)), ("left", 0, 0), fill)
                self.assertAlmostEqual(fill["h"], 1, delta=0.01)
                time.sleep(0.08)   # past changeMs: each move may give a change
        finally:
            self.browser.touch("touchEnd", [])
        release = self.wait_records(since, lambda r: is_tap(r) and r.get("class") == "release")[0]
        changes = [r for r in self.daemon.records()[since:] if is_tap(r) and r.get("class") == "change"]
        self.assertTrue(changes, "a drag gave no change")
        self.assertEqual(release["value"], round((points[-1] - x) / w * 100), f"the release: {release}")
        for r in changes + [release]:
            self.assertEqual(r["value"], round((r["x"] - x) / w * 100), f"a value not from its point: {r}")
            self.assertEqual((r.get("hit"), r.get("handler"), r.get("source")), (self.grid("volume")["path"], "level", "panel"))
        # After the daemon's state event the fill is its value, and stays there.
        self.wait_fill("volume", release["value"] / 100, timeout=1)
        time.sleep(0.2)
        self.wait_fill("volume", release["value"] / 100, timeout=0)
        self.assertEqual(self.fill("volume")["colour"], "rgb(31, 111, 235)")

    def test_a_vertical_slider_fills_from_the_bottom_and_follows_the_finger_alone(self):
        """blind's changeMs is 5 s: after the first change the daemon says nothing more until the
        release, so a fill that follows the next move is the page's own."""
        x, y, w, h = self.grid("blind")["rect"]
        since = self.mark()
        cx, cy, _ = self.to_css(x + w / 2, y + h * 0.9)
        self.browser.touch("touchStart", [(cx, cy)])
        try:
            cx, cy, _ = self.to_css(x + w / 2, y + h * 0.5)    # half way up: 5, the first change
            self.browser.touch("touchMove", [(cx, cy)])
            self.wait_fill("blind", 0.5, "h")
            self.wait_records(since, lambda r: is_tap(r) and r.get("class") == "change")
            cx, cy, _ = self.to_css(x + w / 2, y + h * 0.25)   # 75 % up: 7.5, no change for 5 s
            self.browser.touch("touchMove", [(cx, cy)])
            fill = self.wait_fill("blind", 0.75, "h")
            self.assertEqual(fill["from"], "bottom", fill)
            self.assertAlmostEqual(fill["bottom"], 0, delta=0.01, msg=str(fill))
            self.assertAlmostEqual(fill["w"], 1, delta=0.01, msg=str(fill))
            changes = [r for r in self.daemon.records()[since:] if is_tap(r) and r.get("class") == "change"]
            self.assertEqual([r["value"] for r in changes], [5], "the daemon sent another change within changeMs")
        finally:
            self.browser.touch("touchEnd", [])
        release = self.wait_records(since, lambda r: is_tap(r) and r.get("class") == "release")[0]
        self.assertEqual(release["value"], 7.5, f"the release: {release}")
        time.sleep(0.2)
        self.wait_fill("blind", 0.75, "h", timeout=0)

    def test_a_set_of_the_value_moves_the_fill_within_a_second(self):
        for value in (70, 20):
            self.daemon.control({"op": "set", "grid": "volume", "value": value})
            self.wait_fill("volume", value / 100, timeout=1)


def lenient_json(text):
    """The config syntax tapgrid reads (comments and trailing commas), as strict JSON."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        else:
            out.append(c)
            i += 1
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", "".join(out)))


EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples")


class ExampleTests(PanelCase):
    """`make run`'s page: examples/tapgrid.json as it is (its socket, log and panel address
    moved), every button labelled, some with icons and the styles' colours."""

    with open(os.path.join(EXAMPLES, "tapgrid.json")) as f:
        config = lenient_json(f.read())
    files = {}
    for name in os.listdir(os.path.join(EXAMPLES, "layouts")):
        with open(os.path.join(EXAMPLES, "layouts", name)) as f:
            files["layouts/" + name] = f.read()

    def test_every_button_has_a_label_and_some_icons_and_colours(self):
        """PANEL_SCREENSHOT=docs/panel.png makes the README's picture of it."""
        d = self.daemon
        layout = self.wait_shows("home")
        d.control({"op": "set", "grid": "volume", "value": 60})
        d.control({"op": "set", "grid": "date", "active": True})
        try:
            self.assertTrue(self.browser.wait_for("document.querySelector('.fill') && "
                                                  "parseFloat(document.querySelector('.fill').style.width) === 60", 2),
                            f"the volume slider's fill does not show 60{self.console()}")
            drawn = self.browser.evaluate("""[...document.querySelectorAll("[data-path]")].map(el => ({
                path: el.dataset.path, text: el.firstChild.textContent, icon: !!el.querySelector("svg path"),
                background: getComputedStyle(el).backgroundColor}))""")
            self.assertEqual(len(drawn), len(layout["grids"]))
            self.assertEqual([d["path"] for d in drawn if not d["text"]], [], "buttons without a label")
            self.assertGreaterEqual(sum(d["icon"] for d in drawn), 3, drawn)
            self.assertGreaterEqual(len({d["background"] for d in drawn}), 3, "the styles' colours: " + str(drawn))
            time.sleep(0.3)  # let the opacity transitions finish
            path = os.environ.get("PANEL_SCREENSHOT") or os.path.join(self.dir, "panel.png")
            self.browser.screenshot(path)
            with open(path, "rb") as f:
                head = f.read(24)
            self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
            print(f"\n  screenshot: {path}", file=sys.stderr)
        finally:
            d.control({"op": "set", "grid": "volume", "value": None})
            d.control({"op": "set", "grid": "date", "active": None})


class RestartTests(PanelCase):
    """The page survives the daemon: it reconnects and shows what the new daemon shows."""

    touch = True

    def test_comes_back_after_a_restart(self):
        self.daemon.control({"op": "use", "layout": "settings"})
        self.wait_shows("settings")
        self.daemon.stop(signal.SIGKILL)
        self.assertTrue(self.browser.wait_for("!document.getElementById('badge').hidden", 3),
                        "no reconnecting badge after the daemon died")
        time.sleep(0.5)
        started = time.monotonic()
        self.daemon.start()          # same port; it starts on initialLayout "home"
        layout = self.wait_shows("home", 5.0)
        self.assertTrue(self.browser.wait_for("document.getElementById('badge').hidden", 2),
                        "the badge stays after the reconnect")
        took = time.monotonic() - started
        x, y, path = self.centre(layout, [g["path"] for g in layout["grids"] if g["path"].startswith("1/")][0])
        since = self.mark()
        self.tap_at(x, y)
        tap = self.wait_records(since, is_tap)[0]
        self.assertEqual((tap.get("hit"), tap.get("source")), (path, "panel"), f"a tap after the restart: {tap}")
        print(f"\n  back {took:.2f} s after the restart", file=sys.stderr)


if __name__ == "__main__":
    # SIGTERM (a CI timeout) stops the run as Ctrl-C does (unittest would take a SystemExit for one
    # test's error and go on); atexit then kills the daemons and chromiums.
    def interrupted(*_):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupted)
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--daemon", default=DAEMON)
    args, rest = parser.parse_known_args()
    DAEMON = os.path.abspath(args.daemon)
    if not os.access(DAEMON, os.X_OK):
        sys.exit(f"no tapgridd at {DAEMON} (build it, or pass --daemon PATH)")
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
