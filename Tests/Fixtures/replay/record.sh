#!/bin/bash
# Re-records the replay fixtures from the built daemon: for each NAME.taps beside this script it
# starts .build/debug/tapgridd on NAME.json (socket and event log in a scratch folder), sends the
# taps with .build/debug/tapgrid, checks that each tap got the outcome the taps file expects,
# stops the daemon and copies its event log to NAME.jsonl.
#
#   Tests/Fixtures/replay/record.sh [--check] [NAME...]
#
# Without NAMEs it records every fixture. --check records into the scratch folder instead and
# compares with the committed NAME.jsonl, ignoring what differs from run to run by nature ("time",
# "run", and a child's "durationMs"): exit 1 and a diff when the daemon now writes other records.
# Run `swift build` first; BIN=path/to/folder uses other binaries.
#
# A NAME.taps file holds one step a line ("#" starts a comment):
#   tap X Y LAYOUT OUTCOME [hold]  `tapgrid tap X Y --layout LAYOUT` ("-": no --layout, the
#                                   current layout), which must answer OUTCOME; then wait until the
#                                   daemon runs and queues no child, so that each child's exit
#                                   record comes where it does on every run; with "hold" the next
#                                   step follows at once (to catch a child still running: busy)
#   sleep SECONDS                  let time pass (debounce windows)
#   tear BYTES                     when copying the log, drop its last BYTES bytes: the log ends in
#                                   a torn line, as one copied while being written or cut short by
#                                   a crash does
#   touch X Y HOLD|double N        a finger through `tapgrid touch X Y` held HOLD milliseconds (or
#                                   `--double`), which must make N tap records (long presses, hold
#                                   repeats and single taps after a double-tap window included:
#                                   those reach no client, the log has them)
#   set {"op":"set",...}            the rest of the line sent as one request line (tapgrid has no
#                                   `set` command; a few lines of python3 are the client), which
#                                   must be answered {"ok":true,...}
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${BIN:-$root/.build/debug}
check=false
if [[ ${1:-} == --check ]]; then check=true; shift; fi
names=("$@")
if [[ ${#names[@]} == 0 ]]; then
    for file in "$here"/*.taps; do names+=("$(basename "$file" .taps)"); done
fi
for program in tapgridd tapgrid; do
    [[ -x $bin/$program ]] || { echo "record.sh: $bin/$program is missing; run swift build first" >&2; exit 1; }
done

work=$(mktemp -d /tmp/tapgrid-record.XXXXXX)
daemon=
cleanup() {
    if [[ -n $daemon ]]; then kill -KILL "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

socket=$work/d.sock
fail() {
    echo "record.sh: $name: $*" >&2
    if [[ -s $work/stderr ]]; then sed 's/^/  tapgridd: /' "$work/stderr" >&2; fi
    exit 1
}

# Waits until the daemon runs and queues no child (its exit records are then in the log).
settle() {
    local tries=0
    until "$bin/tapgrid" status --socket "$socket" --json | grep -q '"children":0,"queued":0'; do
        tries=$((tries + 1))
        ((tries < 500)) || fail "children still running after 10 s"
        sleep 0.02
    done
}

# Sends one request line to the daemon and prints its reply line.
request() {
    python3 - "$socket" "$1" <<'PYTHON'
import socket, sys
client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
client.connect(sys.argv[1])
client.sendall(sys.argv[2].encode() + b"\n")
client.shutdown(socket.SHUT_WR)
reply = b""
while not reply.endswith(b"\n"):
    chunk = client.recv(65536)
    if not chunk:
        break
    reply += chunk
sys.stdout.write(reply.decode())
PYTHON
}

# The records with what changes from run to run blanked out.
normalized() {
    sed -e 's/"time":"[^"]*"/"time":_/' -e 's/"run":"[^"]*"/"run":_/' -e 's/"durationMs":[0-9]*/"durationMs":_/' \
        -e 's/"ms":[0-9.]*/"ms":_/' -e 's/"conn":[0-9]*/"conn":_/' "$1"
}

status=0
for name in "${names[@]}"; do
    [[ -f $here/$name.taps && -f $here/$name.json ]] || { echo "record.sh: no $name.taps and $name.json in $here" >&2; exit 1; }
    rm -f "$work"/events.jsonl "$work"/stderr "$socket"
    STATE_DIRECTORY=$work "$bin/tapgridd" --config "$here/$name.json" --socket "$socket" 2>"$work/stderr" &
    daemon=$!
    tries=0
    until "$bin/tapgrid" status --socket "$socket" >/dev/null 2>&1; do
        tries=$((tries + 1))
        ((tries < 500)) || fail "tapgridd did not start listening within 10 s"
        kill -0 "$daemon" 2>/dev/null || fail "tapgridd exited"
        sleep 0.02
    done

    taps=0
    tear=0
    number=0
    while IFS= read -r line || [[ -n $line ]]; do
        number=$((number + 1))
        line=${line%%#*}
        read -r -a words <<<"$line"
        [[ ${#words[@]} == 0 ]] && continue
        case ${words[0]} in
        tap)
            [[ ${#words[@]} == 5 || (${#words[@]} == 6 && ${words[5]} == hold) ]] ||
                fail "$name.taps:$number: expected tap X Y LAYOUT OUTCOME [hold]"
            layout=()
            [[ ${words[3]} == - ]] || layout=(--layout "${words[3]}")
            reply=$("$bin/tapgrid" tap "${words[1]}" "${words[2]}" "${layout[@]}" --socket "$socket" --json) ||
                fail "$name.taps:$number: tapgrid tap failed"
            outcome=$(sed -n 's/.*"outcome":"\([a-z]*\)".*/\1/p' <<<"$reply")
            [[ $outcome == "${words[4]}" ]] ||
                fail "$name.taps:$number: expected outcome ${words[4]}, the daemon answered $reply"
            taps=$((taps + 1))
            [[ ${#words[@]} == 6 ]] || settle
            ;;
        touch)
            [[ ${#words[@]} == 5 ]] || fail "$name.taps:$number: expected touch X Y HOLD|double N"
            before=$(grep -c '"outcome":' "$work/events.jsonl" || true)
            press=(--hold "${words[3]}")
            [[ ${words[3]} == double ]] && press=(--double)
            "$bin/tapgrid" touch "${words[1]}" "${words[2]}" "${press[@]}" --socket "$socket" --json >/dev/null ||
                fail "$name.taps:$number: tapgrid touch failed"
            after=$(grep -c '"outcome":' "$work/events.jsonl" || true)
            [[ $((after - before)) == "${words[4]}" ]] ||
                fail "$name.taps:$number: expected ${words[4]} tap records, the daemon wrote $((after - before))"
            taps=$((taps + words[4]))
            ;;
        set)
            json=${line#*set}
            reply=$(request "$json") || fail "$name.taps:$number: the set request failed"
            [[ $reply == '{"ok":true,'* ]] || fail "$name.taps:$number: expected {\"ok\":true,...}, the daemon answered $reply"
            ;;
        sleep) sleep "${words[1]}" ;;
        tear) tear=${words[1]} ;;
        *) fail "$name.taps:$number: unknown step '${words[0]}'" ;;
        esac
    done <"$here/$name.taps"

    kill -TERM "$daemon"
    wait "$daemon" || fail "tapgridd exited with status $? on SIGTERM"
    daemon=
    recorded=$(grep -c '"outcome":' "$work/events.jsonl" || true)
    [[ $recorded == "$taps" ]] || fail "the event log holds $recorded tap records for $taps taps"
    if ((tear > 0)); then
        size=$(stat -c %s "$work/events.jsonl")
        truncate -s $((size - tear)) "$work/events.jsonl"
    fi

    if $check; then
        if ! diff -u <(normalized "$here/$name.jsonl") <(normalized "$work/events.jsonl") >"$work/diff"; then
            echo "record.sh: $name.jsonl: the daemon now records (-committed +now, time, run and durationMs blanked):" >&2
            cat "$work/diff" >&2
            status=1
        else
            echo "$name.jsonl: the same records"
        fi
    else
        cp "$work/events.jsonl" "$here/$name.jsonl"
        echo "$name.jsonl: $taps taps"
    fi
done
exit $status
