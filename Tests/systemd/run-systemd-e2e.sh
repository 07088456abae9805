#!/bin/bash
# tapgrid under a real systemd: systemd 252 runs as PID 1 of private PID/mount/UTS/IPC/net/
# cgroup namespaces and boots what `make install` produced (units, sysusers file, programs,
# example config) from overlays, then the checks below talk to it with systemctl, journalctl
# and the tapgrid CLI through nsenter. The host's /etc, /var, /run, /usr/local and cgroups are
# left as they were. About 30 s. The last check runs a probe in place of the daemon under the
# backlight drop-in, against a backlight faked in the namespace.
#
# usage: Tests/systemd/run-systemd-e2e.sh          (or `make test-systemd-e2e`)
#   E2E_MODE=full    (default) every check; needs a daemon that sends READY=1/RELOADING=1/
#                    STOPPING=1/STATUS=/WATCHDOG=1, serves on the passed socket and logs
#                    TAPGRID_* fields to the journal.
#   E2E_MODE=legacy  the harness itself with a daemon that does none of that: a throw-away
#                    drop-in makes the service Type=simple without watchdog, listening on a
#                    socket of its own; checks that need the new behaviour are skipped.
#   E2E_DAEMON=PATH  run this program as /usr/local/bin/tapgridd instead of the one `make
#                    install` built (it must run without the toolchain, from /usr/local/bin).
#   KEEP=1           keep the work directory (journal, overlays) for a look afterwards.
# Exit 0 all passed, 1 a check failed, 77 skipped (not root, no cgroup2, no overlayfs, ...).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
MODE=${E2E_MODE:-full}
case "$MODE" in full|legacy) ;; *) echo "E2E_MODE must be full or legacy, not $MODE" >&2; exit 64;; esac

skip() { echo "SKIP systemd end-to-end: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (namespaces, mounts, cgroups)"
for tool in unshare nsenter setpriv systemd-sysusers /lib/systemd/systemd /usr/bin/python3; do
  command -v "$tool" >/dev/null || skip "$tool is missing (make deps installs util-linux, systemd, python3)"
done
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || skip "no overlay filesystem"
grep -qw overlay /proc/filesystems || skip "no overlay filesystem"
# cgroup2: hybrid hosts mount it at /sys/fs/cgroup/unified, unified ones at /sys/fs/cgroup.
if [ "$(stat -fc %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then CG=/sys/fs/cgroup/unified
elif [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then CG=/sys/fs/cgroup
else skip "no cgroup2 hierarchy"; fi
[ -w "$CG" ] || skip "$CG is not writable"

W=$(mktemp -d /tmp/tgsde2e-XXXXXX)
SUB="$CG/$(basename "$W")"
mkdir "$SUB" || { rm -rf "$W"; skip "cannot create a cgroup under $CG"; }
mkdir -p "$W"/{etc,var}-{upper,work} "$W/units"

SD=; UNSHARE=
IN() { nsenter -t "$SD" -m -p -- "$@"; }
cleanup() {
  if [ -n "$SD" ]; then IN systemctl poweroff --no-block >/dev/null 2>&1 || kill -TERM "$SD" 2>/dev/null || true; fi
  if [ -n "$UNSHARE" ]; then
    for _ in $(seq 50); do kill -0 "$UNSHARE" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$UNSHARE" 2>/dev/null || true; wait "$UNSHARE" 2>/dev/null || true
  fi
  find "$SUB" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then echo "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT

# ---- what `make install` produces, staged; the overlays put it at its real paths ----
make -s install DESTDIR="$W/stage" >"$W/install.log" 2>&1 || { cat "$W/install.log"; echo "FAIL make install DESTDIR=$W/stage"; exit 1; }
STAGE=$W/stage
[ -n "${E2E_DAEMON:-}" ] && install -m 0755 "$E2E_DAEMON" "$STAGE/usr/local/bin/tapgridd"

# e2e-only units and drop-ins, in /run/systemd/system inside the namespace: a minimal target
# that pulls in journald and the socket without sysinit.target (no udev or the image's own
# services), and a watchdog short enough to test.
cat > "$W/units/e2e.target" <<'EOF'
[Unit]
Description=tapgrid end-to-end test target (no sysinit.target)
DefaultDependencies=no
Wants=systemd-journald.socket systemd-journald.service tapgridd.socket
EOF
mkdir -p "$W/units/tapgridd.socket.d" "$W/units/tapgridd.service.d"
printf '[Unit]\nDefaultDependencies=no\n' > "$W/units/tapgridd.socket.d/e2e.conf"
cat > "$W/units/tapgridd.service.d/e2e.conf" <<'EOF'
[Unit]
DefaultDependencies=no
[Service]
WatchdogSec=2s
TimeoutAbortSec=2s
EOF
if [ "$MODE" = legacy ]; then
  # Today's daemon: no READY=1 (so Type=simple), no WATCHDOG=1 (so no watchdog), ignores the
  # passed socket (so its own, in a runtime directory that is not the socket unit's).
  cat > "$W/units/tapgridd.service.d/legacy.conf" <<'EOF'
[Service]
Type=simple
WatchdogSec=0
RuntimeDirectory=tapgridd
ExecStart=
ExecStart=/usr/local/bin/tapgridd --config /etc/tapgrid/tapgrid.json --socket /run/tapgridd/legacy.sock
EOF
fi

cat > "$W/boot.sh" <<BOOT
#!/bin/bash
set -e
mount -n -t proc proc /proc                      # -n: no /run/mount/utab on the host
mount -n -t tmpfs -o mode=755 tmpfs /run
mkdir -p /run/systemd/system
cp -r "$W/units"/. /run/systemd/system/
# Throw-away /etc and /var (sysusers, the journal, StateDirectory, PrivateTmp); /usr/local
# with the staged install on top of the host's.
mount -t overlay overlay -o lowerdir=$STAGE/etc:/etc,upperdir=$W/etc-upper,workdir=$W/etc-work /etc
mount -t overlay overlay -o lowerdir=/var,upperdir=$W/var-upper,workdir=$W/var-work /var
mount -t overlay overlay -o lowerdir=$STAGE/usr/local:/usr/local /usr/local
systemd-sysusers                                  # as at boot: creates tapgrid-clients
umount -R /sys/fs/cgroup 2>/dev/null || true
mount -t cgroup2 cgroup2 /sys/fs/cgroup          # its root is our sub-cgroup (cgroup namespace)
exec env -i container=other PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  /lib/systemd/systemd --system --unit=e2e.target --log-target=journal --show-status=no
BOOT
chmod +x "$W/boot.sh"

( echo $BASHPID > "$SUB/cgroup.procs"
  exec unshare --pid --fork --mount --uts --ipc --net --cgroup --propagation private \
       --kill-child "$W/boot.sh" ) > "$W/unshare.log" 2>&1 &
UNSHARE=$!
for _ in $(seq 100); do SD=$(pgrep -P "$UNSHARE" -x systemd || true); [ -n "$SD" ] && break; sleep 0.1; done
[ -n "$SD" ] || { cat "$W/unshare.log"; echo "FAIL systemd did not start in the namespace"; exit 1; }
state=
for _ in $(seq 100); do
  state=$(IN systemctl is-system-running 2>/dev/null || true)
  case "$state" in running|degraded) break;; esac; sleep 0.1
done
echo "systemd $(IN systemctl --version | head -1 | cut -d' ' -f2) is PID 1 in the namespace (host pid $SD): $state; mode $MODE"

# ---- checks ----
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
skipcheck() { echo "SKIP $* (E2E_MODE=legacy)"; }
prop() { IN systemctl show tapgridd.service -p "$1" --value; }
# tapgrid as root (or with setpriv args before it) against systemd's socket, with a reply in JSON.
SOCK=/run/tapgrid/tapgrid.sock
TAP_SOCK=$SOCK; [ "$MODE" = legacy ] && TAP_SOCK=/run/tapgridd/legacy.sock
tap() { IN timeout 20 /usr/local/bin/tapgrid tap "$@" --socket "$TAP_SOCK" --json; }
wait_prop() {  # wait_prop NAME VALUE [tenths]: until the service property has VALUE
  for _ in $(seq "${3:-100}"); do [ "$(prop "$1")" = "$2" ] && return 0; sleep 0.1; done; return 1
}
journal_json() { IN journalctl -b --no-pager -o json _SYSTEMD_UNIT=tapgridd.service; }
# One request line to the daemon as root, its reply line on stdout.
req() {
  IN timeout 20 /usr/bin/python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.argv[2].encode() + b"\n")
print(s.makefile().readline(), end="")' "$TAP_SOCK" "$1"
}

# 1. The socket unit listens, with the clients' group; the service waits for a connection.
st=$(IN systemctl is-active tapgridd.socket); mode=$(IN stat -c '%A %U:%G' "$SOCK" 2>&1)
svc=$(IN systemctl is-active tapgridd.service)
if [ "$st" = active ] && [ "$mode" = "srw-rw---- root:tapgrid-clients" ] && [ "$svc" = inactive ]
then pass "tapgridd.socket active, $SOCK $mode, tapgridd.service $svc"
else fail "socket unit: tapgridd.socket $st, $SOCK: $mode, tapgridd.service $svc"; fi

# 2. The first connection starts the service; the tap is dispatched to the log handler.
if [ "$MODE" = full ]; then
  reply=$(tap 700 440); rc=$?
else
  IN /usr/bin/python3 -c "import socket; socket.socket(socket.AF_UNIX).connect('$SOCK')"  # starts it
  wait_prop SubState running && for _ in $(seq 50); do IN test -S "$TAP_SOCK" && break; sleep 0.1; done
  reply=$(tap 700 440); rc=$?
fi
if wait_prop ActiveState active 50 && [ $rc = 0 ] && grep -q '"handler":"audit","outcome":"dispatched"' <<<"$reply"
then pass "first connection started tapgridd.service ($(prop SubState), Type=$(prop Type)); tap 700 440: $reply"
else fail "first connection: service $(prop ActiveState)/$(prop SubState), tap rc $rc: $reply"; fi
MAIN=$(prop MainPID)
if [ "$(prop ActiveState)" != active ] || ! [ "$MAIN" -gt 1 ] 2>/dev/null; then
  echo "---- journal (tapgridd units and PID 1) ----"
  IN journalctl -b --no-pager -o short-monotonic _SYSTEMD_UNIT=tapgridd.service + _PID=1 | grep -iE "tapgrid" | tail -30
  echo "systemd end-to-end ($MODE): the service did not come up; the remaining checks need it running"
  exit 1
fi
[ "$MODE" = full ] && { st=$(prop StatusText); [ -n "$st" ] && pass "StatusText after start: $st" || fail "no StatusText after start"; }

# 3. Clients: a member of tapgrid-clients may tap, anyone else is refused by the socket's mode.
GID=$(IN getent group tapgrid-clients | cut -d: -f3)
if [ "$MODE" = full ]; then
  out=$(IN setpriv --reuid=4242 --regid=4242 --groups="$GID" timeout 20 /usr/local/bin/tapgrid tap 700 440 --socket "$SOCK" --json 2>&1); rc=$?
  # Served (the same grid a moment ago: the example's debounce may answer "suppressed").
  [ $rc = 0 ] && grep -Eq '"seq":[0-9]+,.*"outcome":"(dispatched|suppressed)"' <<<"$out" && pass "uid 4242 in tapgrid-clients (gid $GID): served" \
    || fail "uid 4242 in tapgrid-clients: rc $rc $out"
fi
out=$(IN setpriv --reuid=4243 --regid=4243 --clear-groups timeout 20 /usr/local/bin/tapgrid tap 700 440 --socket "$SOCK" 2>&1); rc=$?
if [ $rc = 69 ] && grep -q "permission denied: the socket (owner root, group tapgrid-clients, mode 0660)" <<<"$out"; then pass "uid 4243 outside tapgrid-clients refused: exit 69, $out"
else fail "uid 4243 outside tapgrid-clients: rc $rc $out"; fi

# 4. A script handler's child runs inside the sandbox; its output reaches the journal.
reply=$(tap 100 100); rc=$?
found=
for _ in $(seq 50); do
  IN journalctl -b --no-pager -o cat _SYSTEMD_UNIT=tapgridd.service | grep -q "hello from button 0" && { found=1; break; }
  sleep 0.1
done
if [ $rc = 0 ] && grep -q '"handler":"shell","outcome":"dispatched"' <<<"$reply" && [ -n "$found" ]
then pass "script child ran in the sandbox: 'hello from button 0' in the journal"
else fail "script child: tap rc $rc $reply, output in journal: ${found:-no}"; fi

# 5. Native journal records with TAPGRID_* fields: the log handler's record and a child's exit.
if [ "$MODE" = full ]; then
  sleep 0.5
  if journal_json | /usr/bin/python3 -c '
import json, sys
records = [json.loads(line) for line in sys.stdin if line.strip()]
taps = [r for r in records if r.get("TAPGRID_HANDLER") == "audit" and r.get("TAPGRID_OUTCOME") == "dispatched"
        and "TAPGRID_SEQ" in r and r.get("TAPGRID_LAYOUT") == "home" and r.get("TAPGRID_GRID") == "2/1" and r.get("TAPGRID_TAG") == "30"]
exits = [r for r in records if "TAPGRID_SEQ" in r and "TAPGRID_DURATION_MS" in r and ("TAPGRID_EXIT_STATUS" in r or "TAPGRID_SIGNAL" in r)]
native = all(r.get("_TRANSPORT") == "journal" and r.get("MESSAGE_ID") and r.get("CODE_FILE") for r in taps + exits)
print("log-handler records: %d, child exits: %d, native with MESSAGE_ID and CODE_FILE: %s" % (len(taps), len(exits), native))
sys.exit(0 if taps and exits and native else 1)'
  then pass "journalctl -o json shows TAPGRID_* fields"
  else fail "journalctl -o json: TAPGRID_* fields missing"; fi
else skipcheck "journal TAPGRID_* fields"; fi

# 6. Reload with a good config, then a broken one: active throughout, same main process, the
#    right StatusText; the old config keeps serving after the refusal.
CONF=/etc/tapgrid/tapgrid.json
before=$(prop StatusText)
IN sed -i 's/"debounceMs": 150/"debounceMs": 100/' "$CONF"
IN timeout 30 systemctl reload tapgridd.service; rc=$?
# systemd 252 ends the reload job when `kill -HUP` exits unless RELOADING=1 came first, so the
# new STATUS= may follow `systemctl reload` by a moment: wait for it (5 s at most).
for _ in $(seq 50); do st=$(prop StatusText); [ "$st" != "$before" ] && break; sleep 0.1; done
if [ $rc = 0 ] && [ "$(prop ActiveState)/$(prop SubState)" = active/running ] && [ "$(prop MainPID)" = "$MAIN" ]; then
  if [ "$MODE" = legacy ]; then pass "reload with a good config: active, main pid $MAIN kept"
  elif [ -n "$st" ] && [ "$st" != "$before" ] && [[ "$st" != "reload failed: "* ]]; then pass "reload with a good config: active, StatusText: $st"
  else fail "reload with a good config: StatusText '$st' (before: '$before')"; fi
else fail "reload with a good config: rc $rc, $(prop ActiveState)/$(prop SubState), main pid $(prop MainPID) (was $MAIN)"; fi
IN sh -c "echo '{ \"layouts\": ' > $CONF"
IN timeout 30 systemctl reload tapgridd.service; rc=$?
for _ in $(seq 50); do st=$(prop StatusText); [[ "$st" == "reload failed: "* ]] && break; sleep 0.1; done
reply=$(tap 700 440); trc=$?
if [ $rc = 0 ] && [ "$(prop ActiveState)/$(prop SubState)" = active/running ] && [ "$(prop MainPID)" = "$MAIN" ] \
   && [ $trc = 0 ] && grep -q '"outcome":"dispatched"' <<<"$reply"; then
  if [ "$MODE" = legacy ]; then pass "reload with a broken config: active, old config serves"
  elif [[ "$st" == "reload failed: "* ]]; then pass "reload with a broken config: active, old config serves, StatusText: $st"
  else fail "reload with a broken config: StatusText '$st'"; fi
else fail "reload with a broken config: rc $rc, $(prop ActiveState)/$(prop SubState), main pid $(prop MainPID) (was $MAIN), tap rc $trc $reply"; fi
IN cp "$STAGE/etc/tapgrid/tapgrid.json" "$CONF"   # loadable again for the restarts below

# 7. A stalled event loop: SIGSTOP for longer than WatchdogSec=2s makes systemd abort and
#    restart the service.
if [ "$MODE" = full ]; then
  restarts=$(prop NRestarts)
  MAIN=$(prop MainPID)
  [ "$MAIN" -gt 1 ] 2>/dev/null && IN kill -STOP "$MAIN"   # never pid 0: that is our own process group
  ok=
  for _ in $(seq 200); do
    new=$(prop MainPID)
    if [ "$(prop NRestarts)" -gt "$restarts" ] && [ "$new" != 0 ] && [ "$new" != "$MAIN" ] && [ "$(prop ActiveState)" = active ]; then ok=1; break; fi
    sleep 0.1
  done
  wd=$(IN journalctl -b --no-pager -o cat _PID=1 | grep -c "tapgridd.service: Watchdog timeout")
  if [ -n "$ok" ] && [ "$wd" -ge 1 ]; then pass "SIGSTOP longer than WatchdogSec: watchdog timeout, restarted (main pid $MAIN -> $new, NRestarts $(prop NRestarts))"
  else fail "watchdog: NRestarts $(prop NRestarts) (was $restarts), main pid $(prop MainPID) (was $MAIN), $(prop ActiveState), 'Watchdog timeout' lines: $wd"; fi
else skipcheck "watchdog restart of a stopped main process"; fi

# 8. systemctl stop ends cleanly; the socket stays (the daemon must not unlink systemd's socket)
#    and the next connection starts the service again. Cell state set just before the stop is
#    written at shutdown to cells.json in the StateDirectory (the sandbox lets it write there)
#    and is back after the restart.
if [ "$MODE" = full ]; then
  reply=$(req '{"op": "set", "layout": "home", "grid": "2/1", "text": "kept across restarts"}')
  grep -q '"ok":true' <<<"$reply" || fail "set before the stop: $reply"
fi
# (legacy: the daemon never accepted the connection that started it, and that connection still
# queued on systemd's socket would start the service again at once: stop the socket too.)
STOP_UNITS=tapgridd.service; [ "$MODE" = legacy ] && STOP_UNITS="tapgridd.socket tapgridd.service"
IN timeout 30 systemctl stop $STOP_UNITS 2>/dev/null; rc=$?
res=$(prop Result); act=$(prop ActiveState)
if [ $rc = 0 ] && [ "$act" = inactive ] && [ "$res" = success ]; then pass "systemctl stop: ActiveState=$act Result=$res"
else fail "systemctl stop: rc $rc ActiveState=$act Result=$res"; fi
if [ "$MODE" = full ]; then
  reply=$(tap 700 440); rc=$?
  if IN test -S "$SOCK" && [ $rc = 0 ] && wait_prop ActiveState active 50; then pass "socket kept across the stop; the next tap started the service again"
  else fail "after stop: socket present: $(IN test -S "$SOCK" && echo yes || echo no), tap rc $rc $reply, service $(prop ActiveState)"; fi
  cells=$(IN cat /var/lib/tapgrid/cells.json 2>&1)
  state=$(req '{"op": "layouts", "state": true}')
  if grep -q '"2/1":{"text":"kept across restarts"' <<<"$cells" && grep -q '"path":"2/1",[^}]*"text":"kept across restarts"' <<<"$state"
  then pass "cell state written to /var/lib/tapgrid/cells.json at the stop and restored after the restart"
  else fail "cell state across the restart: cells.json: $cells; layouts: ${state:0:300}"; fi
  IN timeout 30 systemctl stop tapgridd.service 2>/dev/null
else skipcheck "socket kept across a stop and re-activation"; fi

# 9. The backlight drop-in as installed (commented) and enabled as backlight.conf says, in
#    /etc/systemd/system/tapgridd.service.d/: only the named brightness file becomes writable in
#    the service's read-only /sys, and only through the group video. This machine may have no
#    backlight, so one is faked inside the namespace: /sys/class on a tmpfs (the real classes
#    bound back in) with backlight/fake and backlight/other, symlinks to device folders as in
#    sysfs, their brightness root:video 0664 as the udev rule leaves it. A probe run in place of
#    tapgridd (the installed unit, its ExecStart replaced) tries each write under the sandbox.
IN bash -euo pipefail -c '
  mkdir -p /run/tgsys/classes && mount -n --bind /sys/class /run/tgsys/classes
  mount -n -t tmpfs -o mode=755 tmpfs /sys/class
  for d in /run/tgsys/classes/*; do mkdir "/sys/class/${d##*/}"; mount -n --bind "$d" "/sys/class/${d##*/}"; done
  mkdir -p /sys/class/backlight
  for dev in fake other; do
    mkdir -p "/sys/class/.devices/$dev"; cd "/sys/class/.devices/$dev"
    echo 255 > max_brightness; echo 255 > brightness; echo 0 > bl_power
    chgrp video brightness bl_power; chmod 0664 brightness bl_power; chmod 0444 max_brightness
    ln -s "../.devices/$dev" "/sys/class/backlight/$dev"
  done
  cat > /etc/tapgrid/backlight-probe.sh <<"PROBE"
for f in fake/brightness fake/bl_power fake/max_brightness other/brightness; do
  if err=$( { printf "7\n" > "/sys/class/backlight/$f"; } 2>&1 ); then echo "$f ok"; else echo "$f ${err##*: }"; fi
done > /var/lib/tapgrid/backlight-probe.txt
PROBE
  mkdir -p /etc/systemd/system/tapgridd.service.d
  printf "[Service]\nType=oneshot\nWatchdogSec=0\nExecStart=\nExecStart=/bin/sh /etc/tapgrid/backlight-probe.sh\n" \
    > /run/systemd/system/tapgridd.service.d/zz-backlight-probe.conf'
installed=/usr/local/lib/systemd/system/tapgridd.service.d/backlight.conf
probe() {  # probe LABEL KEYS: backlight.conf with KEYS uncommented and fake for rpi_backlight; the writes
  IN sh -c "sed -E 's/^#($2)=/\1=/; s|/rpi_backlight/|/fake/|' $installed > /etc/systemd/system/tapgridd.service.d/backlight.conf"
  IN systemctl daemon-reload
  IN timeout 20 systemctl start tapgridd.service || echo "start failed"
  IN cat /var/lib/tapgrid/backlight-probe.txt | tr '\n' ';'
}
ro="fake/brightness Read-only file system;fake/bl_power Read-only file system;fake/max_brightness Read-only file system;other/brightness Read-only file system;"
got=$(probe "as installed" NONE)
[ "$got" = "$ro" ] && pass "backlight.conf as installed: /sys stays read-only for the service ($got)" || fail "backlight.conf as installed: $got"
got=$(probe "without the group" ReadWritePaths)
[ "$got" = "fake/brightness Permission denied;${ro#fake/brightness Read-only file system;}" ] \
  && pass "backlight.conf with ReadWritePaths= alone: brightness writable in /sys, refused by its mode ($got)" || fail "backlight.conf with ReadWritePaths= alone: $got"
got=$(probe "enabled" 'SupplementaryGroups|ReadWritePaths')
value=$(IN cat /sys/class/.devices/fake/brightness)
[ "$got" = "fake/brightness ok;${ro#fake/brightness Read-only file system;}" ] && [ "$value" = 7 ] \
  && pass "backlight.conf enabled: the backlight's brightness written (holds $value), nothing else ($got)" || fail "backlight.conf enabled: $got, brightness holds $value"
IN rm -f /etc/systemd/system/tapgridd.service.d/backlight.conf /run/systemd/system/tapgridd.service.d/zz-backlight-probe.conf
IN systemctl daemon-reload

if [ $fails != 0 ]; then
  echo "---- journal (tapgridd units and PID 1) ----"
  IN journalctl -b --no-pager -o short-monotonic _SYSTEMD_UNIT=tapgridd.service + _PID=1 | grep -iE "tapgrid|watchdog" | tail -60
fi
[ $fails = 0 ] && echo "systemd end-to-end ($MODE): all passed" || echo "systemd end-to-end ($MODE): $fails failed"
[ $fails = 0 ]
