#!/usr/bin/env bash
# The CLI conventions (src/cli/README.md "Conventions") swept over every `floe` command and subcommand:
# --help and -h exit 0 with usage on stdout; an unknown option exits 2 naming the option and the command on
# stderr; a missing argument exits 2; read-only commands against a catalog / warehouse that does not exist fail
# and create nothing; `-` reads stdin, and is stdout where a command writes a file. The option syntax is one
# (src/cli/opts.h): the unknown-option and needs-a-value messages word for word on many commands, --opt value
# and --opt=value alike (floe avro), and every option a --help lists is one its parser takes. The command list
# mirrors src/cli/main.c and each command's table; a new subcommand missing here is caught by the "every listed
# subcommand" check on `floe table --help`.
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

# The option syntax is one (src/cli/opts.h): the same messages everywhere, word for word.
# Each case is "NAME|ARGS": NAME as messages say it, ARGS after it on the command line.
for t in "convert|a b" "load|a t" "sql|" "table cat|t" "table create|t" "avro cat|f" "parquet cat|f" \
    "admin|" "serve|" "mcp|" "semantic query|" "ingest status|" "pg-decode|"; do
    name="${t%%|*}" args="${t#*|}"
    # shellcheck disable=SC2086
    run $name $args --bogus-opt=1
    [ "$rc" = 2 ] && [ "$err" = "floe $name: unknown option '--bogus-opt' (see floe $name --help)" ] ||
        bad "floe $name $args --bogus-opt=1: exit $rc, said: $err"
done
for t in "convert|a b --schema" "load|a t --format" "sql|--format" "sql|-c" "table cat|t --where" \
    "table create|t --schema" "avro cat|f --limit" "parquet cat|f --columns" "admin|--catalog" \
    "serve|--port" "mcp|--models" "semantic query|--metrics" "ingest files|--into" "pg-decode|--slot"; do
    name="${t%%|*}" args="${t#*|}"
    # shellcheck disable=SC2086
    run $name $args
    [ "$rc" = 2 ] && [ "$err" = "floe $name: ${args##* } needs a value" ] ||
        bad "floe $name $args: exit $rc, said: $err"
done
# --help is generated from the same table the parser reads: every option it lists is one the parser
# knows. A value option given last "needs a value"; a flag followed by --help is accepted (the help
# then wins), so nothing runs. (tests/cli/test_opts.c: the help lists every row of a table.)
leaves=("convert" "load" "serve" "sql" "mcp" "pg-decode" "admin" "avro schema" "avro meta" "avro cat"
    "avro write" "parquet cat" "orc cat" "semantic query" "ingest files" "ingest status")
for s in $table_subs; do leaves+=("table $s"); done
nopts=0
for c in "${leaves[@]}"; do
    # shellcheck disable=SC2086
    "$FLOE_BIN" $c --help >"$tmp/help" 2>&1 || bad "floe $c --help failed"
    n=0
    # option lines: "  --name VALUE  help", "  -x, --name  help"; a placeholder follows after one space
    while read -r opt kind; do
        n=$((n + 1))
        [ "$opt" = --help ] && continue
        if [ "$kind" = value ]; then
            # shellcheck disable=SC2086
            run $c "$opt"
            grep -qF -- "$opt needs a value" <<<"$err" || bad "floe $c: $opt (listed in --help) is not a value option: $err"
        else
            # shellcheck disable=SC2086
            run $c "$opt" --help
            [ "$rc" = 0 ] && grep -qi usage <<<"$out" || bad "floe $c: flag $opt (listed in --help) refused: $err"
        fi
    done < <(awk '/options:$/ { f = 1; next } /^$/ { f = 0 }
        f && /^  -/ && match($0, /--[a-z][a-z0-9-]*/) {
            rest = substr($0, RSTART + RLENGTH, 2)
            print substr($0, RSTART, RLENGTH), (rest ~ /^ [^ ]/ ? "value" : "flag")
        }' "$tmp/help")
    [ "$n" -gt 0 ] || bad "floe $c --help lists no options"
    nopts=$((nopts + n))
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
# ...and `-` is stdout where a command writes a file: Parquet from floe convert, floe sql -o -.
"$FLOE_BIN" convert "$tmp/in.csv" - --to parquet --quiet 2>"$tmp/err" | "$FLOE_BIN" parquet cat - --format csv \
    >"$tmp/out" 2>>"$tmp/err" || bad "floe convert IN - --to parquet: $(cat "$tmp/err")"
[ "$(cat "$tmp/out")" = "$(printf 'id,name\n1,a\n2,b')" ] || bad "floe convert - --to parquet | parquet cat -: $(cat "$tmp/out")"
[ "$("$FLOE_BIN" sql --no-catalog -At -c "SELECT 42" -o - 2>&1)" = 42 ] || bad "floe sql -o - did not print 42"
"$FLOE_BIN" sql --no-catalog --format parquet -o - -c "SELECT 42 AS x UNION ALL SELECT 7 ORDER BY x DESC" >"$tmp/stdout.parquet" 2>"$tmp/err" ||
    bad "floe sql --format parquet -o -: $(cat "$tmp/err")"
[ "$("$FLOE_BIN" parquet cat "$tmp/stdout.parquet" --format csv | tr "\n" " ")" = "x 42 7 " ] ||
    bad "floe sql --format parquet -o - wrote: $("$FLOE_BIN" parquet cat "$tmp/stdout.parquet" 2>&1 | head -3)"
# floe table register TABLE - : the metadata JSON on stdin (stored under the table's location);
# demo.t is dropped from the catalog (its files stay) and registered again from its last metadata.
meta="$(ls "$tmp"/wh/demo/t/metadata/*.metadata.json 2>/dev/null | tail -1)"
"$FLOE_BIN" table drop --catalog "sqlite:$tmp/wh/catalog.db" --warehouse "$tmp/wh" demo.t 2>"$tmp/err" ||
    bad "floe table drop demo.t: $(cat "$tmp/err")"
"$FLOE_BIN" table register --catalog "sqlite:$tmp/wh/catalog.db" --warehouse "$tmp/wh" demo.t - \
    <"$meta" >"$tmp/out" 2>"$tmp/err" || bad "floe table register demo.t - failed: $(cat "$tmp/err")"
n="$("$FLOE_BIN" table count demo.t --catalog "sqlite:$tmp/wh/catalog.db" --warehouse "$tmp/wh" 2>&1)"
[ "$n" = 2 ] || bad "floe table register - then count: $n"
echo '{}' | "$FLOE_BIN" table register --catalog "sqlite:$tmp/wh/catalog.db" --warehouse "$tmp/wh" demo.bad - \
    >/dev/null 2>"$tmp/err" && bad "floe table register - of '{}' succeeded"
grep -q "^floe table register: stdin" "$tmp/err" || bad "floe table register - error: $(cat "$tmp/err")"
# floe avro: --opt value and --opt=value alike; the records from stdin, the container to stdout
echo '{"type":"record","name":"r","fields":[{"name":"a","type":"long"}]}' >"$tmp/s.avsc"
printf '{"a":1}\n{"a":2}\n' >"$tmp/r.jsonl"
sync=00112233445566778899aabbccddeeff
"$FLOE_BIN" avro write "$tmp/s.avsc" - - --codec snappy --meta k=v --sync "$sync" --block-size 64 \
    <"$tmp/r.jsonl" >"$tmp/w1.avro" 2>"$tmp/err" || bad "floe avro write S - -: $(cat "$tmp/err")"
"$FLOE_BIN" avro write "$tmp/s.avsc" "$tmp/r.jsonl" "$tmp/w2.avro" --codec=snappy --meta=k=v --sync="$sync" \
    --block-size=64 2>"$tmp/err" || bad "floe avro write --opt=value: $(cat "$tmp/err")"
cmp -s "$tmp/w1.avro" "$tmp/w2.avro" || bad "floe avro write: --opt value and --opt=value wrote different files"
"$FLOE_BIN" avro meta "$tmp/w1.avro" | grep -q '^  k = v$' || bad "floe avro write --meta k=v: no k = v"
[ "$("$FLOE_BIN" avro cat "$tmp/w1.avro" --format csv --limit 1)" = "$(printf 'a\n1')" ] ||
    bad "floe avro cat --format csv --limit 1: $("$FLOE_BIN" avro cat "$tmp/w1.avro" --format csv --limit 1 2>&1)"
[ "$("$FLOE_BIN" avro cat --format=csv --limit=1 "$tmp/w1.avro")" = "$(printf 'a\n1')" ] || bad "floe avro cat --format=csv"
"$FLOE_BIN" avro cat "$tmp/w1.avro" --reader-schema "$tmp/s.avsc" | grep -qx '{"a":2}' || bad "floe avro cat --reader-schema F"
"$FLOE_BIN" avro canonical - <"$tmp/s.avsc" | grep -q '"name":"r"' || bad "floe avro canonical -"
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
echo "ok: ${#commands[@]} commands, $nopts options of ${#leaves[@]} option tables"
