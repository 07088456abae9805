#!/usr/bin/env python3
"""`make bench`'s fleet figures (docs/benchmarks.md "Benchmarks"), each taken side by side in one run with a
real mosquitto (Debian's) on a free loopback port. The reference is a C server doing tapgridd's
work: Benchmarks/limit-server.c with --log (the record before the reply, the log line, each with
one write(2) per wakeup) and --mqtt (the same two QoS 1 publishes per tap, the same windows and
pacing, libmosquitto on its one epoll loop), numbers and time formatted by hand.

  taps/s                   tapgridd with `mqtt` against the C reference with --mqtt, both on one
                           broker that keeps up (every message acknowledged before the next run),
                           driven alike by Benchmarks/load-client.c: request/response with 1 and
                           4 clients, and a fixed count pipelined; and the same without MQTT
                           (tapgridd without `mqtt`, the C server with --log only) for scale.
  CPU per tap              a paced load (load-client rate: 5,000 and 15,000 taps/s, one line at a
                           time), the server's utime+stime (/proc/PID/stat) from before the run
                           until its backlog is 0, divided by the taps.
  tap to broker            Benchmarks/mqtt-latency.c: one tap at a time at 10 and 1,000 taps/s,
                           from its request line to its record arriving from the broker (a QoS 0
                           subscriber); p50 and p99 over every round's taps.
  backlog drain            10,000 taps while the broker is away (their records wait in the event
                           log), then the broker comes back: records per second from the
                           reconnect until `status` says backlog 0, with no subscriber and with a
                           mosquitto_sub taking P/+/events at QoS 1; against
                           Benchmarks/mqtt-publisher.c (libmosquitto, QoS 1, 100 in flight)
                           publishing the same records, with the same subscriber or none.
  group command            20 daemons in one group; a `status` command to the group; the time
                           until each node's result arrives (median, p99 over every node and run).

Medians of interleaved rounds (the order alternates every round). TAPGRIDD=path measures another
build of the daemon.

usage: fleet-bench.py [--quick] [-v]"""
import json, os, socket, statistics, struct, subprocess, sys, tempfile, shutil, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "Benchmarks")
BUILD = os.path.join(ROOT, ".build", "bench")
sys.path.insert(0, BENCH)
bench = __import__("bench")
DAEMON = bench.DAEMON


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Broker:
    def __init__(self, work, port):
        self.work, self.port, self.proc = work, port, None
        self.conf = os.path.join(work, f"mosquitto-{port}.conf")
        with open(self.conf, "w") as f:
            f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nuser root\n"
                    "max_queued_messages 10000000\nset_tcp_nodelay true\nlog_dest none\n")

    def start(self):
        self.proc = subprocess.Popen(["/usr/sbin/mosquitto", "-c", self.conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.01)
        raise SystemExit("mosquitto did not start")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class MQTT:
    """A minimal MQTT 3.1.1 client (stdlib sockets): connect, subscribe, publish at QoS 0, read."""

    def __init__(self, port, client_id):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        cid = client_id.encode()
        body = b"\x00\x04MQTT\x04\x02\x00\x3c" + struct.pack("!H", len(cid)) + cid
        self._send(0x10, body)
        self.buffer = b""
        kind, _ = self.read()
        assert kind == 0x20, "no CONNACK"

    @staticmethod
    def _length(n):
        out = b""
        while True:
            byte, n = n % 128, n // 128
            out += bytes([byte | (0x80 if n else 0)])
            if not n:
                return out

    def _send(self, header, body):
        self.s.sendall(bytes([header]) + self._length(len(body)) + body)

    def subscribe(self, topic):
        t = topic.encode()
        self._send(0x82, b"\x00\x01" + struct.pack("!H", len(t)) + t + b"\x00")
        while self.read()[0] != 0x90:
            pass

    def publish(self, topic, payload):
        t = topic.encode()
        self._send(0x30, struct.pack("!H", len(t)) + t + payload)

    def read(self):
        """(packet type, body); for PUBLISH the body is (topic, payload)."""
        while True:
            if len(self.buffer) >= 2:
                n, shift, i = 0, 0, 1
                while i < len(self.buffer):
                    n |= (self.buffer[i] & 0x7F) << shift
                    shift += 7
                    i += 1
                    if not self.buffer[i - 1] & 0x80:
                        break
                else:
                    i = None
                if i is not None and len(self.buffer) >= i + n:
                    kind, body = self.buffer[0], self.buffer[i:i + n]
                    self.buffer = self.buffer[i + n:]
                    if kind & 0xF0 == 0x30:
                        tl = struct.unpack("!H", body[:2])[0]
                        skip = 2 if kind & 0x06 else 0
                        return 0x30, (body[2:2 + tl].decode(), body[2 + tl + skip:])
                    return kind & 0xF0, body
            chunk = self.s.recv(65536)
            if not chunk:
                raise SystemExit("broker closed the connection")
            self.buffer += chunk


def config(work, name, port=None, node="bench", groups=(), accept=(), max_age=None):
    c = bench.daemon_config(work, name, bench.BENCH_GRID)
    if port:
        c["mqtt"] = {"broker": f"127.0.0.1:{port}", "node": node, "groups": list(groups), "accept": list(accept)}
        if max_age:
            c["mqtt"]["maxAgeSeconds"] = max_age
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(c, f)
    return path


def status(server):
    return bench.ask(server.sock, b'{"op":"status"}')


def wait_connected(server, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if status(server).get("mqtt", {}).get("connected"):
            return
        time.sleep(0.02)
    raise SystemExit(f"{server.name} did not connect to the broker")


def cpu_seconds(pid):
    """The process's utime + stime (every thread), from /proc/PID/stat, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def drained(server, seconds=180, poll=0.02):
    """Waits until every message of `server` is acknowledged (`status` backlog 0)."""
    deadline = time.time() + seconds
    while True:
        st = status(server)["mqtt"]
        if st["backlog"] == 0:
            return
        if time.time() > deadline:
            raise SystemExit(f"{server.name}: the broker did not keep up: {st}")
        time.sleep(poll)


def build_tools():
    bench.build()
    for name, source, extra in (("mqtt-publisher", "mqtt-publisher.c", []), ("mqtt-latency", "mqtt-latency.c", []),
                                ("limit-server-mqtt", "limit-server.c", ["-DWITH_MQTT"])):
        binary, source = os.path.join(BUILD, name), os.path.join(BENCH, source)
        if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(source):
            subprocess.run(["cc", "-O2", "-Wall", "-o", binary, source, "-lmosquitto"] + extra, check=True)


def truncate_logs(work, keep):
    """Keeps the tmpfs small between runs; not the logs an MQTT feed reads (`keep`)."""
    for name in os.listdir(work):
        path = os.path.join(work, name)
        if os.path.isdir(path):
            truncate_logs(path, keep)
        elif name.endswith((".jsonl", "-log.txt", ".stderr")) and name not in keep:
            os.truncate(path, 0)


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    quick = "--quick" in sys.argv
    build_tools()
    loads = [bench.load_average()]
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix="tapgrid-fleet-bench-", dir=base)
    servers, brokers, subscribers = [], [], []
    rows = []
    rounds = 1 if quick else 5
    seconds = 0.3 if quick else 1.5
    # Records the daemons' feeds read: never truncated under them.
    keep = {"on-events.jsonl", "drain-events.jsonl"}
    try:
        leaves = bench.probe_leaves(work, bench.BENCH_GRID, "bench")
        lines = os.path.join(work, "bench.lines")
        bench.write_lines(lines, 10000, 7)
        limit = os.path.join(BUILD, "limit-server")

        # 1. Taps per second: tapgridd and the C reference, MQTT on and off, side by side.
        broker = Broker(work, free_port())
        brokers.append(broker)
        broker.start()
        for folder in ("c-off", "c-on"):
            os.makedirs(os.path.join(work, folder))
        S = {
            "tapgridd off": bench.Server("off", [DAEMON, "--config", config(work, "off")], os.path.join(work, "off.sock"), work),
            "tapgridd": bench.Server("on", [DAEMON, "--config", config(work, "on", broker.port)], os.path.join(work, "on.sock"), work),
            "C off": bench.Server("c-off", [limit, os.path.join(work, "c-off.sock"), leaves, "--log", os.path.join(work, "c-off")],
                                  os.path.join(work, "c-off.sock"), work),
            "C": bench.Server("c-on", [limit + "-mqtt", os.path.join(work, "c-on.sock"), leaves, "--log", os.path.join(work, "c-on"),
                                       "--mqtt", "127.0.0.1", str(broker.port), "cref"], os.path.join(work, "c-on.sock"), work),
        }
        servers += S.values()
        wait_connected(S["tapgridd"])
        bench.same_answers({"C": S["C"], "tapgridd": S["tapgridd"]}, lines)
        node = {"tapgridd": "bench", "C": "cref"}
        samples = {}

        def add(shape, name, value):
            samples.setdefault(shape, {}).setdefault(name, []).append(value)

        def settle(name):
            if name in node:
                drained(S[name])

        piped_taps = 20_000 if quick else 100_000
        for r in range(rounds):
            order = list(S) if r % 2 == 0 else list(reversed(S))
            bench.progress(f"round {r + 1}: taps/s")
            for name in order:
                one = bench.load("rr", S[name].sock, lines, 1, seconds)
                add("rr1", name, one["ops"] / one["seconds"])
                settle(name)
            for name in order:
                four = bench.load("rr", S[name].sock, lines, 4, seconds)
                add("rr4", name, four["ops"] / four["seconds"])
                settle(name)
            for name in order:
                # A fixed number of taps: their messages reach the broker after the run (the
                # feed lags a flood, nothing is lost), drained before anything else is timed.
                piped = bench.load("count", S[name].sock, lines, piped_taps, 1000)
                add("pipe", name, piped["ops"] / piped["seconds"])
                settle(name)
                truncate_logs(work, keep)
            for shape in ("rr1", "rr4", "pipe"):
                bench.progress(f"round {r + 1} {shape}: " + ", ".join(f"{n} {v[-1]:,.0f}" for n, v in samples[shape].items()))

        # 2. CPU per tap at equal load, MQTT on: the same paced taps, utime+stime until drained.
        rates = (5000, 15000)
        paced = 1 if quick else 2
        behind = {}
        for r in range(rounds):
            order = ["tapgridd", "C"] if r % 2 == 0 else ["C", "tapgridd"]
            for rate in rates:
                for name in order:
                    pid = S[name].proc.pid
                    before = cpu_seconds(pid)
                    out = bench.load("rate", S[name].sock, lines, rate, paced)
                    drained(S[name])
                    add(f"cpu{rate}", name, (cpu_seconds(pid) - before) / out["ops"] * 1e6)
                    kept = out["ops"] / out["seconds"] / rate
                    behind[(rate, name)] = min(behind.get((rate, name), 1.0), kept)
                    truncate_logs(work, keep)
                bench.progress(f"round {r + 1} cpu {rate}/s: " + ", ".join(f"{n} {v[-1]:.2f} us" for n, v in samples[f'cpu{rate}'].items()))

        # 3. Tap to broker: one tap at a time, its record's arrival at a subscriber.
        latency = {}
        shapes = ((10, 10 if quick else 20), (1000, 300 if quick else 1000))
        for r in range(rounds):
            order = ["tapgridd", "C"] if r % 2 == 0 else ["C", "tapgridd"]
            for rate, count in shapes:
                for name in order:
                    out = subprocess.run([os.path.join(BUILD, "mqtt-latency"), "127.0.0.1", str(broker.port), f"tapgrid/{node[name]}/events",
                                          S[name].sock, lines, str(rate), str(count)], capture_output=True, text=True)
                    if out.returncode != 0:
                        raise SystemExit(f"mqtt-latency {name}: {out.stderr.strip()} {out.stdout.strip()}")
                    latency.setdefault((rate, name), []).extend(json.loads(out.stdout)["samples_us"])
                    settle(name)
                bench.progress(f"round {r + 1} tap to broker at {rate}/s: " + ", ".join(
                    f"{n} p50 {percentile(latency[(rate, n)], 0.5):.0f} us" for n in order))
        for s in servers:
            s.stop()
        servers = []

        # 4. A backlog drained after an outage, and the C publisher on the same records, with no
        # subscriber and with one.
        drain_taps = 10_000
        drain_rounds = 1 if quick else 3
        away = Broker(work, free_port())
        brokers.append(away)
        # The taps' actions (P/N/action/...) wait at most maxAgeSeconds (30 by default) and are
        # dropped after: an outage longer than that leaves only the records. The drain is that
        # outage, in short: 0.5 s, waited out, so both sides publish the same 10,000 records.
        drain = bench.Server("drain", [DAEMON, "--config", config(work, "drain", away.port, max_age=0.5)],
                             os.path.join(work, "drain.sock"), work)
        servers.append(drain)
        log = os.path.join(work, "drain-events.jsonl")
        publisher = os.path.join(BUILD, "mqtt-publisher")
        rss = None
        for r in range(drain_rounds):
            for subscribed in ((False, True) if r % 2 == 0 else (True, False)):
                shape = "drain sub" if subscribed else "drain"
                start = os.path.getsize(log) if os.path.exists(log) else 0
                bench.load("count", drain.sock, lines, drain_taps, 1000)
                time.sleep(0.05)
                records = os.path.join(work, "drain-round.jsonl")
                with open(log, "rb") as f:
                    f.seek(start)
                    held = f.read()
                with open(records, "wb") as f:
                    f.write(held)
                count = held.count(b"\n")
                time.sleep(0.6)  # the actions age out (see maxAgeSeconds above)
                rss_before = drain.rss_mb()
                away.start()
                if subscribed:
                    subscribers.append(subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(away.port), "-V", "mqttv5", "-q", "1",
                                                         "-t", "tapgrid/+/events"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                    time.sleep(0.1)
                # Timed from the reconnect (the daemon's backoff is not the drain's).
                deadline = time.time() + 40
                while not status(drain).get("mqtt", {}).get("connected"):
                    if time.time() > deadline:
                        raise SystemExit("the drain daemon did not reconnect")
                    time.sleep(0.002)
                started = time.perf_counter()
                peak = rss_before
                while True:
                    st = status(drain)["mqtt"]
                    if st["backlog"] == 0:
                        break
                    peak = max(peak, drain.rss_mb())
                    if time.perf_counter() - started > 300:
                        raise SystemExit(f"the backlog did not drain: {st}")
                    time.sleep(0.002)
                add(shape, "tapgridd", count / (time.perf_counter() - started))
                c = json.loads(subprocess.run([publisher, "127.0.0.1", str(away.port), "tapgrid/c/events", records, "100"],
                                              capture_output=True, text=True, check=True).stdout)
                add(shape, "C", c["messages"] / c["seconds"])
                time.sleep(1.5)  # the heap trim after a drain runs on the daemon's one-second timer
                rss = (rss_before, peak, drain.rss_mb())
                for p_ in subscribers:
                    p_.kill()
                    p_.wait()
                subscribers = []
                away.stop()
                while status(drain).get("mqtt", {}).get("connected"):
                    time.sleep(0.01)
                bench.progress(f"round {r + 1} {shape}: " + ", ".join(f"{n} {v[-1]:,.0f}" for n, v in samples[shape].items()))
        drain.stop()
        servers = []

        # 5. A group command to 20 daemons.
        count = 3 if quick else 20
        runs = 5 if quick else 50
        group = Broker(work, free_port())
        brokers.append(group)
        group.start()
        for k in range(count):
            s = bench.Server(f"n{k}", [DAEMON, "--config", config(work, f"n{k}", group.port, node=f"n{k}", groups=["g"], accept=["status"])],
                             os.path.join(work, f"n{k}.sock"), work)
            servers.append(s)
        for s in servers:
            wait_connected(s)
        client = MQTT(group.port, "tapgrid-bench-controller")
        client.subscribe("tapgrid/+/result")
        time.sleep(0.2)
        latencies, alls = [], []
        for run in range(runs):
            sent = time.perf_counter()
            client.publish("tapgrid/g/command/status", json.dumps({"id": run}).encode())
            seen = set()
            while len(seen) < count:
                kind, body = client.read()
                if kind != 0x30:
                    continue
                topic, payload = body
                if json.loads(payload).get("id") != run:
                    continue
                seen.add(topic)
                latencies.append((time.perf_counter() - sent) * 1000)
            alls.append((time.perf_counter() - sent) * 1000)
        loads.append(bench.load_average())

        # The table: medians, tapgridd / reference, and the range of that ratio over the rounds
        # (each round's pair was taken side by side: the spread is how noisy the figure was).
        def row(label, shape, a, b, target, digits=0, lower_is_better=False):
            x, y = samples[shape][a], samples[shape][b]
            ratios = [q / p for p, q in zip(x, y)]
            spread = f"{min(ratios):.2f}-{max(ratios):.2f}" if len(ratios) > 1 else "-"
            rows.append((label, f"{statistics.median(x):,.{digits}f}", f"{statistics.median(y):,.{digits}f}",
                         f"{statistics.median(y) / statistics.median(x):.2f}x", spread, target))

        row("request/response, 1 client, MQTT on (taps/s)", "rr1", "C", "tapgridd", ">=0.9x")
        row("request/response, 4 clients, MQTT on (taps/s)", "rr4", "C", "tapgridd", ">=0.9x")
        row(f"pipelined, {piped_taps:,} taps in batches of 1,000, MQTT on (taps/s)", "pipe", "C", "tapgridd", ">=0.9x")
        row("request/response, 1 client, MQTT off (taps/s)", "rr1", "C off", "tapgridd off", "")
        row("request/response, 4 clients, MQTT off (taps/s)", "rr4", "C off", "tapgridd off", "")
        row(f"pipelined, {piped_taps:,} taps, MQTT off (taps/s)", "pipe", "C off", "tapgridd off", "")
        for rate in rates:
            note = "".join(f" ({n} kept {behind[(rate, n)]:.0%})" for n in ("C", "tapgridd") if behind[(rate, n)] < 0.97)
            row(f"CPU per tap at {rate:,} taps/s, MQTT on (us){note}", f"cpu{rate}", "C", "tapgridd", "<=1.1x", 2)
        for rate, count_ in shapes:
            c_, t_ = latency[(rate, "C")], latency[(rate, "tapgridd")]
            rows.append((f"tap to broker at {rate:,} taps/s, {len(t_):,} taps (ms, p50 / p99)",
                         f"{percentile(c_, 0.5) / 1000:.2f} / {percentile(c_, 0.99) / 1000:.2f}",
                         f"{percentile(t_, 0.5) / 1000:.2f} / {percentile(t_, 0.99) / 1000:.2f}",
                         f"{percentile(t_, 0.5) / percentile(c_, 0.5):.2f}x / {percentile(t_, 0.99) / percentile(c_, 0.99):.2f}x", "-", ""))
        row(f"backlog of {drain_taps:,} records drained, QoS 1, 100 in flight, no subscriber (records/s)", "drain", "C", "tapgridd", ">=0.8x C")
        row(f"backlog of {drain_taps:,} records drained, QoS 1, 100 in flight, a subscriber (records/s)", "drain sub", "C", "tapgridd", ">=0.8x C")
        rows.append(("RSS before / peak / after the drain (MB)", "-", " / ".join(f"{v:.1f}" for v in rss), "-", "-", "flat"))
        latencies.sort()
        rows.append((f"group command to {count} daemons, each node's result (ms, p50 / p99)", "-",
                     f"{statistics.median(latencies):.2f} / {percentile(latencies, 0.99):.2f}", "-", "-", ""))
        alls.sort()
        rows.append((f"group command to {count} daemons, the last node's result (ms, p50 / p99)", "-",
                     f"{statistics.median(alls):.2f} / {percentile(alls, 0.99):.2f}", "-", "-", ""))
    finally:
        for s in servers:
            s.stop()
        for p_ in subscribers:
            p_.kill()
        for b in brokers:
            b.stop()
        shutil.rmtree(work, ignore_errors=True)
    headers = ("fleet (MQTT)", "reference", "tapgridd", "ratio", "rounds", "target")
    widths = [max(len(r[i]) for r in rows + [headers]) for i in range(len(headers))]
    print(f"tapgridd on a mosquitto broker ({'quick: ' if quick else ''}medians of {rounds} interleaved round{'s' if rounds > 1 else ''}, "
          f"drains {drain_rounds}; reference: Benchmarks/limit-server.c --log [--mqtt], the drain's Benchmarks/mqtt-publisher.c; "
          f"ratio = tapgridd / reference, rounds = its range over the rounds; {os.cpu_count()} CPUs, "
          f"load average {loads[0]:.1f} at the start, {loads[-1]:.1f} at the end)")
    for r in [headers] + rows:
        print("  ".join(c.ljust(widths[i]) if i in (0, len(headers) - 1) else c.rjust(widths[i]) for i, c in enumerate(r)).rstrip())


if __name__ == "__main__":
    main()
