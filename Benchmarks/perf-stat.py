#!/usr/bin/env python3
"""`perf stat` of tapgridd beside the C reference doing the same work (Benchmarks/limit-server.c,
see docs/benchmarks.md), per tap: CPU time (task-clock), context switches and system calls by
name (the syscall tracepoints), over the same paced load (load-client rate) and, with MQTT, until
every message is acknowledged (`status` backlog 0). Software events only where the machine has no
hardware counters (a VM: `perf stat -e instructions true` says <not supported>): then no cycles,
IPC, cache or TLB misses; on one that has them, add `--hardware`.

  without --mqtt   C + writes (limit-server --log) against tapgridd without `mqtt`
  with --mqtt      C + MQTT (limit-server --log --mqtt) against tapgridd with `mqtt`, one broker
  --pipelined      RATE*SECONDS taps sent as fast as the server takes them, in batches of 1,000
                   (load-client count), instead of paced
  --daemon NAME=PATH   another tapgridd build as a column of its own (a before/after comparison)

Medians of interleaved rounds (the order turns every round). Needs perf (Debian: linux-perf) and
root or kernel.perf_event_paranoid <= 1 for the tracepoints.

usage: perf-stat.py [--mqtt] [--rate N] [--seconds S] [--pipelined] [--rounds R] [--hardware] [--daemon NAME=PATH]..."""
import os, shutil, signal, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "Benchmarks")
sys.path.insert(0, BENCH)
bench = __import__("bench")
fleet = __import__("fleet-bench")

CALLS = ["read", "write", "sendto", "recvfrom", "pread64", "epoll_wait", "epoll_pwait2", "epoll_ctl", "setsockopt",
         "timerfd_settime", "ioctl", "futex"]
EVENTS = ["task-clock", "context-switches", "raw_syscalls:sys_enter"] + [f"syscalls:sys_enter_{c}" for c in CALLS]
HARDWARE = ["cycles", "instructions", "cache-misses", "dTLB-load-misses", "iTLB-load-misses"]


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def measure(server, lines, rate, seconds, events, mqtt, pipelined):
    """Counts per tap of `events` in `server`'s process (every thread) over one paced run."""
    out = os.path.join(os.path.dirname(server.sock), f"perf-{server.name}.csv")
    perf = subprocess.Popen(["perf", "stat", "-x", ",", "-o", out, "-e", ",".join(events), "-p", str(server.proc.pid)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)  # perf attached
    if pipelined:
        run = bench.load("count", server.sock, lines, int(rate * seconds), 1000)
        run["seconds"] = run["ops"] / rate  # no pace to keep
    else:
        run = bench.load("rate", server.sock, lines, rate, seconds)
    if mqtt:
        fleet.drained(server)
    perf.send_signal(signal.SIGINT)
    perf.wait()
    counts = {}
    with open(out) as f:
        for line in f:
            fields = line.strip().split(",")
            if len(fields) < 3 or line.startswith("#"):
                continue
            try:
                counts[fields[2]] = float(fields[0])
            except ValueError:
                counts[fields[2]] = float("nan")  # <not supported>
    taps = run["ops"]
    per_tap = {k: v / taps for k, v in counts.items()}
    if "task-clock" in per_tap:
        per_tap["task-clock"] *= 1000  # ms -> us
    return per_tap, run["ops"] / run["seconds"] / rate


def main():
    mqtt = "--mqtt" in sys.argv
    pipelined = "--pipelined" in sys.argv
    rate = float(option("--rate", 5000))
    seconds = float(option("--seconds", 2))
    rounds = int(option("--rounds", 3))
    events = EVENTS + (HARDWARE if "--hardware" in sys.argv else [])
    extra = [a.split("=", 1) for i, a in enumerate(sys.argv) if i > 0 and sys.argv[i - 1] == "--daemon"]
    fleet.build_tools()
    work = tempfile.mkdtemp(prefix="tapgrid-perf-stat-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    servers, broker = {}, None
    try:
        leaves = bench.probe_leaves(work, bench.BENCH_GRID, "bench")
        lines = os.path.join(work, "bench.lines")
        bench.write_lines(lines, 10000, 7)
        limit = os.path.join(fleet.BUILD, "limit-server")
        os.makedirs(os.path.join(work, "c"))
        c_args = [limit + ("-mqtt" if mqtt else ""), os.path.join(work, "c.sock"), leaves, "--log", os.path.join(work, "c")]
        if mqtt:
            broker = fleet.Broker(work, fleet.free_port())
            broker.start()
            c_args += ["--mqtt", "127.0.0.1", str(broker.port), "cref"]
        reference = "C + MQTT" if mqtt else "C + writes"
        servers[reference] = bench.Server("c", c_args, os.path.join(work, "c.sock"), work)
        for name, path in [("tapgridd", bench.DAEMON)] + extra:
            config = fleet.config(work, name, broker.port if mqtt else None, node=name)
            servers[name] = bench.Server(name, [path, "--config", config], os.path.join(work, name + ".sock"), work)
            if mqtt:
                fleet.wait_connected(servers[name])
        names = list(servers)
        samples = {n: {} for n in names}
        kept = {n: 1.0 for n in names}
        for r in range(rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for name in order:
                per_tap, k = measure(servers[name], lines, rate, seconds, events, mqtt, pipelined)
                kept[name] = min(kept[name], k)
                for event, value in per_tap.items():
                    samples[name].setdefault(event, []).append(value)
                fleet.truncate_logs(work, {n + "-events.jsonl" for n in names})
            bench.progress(f"round {r + 1}: " + ", ".join(f"{n} {samples[n]['task-clock'][-1]:.2f} us" for n in names))
    finally:
        for s in servers.values():
            s.stop()
        if broker:
            broker.stop()
        shutil.rmtree(work, ignore_errors=True)

    med = {n: {e: statistics.median(v) for e, v in samples[n].items()} for n in names}
    rows = []
    for event in events:
        label = {"task-clock": "CPU time, task-clock (us)", "context-switches": "context switches",
                 "raw_syscalls:sys_enter": "system calls, all"}.get(event, event.replace("syscalls:sys_enter_", "  "))
        values = [med[n].get(event) for n in names]
        if event.startswith("syscalls:") and all(v is not None and v == 0 for v in values):
            continue
        base = values[0]
        cells = [("-" if v is None or v != v else f"{v:,.2f}" if v >= 0.1 or v == 0 else f"{v:.4f}") for v in values]
        ratios = [("-" if not base or v is None or v != v else f"{v / base:.2f}x") for v in values[1:]]
        rows.append([label] + cells + ratios)
    headers = ["per tap"] + names + [f"{n} / {reference}" for n in names[1:]]
    widths = [max(len(r[i]) for r in rows + [headers]) for i in range(len(headers))]
    behind = "".join(f"; {n} kept {k:.0%} of the rate" for n, k in kept.items() if k < 0.97)
    shape = f"{rate * seconds:,.0f} taps pipelined in batches of 1,000" if pipelined else f"{rate:,.0f} taps/s for {seconds:g} s"
    print(f"perf stat per tap, {shape}{', MQTT on, until acknowledged' if mqtt else ''} "
          f"(medians of {rounds} interleaved rounds; {os.cpu_count()} CPUs, load average {bench.load_average():.1f}{behind})")
    for r in [headers] + rows:
        print("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)).rstrip())


if __name__ == "__main__":
    main()
