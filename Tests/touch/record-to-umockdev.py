#!/usr/bin/env python3
"""Turn a `libinput record` YAML file into the three files umockdev needs to fake that device.

    record-to-umockdev.py RECORDING.yml [--output PREFIX] [--device INDEX] [--node /dev/input/eventN]
                          [--lead SECONDS] [--base SECONDS]

writes PREFIX.umockdev (the sysfs device and its udev properties), PREFIX.ioctl (libevdev's probes
answered: names, ids, event bits, axis ranges, multitouch slots) and PREFIX.events (the recorded
events, evemu style), then prints the command that plays them into a program, e.g.

    LD_PRELOAD=$PWD/umockdev-shim.so umockdev-run -d PREFIX.umockdev \
      -i /dev/input/event20=PREFIX.ioctl -e /dev/input/event20=PREFIX.events -- tapgridd --config ...

So a user's recording of a real panel (`libinput record /dev/input/eventN > panel.yml`, the file
bug reports carry) becomes a test that needs no hardware, no /dev/uinput and no root.

Events: umockdev plays the first event at once and each later one at its recorded gap, and libinput
throws away what arrived before it set the device up; so a SYN_REPORT comes first at --base
(default 0) and the recording follows --lead seconds later (default 4: time for a daemon to start).
Under umockdev-shim.c each frame gets the time it is written as its timestamp (as a kernel
stamps it); without the shim, give --base the current CLOCK_MONOTONIC seconds to make the
timestamps libinput reports line up with the reader's clock. Times are written `SEC.USEC` with USEC a plain integer (`4.50000` is 4 s
and 50000 us): evemu reads it so, and umockdev 0.17 reads a zero-padded `4.050000` as octal.

Only Python's standard library: the YAML that `libinput record` writes is read by a small block
parser of its own (mappings, sequences, flow lists, scalars, comments).
"""

import argparse
import os
import re
import sys

PROGRAM = os.path.basename(sys.argv[0])

# Event types (linux/input-event-codes.h) and the byte sizes libevdev asks with: its bitmaps are
# unsigned longs, so every size is a multiple of 8.
EV_SYN, EV_KEY, EV_REL, EV_ABS, EV_MSC, EV_SW, EV_LED, EV_SND, EV_REP, EV_FF = 0, 1, 2, 3, 4, 5, 17, 18, 20, 21
BITS_BYTES = {EV_SYN: 8, EV_KEY: 96, EV_REL: 8, EV_ABS: 8, EV_MSC: 8, EV_SW: 8, EV_LED: 8, EV_SND: 8, EV_FF: 16}
ABS_MT_SLOT, ABS_MT_FIRST, ABS_MT_LAST, ABS_MT_TRACKING_ID = 0x2F, 0x30, 0x3D, 0x39
STRING_BUFFER = 255  # libevdev: ioctl(fd, EVIOCGNAME(sizeof(buf) - 1), buf) with char buf[256]


class ConversionError(Exception):
    pass


# ---- a small YAML reader for what `libinput record` writes -----------------------------------

def top_level(text, start=0, end=None):
    """(index, character) of `text[start:end]` outside quotes and brackets: where a `#` starts a
    comment and a `,` separates flow-list items."""
    quote = None
    depth = 0
    for i in range(start, len(text) if end is None else end):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif depth == 0:
            yield i, ch


def strip_comment(line):
    """The line without a trailing `# comment` (a # inside quotes or brackets is kept)."""
    for i, ch in top_level(line):
        if ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def scalar(text):
    text = text.strip()
    if text == "" or text == "~" or text == "null":
        return None
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        body = text[1:-1]
        return body.replace('\\"', '"').replace("\\\\", "\\") if text[0] == '"' else body.replace("''", "'")
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?", text):
        return float(text)
    if text.startswith("[") and text.endswith("]"):
        return flow_list(text)
    if text.startswith("{") and text.endswith("}"):
        return text  # libinput's own events (--with-libinput): not needed here
    return text


def flow_list(text):
    """`[1, [2, 3], "a, b"]` -> a list."""
    if not text[1:-1].strip():
        return []
    items, start = [], 1
    for i, ch in top_level(text, 1, len(text) - 1):
        if ch == ",":
            items.append(scalar(text[start:i]))
            start = i + 1
    items.append(scalar(text[start:-1]))
    return items


def parse_yaml(text):
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise ConversionError(f"line {number}: tab in indentation")
        line = strip_comment(raw)
        if line.strip() and line.strip() != "---":
            lines.append((len(line) - len(line.lstrip()), line.strip(), number))
    value, index = parse_block(lines, 0, 0)
    if index != len(lines):
        raise ConversionError(f"line {lines[index][2]}: unexpected indentation")
    return value


def split_key(content):
    """`key: rest` -> (key, rest), else None (a plain scalar)."""
    match = re.match(r'^("[^"]*"|\'[^\']*\'|[^\s\[\]{}"\'][^:]*?):(\s+|$)(.*)$', content)
    if not match:
        return None
    key = scalar(match.group(1))
    return key, match.group(3)


def parse_block(lines, index, indent):
    if index >= len(lines) or lines[index][0] < indent:
        return None, index
    indent = lines[index][0]
    if lines[index][1].startswith("- ") or lines[index][1] == "-":
        return parse_sequence(lines, index, indent)
    return parse_mapping(lines, index, indent, {})


def parse_sequence(lines, index, indent):
    items = []
    while index < len(lines) and lines[index][0] == indent and (lines[index][1].startswith("- ") or lines[index][1] == "-"):
        rest = lines[index][1][1:].strip()
        item_indent = indent + 2
        index += 1
        if not rest:
            value, index = parse_block(lines, index, indent + 1)
        elif split_key(rest) and not rest.startswith("["):
            # `- key: value` opens a mapping whose other keys sit under `key`.
            key, after = split_key(rest)
            mapping = {}
            mapping[key], index = parse_value(lines, index, item_indent, after)
            value, index = parse_mapping(lines, index, item_indent, mapping)
        else:
            value = scalar(rest)
        items.append(value)
    return items, index


def parse_mapping(lines, index, indent, mapping):
    while index < len(lines) and lines[index][0] == indent and not lines[index][1].startswith("- "):
        pair = split_key(lines[index][1])
        if pair is None:
            raise ConversionError(f"line {lines[index][2]}: expected `key: value`, found {lines[index][1]!r}")
        key, rest = pair
        mapping[key], index = parse_value(lines, index + 1, indent, rest)
    return mapping, index


def parse_value(lines, index, indent, rest):
    """The value after `key:` (on its line, or the block below it; a sequence may sit at the
    key's own indentation)."""
    if rest.strip():
        return scalar(rest), index
    if index < len(lines):
        next_indent, content, _ = lines[index]
        if next_indent > indent or (next_indent == indent and (content.startswith("- ") or content == "-")):
            return parse_block(lines, index, next_indent)
    return None, index


# ---- from the recording to umockdev's files --------------------------------------------------

def bitmask_words(bits, size_bytes):
    """udev's text of a bitmap: unsigned longs, most significant first, leading zeros dropped."""
    words = [0] * (size_bytes // 8)
    for bit in bits:
        words[bit // 64] |= 1 << (bit % 64)
    while len(words) > 1 and words[-1] == 0:
        words.pop()
    return " ".join("%x" % word for word in reversed(words))


def bitmask_bytes(bits, size_bytes):
    data = bytearray(size_bytes)
    for bit in bits:
        if bit // 8 < size_bytes:
            data[bit // 8] |= 1 << (bit % 8)
    return bytes(data)


def hexa(data):
    return data.hex().upper()


def c_string(text):
    raw = text.encode("utf-8")[: STRING_BUFFER - 1]
    return len(raw) + 1, raw + b"\0" * (STRING_BUFFER - len(raw))


def le32(*values):
    return b"".join((value & 0xFFFFFFFF).to_bytes(4, "little") for value in values)


def device_files(device, node):
    evdev = device.get("evdev") or {}
    name = evdev.get("name")
    if not isinstance(name, str):
        raise ConversionError("the device has no evdev name")
    ids = evdev.get("id") or [0, 0, 0, 0]
    if not (isinstance(ids, list) and len(ids) == 4 and all(isinstance(i, int) for i in ids)):
        raise ConversionError(f"evdev id: expected [bus, vendor, product, version], found {ids!r}")
    codes = {int(k): sorted(v or []) for k, v in (evdev.get("codes") or {}).items()}
    absinfo = {int(k): v for k, v in (evdev.get("absinfo") or {}).items()}
    props = evdev.get("properties") or []
    for code, info in absinfo.items():
        if not (isinstance(info, list) and len(info) == 5):
            raise ConversionError(f"evdev absinfo {code}: expected [min, max, fuzz, flat, resolution], found {info!r}")
    types = sorted(codes)
    match = re.fullmatch(r"/dev/input/event(\d+)", node)
    if not match:
        raise ConversionError(f"{node}: expected a node /dev/input/eventN")
    number = int(match.group(1))
    minor = 64 + number
    udev_props = [p for p in ((device.get("udev") or {}).get("properties") or []) if isinstance(p, str) and "=" in p]
    if not any(p.startswith("ID_INPUT=") for p in udev_props):
        udev_props.insert(0, "ID_INPUT=1")

    # The event node and its parent input device (what libudev shows libinput).
    sys_input = f"/devices/virtual/input/input{number}"
    lines = [f"P: {sys_input}/event{number}", f"N: input/event{number}", f"E: DEVNAME={node}",
             "E: MAJOR=13", f"E: MINOR={minor}", "E: SUBSYSTEM=input"]
    lines += [f"E: {p}" for p in udev_props]
    lines += [f"A: dev=13:{minor}", "", f"P: {sys_input}"]
    lines.append(f'E: NAME="{name}"')
    lines.append("E: PRODUCT=%x/%x/%x/%x" % tuple(ids))
    lines.append(f"E: PROP={bitmask_words(props, 8)}")
    lines.append(f"E: EV={bitmask_words(types, 8)}")
    for kind, label in ((EV_KEY, "KEY"), (EV_REL, "REL"), (EV_ABS, "ABS"), (EV_MSC, "MSC"), (EV_SW, "SW"), (EV_LED, "LED")):
        if codes.get(kind):
            lines.append(f"E: {label}={bitmask_words(codes[kind], BITS_BYTES[kind])}")
    lines.append("E: SUBSYSTEM=input")
    lines += [f"E: {p}" for p in udev_props if p.startswith("ID_INPUT")]
    lines += ["E: TAGS=:seat:", f"A: name={name}", f"A: properties={bitmask_words(props, 8)}", "A: uniq=", ""]
    umockdev = "\n".join(lines)

    # libevdev's probes in the order libevdev_set_fd makes them (umockdev answers an ioctl from
    # the entries after the last one it used, so the MT slots come out per code in order).
    name_len, name_buf = c_string(name)
    empty_len, empty_buf = c_string("")
    ioctl = [f"@DEV {node}",
             f"EVIOCGBIT(0) 8 {hexa(bitmask_bytes(types, 8))}",
             f"EVIOCGNAME(0) {name_len} {hexa(name_buf)}",
             f"EVIOCGPHYS(0) {empty_len} {hexa(empty_buf)}",
             f"EVIOCGUNIQ(0) {empty_len} {hexa(empty_buf)}",
             "EVIOCGID 0 " + hexa(b"".join((i & 0xFFFF).to_bytes(2, "little") for i in ids)),
             "EVIOCGVERSION 0 " + hexa(le32(0x010001)),
             f"EVIOCGPROP(0) 8 {hexa(bitmask_bytes(props, 8))}"]
    for kind in (EV_REL, EV_ABS, EV_LED, EV_KEY, EV_SW, EV_MSC, EV_FF, EV_SND):
        size = BITS_BYTES[kind]
        ioctl.append(f"EVIOCGBIT({kind}) {size} {hexa(bitmask_bytes(codes.get(kind, []), size))}")
    ioctl += [f"EVIOCGKEY(0) 96 {'00' * 96}", f"EVIOCGLED(0) 8 {'00' * 8}", f"EVIOCGSW(0) 8 {'00' * 8}"]
    if EV_REP in codes:
        ioctl.append("EVIOCGREP 0 " + hexa(le32(250, 33)))
    for code in sorted(absinfo):
        low, high, fuzz, flat, resolution = absinfo[code]
        label = "EVIOCGABS" if code == 0 else f"EVIOCGABS({code})"
        ioctl.append(f"{label} 0 {hexa(le32(0, low, high, fuzz, flat, resolution))}")
    if ABS_MT_SLOT in absinfo:
        slots = absinfo[ABS_MT_SLOT][1] + 1
        for code in sorted(c for c in absinfo if ABS_MT_FIRST <= c <= ABS_MT_LAST):
            value = -1 if code == ABS_MT_TRACKING_ID else 0
            ioctl.append(f"EVIOCGMTSLOTS(0) 0 {hexa(le32(code, *([value] * slots)))}")
    return umockdev, "\n".join(ioctl) + "\n"


def time_text(microseconds):
    return f"{microseconds // 1_000_000}.{microseconds % 1_000_000}"


def events_file(device, base_us, lead_us, source):
    frames = device.get("events") or []
    rows = []
    for frame in frames:
        if not isinstance(frame, dict):
            continue
        for event in frame.get("evdev") or []:
            if not (isinstance(event, list) and len(event) == 5 and all(isinstance(v, int) for v in event)):
                raise ConversionError(f"evdev event: expected [sec, usec, type, code, value], found {event!r}")
            rows.append(event)
    if not rows:
        raise ConversionError("the device has no evdev events")
    first = rows[0][0] * 1_000_000 + rows[0][1]
    out = [f"# {device.get('node')} from {source}, by {PROGRAM}: evemu events for umockdev-run -e.",
           "# E: SEC.USEC TYPE CODE VALUE; USEC is a plain integer (4.50000 is 4 s 50000 us): umockdev",
           "# 0.17 reads a zero-padded 4.050000 as octal. A SYN_REPORT first, the recording later.",
           f"E: {time_text(base_us)} 0000 0000 0"]
    for sec, usec, kind, code, value in rows:
        at = base_us + lead_us + sec * 1_000_000 + usec - first
        out.append(f"E: {time_text(at)} {kind:04x} {code:04x} {value}")
    return "\n".join(out) + "\n", len(rows)


def main(argv):
    parser = argparse.ArgumentParser(prog=PROGRAM, description="Turn a `libinput record` YAML file into umockdev's device, ioctl and events files.")
    parser.add_argument("recording", help="a file written by `libinput record`")
    parser.add_argument("--output", help="prefix of the files to write (default: the recording's path without .yml)")
    parser.add_argument("--device", type=int, default=0, help="which device of the recording (default 0, the first)")
    parser.add_argument("--node", help="the fake node, /dev/input/eventN (default: the recorded one)")
    parser.add_argument("--lead", type=float, default=4.0, help="seconds between the first SYN_REPORT and the recording (default 4)")
    parser.add_argument("--base", type=float, default=0.0, help="timestamp of the first SYN_REPORT, seconds (default 0)")
    args = parser.parse_args(argv)
    try:
        try:
            with open(args.recording, encoding="utf-8") as handle:
                document = parse_yaml(handle.read())
        except OSError as error:
            raise ConversionError(f"cannot read it: {error.strerror}")
        devices = document.get("devices") if isinstance(document, dict) else None
        if not isinstance(devices, list) or not devices:
            raise ConversionError("no devices in this recording (is it a `libinput record` file?)")
        if not 0 <= args.device < len(devices):
            raise ConversionError(f"--device {args.device}: the recording has {len(devices)} device(s), 0 to {len(devices) - 1}")
        device = devices[args.device]
        node = args.node or device.get("node")
        if not isinstance(node, str):
            raise ConversionError("the device has no node; give --node /dev/input/eventN")
        if args.lead < 0 or args.base < 0:
            raise ConversionError("--lead and --base must be >= 0")
        umockdev, ioctl = device_files(device, node)
        events, count = events_file(device, round(args.base * 1e6), round(args.lead * 1e6), os.path.basename(args.recording))
    except ConversionError as error:
        print(f"{PROGRAM}: {args.recording}: {error}", file=sys.stderr)
        return 1
    prefix = args.output or re.sub(r"\.ya?ml$", "", args.recording)
    written = []
    for suffix, content in ((".umockdev", umockdev), (".ioctl", ioctl), (".events", events)):
        try:
            with open(prefix + suffix, "w", encoding="utf-8") as handle:
                handle.write(content)
        except OSError as error:
            print(f"{PROGRAM}: cannot write {prefix + suffix}: {error.strerror}", file=sys.stderr)
            return 1
        written.append(prefix + suffix)
    print(f"{node}: \"{device['evdev']['name']}\", {count} events -> {', '.join(written)}")
    print("play them (build the shim once: cc -shared -fPIC -o umockdev-shim.so Tests/touch/umockdev-shim.c -ldl):")
    print(f"LD_PRELOAD=$PWD/umockdev-shim.so umockdev-run -d {prefix}.umockdev "
          f"-i {node}={prefix}.ioctl -e {node}={prefix}.events -- PROGRAM")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
