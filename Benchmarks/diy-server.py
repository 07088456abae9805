#!/usr/bin/env python3
"""The "do it yourself" server of `make bench`: what a user writes today instead of tapgridd. An
asyncio Unix-socket server that reads request lines, `json.loads` each, hit-tests the layout's
leaves with a linear scan (the first leaf containing the point) and writes `json.dumps` of a reply
shaped like tapgridd's, awaiting `drain()` after each, as the asyncio documentation shows.

--spawn-tag T: taps on leaves tagged T start `/bin/sh -c "exit 0"` (at most 64 at a time, the rest
wait) and a task reaps each; {"op": "status"} answers {"reaped": N, "running": M, "queued": Q}.
With NOTIFY_SOCKET set it sends READY=1 once it listens.
usage: diy-server.py SOCKET LEAVES [--spawn-tag T]   (LEAVES: "x y w h tag path" per line)"""
import asyncio, json, os, socket, sys


def main():
    path, leaves_path = sys.argv[1], sys.argv[2]
    spawn_tag = int(sys.argv[sys.argv.index("--spawn-tag") + 1]) if "--spawn-tag" in sys.argv else None
    leaves = []
    with open(leaves_path) as f:
        for line in f:
            x, y, w, h, tag, grid = line.split()
            leaves.append((float(x), float(y), float(w), float(h), int(tag), grid))
    state = {"seq": 0, "reaped": 0, "running": 0, "queued": 0}
    slots = asyncio.Semaphore(64)

    async def child():
        state["queued"] += 1
        async with slots:
            state["queued"] -= 1
            state["running"] += 1
            proc = await asyncio.create_subprocess_exec("/bin/sh", "-c", "exit 0")
            await proc.wait()
            state["running"] -= 1
            state["reaped"] += 1

    async def handle(reader, writer):
        while True:
            line = await reader.readline()
            if not line:
                break
            request = json.loads(line)
            if request.get("op") == "status":
                reply = {key: state[key] for key in ("reaped", "running", "queued")}
            else:
                x, y = request["x"], request["y"]
                hit = None
                for leaf in leaves:
                    if leaf[0] <= x < leaf[0] + leaf[2] and leaf[1] <= y < leaf[1] + leaf[3]:
                        hit = leaf
                        break
                state["seq"] += 1
                reply = {"seq": state["seq"], "layout": "bench", "generation": 1}
                if hit is None:
                    reply.update({"hit": None, "handler": None, "outcome": "miss"})
                elif hit[4] == spawn_tag:
                    reply.update({"hit": {"path": hit[5], "name": None, "tag": hit[4], "actionData": "exit 0"},
                                  "handler": "sh", "outcome": "dispatched"})
                    asyncio.get_running_loop().create_task(child())
                else:
                    reply.update({"hit": {"path": hit[5], "name": None, "tag": hit[4] if hit[4] >= 0 else None,
                                          "actionData": None}, "handler": "audit", "outcome": "dispatched"})
            writer.write((json.dumps(reply, separators=(",", ":")) + "\n").encode())
            await writer.drain()
        writer.close()

    async def serve():
        if os.path.exists(path):
            os.unlink(path)
        server = await asyncio.start_unix_server(handle, path=path)
        notify = os.environ.get("NOTIFY_SOCKET")
        if notify:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
                s.sendto(b"READY=1", notify)
        async with server:
            await server.serve_forever()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
