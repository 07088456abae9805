#!/usr/bin/env python3
"""Soak: mixed traffic against one tapgridd for a set time, sampled every minute.

    python3 Tests/load/soak.py --duration 30m [--sample 60] [--daemon .build/debug/tapgridd]

Loopback only (the daemon's Unix socket in a fresh /tmp/tgsoak-* folder, removed at the end).
Traffic, all at once, each from its own client thread:
  - 4 tappers: lockstep taps on log grids, ~100 per second each (their latency is the p99);
  - touch: down/move/up/cancel contacts (taps, long presses, holds, swipes, cancels) on 4 slots;
  - pages: a layout handler tap and `use` back, twice a second;
  - scripts: a script handler tap (a child that prints a line) 5 times a second;
  - control: `status`, `layouts`, `hit` and a `reload` op every 5 s, SIGHUP every 15 s;
  - rotation: every 5 minutes the event log is renamed and SIGUSR1 sent (the renamed file is
    checked and removed, so the disk does not fill).
Every `--sample` seconds one row: elapsed time, the daemon's RSS (VmRSS), open descriptors,
child processes (and zombies), taps answered in the interval, p50/p99/max tap latency, errors.
At the end: SIGTERM (must exit 0), then every record of every log file must parse, and every
tap a client saw answered as logged must be in the logs. Exit 1 if anything failed.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from loadlib import Client, children_of, open_fds, percentile, rss_kib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CONFIG = """{
  "socket": {"path": "s.sock"},
  "eventLog": {"path": "events.jsonl"},
  "initialLayout": "home",
  "layouts": {
    "home": {"width": 400, "height": 100, "longPressMs": 150, "repeatMs": 50, "doubleTapMs": 60,
      "grid": {"cols": [
        {"tag": 1, "name": "log"}, {"tag": 2, "name": "press"}, {"tag": 3, "name": "hold"},
        {"tag": 4, "name": "script", "action-data": "echo soak $TAPGRID_SEQ"},
        {"tag": 5, "name": "page", "action-data": "other"}]}},
    "other": {"width": 100, "height": 100, "grid": {"rows": [{"tag": 1}, {"tag": 5, "action-data": "home"}]}}
  },
  "handlers": {
    "audit": {"type": "log"}, "menu": {"type": "log"}, "volume": {"type": "log"},
    "sh": {"type": "script", "interpreter": ["/bin/sh", "-c"], "maxConcurrent": 4, "queue": 64},
    "pages": {"type": "layout"}
  },
  "routes": [
    {"tags": [2], "handler": "menu", "on": "long"}, {"tags": [3], "handler": "volume", "on": "hold"},
    {"tags": [4], "handler": "sh"}, {"tags": [5], "handler": "pages"}, {"handler": "audit"}
  ]
}
"""


def parse_duration(text):
    units = {"s": 1, "m": 60, "h": 3600}
    if text[-1] in units:
        return float(text[:-1]) * units[text[-1]]
    return float(text)


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latencies = []
        self.taps = 0
        self.errors = []
        self.logged_seqs = set()
        self.unlogged = 0
        self.requests = 0
        self.generations = set()

    def tap(self, reply, latency=None):
        with self.lock:
            self.requests += 1
            if latency is not None:
                self.latencies.append(latency)
            if "seq" in reply:
                self.taps += 1
                if reply.get("logged", True):
                    self.logged_seqs.add(reply["seq"])
                else:
                    self.unlogged += 1
                self.generations.add(reply.get("generation"))

    def error(self, text):
        with self.lock:
            if len(self.errors) < 50:
                self.errors.append(text)
            else:
                self.errors[-1] = "... more errors"

    def take_interval(self):
        with self.lock:
            lat, self.latencies = self.latencies, []
            taps, self.taps = self.taps, 0
            reqs, self.requests = self.requests, 0
            errs = len(self.errors)
        return lat, taps, reqs, errs


def proc_sample(pid):
    children, zombies = children_of(pid)
    return rss_kib(pid), open_fds(pid), children, zombies


def run_soak(args):
    duration = parse_duration(args.duration)
    daemon_bin = os.path.abspath(args.daemon)
    work = tempfile.mkdtemp(prefix="tgsoak-", dir="/tmp")
    stop = threading.Event()
    stats = Stats()
    failures = []
    config = os.path.join(work, "tapgrid.json")
    with open(config, "w") as f:
        f.write(CONFIG)
    os.chmod(config, 0o644)
    sock_path = os.path.join(work, "s.sock")
    log_path = os.path.join(work, "events.jsonl")
    stderr = open(os.path.join(work, "stderr.txt"), "wb")
    daemon = subprocess.Popen([daemon_bin, "--config", config], stdout=subprocess.DEVNULL, stderr=stderr)
    checked_logs = {"records": 0, "files": 0, "seqs": set(), "bad": []}

    def check_log_file(path):
        with open(path, "rb") as f:
            data = f.read()
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        else:
            checked_logs["bad"].append(f"{path}: does not end in a newline")
        run_ids = set()
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
            except ValueError:
                checked_logs["bad"].append(f"{os.path.basename(path)} line {number}: unreadable: {line[:80]!r}")
                continue
            checked_logs["records"] += 1
            run_ids.add(record.get("run"))
            if "event" not in record and "seq" in record:
                checked_logs["seqs"].add(record["seq"])
        checked_logs["files"] += 1
        if len(run_ids) > 1:
            checked_logs["bad"].append(f"{path}: {len(run_ids)} run ids")

    try:
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                Client(sock_path).close()
                break
            except OSError:
                if daemon.poll() is not None:
                    raise SystemExit("tapgridd exited early; see its stderr in " + work)
                time.sleep(0.05)
        pid = daemon.pid

        def tapper(index):
            c = Client(sock_path)
            rng = random.Random(index)
            while not stop.is_set():
                x = rng.choice([rng.uniform(0, 79), rng.uniform(400, 500)])  # log grid, or a miss
                start = time.perf_counter()
                try:
                    reply = c.request({"op": "tap", "x": x, "y": rng.uniform(0, 99), "layout": "home", "id": index})
                except Exception as e:  # noqa: BLE001 - any failure is a finding
                    stats.error(f"tapper {index}: {e}")
                    c = Client(sock_path)
                    continue
                stats.tap(reply, time.perf_counter() - start)
                if "error" in reply or reply.get("id") != index:
                    stats.error(f"tapper {index}: {reply}")
                time.sleep(0.01)

        def toucher():
            c = Client(sock_path)
            rng = random.Random(7)
            while not stop.is_set():
                slot = rng.randrange(4)
                grid = rng.choice([0, 1, 2])
                x, y = grid * 80 + rng.uniform(20, 60), rng.uniform(20, 80)
                try:
                    replies = [c.request({"op": "down", "x": x, "y": y, "slot": slot, "layout": "home"})]
                    kind = rng.random()
                    time.sleep(rng.choice([0.01, 0.05, 0.2, 0.4]))
                    if kind < 0.15:
                        replies.append(c.request({"op": "move", "x": x + 40, "y": y, "slot": slot}))  # a swipe
                    elif kind < 0.3:
                        replies.append(c.request({"op": "cancel", "slot": slot}))
                    else:
                        replies.append(c.request({"op": "move", "x": x + 1, "y": y + 1, "slot": slot}))
                    replies.append(c.request({"op": "up", "slot": slot}))
                except Exception as e:  # noqa: BLE001
                    stats.error(f"touch: {e}")
                    c = Client(sock_path)
                    continue
                for reply in replies:
                    if "error" in reply:
                        if reply["error"]["code"] != "bad_request":  # a slot the engine ended is fine
                            stats.error(f"touch: {reply}")
                        continue
                    for tap in reply.get("taps", []):
                        stats.tap(tap)

        def pages():
            c = Client(sock_path)
            while not stop.is_set():
                try:
                    stats.tap(c.request({"op": "tap", "x": 350, "y": 50, "layout": "home"}))
                    time.sleep(0.25)
                    reply = c.request({"op": "use", "layout": "home"})
                    if not reply.get("ok"):
                        stats.error(f"use: {reply}")
                except Exception as e:  # noqa: BLE001
                    stats.error(f"pages: {e}")
                    c = Client(sock_path)
                time.sleep(0.25)

        def scripts():
            c = Client(sock_path)
            while not stop.is_set():
                try:
                    reply = c.request({"op": "tap", "x": 270, "y": 50, "layout": "home"})
                    stats.tap(reply)
                    if reply.get("outcome") not in ("dispatched", "busy"):
                        stats.error(f"script: {reply}")
                except Exception as e:  # noqa: BLE001
                    stats.error(f"scripts: {e}")
                    c = Client(sock_path)
                time.sleep(0.2)

        def control():
            c = Client(sock_path, timeout=30)
            last_hup = time.time()
            while not stop.is_set():
                try:
                    for op in ({"op": "status"}, {"op": "layouts"}, {"op": "hit", "x": 10, "y": 10}, {"op": "reload"}):
                        reply = c.request(op)
                        if "error" in reply:
                            stats.error(f"control: {reply}")
                except Exception as e:  # noqa: BLE001
                    stats.error(f"control: {e}")
                    c = Client(sock_path, timeout=30)
                if time.time() - last_hup > 15:
                    os.kill(pid, signal.SIGHUP)
                    last_hup = time.time()
                stop.wait(5)

        threads = [threading.Thread(target=tapper, args=(i,), daemon=True) for i in range(4)]
        threads += [threading.Thread(target=f, daemon=True) for f in (toucher, pages, scripts, control)]
        for t in threads:
            t.start()

        print(f"soak: {duration:.0f} s against {daemon_bin} (pid {pid}) in {work}, a row every {args.sample:.0f} s", flush=True)
        header = f"{'min':>5} {'RSS MiB':>8} {'fds':>4} {'children':>8} {'zombies':>7} {'taps':>7} {'taps/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'errors':>6}"
        print(header, flush=True)
        rows = [header]
        start = time.time()
        next_sample = start + args.sample
        next_rotation = start + args.rotate
        rotations = 0
        while time.time() - start < duration:
            now = time.time()
            if now >= next_rotation:
                rotations += 1
                rotated = log_path + f".{rotations}"
                os.rename(log_path, rotated)
                os.kill(pid, signal.SIGUSR1)
                time.sleep(1)  # records already begun go to the renamed file; then it is closed
                check_log_file(rotated)
                os.unlink(rotated)
                next_rotation += args.rotate
            if now >= next_sample:
                lat, taps, reqs, errs = stats.take_interval()
                rss, fds, children, zombies = proc_sample(pid)
                row = (f"{(now - start) / 60:5.1f} {rss / 1024:8.1f} {fds:4d} {children:8d} {zombies:7d} {taps:7d} "
                       f"{taps / args.sample:7.0f} {percentile(lat, 0.5) * 1000:7.2f} {percentile(lat, 0.99) * 1000:7.2f} "
                       f"{(max(lat) if lat else float('nan')) * 1000:7.2f} {errs:6d}")
                print(row, flush=True)
                rows.append(row)
                next_sample += args.sample
            if daemon.poll() is not None:
                failures.append(f"tapgridd exited during the soak with {daemon.returncode}")
                break
            time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join(timeout=30)
        status = Client(sock_path).request({"op": "status"}) if daemon.poll() is None else {}
        daemon.send_signal(signal.SIGTERM)
        try:
            code = daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            daemon.kill()
            code = "killed after 30 s"
        if code != 0:
            failures.append(f"tapgridd exited with {code} after SIGTERM")
        check_log_file(log_path)
        missing = stats.logged_seqs - checked_logs["seqs"]
        print()
        print(f"status at the end: taps {status.get('taps')}, generation {status.get('generation')}, "
              f"children {status.get('children')}, clients {status.get('clients')}, eventLog {status.get('eventLog')}")
        print(f"client-seen taps answered as logged: {len(stats.logged_seqs)}, not logged: {stats.unlogged}; "
              f"log records read: {checked_logs['records']} in {checked_logs['files']} files "
              f"({rotations} rotations); answered-as-logged taps missing from the logs: {len(missing)}")
        print(f"generations seen in replies: {min(g for g in stats.generations if g)}..{max(g for g in stats.generations if g)}")
        if missing:
            failures.append(f"{len(missing)} taps answered as logged are not in the logs, e.g. {sorted(missing)[:5]}")
        failures += checked_logs["bad"][:10]
        failures += stats.errors[:10]
        if stats.unlogged:
            failures.append(f"{stats.unlogged} taps were answered with logged: false")
    finally:
        stop.set()
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
        stderr.close()
        if failures and args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("FAILED:")
        for f in failures:
            print("  " + f)
        return 1
    print("soak passed: the daemon served throughout, exited 0, and the logs hold every tap answered as logged")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", default="2m", help="how long: 90, 90s, 30m, 2h (default 2m)")
    parser.add_argument("--sample", type=float, default=60, help="seconds between rows (default 60)")
    parser.add_argument("--rotate", type=float, default=300, help="seconds between log rotations (default 300)")
    parser.add_argument("--daemon", default=os.path.join(ROOT, ".build/debug/tapgridd"))
    parser.add_argument("--keep", action="store_true", help="keep the work folder when something failed")
    args = parser.parse_args()
    return run_soak(args)


if __name__ == "__main__":
    sys.exit(main())
