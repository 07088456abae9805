#!/usr/bin/env python3
"""The browser panel's HTTP server against a real tapgridd, without a browser: every guard of the
contract ("Browser panel"), the token and its cookie, event streams (many at once, while socket
taps run), sessions whose stream closed, and a panel on a Unix socket. After each refusal the
daemon still serves the socket and the page.

    python3 Tests/panel/test_server.py [--daemon .build/debug/tapgridd] [--cli .build/debug/tapgrid]
"""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

DAEMON = ".build/debug/tapgridd"
CLI = ".build/debug/tapgrid"

LAYOUTS = {
    "home": {"width": 800, "height": 480, "grid": {"cols": [
        {"name": "a", "size": "50%", "tag": 1},
        {"name": "b", "size": "50%", "tag": 2, "toggle": True}]}},
    "other": {"width": 400, "height": 400, "grid": {"rows": [{"name": "c", "size": "fill", "tag": 3}]}},
}


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import free_port, read_records, socket_request, wait_until  # noqa: E402


class Daemon:
    """tapgridd on a temp config with a panel; SIGKILL if it does not stop."""

    def __init__(self, panel, folder=None, extra=None):
        self.folder = folder or tempfile.mkdtemp(prefix="tgpanel-")
        self.socket = os.path.join(self.folder, "s.sock")
        self.events = os.path.join(self.folder, "events.jsonl")
        config = {"socket": {"path": self.socket}, "eventLog": {"path": self.events}, "initialLayout": "home",
                  "layouts": LAYOUTS, "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}],
                  "panel": panel}
        config.update(extra or {})
        self.config = os.path.join(self.folder, "tapgrid.json")
        with open(self.config, "w") as f:
            json.dump(config, f)
        self.process = None

    def start(self):
        self.stderr = open(os.path.join(self.folder, "stderr"), "w")
        self.process = subprocess.Popen([DAEMON, "--config", self.config], stdout=self.stderr, stderr=self.stderr)
        if not wait_until(lambda: os.path.exists(self.socket) or self.process.poll() is not None, 10):
            raise AssertionError("tapgridd did not start: " + self.log())
        if self.process.poll() is not None:
            raise AssertionError("tapgridd exited: " + self.log())
        return self

    def log(self):
        try:
            with open(os.path.join(self.folder, "stderr")) as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process:
            self.stderr.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def request(self, obj, timeout=5):
        return socket_request(self.socket, obj, timeout)

    def records(self):
        return read_records(self.events)


def fetch(port, method, path, headers=None, body=None, host="127.0.0.1", timeout=5, unix=None):
    """One request with exactly these headers (Host included unless given): (status, headers, body)."""
    if unix:
        connection = http.client.HTTPConnection("localhost", timeout=timeout)
        sock = socket.socket(socket.AF_UNIX)
        sock.settimeout(timeout)
        sock.connect(unix)
        connection.sock = sock
    else:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = dict(headers or {})
    connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    if "Host" not in headers and host is not None:
        headers["Host"] = host if unix else "%s:%d" % (host, port)
    if body is not None:
        headers.setdefault("Content-Length", str(len(body)))
    for name, value in headers.items():
        connection.putheader(name, value)
    connection.endheaders(body)
    response = connection.getresponse()
    data = response.read()
    result = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    connection.close()
    return result


def post(port, path, obj, headers=None, **kwargs):
    all_headers = {"Content-Type": "application/json"}
    all_headers.update(headers or {})
    return fetch(port, "POST", path, all_headers, json.dumps(obj).encode(), **kwargs)


class Stream:
    """An event stream read on a thread: its events as (name, data) pairs."""

    def __init__(self, port, session=None, host="127.0.0.1", headers="", paused=False):
        self.sock = socket.socket()
        if paused:  # a reader that falls behind: a small window (set before connecting), nothing read until resume()
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", port))
        self.go = threading.Event()
        if not paused:
            self.go.set()
        self.sock.settimeout(None)  # a quiet stream is no error: events may be 15 s apart
        query = "?session=" + session if session else ""
        self.sock.sendall(("GET /events%s HTTP/1.1\r\nHost: %s:%d\r\n%s\r\n" % (query, host, port, headers)).encode())
        self.raw = b""
        self.events = []
        self.status = None
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def resume(self):
        self.go.set()

    def taps_accounted(self):
        """(seqs of the tap events, taps counted by skipped events)."""
        with self.lock:
            seqs = [data["seq"] for event, data in self.events if event == "tap"]
            skipped = sum(data["taps"] for event, data in self.events if event == "skipped")
        return seqs, skipped

    def _read(self):
        self.go.wait()
        wire = b""        # bytes as they came: headers, then chunked framing (if the answer has it)
        body = b""        # the stream's text, de-chunked
        headers_done = False
        chunked = False
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                wire += chunk
                with self.lock:
                    self.raw += chunk
                    if not headers_done:
                        if self.status is None and b"\r\n" in wire:
                            self.status = int(wire.split(b" ", 2)[1])
                        if b"\r\n\r\n" not in wire:
                            continue
                        head, wire = wire.split(b"\r\n\r\n", 1)
                        headers_done = True
                        chunked = b"chunked" in head.lower()
                    if not chunked:  # the stream's text as it comes, until the connection closes
                        body, wire = body + wire, b""
                    # Chunked framing: "<hex size>\r\n<data>\r\n", ending with size 0.
                    while b"\r\n" in wire:
                        size_line, rest = wire.split(b"\r\n", 1)
                        size = int(size_line.split(b";")[0], 16)
                        if len(rest) < size + 2:
                            break
                        body += rest[:size]
                        wire = rest[size + 2:]
                    # Events are "event: x\ndata: y\n\n" (comments start with ":").
                    while b"\n\n" in body:
                        block, body = body.split(b"\n\n", 1)
                        name, data = None, None
                        for line in block.split(b"\n"):
                            if line.startswith(b"event: "):
                                name = line[7:].decode()
                            elif line.startswith(b"data: "):
                                data = line[6:].decode()
                        if name:
                            self.events.append((name, json.loads(data)))
        except OSError:
            return

    def named(self, name):
        with self.lock:
            return [data for event, data in self.events if event == name]

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class GuardTests(unittest.TestCase):
    """Every refusal the contract lists, and the daemon still serving after them."""

    @classmethod
    def setUpClass(cls):
        cls.port = free_port()
        cls.daemon = Daemon({"listen": "127.0.0.1:%d" % cls.port, "hosts": ["kiosk.local"], "maxClients": 3}).start()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def tearDown(self):
        # After every refusal: the socket and the page still answer.
        self.assertEqual(self.daemon.request({"op": "hit", "x": 10, "y": 10})["outcome"], "checked")
        self.assertEqual(fetch(self.port, "GET", "/")[0], 200)

    def test_the_page_and_layout_are_served(self):
        status, headers, body = fetch(self.port, "GET", "/")
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("text/html"))
        self.assertIn(b'id="panel"', body)
        self.assertNotIn(b"{{title}}", body)
        self.assertNotIn(b"http://", body.replace(b"http://www.w3.org", b""), "the page loads nothing from outside")
        status, _, body = fetch(self.port, "GET", "/layout")
        layout = json.loads(body)
        self.assertEqual(status, 200)
        self.assertEqual((layout["layout"], layout["width"], layout["height"]), ("home", 800, 480))
        self.assertEqual([(g["path"], g["rect"]) for g in layout["grids"]], [("0", [0, 0, 400, 480]), ("1", [400, 0, 400, 480])])
        self.assertEqual(fetch(self.port, "HEAD", "/")[0], 200)

    def test_a_foreign_host_is_421(self):
        status, _, body = fetch(self.port, "GET", "/layout", {"Host": "evil.example:%d" % self.port})
        self.assertEqual(status, 421)
        self.assertIn("evil.example", json.loads(body)["error"]["message"])
        for host in ["localhost:%d" % self.port, "kiosk.local:%d" % self.port, "[::1]:%d" % self.port, "127.0.0.1"]:
            self.assertEqual(fetch(self.port, "GET", "/layout", {"Host": host})[0], 200, host)

    def test_a_foreign_origin_is_403(self):
        status, _, body = post(self.port, "/tap", {"x": 10, "y": 10}, {"Origin": "http://evil.example"})
        self.assertEqual(status, 403)
        self.assertEqual(json.loads(body)["error"]["code"], "forbidden")
        status, _, _ = post(self.port, "/tap", {"x": 10, "y": 10}, {"Origin": "http://127.0.0.1:%d" % self.port})
        self.assertEqual(status, 200)

    def test_a_wrong_content_type_is_415(self):
        for content_type in ["text/plain", "application/x-www-form-urlencoded", None]:
            headers = {"Content-Type": content_type} if content_type else {}
            status, _, _ = fetch(self.port, "POST", "/tap", headers, b'{"x": 1, "y": 1}')
            self.assertEqual(status, 415, content_type)
        status, _, _ = fetch(self.port, "POST", "/tap", {"Content-Type": "application/json; charset=utf-8"}, b'{"x": 1, "y": 1}')
        self.assertEqual(status, 200)

    def test_a_100_kib_body_is_413(self):
        body = b'{"x": 1, "y": 1, "pad": "' + b"x" * (100 * 1024) + b'"}'
        status, _, _ = fetch(self.port, "POST", "/contact", {"Content-Type": "application/json"}, body)
        self.assertEqual(status, 413)

    def test_malformed_requests_are_400(self):
        cases = [b"garbage", b'{"x": 1', b"[1, 2]", b'{"x": "a", "y": 1}', b"\xff\xfe\x00"]
        for body in cases:
            status, _, reply = fetch(self.port, "POST", "/tap", {"Content-Type": "application/json"}, body)
            self.assertEqual(status, 400, body)
            self.assertIn("error", json.loads(reply))
        status, _, reply = post(self.port, "/contact", {"session": "s1", "phase": "press", "x": 1, "y": 1})
        self.assertEqual(status, 400)
        self.assertIn("phase", json.loads(reply)["error"]["message"])
        status, _, reply = post(self.port, "/contact", {"session": "../etc", "phase": "down", "x": 1, "y": 1})
        self.assertEqual(status, 400)
        self.assertIn("session", json.loads(reply)["error"]["message"])
        # Garbage bytes on the wire, not HTTP at all.
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(b"\x16\x03\x01\x00\xff garbage \x00\r\n\r\n")
            reply = s.recv(4096)
        self.assertTrue(reply == b"" or reply.startswith(b"HTTP/1.1 400"), reply[:80])
        self.assertEqual(fetch(self.port, "GET", "/nope")[0], 404)
        self.assertEqual(fetch(self.port, "GET", "/contact")[0], 405)

    def test_an_error_reply_with_an_id_keeps_its_status(self):
        # The reply starts with the id: the status comes from the error's code, not its bytes.
        status, _, reply = fetch(self.port, "POST", "/tap", {"Content-Type": "application/json"},
                                 b'{"id": 1, "x": true, "y": 1}')
        self.assertEqual(status, 400, reply)
        self.assertEqual(json.loads(reply)["id"], 1)
        self.assertEqual(json.loads(reply)["error"]["code"], "bad_request")
        status, _, reply = post(self.port, "/tap", {"id": "seven", "x": 1, "y": 1, "layout": "nope"})
        self.assertEqual(status, 404, reply)
        self.assertEqual(json.loads(reply)["error"]["code"], "unknown_layout")
        status, _, reply = post(self.port, "/tap", {"id": 2, "x": 1, "y": 1})
        self.assertEqual(status, 200, reply)
        self.assertEqual(json.loads(reply)["id"], 2)

    def test_unknown_layout_is_the_sockets_error(self):
        status, _, reply = post(self.port, "/tap", {"x": 1, "y": 1, "layout": "nope"})
        self.assertEqual(status, 404)
        self.assertEqual(json.loads(reply)["error"]["code"], "unknown_layout")

    def test_an_idle_connection_is_closed_after_30_s_but_not_a_quiet_stream(self):
        stream = Stream(self.port, "quiet")
        try:
            self.assertTrue(wait_until(lambda: stream.named("layout"), 5))
            with socket.create_connection(("127.0.0.1", self.port), timeout=40) as idle:
                opened = time.monotonic()
                idle.sendall(b"GET /layout HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and then nothing more
                self.assertEqual(idle.recv(4096), b"", "closed without an answer")
                waited = time.monotonic() - opened
            self.assertTrue(29 <= waited <= 35, "closed after %.1f s" % waited)
            # The event stream had no event for those 30 s: its heartbeats kept it, and it still delivers.
            with stream.lock:
                self.assertIn(b": heartbeat", stream.raw)
            self.daemon.request({"op": "set", "grid": "b", "text": "still here"})
            self.assertTrue(wait_until(lambda: any(e["text"] == "still here" for e in stream.named("state")), 2))
        finally:
            stream.close()

    def test_too_many_streams_is_503(self):
        streams = [Stream(self.port, "cap%d" % i) for i in range(3)]
        try:
            self.assertTrue(wait_until(lambda: all(s.named("layout") for s in streams), 5), "three streams open")
            extra = Stream(self.port, "cap9")
            self.assertTrue(wait_until(lambda: extra.status is not None, 5))
            self.assertEqual(extra.status, 503)
            extra.close()
        finally:
            for s in streams:
                s.close()
        # Closed streams free their places at once (their hang-up is watched), not at the next
        # heartbeat 15 s later: a page that reloads gets its stream back within a second.
        opened = []

        def reopen():
            stream = Stream(self.port, "cap10")
            opened.append(stream)
            wait_until(lambda: stream.status is not None, 2)
            return stream.status == 200
        try:
            self.assertTrue(wait_until(reopen, 2, interval=0.1), "a stream opens within 2 s once others closed")
        finally:
            for stream in opened:
                stream.close()


class TokenTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.port = free_port()
        folder = tempfile.mkdtemp(prefix="tgpanel-")
        cls.token = "s3cret-token-0123456789"
        token_file = os.path.join(folder, "token")
        with open(token_file, "w") as f:
            f.write(cls.token + "\n")
        os.chmod(token_file, 0o600)
        cls.daemon = Daemon({"listen": "127.0.0.1:%d" % cls.port, "tokenFile": token_file}, folder).start()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def test_every_request_needs_the_token(self):
        for path in ["/", "/layout", "/events"]:
            self.assertEqual(fetch(self.port, "GET", path)[0], 401, path)
        self.assertEqual(post(self.port, "/tap", {"x": 1, "y": 1})[0], 401)
        self.assertEqual(fetch(self.port, "GET", "/?token=wrong")[0], 401)
        self.assertEqual(fetch(self.port, "GET", "/?token=" + self.token[:-1])[0], 401)
        self.assertEqual(fetch(self.port, "GET", "/layout?token=" + self.token)[0], 401, "only the page takes ?token=")

    def test_the_token_sets_a_strict_httponly_cookie(self):
        status, headers, _ = fetch(self.port, "GET", "/?token=" + self.token)
        self.assertEqual(status, 200)
        cookie = headers["set-cookie"]
        self.assertIn("tapgrid_panel=" + self.token, cookie)
        self.assertIn("HttpOnly", cookie)
        self.assertIn("SameSite=Strict", cookie)
        jar = {"Cookie": "tapgrid_panel=" + self.token}
        self.assertEqual(fetch(self.port, "GET", "/layout", jar)[0], 200)
        self.assertEqual(post(self.port, "/tap", {"x": 1, "y": 1}, jar)[0], 200)
        self.assertEqual(fetch(self.port, "GET", "/layout", {"Cookie": "tapgrid_panel=nope"})[0], 401)

    def test_a_token_that_cannot_be_a_cookie_is_a_config_error(self):
        folder = tempfile.mkdtemp(prefix="tgpanel-")
        try:
            token_file = os.path.join(folder, "token")
            with open(token_file, "w") as f:
                f.write("abcdefgh;ijklmnopqrstuvwxyz\n")
            os.chmod(token_file, 0o600)
            daemon = Daemon({"listen": "127.0.0.1:%d" % free_port(), "tokenFile": token_file}, folder)
            result = subprocess.run([CLI, "check", daemon.config], capture_output=True, text=True)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("panel.tokenFile", result.stdout + result.stderr)
            self.assertIn("semicolons", result.stdout + result.stderr)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def test_a_non_loopback_listen_without_token_is_a_config_error(self):
        folder = tempfile.mkdtemp(prefix="tgpanel-")
        try:
            daemon = Daemon({"listen": "0.0.0.0:%d" % free_port()}, folder)
            result = subprocess.run([CLI, "check", daemon.config], capture_output=True, text=True)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("panel.listen", result.stdout + result.stderr)
            self.assertIn("tokenFile", result.stdout + result.stderr)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


class StreamTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.port = free_port()
        cls.daemon = Daemon({"listen": "127.0.0.1:%d" % cls.port}).start()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def test_fifty_streams_get_every_socket_tap(self):
        streams = [Stream(self.port, "fifty%d" % i) for i in range(50)]
        try:
            self.assertTrue(wait_until(lambda: all(s.named("layout") for s in streams), 10), "50 streams open")
            taps = 300
            start = time.monotonic()
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(self.daemon.socket)
                reader = s.makefile("rb")
                for i in range(taps):
                    s.sendall(b'{"x": 100, "y": 100}\n')
                    self.assertIn(b'"outcome":"dispatched"', reader.readline())
            elapsed = time.monotonic() - start
            complete = wait_until(lambda: all(len(st.named("tap")) >= taps for st in streams), 10)
            counts = sorted(len(st.named("tap")) for st in streams)
            self.assertTrue(complete, "taps per stream: min %d, max %d of %d" % (counts[0], counts[-1], taps))
            seqs = [event["seq"] for event in streams[0].named("tap")]
            self.assertEqual(seqs, sorted(seqs), "in order")
            self.assertEqual(streams[7].named("tap")[0]["source"], "socket")
            print("\n  %d socket taps with 50 streams open: %.0f taps/s" % (taps, taps / elapsed), file=sys.stderr)
        finally:
            for s in streams:
                s.close()

    def test_every_tap_reaches_a_stream_or_is_counted_skipped(self):
        """A stream that keeps up gets every tap event, each seq once and in order; one that
        fell behind gets skipped events whose counts make up exactly the taps it did not get.
        First 3,000 request/response taps, which a reader keeps up with; then 40,000 pipelined,
        more than the kernel buffers for a stream that does not read (about 4 MB on loopback),
        so that stream's queue in the daemon grows and it is shed."""
        keeping_up = Stream(self.port, "keeps-up")
        behind = Stream(self.port, "behind", paused=True)
        try:
            self.assertTrue(wait_until(lambda: keeping_up.named("layout"), 10), "stream open")
            first, burst = 3000, 40000
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(self.daemon.socket)
                reader = s.makefile("rb")
                sent = []
                for i in range(first):
                    s.sendall(b'{"x": 100, "y": 100}\n')
                    sent.append(json.loads(reader.readline())["seq"])
                self.assertTrue(wait_until(lambda: len(keeping_up.taps_accounted()[0]) >= first, 10))
                seqs, skipped = keeping_up.taps_accounted()
                self.assertEqual(skipped, 0)
                self.assertEqual(seqs, sent, "missing: %s" % sorted(set(sent) - set(seqs))[:20])
                writer = threading.Thread(target=s.sendall, args=(b'{"x": 100, "y": 100}\n' * burst,))
                writer.start()
                sent += [json.loads(reader.readline())["seq"] for _ in range(burst)]
                writer.join()
            behind.resume()
            taps = first + burst

            def accounted(stream):
                seqs, skipped = stream.taps_accounted()
                return len(seqs) + skipped
            self.assertTrue(wait_until(lambda: accounted(keeping_up) >= taps and accounted(behind) >= taps, 20),
                            "accounted: %d and %d of %d" % (accounted(keeping_up), accounted(behind), taps))
            for stream in (keeping_up, behind):
                seqs, skipped = stream.taps_accounted()
                self.assertEqual(len(seqs) + skipped, taps, "taps got %d, skipped %d, of %d" % (len(seqs), skipped, taps))
                self.assertEqual(seqs, sorted(set(seqs)), "each once, in order")
                self.assertTrue(set(seqs) <= set(sent))
            self.assertGreater(behind.taps_accounted()[1], 0, "the stream that did not read was shed")
        finally:
            keeping_up.close()
            behind.close()

    def test_icons_a_config_names_none_of_show_when_set_or_pushed(self):
        """The config names no icon and no iconFont: the panel still reads Debian's font, so an
        icon a `set` or a pushed layout names is drawn (docs/panel.md "What a cell shows")."""
        try:
            reply = self.daemon.request({"op": "set", "grid": "0", "icon": "mdi:lightbulb"})
            self.assertTrue(reply.get("ok"), reply)
            layout = json.loads(fetch(self.port, "GET", "/layout")[2])
            grid = next(g for g in layout["grids"] if g["path"] == "0")
            self.assertEqual(grid["icon"], "mdi:lightbulb", grid)
            self.assertTrue(layout.get("icons", {}).get("mdi:lightbulb", "").startswith("M"), layout.get("icons"))
            pushed = {"width": 100, "height": 100, "grid": {"cols": [{"name": "fan", "tag": 1, "icon": "mdi:fan"}]}}
            self.assertTrue(self.daemon.request({"op": "load", "layout": "pushed", "definition": pushed}).get("ok"))
            self.assertTrue(self.daemon.request({"op": "use", "layout": "pushed"}).get("ok"))
            layout = json.loads(fetch(self.port, "GET", "/layout")[2])
            self.assertEqual([g["icon"] for g in layout["grids"]], ["mdi:fan"], layout)
            self.assertIn("mdi:fan", layout.get("icons", {}))
        finally:
            self.daemon.request({"op": "use", "layout": "home"})
            self.daemon.request({"op": "unload", "layout": "pushed"})
            self.daemon.request({"op": "set", "grid": "0", "icon": None})

    def test_status_tells_the_panel(self):
        stream = Stream(self.port, "status")
        try:
            self.assertTrue(wait_until(lambda: stream.named("layout"), 5))
            panel = self.daemon.request({"op": "status"})["panel"]
            self.assertEqual(panel["address"], "http://127.0.0.1:%d/" % self.port)
            self.assertGreaterEqual(panel["streams"], 1)
            self.assertGreaterEqual(panel["sessions"], 1)
            self.assertGreaterEqual(panel["requests"], 1)
            shown = subprocess.run([CLI, "status", "--socket", self.daemon.socket], capture_output=True, text=True)
            self.assertIn("panel: http://127.0.0.1:%d/  streams: " % self.port, shown.stdout)
        finally:
            stream.close()

    def test_switches_sets_and_taps_reach_the_stream(self):
        stream = Stream(self.port, "watcher")
        try:
            self.assertTrue(wait_until(lambda: stream.named("layout"), 5))
            self.daemon.request({"op": "use", "layout": "other"})
            self.assertTrue(wait_until(lambda: len(stream.named("layout")) >= 2, 2), "a layout event after use")
            self.assertEqual(stream.named("layout")[-1]["layout"], "other")
            self.daemon.request({"op": "use", "layout": "home"})
            self.daemon.request({"op": "set", "grid": "a", "text": "42 %", "active": True})
            self.assertTrue(wait_until(lambda: stream.named("state"), 2), "a state event after set")
            self.assertEqual(stream.named("state")[-1],
                             {"layout": "home", "path": "0", "text": "42 %", "active": True, "value": None, "enabled": None,
                              "label": "42 %", "icon": None, "style": {}})
            status, _, _ = post(self.port, "/contact", {"session": "watcher", "phase": "down", "slot": 0, "x": 600, "y": 10})
            self.assertEqual(status, 200)
            status, _, reply = post(self.port, "/contact", {"session": "watcher", "phase": "up", "slot": 0, "x": 600, "y": 10})
            self.assertEqual(json.loads(reply)["taps"][0]["hit"]["path"], "1")
            self.assertTrue(wait_until(lambda: stream.named("tap"), 2))
            tap = stream.named("tap")[-1]
            self.assertEqual((tap["hit"]["path"], tap["class"], tap["source"], tap["active"]), ("1", "tap", "panel", True))
            status, _, layout = fetch(self.port, "GET", "/layout")
            grids = {g["path"]: g for g in json.loads(layout)["grids"]}
            self.assertEqual((grids["0"]["text"], grids["1"]["active"]), ("42 %", True))
        finally:
            stream.close()

    def test_numbered_contacts_are_taken_in_their_order(self):
        """A page sends each contact at once, numbered: an up that arrives before its down waits
        for it (its reply then carries the tap), and a number that never comes is skipped after
        half a second."""
        replies = {}

        def send(key, obj):
            reply = post(self.port, "/contact", obj)
            replies[key] = (time.monotonic(), reply)
        up = threading.Thread(target=send, args=("up", {"session": "ordered", "phase": "up", "slot": 0, "x": 100, "y": 100, "n": 1}))
        up.start()
        time.sleep(0.2)
        self.assertNotIn("up", replies, "the up waits for its down")
        send("down", {"session": "ordered", "phase": "down", "slot": 0, "x": 100, "y": 100, "n": 0})
        up.join(5)
        taps = json.loads(replies["up"][1][2])["taps"]
        self.assertEqual([(t["hit"]["path"], t["class"]) for t in taps], [("0", "tap")])
        mine = [r for r in self.daemon.records() if r.get("event") == "touch" and r.get("source") == "panel" and r["slot"] == 0]
        self.assertEqual([r["phase"] for r in mine][-2:], ["down", "up"], "recorded in the page's order")
        started = time.monotonic()
        send("gap", {"session": "ordered", "phase": "down", "slot": 1, "x": 100, "y": 100, "n": 5})
        waited = replies["gap"][0] - started
        self.assertEqual(replies["gap"][1][0], 200)
        self.assertTrue(0.45 <= waited < 2, "skipped the missing numbers after %.2f s" % waited)
        send("cancel", {"session": "ordered", "phase": "cancel", "slot": 1, "n": 6})
        self.assertEqual(replies["cancel"][1][0], 200)

    def test_a_session_whose_stream_closed_for_10_s_has_its_contacts_cancelled(self):
        stream = Stream(self.port, "leaver")
        self.assertTrue(wait_until(lambda: stream.named("layout"), 5))
        status, _, _ = post(self.port, "/contact", {"session": "leaver", "phase": "down", "slot": 3, "x": 100, "y": 100})
        self.assertEqual(status, 200)
        down = [r for r in self.daemon.records() if r.get("event") == "touch" and r.get("slot") == 3 and r["phase"] == "down"]
        self.assertEqual(len(down), 1)
        self.assertEqual(down[0]["source"], "panel")
        conn = down[0]["conn"]
        stream.close()

        def cancels():
            return [r for r in self.daemon.records() if r.get("event") == "touch" and r.get("conn") == conn and r["phase"] == "cancel"]
        time.sleep(5)
        self.assertEqual(cancels(), [], "not before 10 s")
        self.assertTrue(wait_until(cancels, 8), "cancelled after 10 s without a stream")


@unittest.skipUnless(shutil.which("systemd-socket-activate"), "systemd-socket-activate is missing (Debian: systemd)")
class PassedSocketTests(unittest.TestCase):
    def test_a_socket_systemd_passes_named_panel(self):
        """As tapgridd-panel.socket passes it (FileDescriptorName=panel): the config's own listen
        address is then unused, and the daemon still binds its Unix socket itself."""
        port, unused = free_port(), free_port()
        daemon = Daemon({"listen": "127.0.0.1:%d" % unused})
        with open(os.path.join(daemon.folder, "stderr"), "w") as log:
            process = subprocess.Popen(["systemd-socket-activate", "-l", "127.0.0.1:%d" % port, "--fdname=panel",
                                        DAEMON, "--config", daemon.config], stdout=log, stderr=log)
        try:
            def listening():
                try:
                    with socket.socket() as probe:
                        probe.settimeout(0.2)
                        # Not a connection: systemd-socket-activate starts the daemon on the first one.
                        probe.bind(("127.0.0.1", port))
                    return False
                except OSError:
                    return True
            self.assertTrue(wait_until(listening, 5), "systemd-socket-activate listens")
            # The first connection starts the daemon (socket activation); it answers that one too.
            status, _, body = fetch(port, "GET", "/layout", timeout=10)
            self.assertEqual(status, 200, daemon.log())
            self.assertEqual(json.loads(body)["layout"], "home")
            self.assertTrue(wait_until(lambda: os.path.exists(daemon.socket), 5))
            self.assertEqual(daemon.request({"op": "status"})["panel"]["address"], "the socket systemd passed (panel)")
            with self.assertRaises(OSError):
                socket.create_connection(("127.0.0.1", unused), timeout=1).close()
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            self.assertIn("stopped cleanly", daemon.log())
            shutil.rmtree(daemon.folder, ignore_errors=True)


ICON_FONT = """<svg xmlns="http://www.w3.org/2000/svg"><defs><font id="t" horiz-adv-x="512">
<font-face units-per-em="512" ascent="448" descent="-64"/>
<glyph glyph-name="lightbulb" unicode="a" d="M256 448L64 0H448Z"/>
<glyph glyph-name="fan" unicode="b" d="M0 0H512V448H0Z"/>
</font></defs></svg>
"""


class LookTests(unittest.TestCase):
    """What a cell shows, from the daemon: /layout's label, icon, style and icons (the glyphs
    of the config's iconFont, read at start and at reload), and a state event after a set."""

    @classmethod
    def setUpClass(cls):
        cls.port = free_port()
        folder = tempfile.mkdtemp(prefix="tgpanel-")
        cls.font = os.path.join(folder, "icons.svg")
        with open(cls.font, "w") as f:
            f.write(ICON_FONT)
        layouts = {"home": {"width": 200, "height": 100, "grid": {"cols": [
            {"size": 100, "name": "a", "tag": 1, "text": "Lamp", "icon": "mdi:lightbulb", "style": "warm"},
            {"size": 100, "name": "b", "tag": 2}]}}}
        styles = {"default": {"background": "#202020"}, "warm": {"background": "#aa5500", "color": "#fff", "radius": 6}}
        cls.daemon = Daemon({"listen": "127.0.0.1:%d" % cls.port}, folder,
                            {"layouts": layouts, "styles": styles, "iconFont": cls.font}).start()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def test_the_layout_carries_looks_and_only_the_icons_used(self):
        status, _, body = fetch(self.port, "GET", "/layout")
        self.assertEqual(status, 200)
        layout = json.loads(body)
        a, b = layout["grids"]
        self.assertEqual((a["label"], a["icon"], a["style"]),
                         ("Lamp", "mdi:lightbulb", {"background": "#aa5500", "color": "#ffffff", "radius": 6}))
        self.assertEqual((b["label"], b["icon"], b["style"]), ("b", None, {"background": "#202020"}))
        self.assertEqual(layout["icons"], {"mdi:lightbulb": "M256 448L64 0H448Z"})
        self.assertEqual((layout["iconUnitsPerEm"], layout["iconAscent"]), (512, 448))

    def test_a_set_of_icon_and_style_streams_the_look_and_the_glyph(self):
        stream = Stream(self.port, "looks")
        try:
            self.assertTrue(wait_until(lambda: stream.named("layout"), 5))
            reply = self.daemon.request({"op": "set", "grid": "b", "icon": "mdi:fan", "style": "warm"})
            self.assertTrue(reply.get("ok"), reply)
            changed = lambda: [e for e in stream.named("state") if e["path"] == "1"]
            self.assertTrue(wait_until(changed, 2))
            event = changed()[-1]
            self.assertEqual((event["label"], event["icon"], event["glyph"], event["style"]["background"]),
                             ("b", "mdi:fan", "M0 0H512V448H0Z", "#aa5500"))
        finally:
            self.daemon.request({"op": "set", "grid": "b", "icon": None, "style": None})
            stream.close()


    def test_a_reload_reads_the_icon_font_again(self):
        with open(self.font, "w") as f:
            f.write(ICON_FONT.replace("M256 448L64 0H448Z", "M1 1H2V2Z"))
        try:
            reply = self.daemon.request({"op": "reload"})
            self.assertTrue(reply.get("ok"), reply)
            self.assertEqual(json.loads(fetch(self.port, "GET", "/layout")[2])["icons"], {"mdi:lightbulb": "M1 1H2V2Z"})
        finally:
            with open(self.font, "w") as f:
                f.write(ICON_FONT)
            self.daemon.request({"op": "reload"})

    def test_an_unknown_style_is_a_bad_request_naming_the_styles(self):
        reply = self.daemon.request({"op": "set", "grid": "b", "style": "nope"})
        self.assertEqual(reply["error"]["code"], "bad_request", reply)
        self.assertIn('"default", "warm"', reply["error"]["message"])
        status = subprocess.run([CLI, "set", "home", "b", "--style", "nope", "--socket", self.daemon.socket],
                                capture_output=True, text=True)
        self.assertEqual(status.returncode, 1, status.stderr)
        self.assertIn("no style", status.stderr + status.stdout)
        status = subprocess.run([CLI, "set", "home", "b", "--icon", "mdi:fan", "--style", "warm", "--socket", self.daemon.socket],
                                capture_output=True, text=True)
        self.assertEqual(status.returncode, 0, status.stderr)
        self.daemon.request({"op": "set", "grid": "b", "icon": None, "style": None})


class UnixSocketTests(unittest.TestCase):
    def test_a_panel_on_a_unix_socket(self):
        folder = tempfile.mkdtemp(prefix="tgpanel-")
        path = os.path.join(folder, "panel.sock")
        daemon = Daemon({"listen": path}, folder).start()
        try:
            self.assertTrue(wait_until(lambda: os.path.exists(path), 5))
            self.assertEqual(oct(os.stat(path).st_mode & 0o777), "0o660")
            status, _, body = fetch(0, "GET", "/layout", unix=path)
            self.assertEqual(status, 200)
            self.assertEqual(json.loads(body)["layout"], "home")
            self.assertEqual(fetch(0, "GET", "/layout", {"Host": "evil.example"}, unix=path)[0], 421)
        finally:
            daemon.stop()
        self.assertFalse(os.path.exists(path), "the socket file is removed at stop")


if __name__ == "__main__":
    args = sys.argv[1:]
    while args and args[0].startswith("--"):
        if args[0] == "--daemon":
            DAEMON = args[1]
        elif args[0] == "--cli":
            CLI = args[1]
        else:
            break
        args = args[2:]
    unittest.main(argv=[sys.argv[0]] + args, verbosity=2)
