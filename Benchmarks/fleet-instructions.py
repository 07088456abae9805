#!/usr/bin/env python3
"""Instructions per tap with MQTT on, under callgrind: tapgridd against the C reference
(Benchmarks/limit-server.c built with -DWITH_MQTT, as fleet-bench.py builds it), the same request
lines (bench.py's, on its layout), both publishing each tap's record and action at QoS 1 to one
real mosquitto. Taps go 100 at a time; each run waits until everything is acknowledged
(status backlog 0), so the PUBACKs are counted too. The figure is the difference between 6,000
and 1,000 taps divided by 5,000 (start-up, connect and shutdown cancel out).

With --batch 1 the taps go one at a time, each answered before the next (request/response: a
wakeup per tap, and the PUBACKs' wakeups between).

usage: fleet-instructions.py [--batch N] [TAPGRIDD]   (run fleet-bench.py --quick once first: it builds the C reference)"""
import sys, os, json, socket, subprocess, time, tempfile, shutil
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench
fb = __import__("fleet-bench")
work = tempfile.mkdtemp(prefix="cgcmp")
port = fb.free_port(); broker = fb.Broker(work, port); broker.start()
leaves = bench.probe_leaves(work, bench.BENCH_GRID, "bench")
lines = os.path.join(work, "bench.lines"); bench.write_lines(lines, 8000, 7)
allLines = open(lines, "rb").read().split(b"\n")
def status(sock):
    return bench.ask(sock, b'{"op":"status"}')
def run(name, argv, sock, n):
    out = os.path.join(work, f"cg.{name}.{n}")
    p = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + argv, cwd=work,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bench.connect(sock, 120).close()
    for _ in range(600):
        if status(sock).get("mqtt", {}).get("connected"): break
        time.sleep(0.1)
    s = bench.connect(sock); f = s.makefile("rb")
    for i in range(0, n, BATCH):
        chunk = allLines[i:i+BATCH]
        s.sendall(b"\n".join(chunk) + b"\n")
        for _ in chunk: f.readline()
    s.close()
    for _ in range(1200):
        if status(sock)["mqtt"].get("backlog", 1) == 0: break
        time.sleep(0.1)
    time.sleep(0.5)
    p.terminate(); p.wait(120)
    for line in open(out):
        if line.startswith("summary:") or line.startswith("totals:"): return int(line.split()[1])
args = sys.argv[1:]
BATCH = int(args[args.index("--batch") + 1]) if "--batch" in args else 100
if "--batch" in args: del args[args.index("--batch"):args.index("--batch") + 2]
daemon = os.path.abspath(args[0]) if args else bench.DAEMON
limit = os.path.join(bench.BUILD, "limit-server-mqtt")
try:
    res = {}
    for n in (1000, 6000):
        for f_ in ("tg-events.jsonl", "tg-events.jsonl.mqtt"):
            try: os.unlink(os.path.join(work, f_))
            except FileNotFoundError: pass
        shutil.rmtree(os.path.join(work, "c-on"), ignore_errors=True); os.makedirs(os.path.join(work, "c-on"))
        res[("tg", n)] = run("tg", [daemon, "--config", fb.config(work, "tg", port)], os.path.join(work, "tg.sock"), n)
        res[("c", n)] = run("c", [limit, os.path.join(work, "c-on.sock"), leaves, "--log", os.path.join(work, "c-on"), "--mqtt", "127.0.0.1", str(port), "cref"],
                            os.path.join(work, "c-on.sock"), n)
    tg, c = ((res[(w, 6000)] - res[(w, 1000)]) / 5000 for w in ("tg", "c"))
    shape = "" if BATCH == 100 else f", taps {BATCH} at a time"
    print(f"  MQTT on{shape}: tapgridd {tg:,.0f}, C reference {c:,.0f} user-space instructions per tap (callgrind), {tg / c:.2f}x")
finally:
    broker.stop()
    if not os.environ.get("KEEP"): shutil.rmtree(work, ignore_errors=True)
    else: print("kept", work)
