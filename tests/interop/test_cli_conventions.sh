#!/usr/bin/env bash
# The CLI conventions (src/cli/README.md "Conventions") swept over every `floe` command and subcommand:
# --help and -h exit 0 with usage on stdout; an unknown option exits 2 naming the option and the command on
# stderr; a missing argument exits 2; read-only commands against a catalog / warehouse that does not exist fail
# and create nothing; `-` reads stdin. The command list mirrors src/cli/main.c and each command's table; a new
# subcommand missing here is caught by the "every listed subcommand" check on `floe table --help`.
set -uo pipefail
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
src="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-cli-conv.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset FLOE_CATALOG FLOE_WAREHOUSE
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run CMD... : sets rc, out, err
run() {
    "$FLOE_BIN" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    out="$(cat "$tmp/out")"
    err="$(cat "$tmp/err")"
}

table_subs="$("$FLOE_BIN" table --help | awk '/^  [a-z][a-z_-]* /{print $1}')"
admin_subs="bootstrap principal role grant revoke grants token policy policies limits"
commands=(
    "parquet" "parquet schema" "parquet meta" "parquet cat"
    "avro" "avro schema" "avro meta" "avro cat" "avro write" "avro canonical"
    "convert" "load" "serve" "sql" "mcp" "ingest" "ingest files" "ingest status" "pg-decode" "admin"
    "semantic" "semantic validate" "semantic list" "semantic compile" "semantic query" "semantic replay"
    "semantic explain"
)
for s in $table_subs; do commands+=("table $s"); done
for s in $admin_subs; do commands+=("admin $s"); done
[ "$(echo "$table_subs" | wc -w)" -ge 30 ] || bad "floe table --help lists only: $table_subs"

for c in "${commands[@]}"; do
    # shellcheck disable=SC2086
    for h in --help -h; do
        run $c $h
        [ "$rc" = 0 ] || bad "floe $c $h exits $rc: $err"
        grep -qi 'usage' <<< "$out" || bad "floe $c $h prints no usage on stdout"
    done
    # shellcheck disable=SC2086
    run $c --bogus-opt
    [ "$rc" = 2 ] || bad "floe $c --bogus-opt exits $rc (want 2)"
    grep -q -- "--bogus-opt" <<< "$err" || bad "floe $c --bogus-opt: stderr does not name the option: $err"
    grep -qi "unknown option" <<< "$err" || bad "floe $c --bogus-opt: stderr does not say unknown option: $err"
    first="${c%% *}"
    grep -q "floe $first" <<< "$err" || bad "floe $c --bogus-opt: stderr does not name the command: $err"
    [ -e "$tmp/warehouse" ] && { bad "floe $c --bogus-opt created ./warehouse"; rm -rf "$tmp/warehouse"; }
done

# Missing required arguments: exit 2 with a message on stderr.
for c in "parquet schema" "parquet cat" "avro schema" "convert" "load" "table cat" "table describe" \
    "table create" "table drop" "ingest files" "admin principal create" "admin token"; do
    # shellcheck disable=SC2086
    run $c
    [ "$rc" = 2 ] || bad "floe $c (no arguments) exits $rc (want 2)"
    [ -n "$err" ] || bad "floe $c (no arguments) says nothing on stderr"
done

# Read-only commands against a catalog that does not exist: fail, create nothing.
nocat="sqlite:$tmp/nope/catalog.db"
now="$tmp/nowh"
ro=(
    "table tables default --catalog $nocat --warehouse $now"
    "table namespaces --catalog $nocat --warehouse $now"
    "table describe default.t --catalog $nocat --warehouse $now"
    "table cat default.t --catalog $nocat --warehouse $now"
    "table count default.t --catalog $nocat --warehouse $now"
    "ingest status --into default.t --catalog $nocat --warehouse $now"
    "semantic query --metrics net_revenue --models $src/tests/semantic/models --catalog $nocat --warehouse $now"
)
for c in "${ro[@]}"; do
    # shellcheck disable=SC2086
    run $c
    [ "$rc" != 0 ] || bad "floe $c succeeded against a missing catalog"
    [ -n "$err" ] || bad "floe $c: no error message"
    [ -e "$tmp/nope" ] && { bad "floe $c created the catalog folder"; rm -rf "$tmp/nope"; }
    [ -e "$now" ] && { bad "floe $c created the warehouse"; rm -rf "$now"; }
done
# floe sql whose -c statements all read opens the catalog read-only; a missing one is no catalog:
# constants and files still answer, a table is "does not exist", nothing is created.
for q in "SELECT 1" "-- note
WITH x AS (SELECT 1) SELECT * FROM x"; do
    run sql --catalog "$nocat" --warehouse "$now" -c "$q"
    [ "$rc" = 0 ] || bad "floe sql -c '$q' against a missing catalog exits $rc (want 0): $err"
    [ -e "$tmp/nope" ] || [ -e "$now" ] && { bad "floe sql -c '$q' created the catalog or warehouse"; rm -rf "$tmp/nope" "$now"; }
done
run sql --catalog "$nocat" --warehouse "$now" -c "SELECT * FROM demo.t"
[ "$rc" = 1 ] || bad "floe sql -c 'SELECT * FROM demo.t' against a missing catalog exits $rc (want 1)"
grep -q "does not exist" <<< "$err" || bad "floe sql -c 'SELECT * FROM demo.t': unclear error: $err"
[ -e "$tmp/nope" ] || [ -e "$now" ] && { bad "floe sql -c SELECT created the catalog or warehouse"; rm -rf "$tmp/nope" "$now"; }
# ...while a writing statement still creates it, as before.
run sql --catalog "$nocat" --warehouse "$now" -c "CREATE TABLE t (a int)"
[ "$rc" = 0 ] || bad "floe sql -c CREATE TABLE into a new catalog: $err"
[ -e "$tmp/nope/catalog.db" ] || bad "floe sql -c CREATE TABLE made no catalog"
rm -rf "$tmp/nope" "$now"
# ...and with the defaults (./warehouse/catalog.db) in an empty folder.
mkdir -p "$tmp/empty" && cd "$tmp/empty" || exit 1
run sql -c "SELECT 1"
[ "$rc" = 0 ] || bad "floe sql -c 'SELECT 1' with no ./warehouse exits $rc: $err"
[ -e warehouse ] && { bad "floe sql -c 'SELECT 1' created ./warehouse"; rm -rf warehouse; }
for c in "table tables default" "table describe default.t"; do
    # shellcheck disable=SC2086
    run $c
    [ "$rc" != 0 ] || bad "floe $c succeeded with no ./warehouse"
    [ -e warehouse ] && { bad "floe $c created ./warehouse"; rm -rf warehouse; }
done
cd "$tmp" || exit 1

# `-` is stdin.
printf 'id,name\n1,a\n2,b\n' >"$tmp/in.csv"
echo "SELECT 40 + 2 AS x;" | "$FLOE_BIN" sql --catalog "sqlite:$tmp/wh/catalog.db" --warehouse "$tmp/wh" \
    --format csv -f - >"$tmp/out" 2>"$tmp/err" || bad "floe sql -f - failed: $(cat "$tmp/err")"
grep -qx 42 "$tmp/out" || bad "floe sql -f - printed: $(cat "$tmp/out")"
"$FLOE_BIN" load --catalog "sqlite:$tmp/wh/catalog.db" --warehouse "$tmp/wh" --format csv - demo.t \
    <"$tmp/in.csv" >"$tmp/out" 2>"$tmp/err" || bad "floe load - failed: $(cat "$tmp/err")"
n="$("$FLOE_BIN" sql --catalog "sqlite:$tmp/wh/catalog.db" --warehouse "$tmp/wh" --format csv \
    -c "SELECT count(*) FROM demo.t" 2>&1 | tail -1)"
[ "$n" = 2 ] || bad "floe load - loaded: $n"
"$FLOE_BIN" convert "$tmp/in.csv" "$tmp/in.parquet" 2>"$tmp/err" || bad "convert: $(cat "$tmp/err")"
"$FLOE_BIN" parquet schema - <"$tmp/in.parquet" >"$tmp/out" 2>"$tmp/err" ||
    bad "floe parquet schema - failed: $(cat "$tmp/err")"
grep -q name "$tmp/out" || bad "floe parquet schema - printed: $(cat "$tmp/out")"
"$FLOE_BIN" parquet cat - --format jsonl <"$tmp/in.parquet" >"$tmp/out" 2>"$tmp/err" ||
    bad "floe parquet cat - failed: $(cat "$tmp/err")"
grep -q '"b"' "$tmp/out" || bad "floe parquet cat - printed: $(cat "$tmp/out")"
"$FLOE_BIN" convert - "$tmp/piped.parquet" <"$tmp/in.csv" 2>"$tmp/err" ||
    bad "floe convert - failed: $(cat "$tmp/err")"
grep -q "stdin (csv)" "$tmp/err" || bad "floe convert - did not name stdin: $(cat "$tmp/err")"
"$FLOE_BIN" convert - - --to csv <"$tmp/piped.parquet" >"$tmp/out" 2>"$tmp/err" ||
    bad "floe convert - - failed: $(cat "$tmp/err")"
[ "$(cat "$tmp/out")" = "$(printf 'id,name\n1,a\n2,b')" ] || bad "floe convert - - printed: $(cat "$tmp/out")"
printf 'id,name\n1,a\nzz\n' | "$FLOE_BIN" convert - - --to jsonl >/dev/null 2>"$tmp/err" &&
    bad "floe convert - of a bad CSV succeeded"
grep -q "^floe convert: stdin: line 3" "$tmp/err" || bad "floe convert - error: $(cat "$tmp/err")"
avro="$(ls "$tmp"/wh/demo/t/metadata/snap-*.avro 2>/dev/null | head -1)"
if [ -n "$avro" ]; then
    "$FLOE_BIN" avro meta - <"$avro" >"$tmp/out" 2>"$tmp/err" || bad "floe avro meta - failed: $(cat "$tmp/err")"
    grep -qx "file: stdin" "$tmp/out" || bad "floe avro meta - printed: $(cat "$tmp/out")"
    "$FLOE_BIN" avro cat - <"$avro" >"$tmp/out" 2>"$tmp/err" ||
        bad "floe avro cat - failed: $(cat "$tmp/err")"
    grep -q manifest_path "$tmp/out" || bad "floe avro cat - printed: $(cat "$tmp/out")"
else
    bad "no manifest list under $tmp/wh/demo/t/metadata to read back"
fi
# Progress lines: only on a terminal (or FLOE_PROGRESS=always), never in a pipe or log.
awk 'BEGIN { print "id,v"; for (i = 0; i < 20000; i++) print i "," i * 2 }' >"$tmp/many.csv"
printf 'id,v\n1,2\n3,4\n' >"$tmp/few.csv"
FLOE_PROGRESS=always "$FLOE_BIN" load --catalog "sqlite:$tmp/wh/catalog.db" --warehouse "$tmp/wh" \
    "$tmp/many.csv" "$tmp/few.csv" demo.progress 2>"$tmp/err" >/dev/null || bad "load with progress: $(cat "$tmp/err")"
grep -q '^floe load: many.csv (1/2) .*% .* rows, ' "$tmp/err" || bad "no progress line for file 1: $(head -3 "$tmp/err")"
grep -q '^floe load: few.csv (2/2) 100% 20,002 rows' "$tmp/err" || bad "no 100% line for file 2: $(tail -3 "$tmp/err")"
"$FLOE_BIN" load --catalog "sqlite:$tmp/wh/catalog.db" --warehouse "$tmp/wh" "$tmp/many.csv" demo.progress \
    2>"$tmp/err" >/dev/null || bad "load: $(cat "$tmp/err")"
grep -q 'rows/s' "$tmp/err" && bad "a progress line went to a file: $(cat "$tmp/err")"
FLOE_PROGRESS=always "$FLOE_BIN" convert "$tmp/many.csv" "$tmp/many.parquet" 2>"$tmp/err" ||
    bad "convert with progress: $(cat "$tmp/err")"
grep -q '^floe convert: many.csv 100% 20,000 rows' "$tmp/err" || bad "convert progress: $(tail -3 "$tmp/err")"
echo '{' | "$FLOE_BIN" avro meta - >/dev/null 2>"$tmp/err" && bad "floe avro meta - of junk succeeded"
grep -q "^floe avro: stdin: " "$tmp/err" || bad "floe avro meta - error: $(cat "$tmp/err")"

[ "$fails" = 0 ] || { echo "$fails convention failures"; exit 1; }
echo "ok: ${#commands[@]} commands"
