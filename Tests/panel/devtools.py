"""A small Chrome DevTools Protocol client driving a headless Debian chromium, for the panel tests.

Nothing is downloaded: it runs /usr/bin/chromium with a throwaway profile and talks to the page
target over a WebSocket (python3-websocket). Every wait has a timeout, so a hung browser fails a
test instead of hanging it, and close() always kills chromium and removes its profile.
"""
import atexit
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

try:
    import websocket
except ImportError:
    # Debian's python3-websocket lives in the system's dist-packages, which a pyenv or venv python3
    # does not see; the module is pure Python, so that folder serves any Python 3.
    sys.path.append("/usr/lib/python3/dist-packages")
    import websocket


class DevToolsError(Exception):
    pass


class Browser:
    """One headless chromium with one page; methods are synchronous DevTools calls."""

    def __init__(self, chromium="chromium", timeout=15.0, args=()):
        self.timeout = timeout
        self.events = []          # DevTools events received while waiting for replies
        self.next_id = 0
        self.ws = None
        self.proc = None
        self.tmp = tempfile.mkdtemp(prefix="tapgrid-chromium-")
        self.log_path = os.path.join(self.tmp, "chromium.log")
        atexit.register(self.close)
        try:
            self._start(chromium, list(args))
        except BaseException:
            self.close()
            raise

    def _start(self, chromium, args):
        profile = os.path.join(self.tmp, "profile")
        command = [chromium, "--headless=new", "--no-sandbox", "--remote-debugging-port=0",
                   "--user-data-dir=" + profile, "--remote-allow-origins=*",
                   "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                   "--disable-extensions", "--disable-sync", "--disable-component-update",
                   "--disable-background-networking", "--disable-default-apps",
                   "--password-store=basic", "--use-mock-keychain", "--mute-audio",
                   # Timers and fetches of a page nobody looks at must not be throttled.
                   "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                   "--disable-backgrounding-occluded-windows",
                   "--window-size=800,600"] + args + ["about:blank"]
        # Chromium's scratch folders (org.chromium.Chromium.*) go under TMPDIR: inside this
        # browser's folder, so close() removes them with it instead of leaving them in /tmp.
        scratch = os.path.join(self.tmp, "tmp")
        os.makedirs(scratch, exist_ok=True)
        with open(self.log_path, "wb") as log:
            # Its own process group, so close() can kill the renderer and GPU helpers too.
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         start_new_session=True, env=dict(os.environ, TMPDIR=scratch))
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.monotonic() + self.timeout
        port = None
        while port is None:
            if self.proc.poll() is not None:
                raise DevToolsError(f"chromium exited with {self.proc.returncode}: {self.log_tail()}")
            if time.monotonic() > deadline:
                raise DevToolsError(f"no {port_file} after {self.timeout} s: {self.log_tail()}")
            try:
                with open(port_file) as f:
                    first = f.readline().strip()
                port = int(first) if first else None
            except (OSError, ValueError):
                pass
            if port is None:
                time.sleep(0.05)
        self.port = port
        target = None
        while target is None:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=self.timeout) as r:
                targets = json.load(r)
            target = next((t for t in targets if t.get("type") == "page"), None)
            if target is None:
                if time.monotonic() > deadline:
                    raise DevToolsError(f"no page target among {targets}")
                time.sleep(0.05)
        # Chromium 111+ refuses a WebSocket with an Origin it does not expect: send none.
        self.ws = websocket.create_connection(target["webSocketDebuggerUrl"], timeout=self.timeout,
                                              suppress_origin=True)
        self.send("Page.enable")
        self.send("Runtime.enable")

    def log_tail(self, lines=20):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    # ---- Protocol ------------------------------------------------------------------------------

    def _receive(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise DevToolsError("timed out waiting for chromium")
        self.ws.settimeout(left)
        try:
            return json.loads(self.ws.recv())
        except websocket.WebSocketTimeoutException:
            raise DevToolsError("timed out waiting for chromium") from None

    def send(self, method, timeout=None, **params):
        """Calls method and returns its result; events arriving meanwhile go to self.events."""
        self.next_id += 1
        call_id = self.next_id
        self.ws.send(json.dumps({"id": call_id, "method": method, "params": params}))
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            try:
                message = self._receive(deadline)
            except DevToolsError as e:
                raise DevToolsError(f"{method}: {e}") from None
            if message.get("id") == call_id:
                if "error" in message:
                    raise DevToolsError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_event(self, method, timeout=None):
        """The first event named method (already received or still to come); consumed."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, event in enumerate(self.events):
                if event["method"] == method:
                    return self.events.pop(i)
            message = self._receive(deadline)
            if "method" in message:
                self.events.append(message)

    # ---- Conveniences --------------------------------------------------------------------------

    def navigate(self, url, timeout=None):
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        result = self.send("Page.navigate", url=url)
        if result.get("errorText"):
            raise DevToolsError(f"navigate {url}: {result['errorText']}")
        self.wait_event("Page.loadEventFired", timeout)

    def evaluate(self, expression, await_promise=False):
        """The expression's value (JSON-able values only)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=await_promise)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise DevToolsError(f"evaluate {expression[:80]!r}: {text}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=5.0, interval=0.05):
        """Polls expression until it is truthy; its value, or None at the timeout."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value or time.monotonic() > deadline:
                return value
            time.sleep(interval)

    def set_viewport(self, width, height, dpr=1):
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=dpr, mobile=False)

    def enable_touch(self, max_points=5):
        self.send("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=max_points)

    def touch(self, type, points=()):
        """type: touchStart, touchMove, touchEnd or touchCancel; points: (x, y) or (x, y, id),
        in CSS pixels (touchEnd takes the points still down)."""
        touch_points = [{"x": p[0], "y": p[1], "id": p[2] if len(p) > 2 else 0} for p in points]
        self.send("Input.dispatchTouchEvent", type=type, touchPoints=touch_points)

    def mouse(self, type, x, y, button="left", buttons=None, click_count=1):
        """type: mousePressed, mouseReleased or mouseMoved, at CSS pixels x, y."""
        if buttons is None:
            buttons = {"left": 1, "right": 2, "middle": 4}.get(button, 0) if type == "mousePressed" else 0
        self.send("Input.dispatchMouseEvent", type=type, x=x, y=y, button=button, buttons=buttons,
                  clickCount=click_count)

    def click(self, x, y, button="left"):
        self.mouse("mouseMoved", x, y, button="none")
        self.mouse("mousePressed", x, y, button=button)
        self.mouse("mouseReleased", x, y, button=button)

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", format="png")["data"]
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    # ---- Teardown ------------------------------------------------------------------------------

    def close(self):
        """Kills chromium (its whole process group) and removes its profile; safe to call twice."""
        if self.ws is not None:
            try:
                self.ws.close()
            except Exception:
                pass
            self.ws = None
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGTERM)
                    self.proc.wait(timeout=3)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    pass
            # Helpers (renderer, zygote) may outlive the browser process: SIGKILL the group always.
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
            self.proc = None
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
