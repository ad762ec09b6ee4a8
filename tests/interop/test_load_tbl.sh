#!/usr/bin/env bash
# test_load_tbl.sh — `floe load` text staging: gzip-compressed CSV / JSON lines, CSV without a header row
# (--no-header with --schema), records ending with the delimiter (--trailing-delimiter), dbgen .tbl[.gz] files
# (detected by name or --format tbl), and the errors: --no-header without --schema, a corrupt gzip stream, a bad
# value in a staged file (named with the original file).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${FLOE_SRC:-$(cd "$here/../.." && pwd)}"
floe="${FLOE_BIN:-$root/build/floe}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp/staging" # the staged temporary files go here, so the leftover check sees only ours
mkdir -p "$TMPDIR"
cat=(--catalog "sqlite:$tmp/catalog.db" --warehouse "$tmp/wh")
fails=0
check() { # name expected actual
  if [ "$2" = "$3" ]; then echo "PASS: $1"; else echo "FAIL: $1: expected [$2], got [$3]"; fails=$((fails + 1)); fi
}
count() { "$floe" table count "$tmp/wh/$1"; }

printf '1|alpha|12.50|2024-01-02|\n2|beta, gamma|-0.01|1999-12-31|\n3|delta|7.00|2000-02-29|\n' > "$tmp/t.tbl"
gzip -k "$tmp/t.tbl"
schema="id:long not null,name:string,amount:decimal(15,2),d:date"

"$floe" load "$tmp/t.tbl.gz" ns.gz_tbl "${cat[@]}" --schema "$schema" --quiet
check "tbl.gz by name" 3 "$(count ns/gz_tbl)"
check "tbl.gz values" '2,"beta, gamma",-0.01,1999-12-31' \
  "$("$floe" table cat "$tmp/wh/ns/gz_tbl" --format csv | sed -n 3p)"

cp "$tmp/t.tbl" "$tmp/plain.dat"
"$floe" load "$tmp/plain.dat" ns.fmt_tbl "${cat[@]}" --schema "$schema" --format tbl --quiet
check "--format tbl" 3 "$(count ns/fmt_tbl)"

sed 's/|$//' "$tmp/t.tbl" > "$tmp/nohdr.csv"
"$floe" load "$tmp/nohdr.csv" ns.nohdr "${cat[@]}" --schema "$schema" --delimiter '|' --no-header --quiet
check "--no-header" 3 "$(count ns/nohdr)"

"$floe" load "$tmp/t.tbl" ns.trail "${cat[@]}" --schema "$schema" --format csv --delimiter '|' --no-header \
  --trailing-delimiter --quiet
check "--trailing-delimiter" 3 "$(count ns/trail)"

printf 'id,name\n1,x\n2,y\n' | gzip > "$tmp/h.csv.gz"
"$floe" load "$tmp/h.csv.gz" ns.gzcsv "${cat[@]}" --quiet
check "csv.gz with header, inferred types" 2 "$(count ns/gzcsv)"
printf '{"a": 1}\n{"a": 2}\n{"a": 3}\n' | gzip > "$tmp/j.jsonl.gz"
"$floe" load "$tmp/j.jsonl.gz" ns.gzjson "${cat[@]}" --quiet
check "jsonl.gz" 3 "$(count ns/gzjson)"

# errors
out="$("$floe" load "$tmp/nohdr.csv" ns.err1 "${cat[@]}" --delimiter '|' --no-header 2>&1)"; rc=$?
check "--no-header without --schema: usage error" "2" "$rc"
printf '\037\213\010\000garbage-not-deflate' > "$tmp/bad.csv.gz"
out="$("$floe" load "$tmp/bad.csv.gz" ns.err2 "${cat[@]}" 2>&1)"; rc=$?
check "corrupt gzip fails" "1" "$rc"
case "$out" in *bad.csv.gz*) echo "PASS: corrupt gzip names the file";; *) echo "FAIL: message [$out]"; fails=$((fails + 1));; esac
printf '1|x|notanumber|2024-01-01|\n' > "$tmp/badval.tbl"
out="$("$floe" load "$tmp/badval.tbl" ns.err3 "${cat[@]}" --schema "$schema" 2>&1)"; rc=$?
check "bad value fails" "1" "$rc"
case "$out" in *badval.tbl*) echo "PASS: bad value names the original file";; *) echo "FAIL: message [$out]"; fails=$((fails + 1));; esac
"$floe" table count "$tmp/wh/ns/err3" >/dev/null 2>&1 && { echo "FAIL: a failed load left a table"; fails=$((fails + 1)); }
left="$(ls "$TMPDIR"/floe-load-* 2>/dev/null | wc -l)"
check "no staged files left behind" 0 "$left"
[ "$fails" = 0 ]
