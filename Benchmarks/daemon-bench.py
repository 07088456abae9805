#!/usr/bin/env python3
"""make bench, part 2: tapgridd's tap path over its real Unix socket, against a C baseline
server doing the same system calls per line (read, one write(2) to a log file, one reply).

Measures, for each server: lockstep round-trip latency (one client, one tap at a time;
median and 99th percentile in microseconds), pipelined throughput (8 clients, batches of 64
taps; taps per second, bounded by this Python client) and the server's own CPU time per tap
with one client sending batches of 64 (from /proc/PID/stat: the client-independent cost). The daemon runs the release build with its event log on.
Loopback only; bounded in count and time; it stops by itself."""
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DAEMON = os.path.join(ROOT, ".build/release/tapgridd")

CONFIG = {
    "socket": {"path": "d.sock"}, "eventLog": {"path": "events.jsonl"},
    "layouts": {"bench": {"width": 1000, "height": 1000, "grid": {"rows": [
        {"size": "20%", "cols": [{"tag": i + 1} for i in range(100)]},
        {"size": "fill", "matrix": {"cols": 50, "count": 2000, "margin": 1, "tag": 100}},
    ]}}},
    # Tags with no route: every tap is hit-tested, routed ("unrouted"), logged and answered.
    "handlers": {"audit": {"type": "log"}}, "routes": [{"tags": [0], "handler": "audit"}],
}

def wait_for(path, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            s = socket.socket(socket.AF_UNIX); s.connect(path); s.close(); return
        except OSError:
            time.sleep(0.02)
    raise SystemExit(f"server did not listen on {path}")

def taps(n, seed):
    x = seed
    out = []
    for _ in range(n):
        x = (x * 1103515245 + 12345) % 2**31
        out.append(b'{"x":%d.5,"y":%d}\n' % (x % 1000, (x >> 10) % 1000))
    return out

def latency(path, count=20000):
    s = socket.socket(socket.AF_UNIX); s.connect(path)
    f = s.makefile("rb")
    lines = taps(count, 7)
    samples = []
    for line in lines:
        t = time.perf_counter_ns()
        s.sendall(line)
        f.readline()
        samples.append((time.perf_counter_ns() - t) / 1000)
    s.close()
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99)]

def throughput(path, clients=8, batches=150, batch=64):
    done = [0] * clients
    def run(i):
        s = socket.socket(socket.AF_UNIX); s.connect(path)
        f = s.makefile("rb")
        payload = b"".join(taps(batch, i + 1))
        for _ in range(batches):
            s.sendall(payload)
            for _ in range(batch):
                f.readline()
            done[i] += batch
        s.close()
    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    t = time.perf_counter()
    for th in threads: th.start()
    for th in threads: th.join()
    return sum(done) / (time.perf_counter() - t)

def cpu_seconds(pid):
    """(user, system) CPU seconds the process has used (from /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick

def measure(name, argv, sock, cwd):
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(sock)
        latency(sock, 2000)  # warm up
        p50, p99 = latency(sock)
        rate = throughput(sock)
        # CPU per tap with one pipelining client: batches of 64 lines, each answered before the
        # next is sent, so every run batches the same way (with several clients the batching,
        # and so the per-tap share of the system calls, depends on thread scheduling).
        user0, system0 = cpu_seconds(proc.pid)
        batches, batch = 1500, 64
        throughput(sock, 1, batches, batch)
        user1, system1 = cpu_seconds(proc.pid)
        user_us = (user1 - user0) / (batches * batch) * 1e6
        system_us = (system1 - system0) / (batches * batch) * 1e6
        cpu_us = user_us + system_us
        print(f"  {name:<10} round trip median {p50:6.1f} us, p99 {p99:6.1f} us; pipelined {rate:9.0f} taps/s"
              f" (client-bound)")
        print(f"  {'':<10} server CPU per tap {cpu_us:5.2f} us = user {user_us:5.2f} + kernel {system_us:5.2f} (1 client, batches of 64)")
        return p50, cpu_us
    finally:
        proc.terminate(); proc.wait(10)

def instructions(argv, sock, cwd, taps):
    """User-space instructions the server executes for `taps` pipelined taps (after start-up),
    counted by valgrind's callgrind: deterministic, unlike timings on a shared machine."""
    out = os.path.join(cwd, "callgrind.out")
    proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + argv, cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(sock, 120)
        if taps:
            throughput(sock, 1, taps // 64, 64)
    finally:
        proc.terminate(); proc.wait(120)
    with open(out) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise SystemExit("no callgrind totals")

def instructions_per_tap(name, argv, sock, cwd):
    """Instructions per tap: the difference between 6,400 and 640 taps, so start-up and
    shutdown cancel out."""
    few = instructions(argv, sock, cwd, 640)
    many = instructions(argv, sock, cwd, 6400)
    per_tap = (many - few) / (6400 - 640)
    print(f"  {name:<10} {per_tap:8.0f} user-space instructions per tap (callgrind)")
    return per_tap

def main():
    if not os.path.exists(DAEMON):
        raise SystemExit("build first: swift build -c release --product tapgridd")
    with tempfile.TemporaryDirectory(prefix="tgbench") as tmp:
        with open(os.path.join(tmp, "tapgrid.json"), "w") as f:
            json.dump(CONFIG, f)
        baseline = os.path.join(tmp, "baseline-server")
        subprocess.run(["cc", "-O2", "-o", baseline, os.path.join(ROOT, "Benchmarks/baseline-server.c")], check=True)
        print("Daemon tap path over the Unix socket (release build, event log on)")
        d50, dcpu = measure("tapgridd", [DAEMON, "--config", "tapgrid.json"], os.path.join(tmp, "d.sock"), tmp)
        c50, ccpu = measure("C baseline", [baseline, os.path.join(tmp, "c.sock"), os.path.join(tmp, "c.log")], os.path.join(tmp, "c.sock"), tmp)
        with open(os.path.join(tmp, "events.jsonl"), "rb") as f:
            records = sum(1 for _ in f)
        if shutil.which("valgrind"):
            print("Instructions per tap (release build, event log on)")
            dins = instructions_per_tap("tapgridd", [DAEMON, "--config", "tapgrid.json"], os.path.join(tmp, "d.sock"), tmp)
            cins = instructions_per_tap("C baseline", [baseline, os.path.join(tmp, "c.sock"), os.path.join(tmp, "c.log")],
                                        os.path.join(tmp, "c.sock"), tmp)
            print(f"  tapgridd / C: {dins / max(cins, 1):.1f}x the instructions (the C server parses and hit-tests nothing)")
        print(f"  tapgridd / C: round trip {d50 / c50:.2f}x, server CPU per tap {dcpu / max(ccpu, 1e-9):.2f}x;"
              f" {records} event-log records written")

if __name__ == "__main__":
    main()
