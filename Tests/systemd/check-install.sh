#!/bin/bash
# `make install` and `make uninstall` into scratch DESTDIRs (`make test-install`; needs the
# release build, which `make install` makes if missing). Checks:
#  - the exact list of files and their modes (docs/ page for page), default PREFIX /usr/local;
#  - both programs run with an empty environment, and ldd shows no Swift library (static runtime);
#  - the units name $(PREFIX)/bin/tapgridd (rewritten for PREFIX=/usr), the config path stays;
#  - the example config is installed, passes `tapgrid check`, shows the same layouts as
#    examples/tapgrid.json, and is kept on a second install;
#  - `make uninstall` leaves only the config.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=$(mktemp -d /tmp/tginstall-XXXXXX)
trap 'rm -rf "$W"' EXIT
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
files() { (cd "$1" && find . \( -type f -o -type l \) -printf '%m %p\n' | sort); }

make -s install DESTDIR="$W/a" >"$W/install.log" 2>&1 || { cat "$W/install.log"; fail "make install DESTDIR=$W/a"; exit 1; }
expected='644 ./etc/tapgrid/tapgrid.json
644 ./usr/local/lib/systemd/system/tapgridd-panel.socket
644 ./usr/local/lib/systemd/system/tapgridd.service
644 ./usr/local/lib/systemd/system/tapgridd.service.d/backlight.conf
644 ./usr/local/lib/systemd/system/tapgridd.service.d/mqtt.conf
644 ./usr/local/lib/systemd/system/tapgridd.service.d/panel.conf
644 ./usr/local/lib/systemd/system/tapgridd.service.d/touch.conf
644 ./usr/local/lib/systemd/system/tapgridd.socket
644 ./usr/local/lib/systemd/user/tapgridd.service
644 ./usr/local/lib/systemd/user/tapgridd.socket
644 ./usr/local/lib/sysusers.d/tapgrid.conf
644 ./usr/local/share/bash-completion/completions/tapgrid
644 ./usr/local/share/doc/tapgrid/70-tapgrid-backlight.rules
644 ./usr/local/share/doc/tapgrid/README.md
644 ./usr/local/share/fish/vendor_completions.d/tapgrid.fish
644 ./usr/local/share/man/man1/tapgrid.1
644 ./usr/local/share/man/man8/tapgridd.8
644 ./usr/local/share/zsh/site-functions/_tapgrid
755 ./usr/local/bin/tapgrid
755 ./usr/local/bin/tapgridd'
# docs/ goes beside the README, page for page (the README links to it).
expected=$( (echo "$expected"; for page in docs/*.md docs/*.png docs/*.svg; do echo "644 ./usr/local/share/doc/tapgrid/$page"; done) | sort)
got=$(files "$W/a")
if [ "$got" = "$expected" ]; then pass "make install: files and modes"; else fail "make install: files differ"; diff <(echo "$expected") <(echo "$got") || true; fi

for program in tapgridd tapgrid; do
  path="$W/a/usr/local/bin/$program"
  swiftlibs=$(ldd "$path" | grep -i swift || true)
  if [ -z "$swiftlibs" ]; then pass "ldd $program: no Swift library ($(ldd "$path" | awk '{print $1}' | grep -v vdso | tr '\n' ' '), $(stat -c %s "$path") bytes)"
  else fail "ldd $program links the Swift runtime: $swiftlibs"; fi
  if out=$(env -i "$path" --version 2>&1); then pass "env -i $program --version: $out"; else fail "env -i $program --version: $out"; fi
done
if out=$(env -i "$W/a/usr/local/bin/tapgrid" check "$W/a/etc/tapgrid/tapgrid.json" 2>&1); then pass "tapgrid check on the installed config: $(tail -1 <<<"$out")"
else echo "$out"; fail "tapgrid check on the installed config"; fi
if cmp -s examples/installed/tapgrid.json "$W/a/etc/tapgrid/tapgrid.json"; then pass "installed config is examples/installed/tapgrid.json"; else fail "installed config differs from examples/installed/tapgrid.json"; fi

# The installed example is the checkout's example with absolute paths: the same layouts.
same=1
for layout in home settings; do
  a=$("$W/a/usr/local/bin/tapgrid" show examples/tapgrid.json --layout $layout --format json) || same=
  b=$("$W/a/usr/local/bin/tapgrid" show "$W/a/etc/tapgrid/tapgrid.json" --layout $layout --format json) || same=
  [ -n "$a" ] && [ "$a" = "$b" ] || same=
done
[ -n "$same" ] && pass "installed config resolves to the same layouts as examples/tapgrid.json" \
  || fail "examples/installed/tapgrid.json and examples/tapgrid.json resolve to different layouts"

exec_start=$(grep '^ExecStart=' "$W/a/usr/local/lib/systemd/system/tapgridd.service")
[ "$exec_start" = "ExecStart=/usr/local/bin/tapgridd --config /etc/tapgrid/tapgrid.json" ] && pass "system unit: $exec_start" || fail "system unit: $exec_start"

echo "// changed by the admin" > "$W/a/etc/tapgrid/tapgrid.json"
make -s install DESTDIR="$W/a" >"$W/install.log" 2>&1 || { cat "$W/install.log"; fail "second make install"; }
if [ "$(cat "$W/a/etc/tapgrid/tapgrid.json")" = "// changed by the admin" ] && grep -q "kept the existing $W/a/etc/tapgrid/tapgrid.json" "$W/install.log"
then pass "second install keeps an existing config"; else fail "second install replaced the existing config"; fi

make -s uninstall DESTDIR="$W/a" >"$W/uninstall.log" 2>&1 || { cat "$W/uninstall.log"; fail "make uninstall"; }
got=$(files "$W/a")
if [ "$got" = "644 ./etc/tapgrid/tapgrid.json" ]; then pass "make uninstall leaves only the config"; else fail "make uninstall left: $got"; fi
leftover=$(cd "$W/a" && find . -mindepth 1 -type d -empty -path './usr/local/*' \( -name tapgridd.service.d -o -name tapgrid -o -name docs \) -print)
[ -z "$leftover" ] && pass "make uninstall removes its own directories" || fail "make uninstall left directories: $leftover"

make -s install DESTDIR="$W/b" PREFIX=/usr >"$W/install.log" 2>&1 || { cat "$W/install.log"; fail "make install PREFIX=/usr"; }
exec_start=$(grep '^ExecStart=' "$W/b/usr/lib/systemd/system/tapgridd.service" || true)
user_exec=$(grep '^ExecStart=' "$W/b/usr/lib/systemd/user/tapgridd.service" || true)
if [ "$exec_start" = "ExecStart=/usr/bin/tapgridd --config /etc/tapgrid/tapgrid.json" ] && [ "$user_exec" = "ExecStart=/usr/bin/tapgridd --config %E/tapgrid/tapgrid.json" ] \
   && [ -x "$W/b/usr/bin/tapgridd" ] && [ -f "$W/b/usr/lib/sysusers.d/tapgrid.conf" ] && ! grep -rq /usr/local "$W/b/usr/lib"
then pass "PREFIX=/usr: units name /usr/bin/tapgridd"; else fail "PREFIX=/usr: $exec_start / $user_exec"; fi

[ $fails = 0 ] && echo "check-install: all passed" || echo "check-install: $fails failed"
[ $fails = 0 ]
