#!/usr/bin/env python3
"""Instructions per tap under callgrind, for the tap path's two reference shapes:

- bench: `make bench`'s layout (100 tagged columns over a 2,000-cell matrix), taps unrouted,
  event log on, one client sending batches of 64;
- matrix-log: a 10x10 matrix whose taps all go to a `log` handler (its stderr line counts),
  event log on /dev/shm, taps pipelined 500 at a time;
- toggle-log: the same taps on 10 columns with `"toggle": true` (each tap flips its grid's
  `active` and writes a state record beside its tap record);
- lockstep: matrix-log's taps one at a time (a request/response client: a wakeup per tap);
- set: `set` requests changing a named column's text (a state record each), 500 at a time.

Instructions are the difference between a long and a short run divided by the extra taps, so
start-up and shutdown cancel out. Deterministic for the same binary and inputs.
usage: instructions.py [DAEMON]   (default .build/release/tapgridd)"""
import json, os, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SHAPES = {
    "bench": ({
        "socket": {"path": "d.sock"}, "eventLog": {"path": "events.jsonl"},
        "layouts": {"bench": {"width": 1000, "height": 1000, "grid": {"rows": [
            {"size": "20%", "cols": [{"tag": i + 1} for i in range(100)]},
            {"size": "fill", "matrix": {"cols": 50, "count": 2000, "margin": 1, "tag": 100}},
        ]}}},
        "handlers": {"audit": {"type": "log"}}, "routes": [{"tags": [0], "handler": "audit"}],
    }, 64),
    "matrix-log": ({
        "socket": {"path": "d.sock"}, "eventLog": {"path": "/dev/shm/tapgrid-instructions.jsonl"},
        "layouts": {"pad": {"width": 1000, "height": 1000,
                            "grid": {"matrix": {"cols": 10, "count": 100, "margin": 0, "tag": 1}}}},
        "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}],
    }, 500),
    "lockstep": (None, 1),
    "toggle-log": ({
        "socket": {"path": "d.sock"}, "eventLog": {"path": "/dev/shm/tapgrid-instructions.jsonl"},
        "layouts": {"pad": {"width": 1000, "height": 1000,
                            "grid": {"cols": [{"tag": 1, "name": f"c{i}", "toggle": True} for i in range(10)]}}},
        "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}],
    }, 500),
    "set": ({
        "socket": {"path": "d.sock"}, "eventLog": {"path": "/dev/shm/tapgrid-instructions.jsonl"},
        "layouts": {"pad": {"width": 1000, "height": 1000,
                            "grid": {"cols": [{"tag": 1, "name": f"c{i}"} for i in range(10)]}}},
        "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}],
    }, 500),
}
# lockstep: matrix-log's taps one at a time, each answered before the next is sent (what a
# request/response client costs per wakeup: the loop, the reads and writes, the flushes).
SHAPES["lockstep"] = (SHAPES["matrix-log"][0], 1)

def wait_for(path, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            s = socket.socket(socket.AF_UNIX); s.connect(path); s.close(); return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"server did not listen on {path}")

def lines(n, shape="bench"):
    x, out = 12345, []
    for k in range(n):
        x = (x * 1103515245 + 12345) % 2**31
        if shape == "set":
            out.append(b'{"op":"set","grid":"c%d","text":"%d %%"}\n' % (x % 10, k))
        else:
            out.append(b'{"x":%d.5,"y":%d}\n' % (x % 1000, (x >> 10) % 1000))
    return out

def send(path, n, batch, shape="bench"):
    s = socket.socket(socket.AF_UNIX); s.connect(path)
    f = s.makefile("rb")
    all_lines = lines(n, shape)
    for i in range(0, n, batch):
        chunk = all_lines[i:i + batch]
        s.sendall(b"".join(chunk))
        for _ in chunk:
            if not f.readline():
                raise SystemExit("the daemon closed the connection")
    s.close()

def total(daemon, cwd, n, batch, shape):
    out = os.path.join(cwd, "callgrind.out")
    sock = os.path.join(cwd, "d.sock")
    proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", daemon,
                             "--config", "tapgrid.json"], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_for(sock, 120)
        send(sock, n, batch, shape)
    finally:
        proc.terminate(); proc.wait(120)
    with open(out) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise SystemExit("no callgrind totals")

def measure(daemon):
    """Instructions per tap for each shape: {name: count}."""
    results = {}
    for name, (config, batch) in SHAPES.items():
        with tempfile.TemporaryDirectory(prefix="tginstr") as tmp:
            with open(os.path.join(tmp, "tapgrid.json"), "w") as f:
                json.dump(config, f)
            few = total(daemon, tmp, 1000, batch, name)
            many = total(daemon, tmp, 6000, batch, name)
            results[name] = (many - few) / 5000
        # The event log and the cells file the daemon keeps beside it (toggle-log, set).
        for left in ("/dev/shm/tapgrid-instructions.jsonl", "/dev/shm/cells.json"):
            try:
                os.unlink(left)
            except FileNotFoundError:
                pass
    return results


def main():
    daemon = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/tapgridd"))
    for name, count in measure(daemon).items():
        what = "set request" if name == "set" else "tap"
        print(f"  {name:<11} {count:8.0f} user-space instructions per {what} (callgrind)")

if __name__ == "__main__":
    main()
