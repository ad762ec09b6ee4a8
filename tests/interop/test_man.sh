#!/usr/bin/env bash
# test_man.sh - the man pages the build makes from --help (scripts/gen-man.sh): one per command that
# `floe --help` lists, each rendering without a groff warning, with every option the command's --help
# names; and `make install` puts them in share/man/man1.
set -uo pipefail
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
build="$(cd "$(dirname "$FLOE_BIN")" && pwd)"
man="$build/man"
fails=0
passes=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; passes=$((passes + 1)); }
command -v groff >/dev/null || { echo "skipped: groff missing (apt-get install groff-base)"; exit 77; }

top=$("$FLOE_BIN" --help)
cmds=$(awk '/^commands:/ { f = 1; next } f && NF == 0 { exit } f && $1 != "version" { print $1 }' <<<"$top")
[ "$(wc -w <<<"$cmds")" -ge 10 ] && ok "floe --help lists $(wc -w <<<"$cmds") commands" || bad "commands: $cmds"
render() { groff -man -Tutf8 -ww "$1" 2>"$2" | sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g'; }
for page in floe $(sed 's/^/floe-/' <<<"$cmds"); do
  f="$man/$page.1"
  [ -s "$f" ] || { bad "$page: no $f"; continue; }
  text=$(render "$f" "$man/.err")
  [ -s "$man/.err" ] && bad "$page: groff warnings: $(head -3 "$man/.err")"
  head -1 "$f" | grep -q "^\.TH ${page^^} 1 " || bad "$page: title line $(head -1 "$f")"
  grep -q "^NAME" <<<"$text" && grep -q "^SYNOPSIS" <<<"$text" || bad "$page: NAME/SYNOPSIS missing"
  if [ "$page" != floe ]; then
    # every --option the command's help names is in its page, as written
    miss=0
    for opt in $("$FLOE_BIN" "${page#floe-}" --help | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
      grep -qF -- "$opt" <<<"$text" || { bad "$page: $opt missing"; miss=1; }
    done
    [ $miss = 0 ] && ok "$page: renders, every option present"
  fi
done
grep -q "floe-sql(1)" <<<"$(render "$man/floe.1" /dev/null)" && ok "floe(1) points at floe-sql(1)" || bad "floe(1) SEE ALSO"

# make install puts them in share/man/man1 (a sanitized build's install is test_install's to skip)
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-man.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
if cmake --install "$build" --prefix "$tmp/p" >"$tmp/log" 2>&1; then
  n=$(find "$tmp/p/share/man/man1" -name 'floe*.1' 2>/dev/null | wc -l)
  [ "$n" -eq "$(($(wc -w <<<"$cmds") + 1))" ] && ok "installed $n pages in share/man/man1" || bad "installed $n pages"
  MANPATH="$tmp/p/share/man" man -w floe-load >/dev/null 2>&1 && ok "man -w floe-load finds the page" ||
    { command -v man >/dev/null && bad "man -w floe-load"; }
else
  bad "cmake --install: $(tail -3 "$tmp/log")"
fi
rm -f "$man/.err"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
