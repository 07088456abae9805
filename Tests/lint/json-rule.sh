#!/bin/sh
# The one JSON rule (DEVELOPERS.md): every JSON payload the daemon and the CLI write goes through
# TapgridCore's writers (JSONObjectWriter, JSONWriter, ByteBuffer's JSON appends, ReplyWriter...).
# Fails, naming file:line, on JSON spelled by hand in a Swift or C file of Sources/ outside
# Sources/TapgridCore: a raw string opening an object (#"{"...) or an array of them (#"[{"), an
# escaped one ("{\"...), a member's key with its colon (#"..."key":..."# or "\"key\":"), or a
# hand-quoted JSON string (#""mqtt""#). Comment lines (//, ///, /* */ bodies) are left out. POSIX sh
# and grep only. Usage: Tests/lint/json-rule.sh [the checkout; default: the one holding this script]
root=${1:-$(dirname "$0")/../..}
cd "$root" || exit 2
patterns='#"\{"|#"\[\{|"\{\\"|#"[^"]*"[A-Za-z_][A-Za-z0-9_]*":|\\"[A-Za-z_][A-Za-z0-9_]*\\":|#""[A-Za-z_]'
hits=$(grep -rnE --include='*.swift' --include='*.c' --include='*.h' -e "$patterns" Sources \
  | grep -v '^Sources/TapgridCore/' \
  | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(//|/?\*)')
if [ -n "$hits" ]; then
  echo "$hits"
  echo "json-rule: JSON built by hand outside Sources/TapgridCore (above); write it with the core's writers (JSONObjectWriter, JSONWriter, ByteBuffer's JSON appends), or give the core a writer for it" >&2
  exit 1
fi
echo "json-rule: no JSON built by hand in Sources/ outside TapgridCore"
