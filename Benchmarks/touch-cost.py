#!/usr/bin/env python3
"""What one touchscreen contact costs the daemon, from libinput's descriptor to a contact in layout
units: user-space instructions counted by callgrind (deterministic: the figure to compare).

    python3 Benchmarks/touch-cost.py [--moves N] [--tapgridd PATH]

Plays a finger that goes down, moves N times (every 4 ms, 250 frames a second: a fast touchscreen)
and lifts, into the release `tapgridd` reading the fake touchscreen of Tests/touch under umockdev
(path backend, no --verbose), under `valgrind --tool=callgrind`, collecting only inside
`TouchscreenInput.handle` (the event loop's call when libinput's descriptor is readable: dispatch,
libevdev's reads, libinput's touch processing, the reader's frame handling, the mapping, the
`onContact` closure). Prints instructions per contact, split by library, and the part umockdev's
LD_PRELOAD library adds (its socket round trips for every read: not there on real hardware).

Needs: `swift build -c release --product tapgridd`, umockdev, valgrind, a C compiler.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOUCH = os.path.join(ROOT, "Tests", "touch")
LEAD_S = 6.0  # valgrind makes the daemon start slowly


def events(moves, base_us):
    lines = []

    def add(at_us, kind, code, value):
        # Timestamps a second ahead of the playback: under valgrind the daemon reads late, and
        # libinput would log "event processing lagging behind" (and the daemon format it).
        t = base_us + at_us + (1_000_000 if at_us else 0)
        lines.append(f"E: {t // 1_000_000}.{t % 1_000_000} {kind:04x} {code:04x} {value}")

    add(0, 0, 0, 0)
    t = int(LEAD_S * 1e6)
    for kind, code, value in [(3, 47, 0), (3, 57, 1), (3, 53, 1024), (3, 54, 512), (1, 330, 1), (3, 0, 1024), (3, 1, 512), (0, 0, 0)]:
        add(t, kind, code, value)
    for i in range(moves):
        t += 4000
        x = 1024 + i % 2048
        add(t, 3, 53, x)
        add(t, 3, 0, x)
        add(t, 0, 0, 0)
    t += 4000
    for kind, code, value in [(3, 57, -1), (1, 330, 0), (0, 0, 0)]:
        add(t, kind, code, value)
    return "\n".join(lines) + "\n", t / 1e6


def children(pid):
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as handle:
            found += [int(p) for p in handle.read().split()]
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--tapgridd", default=os.path.join(ROOT, ".build", "release", "tapgridd"))
    parser.add_argument("--keep", metavar="FILE", help="copy callgrind's output there (for callgrind_annotate)")
    args = parser.parse_args()
    for tool in ["/usr/bin/umockdev-run", "/usr/bin/valgrind", "/usr/bin/cc", args.tapgridd]:
        if not os.access(tool, os.X_OK):
            sys.exit(f"touch-cost.py: {tool} is missing (see the docstring)")
    with tempfile.TemporaryDirectory(prefix="tapgrid-touch-cost-") as work:
        shim = os.path.join(work, "umockdev-shim.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", shim, os.path.join(TOUCH, "umockdev-shim.c"), "-ldl"], check=True)
        with open(os.path.join(work, "tapgrid.json"), "w") as handle:
            handle.write('{"socket": {"path": "t.sock"}, "eventLog": false, "layouts": {"home": {"width": 800, '
                         '"height": 480, "grid": {"cols": [{"tag": 1}]}}}, "touch": {"devices": ["/dev/input/event20"]}}\n')
        text, last = events(args.moves, int(time.clock_gettime(time.CLOCK_MONOTONIC) * 1e6))
        with open(os.path.join(work, "moves.events"), "w") as handle:
            handle.write(text)
        out = os.path.join(work, "callgrind.out")
        command = ["umockdev-run", "-d", os.path.join(TOUCH, "fake-touchscreen.umockdev"),
                   "-i", f"/dev/input/event20={TOUCH}/fake-touchscreen.ioctl", "-e", f"/dev/input/event20={work}/moves.events", "--",
                   "valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=*16TouchscreenInputC*6handle5token*",
                   f"--callgrind-out-file={out}", args.tapgridd, "--config", os.path.join(work, "tapgrid.json")]
        environment = dict(os.environ, LD_PRELOAD=shim)
        with open(os.path.join(work, "stderr"), "w") as errors:
            runner = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=errors)
            time.sleep(last + 2)
            for child in children(runner.pid):
                os.kill(child, signal.SIGTERM)
            runner.wait(timeout=30)
        with open(os.path.join(work, "stderr")) as handle:
            log = handle.read()
        if '"Fake Touchscreen" (/dev/input/event20) added' not in log:
            sys.exit("touch-cost.py: the daemon did not add the fake touchscreen:\n" + log)
        annotated = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", "--auto=no", out],
                                   capture_output=True, text=True, check=True).stdout
        with open(out) as handle:
            raw = handle.read()
        if args.keep:
            with open(args.keep, "w") as handle:
                handle.write(raw)

    total = 0
    by_object = {}
    for line in annotated.splitlines():
        match = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*?)(?: \[(.*)\])?$", line)
        if not match or "PROGRAM TOTALS" in line:
            continue
        cost = int(match.group(1).replace(",", ""))
        obj = os.path.basename(match.group(3) or "?")
        by_object[obj] = by_object.get(obj, 0) + cost
        total += cost
    # Contacts: calls of libinput_event_touch_get_time_usec (once per contact); wakeups: calls of
    # the toggled function.
    def calls(function):
        count = 0
        ids = {m.group(1): m.group(2) for m in re.finditer(r"^c?fn=\((\d+)\) (\S+)", raw, re.M)}
        for match in re.finditer(r"^cfn=\((\d+)\)(?: \S+)?\ncalls=(\d+)", raw, re.M):
            if function in (ids.get(match.group(1)) or ""):
                count += int(match.group(2))
        return count

    def api_calls(prefixes):
        """Calls per exported function whose name starts with one of `prefixes`."""
        ids = {m.group(1): m.group(2) for m in re.finditer(r"^c?fn=\((\d+)\) (\S+)", raw, re.M)}
        counts = {}
        for match in re.finditer(r"^cfn=\((\d+)\)(?: \S+)?\ncalls=(\d+)", raw, re.M):
            name = ids.get(match.group(1)) or ""
            if name.startswith(prefixes):
                counts[name] = counts.get(name, 0) + int(match.group(2))
        return counts

    contacts = calls("libinput_event_touch_get_time_usec")
    dispatches = calls("libinput_dispatch")
    if contacts == 0:
        sys.exit("touch-cost.py: no contact was read:\n" + log)
    umockdev = sum(cost for obj, cost in by_object.items() if "umockdev" in obj)
    print(f"{contacts} contacts in {dispatches} wakeups (libinput_dispatch calls), {args.moves} moves played at 250 Hz")
    print(f"user-space instructions per contact: {total / contacts:,.0f}; without umockdev's preload library: {(total - umockdev) / contacts:,.0f}")
    for obj, cost in sorted(by_object.items(), key=lambda item: -item[1]):
        if cost / contacts >= 1:
            print(f"  {cost / contacts:10,.0f}  {obj if obj != '?' else '(no object named)'}")
    print("calls per contact into libinput, libevdev and the read syscall's wrappers:")
    for name, count in sorted(api_calls(("libinput_", "libevdev_", "read", "epoll_wait", "mtdev_")).items()):
        print(f"  {count / contacts:6.2f}  {name}")


if __name__ == "__main__":
    main()
