#!/usr/bin/env python3
"""`make bench`'s fleet figures (docs/benchmarks.md "Benchmarks"), each taken side by side in one run with a
real mosquitto (Debian's) on a free loopback port:

  taps/s, MQTT on vs off   two release tapgridd on the bench layout, one with `mqtt` (a broker
                           that keeps up: every record acknowledged by the end), driven alike by
                           Benchmarks/load-client.c: request/response and pipelined, medians of
                           interleaved rounds.
  backlog drain            100,000 taps while the broker is away (their records wait in the
                           event log), then the broker comes back: records published per second
                           until `status` says backlog 0, RSS before and after.
  C publisher              Benchmarks/mqtt-publisher.c (libmosquitto, QoS 1, the same 100 in
                           flight) publishing the same event log's lines: the machine's limit.
  group command            20 daemons in one group; a `status` command to the group; the time
                           until each node's result arrives (median, p99 over every node and run).

usage: fleet-bench.py [--quick]"""
import json, os, socket, statistics, struct, subprocess, sys, tempfile, shutil, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "Benchmarks")
BUILD = os.path.join(ROOT, ".build", "bench")
DAEMON = os.path.join(ROOT, ".build", "release", "tapgridd")
sys.path.insert(0, BENCH)
bench = __import__("bench")


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


def config(work, name, port=None, node="bench", groups=(), accept=()):
    c = bench.daemon_config(work, name, bench.BENCH_GRID)
    if port:
        c["mqtt"] = {"broker": f"127.0.0.1:{port}", "node": node, "groups": list(groups), "accept": list(accept)}
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


def main():
    quick = "--quick" in sys.argv
    bench.build()
    publisher = os.path.join(BUILD, "mqtt-publisher")
    source = os.path.join(BENCH, "mqtt-publisher.c")
    if not os.path.exists(publisher) or os.path.getmtime(publisher) < os.path.getmtime(source):
        subprocess.run(["cc", "-O2", "-Wall", "-o", publisher, source, "-lmosquitto"], check=True)
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix="tapgrid-fleet-bench-", dir=base)
    servers, brokers, procs = [], [], []
    rows = []
    try:
        lines = os.path.join(work, "bench.lines")
        bench.write_lines(lines, 10000, 7)
        seconds = 0.3 if quick else 1.5
        rounds = 1 if quick else 5

        # 1. Taps per second, MQTT off and on, side by side.
        broker = Broker(work, free_port())
        brokers.append(broker)
        broker.start()
        off = bench.Server("off", [DAEMON, "--config", config(work, "off")], os.path.join(work, "off.sock"), work)
        on = bench.Server("on", [DAEMON, "--config", config(work, "on", broker.port)], os.path.join(work, "on.sock"), work)
        servers += [off, on]
        wait_connected(on)
        samples = {k: {"off": [], "on": []} for k in ("rr1", "pipe")}
        piped_taps = 20_000 if quick else 200_000

        def drained(seconds=180):
            # The broker keeps up: every record acknowledged before the next run.
            deadline = time.time() + seconds
            while status(on)["mqtt"]["backlog"] > 0:
                if time.time() > deadline:
                    raise SystemExit(f"the broker did not keep up: {status(on)['mqtt']}")
                time.sleep(0.05)

        for r in range(rounds):
            order = [off, on] if r % 2 == 0 else [on, off]
            for s in order:
                one = bench.load("rr", s.sock, lines, 1, seconds)
                samples["rr1"][s.name].append(one["ops"] / one["seconds"])
                drained()
            for s in order:
                # A fixed number of taps: their events reach the broker after the run (the
                # feed lags a flood, nothing is lost), drained before anything else is timed.
                piped = bench.load("count", s.sock, lines, piped_taps, 1000)
                samples["pipe"][s.name].append(piped["ops"] / piped["seconds"])
                drained()
        for shape, label in (("rr1", "request/response, 1 client (taps/s)"), ("pipe", f"pipelined, {piped_taps:,} taps in batches of 1,000 (taps/s)")):
            a, b = statistics.median(samples[shape]["off"]), statistics.median(samples[shape]["on"])
            rows.append((label + ", MQTT off / on", f"{a:,.0f}", f"{b:,.0f}", f"{b / a:.2f}x", ">=0.9x"))
        for s in (off, on):
            s.stop()
        servers = []

        # 2. A backlog drained after an outage, and the C publisher on the same records.
        taps = 10_000 if quick else 100_000
        away = Broker(work, free_port())
        brokers.append(away)
        drain = bench.Server("drain", [DAEMON, "--config", config(work, "drain", away.port)], os.path.join(work, "drain.sock"), work)
        servers.append(drain)
        bench.load("count", drain.sock, lines, taps, 1000)
        log = os.path.join(work, "drain-events.jsonl")
        with open(log, "rb") as f:
            records = sum(1 for _ in f)
        rss_before = drain.rss_mb()
        away.start()
        # Timed from the reconnect (the daemon's backoff, up to 30 s, is not the drain's).
        wait_connected(drain, 40)
        started = time.perf_counter()
        peak = rss_before
        while True:
            st = status(drain)["mqtt"]
            peak = max(peak, drain.rss_mb())
            if st["connected"] and st["backlog"] == 0:
                break
            if time.perf_counter() - started > 300:
                raise SystemExit(f"the backlog did not drain: {st}")
            time.sleep(0.005)
        drained = time.perf_counter() - started
        time.sleep(1.5)  # the heap trim after a drain runs on the daemon's one-second timer
        rss_after = drain.rss_mb()
        drain.stop()
        servers = []
        c = json.loads(subprocess.run([publisher, "127.0.0.1", str(away.port), "tapgrid/c/events", log, "100"],
                                      capture_output=True, text=True, check=True).stdout)
        ours, theirs = records / drained, c["messages"] / c["seconds"]
        rows.append((f"backlog of {records:,} records drained, QoS 1, 100 in flight (records/s)", f"{theirs:,.0f}", f"{ours:,.0f}",
                     f"{ours / theirs:.2f}x", ">=0.8x C"))
        rows.append(("RSS before / peak / after the drain (MB)", "-", f"{rss_before:.1f} / {peak:.1f} / {rss_after:.1f}", "-", "flat"))

        # 3. A group command to 20 daemons.
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
        latencies.sort()
        p = lambda q, v: v[min(len(v) - 1, int(q * len(v)))]
        rows.append((f"group command to {count} daemons, each node's result (ms, p50 / p99)", "-",
                     f"{statistics.median(latencies):.2f} / {p(0.99, latencies):.2f}", "-", ""))
        alls.sort()
        rows.append((f"group command to {count} daemons, the last node's result (ms, p50 / p99)", "-",
                     f"{statistics.median(alls):.2f} / {p(0.99, alls):.2f}", "-", ""))
    finally:
        for s in servers:
            s.stop()
        for p_ in procs:
            p_.kill()
        for b in brokers:
            b.stop()
        shutil.rmtree(work, ignore_errors=True)
    headers = ("fleet (MQTT)", "reference", "tapgridd", "ratio", "target")
    widths = [max(len(r[i]) for r in rows + [headers]) for i in range(5)]
    print(f"tapgridd on a mosquitto broker ({'quick: ' if quick else ''}{os.cpu_count()} CPUs; reference: the same daemon with MQTT off, or the C publisher)")
    for r in [headers] + rows:
        print("  ".join(c.ljust(widths[i]) if i in (0, 4) else c.rjust(widths[i]) for i, c in enumerate(r)).rstrip())


if __name__ == "__main__":
    main()
