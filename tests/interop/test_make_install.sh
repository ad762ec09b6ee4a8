#!/usr/bin/env bash
# `cmake --install` of the existing build (what `make install` runs, no rebuild) into a DESTDIR with a PREFIX:
# the installed floe runs (--version), libfloe and the public headers are in place.
set -uo pipefail
: "${FLOE_BUILD:?FLOE_BUILD must point at the build folder}"
: "${FLOE_SRC:?FLOE_SRC must point at the source folder}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-install.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
DESTDIR="$tmp/stage" cmake --install "$FLOE_BUILD" --prefix /opt/floe >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; echo "FAIL: cmake --install"; exit 1; }
root="$tmp/stage/opt/floe"
fails=0
v="$("$root/bin/floe" --version)" || { echo "FAIL: installed floe --version"; fails=1; }
grep -Eq '^floe [0-9]+\.[0-9]+' <<< "$v" || { echo "FAIL: version output: $v"; fails=1; }
ls "$root"/lib*/libfloe* >/dev/null 2>&1 || { echo "FAIL: no libfloe under $root/lib"; fails=1; }
for h in "$FLOE_SRC"/include/floe/*.h; do
    [ -f "$root/include/floe/$(basename "$h")" ] || { echo "FAIL: header $(basename "$h") not installed"; fails=1; }
done
grep -q 'install:' "$FLOE_SRC/Makefile" || { echo "FAIL: no install target in the Makefile"; fails=1; }
[ "$fails" = 0 ] && echo "ok: installed under $root"
exit "$fails"
