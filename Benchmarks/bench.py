#!/usr/bin/env python3
"""`make bench`: tapgridd against the machine's limit and against what users write themselves,
driven by the same C load clients with the same request lines, printed as one table.

Servers (all read the same layout: the C and Python servers get its leaves, resolved by tapgridd):
  C limit      Benchmarks/limit-server.c: single-thread epoll; parse, linear scan, reply. Nothing else.
  C + writes   the same with tapgridd's writes added: an event-log record and a log line per tap,
               each kind written once per read (shows what the event log itself costs).
  Python DIY   Benchmarks/diy-server.py: asyncio, json.loads, linear scan, json.dumps, drain().
  tapgridd     the release build with its real configuration: a `log` handler for every tap, a
               script handler, the event log on (tmpfs), its log on a tmpfs file.

Figures are medians of interleaved runs (each round runs every server once per shape, in a
rotating order), because timings on a shared machine drift by up to 2x between runs while ratios
taken side by side do not. "vs" columns are tapgridd's figure divided by the other server's.
Instructions per tap come from callgrind (Benchmarks/instructions.py): deterministic.

usage: bench.py [--quick] [--rounds N]   (--quick: one short round, for CI: about 20 s)"""
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "Benchmarks")
BUILD = os.path.join(ROOT, ".build", "bench")
# TAPGRIDD=path measures another build (a before/after comparison; Benchmarks/RESULTS.md).
DAEMON = os.environ.get("TAPGRIDD") or os.path.join(ROOT, ".build", "release", "tapgridd")
sys.path.insert(0, BENCH)

SCRIPT_TAG = 500
# 1000x1000: a 10x10 matrix of buttons (margins between them: some taps miss) over a script button.
BENCH_GRID = {"rows": [
    {"size": "90%", "matrix": {"cols": 10, "count": 100, "margin": 2, "tag": 1}},
    {"size": "fill", "tag": SCRIPT_TAG, "action-data": "exit 0"},
]}
# 10,000 grids, for memory and start-up.
BIG_GRID = {"matrix": {"cols": 100, "count": 10000, "margin": 0, "tag": 1}}


def daemon_config(work, name, grid):
    return {
        "socket": {"path": os.path.join(work, name + ".sock")},
        "eventLog": {"path": os.path.join(work, name + "-events.jsonl")},
        "layouts": {"bench": {"width": 1000, "height": 1000, "grid": grid}},
        "handlers": {
            "audit": {"type": "log"},
            "sh": {"type": "script", "interpreter": ["/bin/sh", "-c"], "maxConcurrent": 64, "queue": 100000},
        },
        "routes": [{"tags": [SCRIPT_TAG], "handler": "sh"}, {"handler": "audit"}],
    }


def build():
    os.makedirs(BUILD, exist_ok=True)
    for name, extra in (("load-client", ["-pthread"]), ("limit-server", []), ("stream-reader", [])):
        source = os.path.join(BENCH, name + ".c")
        binary = os.path.join(BUILD, name)
        if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(source):
            subprocess.run(["cc", "-O2", "-Wall", "-o", binary, source] + extra, check=True)
    if not os.path.exists(DAEMON):
        raise SystemExit("build tapgridd first: swift build -c release --product tapgridd (make bench does)")


def connect(path, seconds=10):
    deadline = time.time() + seconds
    while True:
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.time() > deadline:
                raise SystemExit(f"nothing listens on {path}")
            time.sleep(0.01)


def ask(path, line):
    with connect(path) as s:
        s.sendall(line + b"\n")
        return json.loads(s.makefile("rb").readline())


class Server:
    """One server process on its own socket; stopped by `stop`."""

    def __init__(self, name, argv, sock, work, env=None):
        self.name, self.sock = name, sock
        self.log = open(os.path.join(work, name.replace(" ", "-") + ".stderr"), "ab")
        self.proc = subprocess.Popen(argv, cwd=work, stdout=subprocess.DEVNULL, stderr=self.log,
                                     env=dict(os.environ, **(env or {})))
        connect(sock).close()

    def rss_mb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def start_servers(work, leaves, grid, tag):
    """The four servers over `grid`, each on its own socket named after `tag`."""
    config = os.path.join(work, f"tapgridd-{tag}.json")
    with open(config, "w") as f:
        json.dump(daemon_config(work, f"tapgridd-{tag}", grid), f)
    limit = os.path.join(BUILD, "limit-server")
    writes = os.path.join(work, f"writes-{tag}")
    os.makedirs(writes, exist_ok=True)
    spawn = ["--spawn-tag", str(SCRIPT_TAG)]
    return {
        "C limit": Server("C limit", [limit, f"{work}/c-{tag}.sock", leaves] + spawn, f"{work}/c-{tag}.sock", work),
        "C + writes": Server("C + writes", [limit, f"{work}/w-{tag}.sock", leaves, "--log", writes] + spawn,
                             f"{work}/w-{tag}.sock", work),
        "Python DIY": Server("Python DIY", [sys.executable, os.path.join(BENCH, "diy-server.py"), f"{work}/p-{tag}.sock",
                                            leaves] + spawn, f"{work}/p-{tag}.sock", work),
        "tapgridd": Server("tapgridd", [DAEMON, "--config", config], f"{work}/tapgridd-{tag}.sock", work),
    }


def write_leaves(server, path):
    """The layout's leaves as tapgridd resolved them, in its pre-order (`layouts` op)."""
    grids = ask(server.sock, b'{"op":"layouts"}')["layouts"][0]["grids"]
    parents = {g["path"].rpartition("/")[0] for g in grids if g["path"]}
    with open(path, "w") as f:
        for g in grids:
            p = g["path"]
            if p in parents:
                continue  # not a leaf
            x, y, w, h = g["rect"]
            f.write(f"{float(x)!r} {float(y)!r} {float(w)!r} {float(h)!r} {g.get('tag', -1)} {p}\n")


def write_lines(path, count, seed, height=900):
    x = seed
    with open(path, "wb") as f:
        for _ in range(count):
            x = (x * 1103515245 + 12345) % 2**31
            f.write(b'{"x":%d.5,"y":%d}\n' % (x % 1000, (x >> 11) % height))


def load(mode, sock, *args):
    out = subprocess.run([os.path.join(BUILD, "load-client"), mode, sock] + [str(a) for a in args],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"load-client {mode} {sock}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def same_answers(servers, lines_path, count=300):
    """The servers answer the same lines alike (hit path and tag, handler, outcome): they do
    the same work. Exits with the first difference."""
    with open(lines_path, "rb") as f:
        lines = [next(f).rstrip(b"\n") for _ in range(count)]
    answers = {}
    for name, server in servers.items():
        with connect(server.sock) as s:
            reader = s.makefile("rb")
            got = []
            for line in lines:
                s.sendall(line + b"\n")
                r = json.loads(reader.readline())
                hit = r.get("hit") or {}
                got.append((hit.get("path"), hit.get("tag"), r.get("handler"), r.get("outcome")))
            answers[name] = got
    reference = answers["tapgridd"]
    for name, got in answers.items():
        for line, a, b in zip(lines, got, reference):
            if a != b:
                raise SystemExit(f"{name} answers {line.decode()} with {a}, tapgridd with {b}")


def write_touch_lines(path, count):
    """`count` touch ops: a down and its up per contact, slots 0-9 in turn, over the matrix."""
    with open(path, "wb") as f:
        x = 99
        for k in range(count // 2):
            x = (x * 1103515245 + 12345) % 2**31
            slot = k % 10
            f.write(b'{"op":"down","slot":%d,"x":%d,"y":%d}\n{"op":"up","slot":%d}\n'
                    % (slot, x % 1000, (x >> 11) % 900, slot))


def truncate_logs(work):
    """Keeps the tmpfs small between runs (every log is O_APPEND, so truncation is safe)."""
    for folder, _, files in os.walk(work):
        for name in files:
            if name.endswith((".jsonl", "-log.txt", ".stderr")):
                os.truncate(os.path.join(folder, name), 0)


def scripts_done(server, name, target):
    if name == "tapgridd":
        status = ask(server.sock, b'{"op":"status"}')
        return status["children"] == 0 and status["queued"] == 0
    return ask(server.sock, b'{"op":"status"}')["reaped"] >= target


def children_per_second(server, name, script_lines, count):
    before = 0 if name == "tapgridd" else ask(server.sock, b'{"op":"status"}')["reaped"]
    start = time.perf_counter()
    load("count", server.sock, script_lines, count, 100)
    while not scripts_done(server, name, before + count):
        time.sleep(0.002)
    return count / (time.perf_counter() - start)


def latency_with_scripts(server, lines, seconds):
    """p99 of lockstep taps while another client taps the script button 8 times a second."""
    stop = threading.Event()

    def scripts():
        with connect(server.sock) as s:
            reader = s.makefile("rb")
            while not stop.wait(0.125):
                s.sendall(b'{"x":500,"y":950}\n')
                reader.readline()

    t = threading.Thread(target=scripts)
    t.start()
    try:
        return load("rr", server.sock, lines, 1, seconds)["p99_us"]
    finally:
        stop.set()
        t.join()


def ready_ms(argv, work, env=None):
    """From starting the program to its READY=1 on NOTIFY_SOCKET, in ms."""
    notify = os.path.join(work, "notify.sock")
    if os.path.exists(notify):
        os.unlink(notify)
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.bind(notify)
        s.settimeout(30)
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=dict(os.environ, NOTIFY_SOCKET=notify, **(env or {})))
        try:
            while b"READY=1" not in s.recv(4096).split(b"\n"):
                pass
            return (time.perf_counter() - start) * 1000
        finally:
            proc.terminate()
            proc.wait(10)


VERBOSE = "-v" in sys.argv
_started = time.perf_counter()


def progress(what):
    if VERBOSE:
        print(f"[{time.perf_counter() - _started:6.1f} s] {what}", file=sys.stderr, flush=True)


def load_average():
    """The 1-minute load average: how busy the shared machine was (the figures drift with it)."""
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main():
    quick = "--quick" in sys.argv
    loads = [load_average()]
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else (1 if quick else 5)
    seconds = 0.3 if quick else 1.5
    build()
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix="tapgrid-bench-", dir=base)
    servers, big = {}, {}
    rows = {}
    try:
        # The bench layout: servers, leaves, lines.
        leaves = probe_leaves(work, BENCH_GRID, "bench")
        lines = os.path.join(work, "bench.lines")
        write_lines(lines, 10000, 7)
        script_lines = os.path.join(work, "script.lines")
        with open(script_lines, "wb") as f:
            f.write(b'{"x":500,"y":950}\n' * 100)
        # Touch contacts: down/up pairs from 10 slots in turn, each up completing a tap.
        touch_lines = os.path.join(work, "touch.lines")
        write_touch_lines(touch_lines, 10000)
        servers = start_servers(work, leaves, BENCH_GRID, "bench")
        same_answers(servers, lines)
        names = list(servers)

        shapes = ["rr1", "rr4", "pipe", "touch", "p50", "p99", "scripts", "p99 scripts"]
        samples = {shape: {name: [] for name in names} for shape in shapes}
        for r in range(rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            progress(f"round {r + 1}: request/response")
            for name in order:
                s = servers[name]
                one = load("rr", s.sock, lines, 1, seconds)
                samples["rr1"][name].append(one["ops"] / one["seconds"])
                samples["p50"][name].append(one["p50_us"])
                samples["p99"][name].append(one["p99_us"])
            for name in order:
                four = load("rr", servers[name].sock, lines, 4, seconds)
                samples["rr4"][name].append(four["ops"] / four["seconds"])
            progress(f"round {r + 1}: pipelined")
            for name in order:
                piped = load("pipe", servers[name].sock, lines, seconds, 1000)
                samples["pipe"][name].append(piped["ops"] / piped["seconds"])
                truncate_logs(work)
            # Only tapgridd recognizes contacts (the others have no touch ops).
            touched = load("pipe", servers["tapgridd"].sock, touch_lines, seconds, 1000)
            samples["touch"]["tapgridd"].append(touched["ops"] / touched["seconds"])
            truncate_logs(work)
            progress(f"round {r + 1}: scripts")
            for name in order:
                if name == "C + writes":
                    continue
                samples["scripts"][name].append(children_per_second(servers[name], name, script_lines, 200 if quick else 1000))
                samples["p99 scripts"][name].append(latency_with_scripts(servers[name], lines, 1 if quick else 3))
            truncate_logs(work)
            for shape in shapes:
                progress(f"round {r + 1} {shape}: " + ", ".join(f"{n} {v[-1]:,.1f}" for n, v in samples[shape].items() if v))
        med = {shape: {n: statistics.median(v) for n, v in per.items() if v} for shape, per in samples.items()}
        busy = ask(servers["tapgridd"].sock, b'{"op":"status"}')["outcomes"].get("busy", 0)
        if busy:
            raise SystemExit(f"tapgridd answered {busy} script taps busy: raise the bench config's queue")
        for server in servers.values():
            server.stop()
        servers = {}

        progress("memory")
        # Memory on 10,000 grids: idle, then (tapgridd) after 1,000,000 pipelined taps.
        big_leaves = probe_leaves(work, BIG_GRID, "big")
        big_lines = os.path.join(work, "big.lines")
        write_lines(big_lines, 10000, 11, height=1000)
        big = start_servers(work, big_leaves, BIG_GRID, "big")
        rss_idle, rss_after, rss_after2 = {}, {}, {}
        for name, server in big.items():
            ask(server.sock, b'{"x":1,"y":1}')
            rss_idle[name] = server.rss_mb()
        # tapgridd only: the C and Python servers scan 10,000 leaves per tap (10 us and 1 ms).
        # After each run, 1.5 s for the heap trim tapgridd does at most once a second.
        taps = 100_000 if quick else 1_000_000
        load("count", big["tapgridd"].sock, big_lines, taps, 1000)
        time.sleep(1.5)
        rss_after["tapgridd"] = big["tapgridd"].rss_mb()
        truncate_logs(work)
        load("count", big["tapgridd"].sock, big_lines, taps, 1000)
        time.sleep(1.5)
        rss_after2["tapgridd"] = big["tapgridd"].rss_mb()
        for server in big.values():
            server.stop()
        big = {}

        progress("start to READY=1")
        # Start to READY=1.
        example = os.path.join(work, "example")
        shutil.copytree(os.path.join(ROOT, "examples"), example)
        os.makedirs(os.path.join(work, "run"), exist_ok=True)  # the example's socket and event log: ../run/
        big_config = _write(work, "ready-big.json", daemon_config(work, "ready-big", BIG_GRID))
        starts = 3 if quick else 11
        ready = {k: [] for k in ("example", "C limit", "Python DIY", "tapgridd")}
        for _ in range(starts):
            ready["example"].append(ready_ms([DAEMON, "--config", os.path.join(example, "tapgrid.json")], work))
            ready["C limit"].append(ready_ms([os.path.join(BUILD, "limit-server"), f"{work}/rc.sock", big_leaves], work))
            ready["Python DIY"].append(ready_ms([sys.executable, os.path.join(BENCH, "diy-server.py"), f"{work}/rp.sock",
                                                 big_leaves], work))
            ready["tapgridd"].append(ready_ms([DAEMON, "--config", big_config], work))
        ready = {k: statistics.median(v) for k, v in ready.items()}

        instructions = None
        if not quick and shutil.which("valgrind"):
            import instructions as callgrind
            progress("callgrind")
            instructions = callgrind.measure(DAEMON)

        loads.append(load_average())
        print_table(rounds, seconds, quick, med, rss_idle, rss_after, rss_after2, taps, ready, instructions, loads)
    finally:
        for server in list(servers.values()) + list(big.values()):
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


def probe_leaves(work, grid, name):
    """The leaves of `grid` as tapgridd resolves them, in `name`.leaves (what the C and Python
    servers read), from a tapgridd started on it for the purpose."""
    probe = Server("probe", [DAEMON, "--config", _write(work, "probe.json", daemon_config(work, "probe", grid))],
                   os.path.join(work, "probe.sock"), work)
    leaves = os.path.join(work, name + ".leaves")
    try:
        write_leaves(probe, leaves)
    finally:
        probe.stop()
    return leaves


def _write(work, name, config):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        json.dump(config, f)
    return path


def print_table(rounds, seconds, quick, med, rss_idle, rss_after, rss_after2, taps, ready, instructions, loads):
    cols = ["C limit", "C + writes", "Python DIY", "tapgridd"]

    def fmt(v, digits):
        if v is None:
            return "-"
        return f"{v:,.{digits}f}"

    def ratio(a, b):
        return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}x"

    rows = []

    def row(label, values, digits=0, target=""):
        t = values.get("tapgridd")
        rows.append([label] + [fmt(values.get(c), digits) for c in cols]
                    + [ratio(t, values.get("C limit")), ratio(t, values.get("C + writes")), ratio(t, values.get("Python DIY")), target])

    row("request/response, 1 client (taps/s)", med["rr1"], target=">=0.9x C, >=4x Py")
    row("request/response, 4 clients (taps/s)", med["rr4"], target=">=0.9x C, >=4x Py")
    row("pipelined, batches of 1,000 (taps/s)", med["pipe"], target=">=0.8x C")
    row("touch events, down/up pairs, pipelined (events/s)", med["touch"])
    row("round trip p50, 1 client (us)", med["p50"], 1)
    row("round trip p99, 1 client (us)", med["p99"], 1, "<=1.5x C")
    row("RSS idle, 10,000 grids (MB)", rss_idle, 1, "<=20 MB")
    row(f"RSS after {taps:,} taps, 10,000 grids (MB)", rss_after, 1, "idle +1 MB")
    row(f"RSS after {2 * taps:,} taps, 10,000 grids (MB)", rss_after2, 1, "no growth")
    row("start to READY=1, example config (ms)", {"tapgridd": ready["example"]}, 1, "<=50 ms")
    row("start to READY=1, 10,000 grids (ms)", {k: ready[k] for k in ("C limit", "Python DIY", "tapgridd")}, 1, "<=250 ms")
    row("script children started+reaped per s", med["scripts"], target=">=1,500/s")
    row("tap p99 while 8 scripts/s run (us)", med["p99 scripts"], 1, "<=2x idle p99")
    idle = med["p99"].get("tapgridd")
    loaded = med["p99 scripts"].get("tapgridd")
    if instructions:
        for shape, count in instructions.items():
            unit = "set request" if shape == "set" else "tap"
            rows.append([f"callgrind instructions per {unit}, {shape}", "-", "-", "-", f"{count:,.0f}", "-", "-", "-", "deterministic"])

    headers = ["", "C limit", "C + writes", "Python DIY", "tapgridd", "vs C", "vs C+wr", "vs Py", "target"]
    widths = [max(len(str(r[i])) for r in rows + [headers]) for i in range(len(headers))]
    mode = "quick: " if quick else ""
    print(f"tapgridd vs a C epoll server and a Python asyncio server ({mode}medians of {rounds} interleaved "
          f"round{'s' if rounds != 1 else ''}, {seconds:g} s per run; vs = tapgridd / other; {os.cpu_count()} CPUs, "
          f"load average {loads[0]:.1f} at the start, {loads[-1]:.1f} at the end)")
    for r in [headers] + rows:
        print("  ".join(str(c).ljust(widths[i]) if i == 0 or i == len(headers) - 1 else str(c).rjust(widths[i])
                        for i, c in enumerate(r)).rstrip())
    if idle and loaded:
        print(f"tapgridd tap p99 under 8 scripts/s: {loaded / idle:.2f}x its idle p99")


if __name__ == "__main__":
    main()
