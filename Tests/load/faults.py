#!/usr/bin/env python3
"""Load and fault scenarios against tapgridd, each bounded in time, loopback only.

    python3 Tests/load/faults.py quick              the small versions (seconds each; `make test`)
    python3 Tests/load/faults.py all                every scenario at full size (`make faults`)
    python3 Tests/load/faults.py SCENARIO [--full]  one: connections pipelined neverread halfline
                                                    disconnect fdlimit sighup kill9 children

Each scenario starts its own daemon in a fresh /tmp/tgfault-* folder (removed afterwards), prints
one line of figures, and fails (exit 1) when the daemon stopped serving, lost a tap a client saw
answered as logged, leaked a descriptor or a child, or left a zombie.
"""
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from loadlib import Client, children_of, percentile, rss_kib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DAEMON = os.environ.get("TAPGRIDD", os.path.join(ROOT, ".build/debug/tapgridd"))
CLI = os.environ.get("TAPGRID", os.path.join(ROOT, ".build/debug/tapgrid"))

BASE_CONFIG = {
    "socket": {"path": "s.sock"},
    "eventLog": {"path": "events.jsonl"},
    "initialLayout": "home",
    "layouts": {
        "home": {"width": 600, "height": 100, "grid": {"cols": [
            {"tag": 1, "name": "log"},
            {"tag": 2, "name": "ignores-term", "action-data": "trap '' TERM; sleep 30"},
            {"tag": 3, "name": "daemonizes", "action-data": "setsid sleep 3 </dev/null >/dev/null 2>&1 & exit 0"},
            {"tag": 4, "name": "megabytes", "action-data": "yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | head -c 4000000"},
            {"tag": 5, "name": "never-exits", "action-data": "exec sleep 1000"},
            {"tag": 6, "name": "quick", "action-data": "exit 0"},
        ]}},
    },
    "handlers": {
        "audit": {"type": "log"},
        "slow": {"type": "script", "interpreter": ["/bin/sh", "-c"], "timeoutSeconds": 1, "killGraceSeconds": 1,
                 "maxConcurrent": 4, "queue": 16},
        "fast": {"type": "script", "interpreter": ["/bin/sh", "-c"], "maxConcurrent": 8, "queue": 64},
    },
    "routes": [{"tags": [1], "handler": "audit"}, {"tags": [2, 3, 4, 5], "handler": "slow"},
               {"tags": [6], "handler": "fast"}],
}
GRID_X = {name: 50 + 100 * i for i, name in enumerate(["log", "ignores-term", "daemonizes", "megabytes", "never-exits", "quick"])}


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Daemon:
    """A tapgridd in its own folder; `prlimit` sets RLIMIT_NOFILE when given."""

    def __init__(self, config=None, nofile=None):
        self.dir = tempfile.mkdtemp(prefix="tgfault-", dir="/tmp")
        self.config_path = os.path.join(self.dir, "tapgrid.json")
        with open(self.config_path, "w") as f:
            json.dump(config or BASE_CONFIG, f)
        self.socket = os.path.join(self.dir, "s.sock")
        self.log = os.path.join(self.dir, "events.jsonl")
        self.stderr_path = os.path.join(self.dir, "stderr.txt")
        self.nofile = nofile
        self.start()

    def start(self):
        argv = [DAEMON, "--config", self.config_path]
        if self.nofile:
            argv = ["prlimit", f"--nofile={self.nofile}:{self.nofile}", "--"] + argv
        self.stderr = open(self.stderr_path, "ab")
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=self.stderr)
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                # Answered, not just connected: the listening socket takes connections before the
                # daemon has finished starting (its descriptors counted then were too few, and
                # `connections` once failed with "descriptors 10 after closing, 5 before").
                Client(self.socket).request({"op": "status"})
                return
            except OSError:
                if self.process.poll() is not None:
                    raise Failure("tapgridd exited early: " + self.stderr_text())
                time.sleep(0.02)
        raise Failure("tapgridd did not start")

    @property
    def pid(self):
        return self.process.pid

    def stderr_text(self):
        with open(self.stderr_path, errors="replace") as f:
            return f.read()

    def fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def children(self):
        """(children, zombies) of the daemon."""
        return children_of(self.pid)

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            try:
                code = self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise Failure("tapgridd did not stop within 20 s of SIGTERM")
            check(code == 0, f"tapgridd exited {code} after SIGTERM")
        self.stderr.close()

    def kill9(self):
        self.process.kill()
        self.process.wait()
        self.stderr.close()

    def cleanup(self):
        if self.alive():
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def tap(client, name="log", **extra):
    return client.request({"op": "tap", "x": GRID_X[name], "y": 50, **extra})


def wait_for(condition, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def raise_nofile(n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(n, hard), hard))


# ---- scenarios -----------------------------------------------------------------------------------

def connections(daemon, full):
    """N connections open at once, each taps; a newcomer is still served quickly; all close cleanly."""
    n = 2000 if full else 300
    raise_nofile(n + 200)
    base_fds = daemon.fds()
    clients = []
    start = time.perf_counter()
    for _ in range(n):
        clients.append(Client(daemon.socket))
    for c in clients:
        c.send(b'{"x": 50, "y": 50}\n')
    answered = sum(1 for c in clients if "seq" in c.read_line())
    elapsed = time.perf_counter() - start
    check(answered == n, f"{answered} of {n} answered")
    status = Client(daemon.socket).request({"op": "status"})
    check(status["clients"] >= n, f"status counts {status['clients']} clients")
    t = time.perf_counter()
    tap(Client(daemon.socket))
    newcomer = time.perf_counter() - t
    for c in clients:
        c.close()
    check(wait_for(lambda: daemon.fds() <= base_fds + 1, 10), f"descriptors {daemon.fds()} after closing, {base_fds} before")
    return f"{n} concurrent connections each answered in {elapsed:.2f} s; a newcomer's tap took {newcomer * 1000:.1f} ms; descriptors back to {daemon.fds()}"


def halfline(daemon, full):
    """Clients that send half a line and hold it do not slow the others; their lines complete later."""
    n = 500 if full else 50
    raise_nofile(n + 200)
    holders = [Client(daemon.socket) for _ in range(n)]
    for i, c in enumerate(holders):
        c.send(b'{"op": "tap", "x": 50, "y": 50, "id": %d' % i)
    other = Client(daemon.socket)
    latencies = []
    for _ in range(500):
        t = time.perf_counter()
        reply = tap(other)
        latencies.append(time.perf_counter() - t)
        check("seq" in reply, f"reply {reply}")
    for c in holders:
        c.send(b"}\n")
    ids = [c.read_line().get("id") for c in holders]
    check(ids == list(range(n)), "the held lines were answered, each with its id")
    return (f"{n} clients holding half a line: 500 taps from another client p50 {percentile(latencies, 0.5) * 1000:.2f} ms, "
            f"p99 {percentile(latencies, 0.99) * 1000:.2f} ms; every held line answered once completed")


def disconnect(daemon, full):
    """Clients that vanish mid-request or before reading their replies leave nothing behind."""
    n = 2000 if full else 200
    base_fds = daemon.fds()
    for i in range(n):
        while True:
            try:
                c = Client(daemon.socket)
                break
            except BlockingIOError:
                time.sleep(0.01)  # the listen backlog is full: the daemon has not accepted yet
        if i % 3 == 0:
            c.send(b'{"x": 50, "y"')  # half a request, then gone
        elif i % 3 == 1:
            c.send(b'{"x": 50, "y": 50}\n' * 50)  # 50 requests, replies never read
        else:
            c.send(b'{"op": "down", "x": 50, "y": 50, "slot": 1}\n')  # a contact left down
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST
        c.close()
    check(wait_for(lambda: daemon.fds() <= base_fds, 10), f"descriptors {daemon.fds()}, {base_fds} before")
    c = Client(daemon.socket)
    check("seq" in tap(c), "still serving")
    # The descriptors can be back while vanished clients still wait in the listen backlog (each
    # accepted, then closed at its reset): the count comes down to this one client as they go.
    counted = lambda: c.request({"op": "status"})["clients"]
    check(wait_for(lambda: counted() == 1, 10), f"status counts {counted()} clients")
    return f"{n} clients vanished mid-request, unread or with a contact down (RST): descriptors {daemon.fds()} (before {base_fds}), still serving"


def fdlimit(daemon, full):
    """RLIMIT_NOFILE 64: past it the daemon keeps serving the connections it has, refuses the
    newcomers at once with `too_many_clients` (none is left hanging), and serves new clients
    once descriptors are free again."""
    base_fds = daemon.fds()
    keeper = Client(daemon.socket)
    hogs = []
    for _ in range(120 if full else 80):
        hogs.append(Client(daemon.socket, timeout=3))
    for h in hogs:
        try:
            h.send(b'{"x": 50, "y": 50}\n')
        except OSError:
            pass  # refused and closed before it sent
    served = refused = hanging = 0
    for h in hogs:
        try:
            reply = h.read_line()
        except socket.timeout:
            hanging += 1
            continue
        except (OSError, ConnectionError):
            hanging += 1
            continue
        if "seq" in reply:
            served += 1
        elif reply.get("error", {}).get("code") == "too_many_clients":
            refused += 1
            check(reply["error"]["message"] == "the daemon is out of file descriptors (RLIMIT_NOFILE); try again later", f"{reply}")
    latencies = []
    for _ in range(100):
        t = time.perf_counter()
        check("seq" in tap(keeper), "the keeper is served while descriptors run out")
        latencies.append(time.perf_counter() - t)
    check(daemon.alive(), "tapgridd died at the descriptor limit")
    check(hanging == 0, f"{hanging} clients got no answer")
    check(refused > 0, "nobody was refused: the limit was not reached")
    for h in hogs:
        h.close()
    check(wait_for(lambda: daemon.fds() <= base_fds + 1, 10), f"descriptors {daemon.fds()}, {base_fds} before (+1 keeper)")
    fresh = [Client(daemon.socket) for _ in range(20)]
    check(all("seq" in tap(c) for c in fresh), "new clients are served after the exhaustion")
    warnings = daemon.stderr_text().count("refusing new clients with too_many_clients")
    check(warnings == 1, f"the exhaustion was logged {warnings} times, not once")
    check("descriptors are free again: accepting clients" in daemon.stderr_text(), "recovery is logged")
    return (f"RLIMIT_NOFILE 64: {len(hogs)} clients, {served} served, {refused} refused at once with too_many_clients, "
            f"0 left hanging; the keeper's taps meanwhile p99 {percentile(latencies, 0.99) * 1000:.2f} ms; logged once; "
            f"afterwards 20 new clients served, descriptors back to {daemon.fds()}")


def sighup(daemon, full):
    """SIGHUP in a tight loop while taps flow: every tap answered, each from one generation, in order."""
    seconds = 20 if full else 3
    stop = threading.Event()
    results = {}

    def tapper(k):
        c = Client(daemon.socket, timeout=30)
        generations, count, errors = [], 0, []
        while not stop.is_set():
            reply = c.request({"op": "tap", "x": 50, "y": 50, "id": count})
            if reply.get("id") != count or "seq" not in reply or not isinstance(reply.get("generation"), int):
                errors.append(reply)
            generations.append(reply.get("generation"))
            count += 1
        results[k] = (count, generations, errors)

    threads = [threading.Thread(target=tapper, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    hups = 0
    end = time.time() + seconds
    while time.time() < end:
        os.kill(daemon.pid, signal.SIGHUP)
        hups += 1
        time.sleep(0.002)
    stop.set()
    for t in threads:
        t.join(30)
    check(daemon.alive(), "tapgridd died under SIGHUPs")
    taps = sum(r[0] for r in results.values())
    errors = [e for r in results.values() for e in r[2]]
    check(len(results) == 4 and not errors, f"errors: {errors[:3]}")
    for count, generations, _ in results.values():
        check(generations == sorted(generations), "generations go backwards within a connection")
    final = Client(daemon.socket).request({"op": "status"})["generation"]
    seen = sorted({g for r in results.values() for g in r[1]})
    return (f"{hups} SIGHUPs in {seconds} s while 4 clients tapped: {taps} taps, every one answered with one generation, "
            f"in order per connection; {len(seen)} generations seen, {final} at the end")


def kill9(daemon, full):
    """kill -9 under load, then restart: every tap a client saw answered as logged is in the log,
    at most one torn last line, replay copes, and the restarted daemon's records are whole."""
    rounds = 5 if full else 1
    answered = set()
    replay_lines = []
    for _ in range(rounds):
        stop = threading.Event()
        lock = threading.Lock()

        def tapper():
            c = Client(daemon.socket)
            run_answered = []
            try:
                while not stop.is_set():
                    reply = tap(c)
                    if reply.get("logged", True):
                        run_answered.append(reply["seq"])
            except (OSError, ValueError, ConnectionError):
                pass
            with lock:
                answered_run.extend(run_answered)

        answered_run = []
        threads = [threading.Thread(target=tapper) for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(1.5)
        daemon.kill9()
        stop.set()
        for t in threads:
            t.join(10)
        # Which run was killed: the last run id in the log.
        with open(daemon.log, "rb") as f:
            data = f.read()
        lines = data.split(b"\n")
        torn = lines.pop() if lines else b""
        check(torn == b"" or len([torn]) == 1, "at most one torn line")
        records = []
        for number, line in enumerate(lines, 1):
            try:
                records.append(json.loads(line))
            except ValueError:
                raise Failure(f"line {number} unreadable in the middle of the log: {line[:80]!r}")
        run = records[-1]["run"]
        logged = {r["seq"] for r in records if r.get("run") == run and "event" not in r}
        missing = set(answered_run) - logged
        check(not missing, f"{len(missing)} taps answered as logged are missing after kill -9, e.g. {sorted(missing)[:5]}")
        answered |= {(run, s) for s in answered_run}
        out = subprocess.run([CLI, "replay", daemon.log, "--config", daemon.config_path], capture_output=True, text=True, timeout=120)
        replay_lines.append(out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr.strip())
        check(out.returncode in (0, 1) and "taps," in out.stdout, f"replay failed: {out.returncode} {out.stderr}")
        daemon.start()
    # The restarted daemon's records must be whole (a torn last line must not swallow the next one).
    c = Client(daemon.socket)
    fresh = [tap(c)["seq"] for _ in range(10)]
    daemon.stop()
    with open(daemon.log, "rb") as f:
        lines = f.read().split(b"\n")
    readable = [json.loads(line) for line in lines if line.startswith(b"{") and line.endswith(b"}") and _parses(line)]
    last_run = readable[-1]["run"]
    check([r["seq"] for r in readable if r["run"] == last_run and "event" not in r][-10:] == fresh,
          "the restarted daemon's taps are all readable")
    return (f"{rounds} kill -9 under 4 tapping clients: {len(answered)} taps answered as logged, none missing; "
            f"replay says: {replay_lines[-1]}")


def _parses(line):
    try:
        json.loads(line)
        return True
    except ValueError:
        return False


def children(daemon, full):
    """Child storms: SIGTERM ignored, a daemonized grandchild, megabytes of output, never exiting,
    and N quick spawns in a row: all reaped or killed, no zombie, no descriptor leak, and taps on
    a log grid stay fast meanwhile."""
    spawns = 10000 if full else 300
    base_fds = daemon.fds()
    stop = threading.Event()
    latencies = []

    def prober():
        c = Client(daemon.socket)
        while not stop.is_set():
            t = time.perf_counter()
            check("seq" in tap(c), "prober tap")
            latencies.append(time.perf_counter() - t)
            time.sleep(0.005)

    probe = threading.Thread(target=prober)
    probe.start()
    c = Client(daemon.socket, timeout=30)
    outcomes = {}
    for name in ["ignores-term", "daemonizes", "megabytes", "never-exits"] * 2:
        outcome = tap(c, name)["outcome"]
        outcomes[name + ":" + outcome] = outcomes.get(name + ":" + outcome, 0) + 1
    start = time.perf_counter()
    spawned = busy = 0
    for _ in range(spawns):
        outcome = tap(c, "quick")["outcome"]
        if outcome == "dispatched":
            spawned += 1
        elif outcome == "busy":
            busy += 1
            time.sleep(0.002)
        else:
            raise Failure(f"quick spawn: {outcome}")
    spawn_time = time.perf_counter() - start
    idle = wait_for(lambda: Client(daemon.socket).request({"op": "status"})["children"] == 0, 30)
    stop.set()
    probe.join(30)
    check(idle, "children still running 30 s after the storm")
    kids, zombies = daemon.children()
    check(zombies == 0 and kids == 0, f"{kids} children, {zombies} zombies left")
    check(wait_for(lambda: daemon.fds() <= base_fds + 2, 10), f"descriptors {daemon.fds()}, {base_fds} before")
    with open(daemon.log) as f:
        exits = [json.loads(line) for line in f if '"event":"exit"' in line]
    killed = sum(1 for e in exits if e.get("timedOut"))
    return (f"{spawned} quick children dispatched ({busy} busy) in {spawn_time:.1f} s, plus 8 hostile ones "
            f"({killed} killed at their timeout); after the storm 0 children, 0 zombies, descriptors {daemon.fds()} "
            f"(before {base_fds}); log-grid taps meanwhile: {len(latencies)}, p50 {percentile(latencies, 0.5) * 1000:.2f} ms, "
            f"p99 {percentile(latencies, 0.99) * 1000:.2f} ms, max {max(latencies) * 1000:.1f} ms")


def pipelined(daemon, full):
    """One client pipelines N taps, up to WINDOW unanswered at a time (a reader thread takes the
    replies; the window keeps the replies waiting under the 1 MiB after which this branch drops a
    client that does not keep up): every one answered, in order, with seq counting up."""
    n = 1_000_000 if full else 50_000
    window = 4000
    c = Client(daemon.socket, timeout=60)
    result = {}
    received = [0]

    def reader():
        count, last, buffer = 0, 0, b""
        ok = True
        while count < n:
            chunk = c.sock.recv(1 << 20)
            if not chunk:
                break
            buffer += chunk
            lines = buffer.split(b"\n")
            buffer = lines.pop()
            for line in lines:
                seq = int(line[line.index(b'"seq":') + 6:line.index(b",", line.index(b'"seq":'))])
                ok = ok and seq == last + 1
                last = seq
                count += 1
            received[0] = count
        result.update(count=count, ordered=ok)

    t = threading.Thread(target=reader)
    t.start()
    start = time.perf_counter()
    line = b'{"x": 50, "y": 50}\n'
    batch = line * 1000
    for k in range(n // 1000):
        while (k * 1000) - received[0] > window and t.is_alive():
            time.sleep(0.0005)
        c.send(batch)
    t.join(300)
    elapsed = time.perf_counter() - start
    check(result.get("count") == n, f"{result.get('count')} of {n} answered")
    check(result.get("ordered"), "replies out of order")
    rss = rss_kib(daemon.pid) // 1024
    return f"{n} pipelined taps on one connection, all answered in order in {elapsed:.1f} s ({n / elapsed:.0f}/s); daemon RSS {rss} MiB"


def neverread(daemon, full):
    """A client that floods taps and never reads its replies does not stall the others, and the
    daemon's memory stays bounded."""
    flood = Client(daemon.socket, timeout=2)
    flood.sock.setblocking(False)
    sent = 0
    line = b'{"x": 50, "y": 50}\n' * 1000
    other = Client(daemon.socket)
    latencies = []
    end = time.time() + (20 if full else 3)
    while time.time() < end:
        try:
            sent += flood.sock.send(line)
        except (BlockingIOError, OSError):
            pass
        t = time.perf_counter()
        check("seq" in tap(other), "the other client is served")
        latencies.append(time.perf_counter() - t)
    rss = rss_kib(daemon.pid) // 1024
    check(rss < 200, f"RSS {rss} MiB")
    flood.close()
    return (f"a client sent {sent / 1e6:.1f} MB of taps and read nothing: another client's {len(latencies)} taps meanwhile "
            f"p50 {percentile(latencies, 0.5) * 1000:.2f} ms, p99 {percentile(latencies, 0.99) * 1000:.2f} ms; daemon RSS {rss} MiB")


SCENARIOS = {"connections": connections, "pipelined": pipelined, "neverread": neverread, "halfline": halfline,
             "disconnect": disconnect, "fdlimit": fdlimit,
             "sighup": sighup, "kill9": kill9, "children": children}


def run(name, full):
    daemon = Daemon(nofile=64 if name == "fdlimit" else None)
    try:
        start = time.time()
        summary = SCENARIOS[name](daemon, full)
        if daemon.alive():
            daemon.stop()
        print(f"ok   {name:11s} ({time.time() - start:5.1f} s) {summary}", flush=True)
        return True
    except (Failure, OSError, ValueError, ConnectionError) as e:
        print(f"FAIL {name:11s} {type(e).__name__}: {e}", flush=True)
        tail = daemon.stderr_text()[-2000:]
        if tail:
            print("     tapgridd stderr (tail):\n     " + tail.replace("\n", "\n     "), flush=True)
        return False
    finally:
        daemon.cleanup()


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 64
    full = "--full" in argv
    names = [a for a in argv if not a.startswith("--")]
    if names == ["quick"]:
        names, full = list(SCENARIOS), False
    elif names == ["all"]:
        names, full = list(SCENARIOS), True
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario {unknown[0]}; choose from {', '.join(SCENARIOS)}, quick or all", file=sys.stderr)
        return 64
    results = [run(n, full) for n in names]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
