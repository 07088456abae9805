#!/bin/bash
# Static checks of the units in systemd/ (no running systemd needed; `make test-systemd`):
#  1. `systemd-analyze verify` of the system units, the touch, mqtt, panel and backlight
#     drop-ins with their lines enabled, and the user units. verify insists that ExecStart's program exists, so it runs in a
#     private mount namespace with a tmpfs over /usr/local/bin holding the built tapgridd (and
#     one over /run, where verify's test manager would leave a marker file): needs root.
#  2. `systemd-analyze security --offline=true --threshold=10` of tapgridd.service: exposure at
#     most 1.0 (contract). --threshold counts on the internal 0-100 scale that is printed
#     divided by ten ("0.6" is 6), so 1.0 is --threshold=10; --threshold=1 would demand 0.1.
#     Prints the figure, also with the touch and panel drop-ins enabled; with the mqtt and
#     backlight drop-ins it is printed, not bounded (the contract bounds the units as installed).
# usage: Tests/systemd/check-units.sh [DAEMON_BINARY]   (default .build/debug/tapgridd)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$(realpath "${1:-.build/debug/tapgridd}")
[ -x "$BIN" ] || { echo "check-units: $BIN is not built (run make build)" >&2; exit 1; }
command -v systemd-analyze >/dev/null || { echo "check-units: systemd-analyze missing (make deps installs systemd)" >&2; exit 1; }

W=$(mktemp -d /tmp/tgunits-XXXXXX)
trap 'rm -rf "$W"' EXIT
# A drop-in as an admin would enable it: the units and the drop-in in $W/NAME, its commented
# KEYS lines (a regex alternation) uncommented; as shipped, only comments and [Service] are active.
enable_dropin() {  # NAME KEYS COUNT WORDS
  local name=$1 keys=$2 count=$3 words=$4
  mkdir -p "$W/$name/tapgridd.service.d"
  cp systemd/tapgridd.service systemd/tapgridd.socket systemd/tapgridd-panel.socket "$W/$name/"
  sed -E "s/^#($keys)=/\1=/" "systemd/tapgridd.service.d/$name.conf" > "$W/$name/tapgridd.service.d/$name.conf"
  [ "$(grep -cE "^($keys)=" "$W/$name/tapgridd.service.d/$name.conf")" = "$count" ] \
    || { echo "FAIL $name.conf: expected $words" >&2; exit 1; }
  [ "$(grep -cvE '^(#|$|\[Service\]$)' "systemd/tapgridd.service.d/$name.conf")" = 0 ] \
    || { echo "FAIL $name.conf: only comments and [Service] may be active as installed" >&2; exit 1; }
}
enable_dropin touch 'SupplementaryGroups|DeviceAllow' 2 "two commented lines SupplementaryGroups= and DeviceAllow="
enable_dropin mqtt 'PrivateNetwork|RestrictAddressFamilies|IPAddressAllow' 3 \
  "three commented lines PrivateNetwork=, RestrictAddressFamilies= and IPAddressAllow="
# The panel on the socket systemd passes: the service keeps its private network.
enable_dropin panel 'Sockets|IPAddressAllow' 2 "two commented lines Sockets= and IPAddressAllow= (the loopback panel)"
# The backlight: the group that may write brightness (the udev rule's), and one brightness file
# writable in the service's read-only /sys. Its udev rule must parse (udevadm test lists its RUN
# lines; it runs none): checked below with the rule moved onto the loopback device.
enable_dropin backlight 'SupplementaryGroups|ReadWritePaths' 2 \
  "two commented lines SupplementaryGroups= and ReadWritePaths= (one backlight's brightness)"
grep -qx 'SupplementaryGroups=video' "$W/backlight/tapgridd.service.d/backlight.conf" \
  && grep -qx 'ReadWritePaths=-/sys/class/backlight/rpi_backlight/brightness' "$W/backlight/tapgridd.service.d/backlight.conf" \
  || { echo "FAIL backlight.conf: expected SupplementaryGroups=video and ReadWritePaths=-/sys/class/backlight/rpi_backlight/brightness" >&2; exit 1; }

rc=0
if [ "$(id -u)" = 0 ]; then
  # verify exits 0 on warnings such as an unknown key: any output at all is a failure.
  if out=$(unshare -m --propagation private env BIN="$BIN" W="$W" bash -euo pipefail -c '
      mount -n -t tmpfs tmpfs /usr/local/bin
      mount -n -t tmpfs tmpfs /run
      install -m 0755 "$BIN" /usr/local/bin/tapgridd
      systemd-analyze verify --man=no systemd/tapgridd.socket systemd/tapgridd.service systemd/tapgridd-panel.socket
      # drop-ins are found next to the unit (SYSTEMD_UNIT_PATH, then the built-in paths)
      SYSTEMD_UNIT_PATH="$W/touch:" systemd-analyze verify --man=no tapgridd.service
      SYSTEMD_UNIT_PATH="$W/mqtt:" systemd-analyze verify --man=no tapgridd.service
      SYSTEMD_UNIT_PATH="$W/panel:" systemd-analyze verify --man=no tapgridd.service tapgridd-panel.socket
      SYSTEMD_UNIT_PATH="$W/backlight:" systemd-analyze verify --man=no tapgridd.service
      mkdir -p /run/user-verify && XDG_RUNTIME_DIR=/run/user-verify \
        systemd-analyze --user verify --man=no systemd/user/tapgridd.socket systemd/user/tapgridd.service
  ' 2>&1) && [ -z "$out" ]; then echo "PASS systemd-analyze verify: system units, touch, mqtt, panel and backlight drop-ins enabled, user units"
  else echo "$out"; echo "FAIL systemd-analyze verify"; rc=1; fi
else
  echo "SKIP systemd-analyze verify: needs root (a private mount namespace puts tapgridd at ExecStart's path)"
fi

# The backlight's udev rule, matched against the loopback device instead of a backlight (this
# machine may have none) in a private mount namespace whose /etc/udev/rules.d holds only it:
# udevadm test reads every rules file, reports a bad line, and lists the RUN lines it would run.
RULE=systemd/udev/70-tapgrid-backlight.rules
if [ "$(id -u)" != 0 ]; then echo "SKIP udev rule: needs root (a private mount namespace)"
elif ! command -v udevadm >/dev/null || [ ! -d /etc/udev/rules.d ] || [ ! -e /sys/class/net/lo ]; then echo "SKIP udev rule: no udevadm or /etc/udev/rules.d"
else
  out=$(unshare -m --propagation private env RULE="$RULE" bash -euo pipefail -c '
      mount -n -t tmpfs tmpfs /etc/udev/rules.d
      sed "s/SUBSYSTEM==\"backlight\"/SUBSYSTEM==\"net\", KERNEL==\"lo\"/" "$RULE" > /etc/udev/rules.d/70-tapgrid-backlight.rules
      udevadm test --action=add /sys/class/net/lo 2>&1' || true)
  runs=$(grep -E "^run: '/bin/ch" <<<"$out" || true)
  complaints=$(grep "70-tapgrid-backlight.rules" <<<"$out" | grep -vE "Reading rules file|:[0-9]+ RUN '" || true)
  if [ "$runs" = "run: '/bin/chgrp video /sys/devices/virtual/net/lo/brightness'
run: '/bin/chmod g+w /sys/devices/virtual/net/lo/brightness'" ] && [ -z "$complaints" ] \
     && [ "$(grep -c 'SUBSYSTEM=="backlight"' "$RULE")" = 1 ]
  then echo "PASS udev rule $RULE: parses; runs chgrp video and chmod g+w on the device's brightness"
  else echo "$out" | grep -iE "70-tapgrid|^run:"; echo "FAIL udev rule $RULE"; rc=1; fi
fi

for variant in systemd "$W/touch" "$W/panel"; do
  label=$([ "$variant" = systemd ] && echo "tapgridd.service" || echo "tapgridd.service + $(basename "$variant").conf")
  if out=$(cd "$variant" && systemd-analyze security --offline=true --threshold=10 --no-pager tapgridd.service 2>&1); then
    echo "PASS systemd-analyze security (exposure at most 1.0), $label: $(grep -o 'Overall exposure level.*' <<<"$out")"
  else
    echo "$out" | grep -v '✓'
    echo "FAIL systemd-analyze security (exposure at most 1.0), $label: exposure above 1.0"; rc=1
  fi
done
# With the mqtt drop-in the service has a network, with the backlight one a supplementary group:
# their exposure is printed, not bounded (the contract bounds the units as installed, where the
# drop-ins' lines are commented).
for variant in mqtt backlight; do
  out=$(cd "$W/$variant" && systemd-analyze security --offline=true --no-pager tapgridd.service 2>&1 || true)
  echo "INFO systemd-analyze security, tapgridd.service + $variant.conf: $(grep -o 'Overall exposure level.*' <<<"$out")"
done
exit $rc
