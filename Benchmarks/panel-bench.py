#!/usr/bin/env python3
"""`make bench`'s browser-panel figures (docs/benchmarks.md "Benchmarks"), against a release tapgridd with a
panel on a free loopback port:

  socket taps with 50 streams   request/response taps per second from Benchmarks/load-client.c,
                                with no event stream open vs 50 open (read by one process,
                                Benchmarks/stream-reader.c),
                                medians of interleaved rounds; target >= 0.9x. Each stream's tap
                                events are counted: with the taps its `skipped` events counted they
                                must make up every tap of the round (the event log's records).
  touch to record               a touch (60 ms down, as a person taps, 100 ms apart) in a real
                                headless Chromium (Debian's, over DevTools) to the event log's
                                record of its release: the page's pointerup time
                                (performance.timeOrigin + event.timeStamp) against the record's
                                monotonic "ms"; p50 and p99 over 200 touches; target p99 < 20 ms.
  set to page                   a `set` on the socket to the page showing the new text (a
                                MutationObserver's time in the page); p50 and p99 over 100 sets.

usage: panel-bench.py [--quick] [--rounds N] [--streams-only] [--no-pin]
  --streams-only: the first figure alone, with each stream's count of tap events
  --no-pin: the daemon, the load client and the streams' reader share every CPU (by default,
            with two or more, the daemon and the client share the first, the reader has the second)"""
import json, os, socket, statistics, subprocess, sys, tempfile, shutil, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "Benchmarks")
sys.path.insert(0, BENCH)
sys.path.insert(0, os.path.join(ROOT, "Tests", "panel"))
bench = __import__("bench")
DAEMON = bench.DAEMON  # .build/release/tapgridd, or TAPGRIDD=path for a before/after comparison

READER = os.path.join(bench.BUILD, "stream-reader")  # Benchmarks/stream-reader.c


from support import free_port  # noqa: E402


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def option(name, default):
    """The value after `name` on the command line, else `default`."""
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def tap_records(path):
    """The event log's tap records so far (one per tap event the streams get)."""
    with open(path, "rb") as f:
        return sum(1 for line in f if b'"outcome":' in line)


def print_rows(rows, quick):
    width = max(len(r[0]) for r in rows)
    print("\nBrowser panel" + (" (quick: figures too noisy to judge)" if quick else ""))
    print(f"{'':{width}}  {'a':>10}  {'b':>10}  {'b/a':>6}  target")
    for row in rows:
        print(f"{row[0]:{width}}  {row[1]:>10}  {row[2]:>10}  {row[3]:>6}  {row[4]}")


def main():
    quick = "--quick" in sys.argv
    streams_only = "--streams-only" in sys.argv
    bench.build()
    work = tempfile.mkdtemp(prefix="tgpanelbench-")
    port = free_port()
    config = bench.daemon_config(work, "panel", bench.BENCH_GRID)
    config["panel"] = {"listen": "127.0.0.1:%d" % port, "maxClients": 64}
    config["layouts"]["bench"]["grid"] = {"rows": [
        {"size": "10%", "cols": [{"name": "label", "size": "50%", "tag": 7}, {"name": "touch", "size": "50%", "tag": 8}]},
        {"size": "fill", "matrix": {"cols": 10, "count": 100, "margin": 2, "tag": 1}}]}
    path = os.path.join(work, "panel.json")
    with open(path, "w") as f:
        json.dump(config, f)
    lines = os.path.join(work, "lines")
    bench.write_lines(lines, 100_000, 7)
    server = bench.Server("panel", [DAEMON, "--config", path], os.path.join(work, "panel.sock"), work)
    # The daemon and the load client share the first CPU, the streams' reader has the second: the
    # figure is what the streams cost the daemon, not the reader's share of two CPUs.
    pin = len(os.sched_getaffinity(0)) >= 2 and "--no-pin" not in sys.argv
    cpus = sorted(os.sched_getaffinity(0))
    if pin:
        os.sched_setaffinity(server.proc.pid, {cpus[0]})
    rows = []
    reader = None
    try:
        # 1. Socket request/response with and without 50 streams; each stream must get every
        # tap event (those taken while it fell behind counted by `skipped` events).
        seconds = 0.3 if quick else 1.5
        rounds = int(option("--rounds", 1 if quick else 5))
        samples = {"0": [], "50": []}
        missing, skipped, closed = [], 0, 0
        events_log = os.path.join(work, "panel-events.jsonl")
        for r in range(rounds):
            for streams in (["0", "50"] if r % 2 == 0 else ["50", "0"]):
                if streams == "50":
                    reader = subprocess.Popen([READER, str(port), "50"], stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, text=True)
                    if reader.stdout.readline().strip() != "open":
                        raise SystemExit("the 50 event streams did not open")
                    before = tap_records(events_log)
                if pin:
                    if reader:
                        os.sched_setaffinity(reader.pid, {cpus[1]})
                    os.sched_setaffinity(0, {cpus[0]})  # the load client runs there
                one = bench.load("rr", server.sock, lines, 1, seconds)
                if pin:
                    os.sched_setaffinity(0, cpus)
                samples[streams].append(one["ops"] / one["seconds"])
                if reader:
                    reader.stdin.write("report\n")
                    reader.stdin.flush()
                    counts = json.loads(reader.stdout.readline())
                    taps = tap_records(events_log) - before
                    for got, counted, gone in counts:
                        if got + counted != taps:
                            missing.append(taps - got - counted)
                        skipped += counted
                        closed += gone
                    reader.kill()
                    reader.wait()
                    reader = None
                    time.sleep(0.2)  # their hang-ups are noticed
        a, b = statistics.median(samples["0"]), statistics.median(samples["50"])
        rows.append(("socket request/response taps/s, 0 / 50 event streams", f"{a:,.0f}", f"{b:,.0f}", f"{b / a:.2f}x", ">=0.9x"))
        # Every stream's tap events: the ones it got plus those its skipped events counted.
        rows.append(("tap events a stream missed / skipped / streams closed", f"{sum(missing)}", f"{skipped}", f"{closed}", "0 missed"))
        if missing:
            print(f"{len(missing)} stream rounds missed tap events without a skipped count: {missing[:10]}", file=sys.stderr)
        if streams_only:
            return print_rows(rows, quick)

        # 2. Touch to record, 3. set to page, in a real Chromium.
        from devtools import Browser
        browser = Browser()
        try:
            browser.set_viewport(1000, 1000)
            browser.enable_touch()
            browser.navigate("http://127.0.0.1:%d/" % port)
            if not browser.wait_for("document.querySelectorAll('[data-path]').length >= 100", 10):
                raise SystemExit("the page did not draw the layout")
            browser.evaluate("""(() => {
                window.benchUps = [];
                document.addEventListener('pointerup', e => benchUps.push(performance.timeOrigin + e.timeStamp), true);
                window.benchShown = [];
                const label = document.querySelector('[data-path="0/0"]');
                new MutationObserver(() => benchShown.push([label.textContent, performance.timeOrigin + performance.now()]))
                    .observe(label, {childList: true, characterData: true, subtree: true});
                return true; })()""")
            # Cells of both sizes in turn: the wide one of the top row and four of the matrix.
            centres = browser.evaluate("""['0/1', '1/0', '1/44', '1/99', '1/55'].map(path => {
                const r = document.querySelector('[data-path="' + path + '"]').getBoundingClientRect();
                return [r.left + r.width / 2, r.top + r.height / 2]; })""")
            touches = 20 if quick else 200
            # Warm-up, not counted: the page's first contact opens its connection.
            for rect in centres[:2]:
                browser.touch("touchStart", [(rect[0], rect[1], 1)])
                time.sleep(0.06)
                browser.touch("touchEnd", [])
                time.sleep(0.1)
            browser.wait_for("benchUps.length === 2", 5)
            browser.evaluate("benchUps.length = 0")
            time.sleep(0.2)
            with open(os.path.join(work, "panel-events.jsonl")) as f:
                warm = sum(1 for l in f if '"phase":"up"' in l)
            offset = time.time() - time.monotonic()  # the daemon's "ms" is CLOCK_MONOTONIC
            # The page's clock (performance.timeOrigin + now) against this process's: the
            # sample with the shortest round trip, its midpoint (within half that round trip).
            samples = []
            for _ in range(30):
                before = time.time() * 1000
                page = browser.evaluate("performance.timeOrigin + performance.now()")
                after = time.time() * 1000
                samples.append((after - before, page - (before + after) / 2))
            rtt, skew = min(samples)
            print(f"page clock - bench clock: {skew:+.2f} ms (+-{rtt / 2:.2f})", file=sys.stderr)
            for i in range(touches):
                # A person's tap: the finger rests about 60 ms, and taps come a tenth of a second
                # or more apart.
                rect = centres[i % len(centres)]
                browser.touch("touchStart", [(rect[0], rect[1], 1)])
                time.sleep(0.06)
                browser.touch("touchEnd", [])
                time.sleep(0.1)
            ups = []
            deadline = time.time() + 10
            while len(ups) < touches and time.time() < deadline:
                with open(os.path.join(work, "panel-events.jsonl")) as f:
                    ups = [json.loads(l) for l in f if '"phase":"up"' in l][warm:]
                time.sleep(0.05)
            pages = browser.evaluate("benchUps")
            if len(ups) != touches or len(pages) != touches:
                raise SystemExit(f"touch to record: {len(pages)} pointerups, {len(ups)} up records of {touches}")
            latency = [(offset + up["ms"] / 1000) * 1000 - (page - skew) for up, page in zip(ups, pages)]
            rows.append((f"touch to record, {touches} touches in Chromium (ms)", f"p50 {percentile(latency, 50):.2f}",
                         f"p99 {percentile(latency, 99):.2f}", "", "p99 < 20"))

            sets = 20 if quick else 100
            sent = []
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(server.sock)
                replies = s.makefile("rb")
                for i in range(sets):
                    sent.append(time.time() * 1000)
                    s.sendall(b'{"op":"set","grid":"label","text":"set %d"}\n' % i)
                    replies.readline()
                    time.sleep(0.02)
            browser.wait_for(f"benchShown.some(e => e[0] === 'set {sets - 1}')", 5)
            shown = {}
            for text, at in browser.evaluate("benchShown"):
                shown.setdefault(text, at)
            delays = [shown[f"set {i}"] - skew - sent[i] for i in range(sets) if f"set {i}" in shown]
            if len(delays) != sets:
                raise SystemExit(f"set to page: {len(delays)} of {sets} sets shown")
            rows.append((f"set to page, {sets} sets (ms)", f"p50 {percentile(delays, 50):.2f}",
                         f"p99 {percentile(delays, 99):.2f}", "", ""))
        finally:
            browser.close()
    finally:
        if reader:
            reader.kill()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    print_rows(rows, quick)


if __name__ == "__main__":
    main()
