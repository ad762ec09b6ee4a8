#!/usr/bin/env bash
# test_sql_cli.sh — the `floe sql` shell: -c / -f / piped scripts, the output formats (table, csv, json, jsonl,
# parquet), command tags, error positions counted in the script ("ERROR: line L, column C: ..."), exit statuses,
# --keep-going, backslash commands (\dn, \dt, \d TABLE, \f, \x, \o, \a, \t) in piped input, --timing, psql's -A/-t/-F.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${FLOE_SRC:-$(cd "$here/../.." && pwd)}"
floe="${FLOE_BIN:-$root/build/floe}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
cat=(--catalog "sqlite:$tmp/catalog.db" --warehouse "$tmp/wh")
fails=0
check() { # name expected actual
  if [ "$2" = "$3" ]; then echo "PASS: $1"; else printf 'FAIL: %s\n--- expected\n%s\n--- got\n%s\n' "$1" "$2" "$3"; fails=$((fails + 1)); fi
}
has() { # name needle haystack
  case "$3" in *"$2"*) echo "PASS: $1";; *) printf 'FAIL: %s: [%s] not in\n%s\n' "$1" "$2" "$3"; fails=$((fails + 1));; esac
}
q="SELECT * FROM (VALUES (1, 'a', 1.50), (22, NULL, 0 - 3.25), (3, 'x,\"y\"', 0.00)) AS t(n, s, d) ORDER BY n"

check "table format" " n  |   s   |   d
----+-------+-------
  1 | a     |  1.50
  3 | x,\"y\" |  0.00
 22 | NULL  | -3.25
(3 rows)" "$("$floe" sql --no-catalog -c "$q" 2>&1)"

check "csv format" 'n,s,d
1,a,1.50
3,"x,""y""",0.00
22,,-3.25' "$("$floe" sql --no-catalog --format csv -c "$q" 2>&1)"

check "jsonl format" '{"n":1,"s":"a","d":1.50}
{"n":3,"s":"x,\"y\"","d":0.00}
{"n":22,"s":null,"d":-3.25}' "$("$floe" sql --no-catalog --format jsonl -c "$q" 2>&1)"

check "json format" '[
{"n":1,"s":"a","d":1.50},
{"n":3,"s":"x,\"y\"","d":0.00},
{"n":22,"s":null,"d":-3.25}
]' "$("$floe" sql --no-catalog --format json -c "$q" 2>&1)"

# nested values print as the engine's JSON, numbers bare at every depth (as
# to_json and /v1/sql do), not the file tools' exact-string int64
check "jsonl nested" '{"s":{"f1":1,"f2":2.50,"f3":"2024-01-02 03:04:05","f4":{"f1":true,"f2":"x"}}}' \
  "$("$floe" sql --no-catalog --format jsonl -c "SELECT ROW(1::bigint, 2.50, TIMESTAMP '2024-01-02 03:04:05', ROW(true, 'x')) AS s" 2>&1)"

check "expanded" "-[ RECORD 1 ]----
n | 1
s | a
d | 1.50" "$("$floe" sql --no-catalog -x -c "SELECT 1 AS n, 'a' AS s, 1.50 AS d" 2>&1)"

"$floe" sql --no-catalog --format parquet -o "$tmp/out.parquet" -c "$q"
check "parquet output" "3" "$("$floe" parquet cat "$tmp/out.parquet" --format csv | tail -n +2 | wc -l | tr -d ' ')"
check "parquet output needs -o" "2" "$("$floe" sql --no-catalog --format parquet -c "$q" >/dev/null 2>&1; echo $?)"

# tags, DDL/DML through the catalog
out="$("$floe" sql "${cat[@]}" -c "CREATE SCHEMA s1" -c "CREATE TABLE s1.t (id integer, v varchar)" \
  -c "INSERT INTO s1.t VALUES (1, 'one'), (2, 'two')" -c "SELECT count(*) AS c FROM s1.t" 2>&1)"
check "command tags" "CREATE SCHEMA
CREATE TABLE
INSERT 0 2
 c
---
 2
(1 row)" "$out"

# errors: positions in the script, exit status, --keep-going
printf 'SELECT 1 AS a;\n-- a comment\n\nSELECT  nosuchcol FROM (VALUES (1)) t(a);\nSELECT 2 AS b;\n' > "$tmp/err.sql"
out="$("$floe" sql --no-catalog -f "$tmp/err.sql" 2>&1)"; rc=$?
check "error exit status" "1" "$rc"
has "error position counted in the file" "ERROR: line 4, column 9:" "$out"
case "$out" in *" b"*) echo "FAIL: statements after an error ran"; fails=$((fails + 1));; *) echo "PASS: the first error stops the script";; esac
out="$("$floe" sql --no-catalog --keep-going -f "$tmp/err.sql" 2>&1)"; rc=$?
check "--keep-going exit status" "1" "$rc"
has "--keep-going runs the rest" " b" "$out"
out="$("$floe" sql --no-catalog -c "SELECT 1;
  SELEC 2" 2>&1)"
has "syntax error position in -c text" "ERROR: line 2, column 3:" "$out"

# piped input: multi-line statements and backslash commands
out="$(printf 'SELECT\n  40 + 2\n  AS answer;\n\\f csv\nSELECT 7 AS seven;\n\\dn\n\\dt\n\\d s1.t\n' | "$floe" sql "${cat[@]}" 2>&1)"
has "multi-line statement" "    42" "$out"
has "\\f csv" "seven
7" "$out"
has "\\dn" " s1" "$out"
has "\\dt" " s1                   | t" "$out"
has "\\d table" " id                       | integer" "$out"
printf '\\o %s/o.txt\nSELECT 5 AS five;\n' "$tmp" | "$floe" sql --no-catalog >/dev/null 2>&1
has "\\o FILE" "five" "$(cat "$tmp/o.txt" 2>/dev/null)"
has "--timing" "Time: " "$("$floe" sql --no-catalog --timing -c "SELECT 1" 2>&1)"
# psql habits: -A (unaligned, NULL as nothing), -t (rows only), -At, -F, and \a / \t in the shell
check "-A unaligned" 'n|s|d
1|a|1.50
3|x,"y"|0.00
22||-3.25
(3 rows)' "$("$floe" sql --no-catalog -A -c "$q" 2>&1)"
check "-At" '1|a|1.50
3|x,"y"|0.00
22||-3.25' "$("$floe" sql --no-catalog -At -c "$q" 2>&1)"
check "-t aligned" '  1 | a     |  1.50
  3 | x,"y" |  0.00
 22 | NULL  | -3.25' "$("$floe" sql --no-catalog -t -c "$q" 2>&1)"
check "-A -t -F ," '1,a,1.50' "$("$floe" sql --no-catalog -A -t -F , -c "SELECT 1, 'a', 1.50" 2>&1)"
check "\\a and \\t" 'Output format is unaligned.
five
5
(1 row)
Tuples only is on.
6' "$(printf '\\a\nSELECT 5 AS five;\n\\t\nSELECT 6 AS six;\n' | "$floe" sql --no-catalog -q 2>&1)"
check "unknown option" "2" "$("$floe" sql --bogus >/dev/null 2>&1; echo $?)"
[ "$fails" = 0 ]
