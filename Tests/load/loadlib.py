"""What soak.py and faults.py share: a line-protocol client and figures about a process."""
import json
import os
import socket


class Client:
    """A blocking client of tapgridd's socket: one JSON object per line each way."""

    def __init__(self, path, timeout=10):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buffer = b""

    def send(self, data):
        self.sock.sendall(data)

    def read_line(self):
        """The next reply, parsed; ConnectionError when the daemon closed the connection."""
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed by the daemon")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, obj):
        self.send(json.dumps(obj).encode() + b"\n")
        return self.read_line()

    def close(self):
        self.sock.close()


def percentile(values, p):
    """The p-quantile (0..1) of values, nan for none."""
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def rss_kib(pid):
    """The process's resident memory (VmRSS) in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def children_of(pid):
    """(children, zombies among them) of the process, from /proc/*/stat."""
    count = zombies = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if int(fields[1]) == pid:
            count += 1
            zombies += fields[0] == "Z"
    return count, zombies
