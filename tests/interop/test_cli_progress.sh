#!/usr/bin/env bash
# test_cli_progress.sh — progress lines of `floe sql` (the running statement: files, rows, bytes from
# fl_sql_session_progress) and `floe table compact` (files rewritten), issue 17 item 6. FLOE_PROGRESS=always makes
# the states deterministic without a terminal: every line on its own, the final counts drawn at least once
# (floe sql: as the output begins; compact: after each file). Checked: the final file and row counts, stdout
# byte-identical with and without progress, -c / -f / piped scripts alike, the line gone before an error, nothing
# for statements that scan nothing, and no progress at all when stderr is a file and FLOE_PROGRESS is unset.
# No timing is asserted.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${FLOE_SRC:-$(cd "$here/../.." && pwd)}"
floe="${FLOE_BIN:-$root/build/floe}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset FLOE_PROGRESS FLOE_CATALOG FLOE_WAREHOUSE
cat=(--catalog "sqlite:$tmp/catalog.db" --warehouse "$tmp/wh")
fails=0
check() { # name expected actual
  if [ "$2" = "$3" ]; then echo "PASS: $1"; else printf 'FAIL: %s\n--- expected\n%s\n--- got\n%s\n' "$1" "$2" "$3"; fails=$((fails + 1)); fi
}
sql() { "$floe" sql "${cat[@]}" "$@"; }

# demo.t: four data files (one per INSERT) of 1,000 rows each
sql -c "CREATE SCHEMA demo" -c "CREATE TABLE demo.t (id bigint, v text)" >/dev/null 2>&1 ||
  { echo "FAIL: setup"; exit 1; }
for i in 0 1 2 3; do
  sql -c "INSERT INTO demo.t SELECT x, 'v' || x FROM generate_series($((i * 1000)), $((i * 1000 + 999))) AS g(x)" \
    >/dev/null 2>"$tmp/err" || { echo "FAIL: insert $i: $(cat "$tmp/err")"; exit 1; }
done
q="SELECT count(*), sum(id), max(v) FROM demo.t"
line_re='^floe sql: [0-9]+/[0-9]+ files(  [0-9,]+ rows)?(  [0-9.]+ [kMGT]?B)?$'

# -c: the final state, every line well formed, stdout unchanged
FLOE_PROGRESS=always sql -c "$q" >"$tmp/out.always" 2>"$tmp/err.always"
FLOE_PROGRESS=never sql -c "$q" >"$tmp/out.never" 2>"$tmp/err.never"
check "stdout with progress = without" "$(cat "$tmp/out.never")" "$(cat "$tmp/out.always")"
check "query result" " count |   sum   | max
-------+---------+------
  4000 | 7998000 | v999
(1 row)" "$(cat "$tmp/out.never")"
check "final progress line" "floe sql: 4/4 files  4,000 rows" "$(tail -1 "$tmp/err.always" | sed 's/  [0-9.]* [kMGT]*B$//')"
check "every stderr line is a progress line" "" "$(grep -Ev "$line_re" "$tmp/err.always")"
check "never: no progress" "" "$(cat "$tmp/err.never")"

# unset FLOE_PROGRESS and stderr into a file: no progress line
sql -c "$q" >"$tmp/out.file" 2>"$tmp/err.file"
check "stderr a file: no progress" "" "$(cat "$tmp/err.file")"
check "stderr a file: same stdout" "$(cat "$tmp/out.never")" "$(cat "$tmp/out.file")"

# -f and a piped script (the shell's loop) draw the same; statements that scan nothing draw nothing
printf 'SELECT 1;\n%s;\nSET threads = 2;\n' "$q" >"$tmp/script.sql"
FLOE_PROGRESS=always sql --format csv -f "$tmp/script.sql" >"$tmp/out.f" 2>"$tmp/err.f"
check "-f: one statement's progress" "floe sql: 4/4 files  4,000 rows" \
  "$(grep '^floe sql:' "$tmp/err.f" | tail -1 | sed 's/  [0-9.]* [kMGT]*B$//')"
check "-f: stdout" "?column?
1
count,sum,max
4000,7998000,v999" "$(cat "$tmp/out.f")"
FLOE_PROGRESS=always sql --format csv <"$tmp/script.sql" >"$tmp/out.stdin" 2>"$tmp/err.stdin"
check "piped script: progress as -f" "floe sql: 4/4 files  4,000 rows" \
  "$(grep '^floe sql:' "$tmp/err.stdin" | tail -1 | sed 's/  [0-9.]* [kMGT]*B$//')"
check "piped script: stdout as -f" "$(cat "$tmp/out.f")" "$(cat "$tmp/out.stdin")"
FLOE_PROGRESS=always sql -c "SELECT 1" -c "SELECT count(*) FROM generate_series(1, 100000)" >/dev/null 2>"$tmp/err.noscan"
check "no scan: no progress" "" "$(cat "$tmp/err.noscan")"

# the query of a DML statement shows progress; its tag still prints
FLOE_PROGRESS=always sql -c "CREATE TABLE demo.u AS SELECT * FROM demo.t WHERE id < 2000" >"$tmp/out.ctas" 2>"$tmp/err.ctas"
check "CTAS tag" "SELECT 2000" "$(cat "$tmp/out.ctas")"
check "CTAS progress (metrics pruning: two files)" "floe sql: 2/2 files  2,000 rows" \
  "$(tail -1 "$tmp/err.ctas" | sed 's/  [0-9.]* [kMGT]*B$//')"

# an error: the progress line comes before it, never after
FLOE_PROGRESS=always sql -c "SELECT sum(1 / (id - 3500)) FROM demo.t" >/dev/null 2>"$tmp/err.fail"
check "error is the last stderr line" "ERROR: division by zero" "$(tail -1 "$tmp/err.fail" | cut -c1-23)"
check "only progress lines before the error" "" "$(sed '$d' "$tmp/err.fail" | grep -Ev "$line_re")"
check "a progress line before the error" "yes" "$(grep -Eq "$line_re" "$tmp/err.fail" && echo yes)"

# a statement failing before it starts (syntax) shows nothing: not the previous statement's counts again
FLOE_PROGRESS=always sql -c "$q" -c "SELEC 1" >/dev/null 2>"$tmp/err.syntax"
check "final state drawn once" "1" "$(grep -c '^floe sql: 4/4 files  4,000 rows' "$tmp/err.syntax")"
check "then the syntax error" "ERROR:" "$(tail -1 "$tmp/err.syntax" | cut -c1-6)"

# compaction: files rewritten of total, then the summary
FLOE_PROGRESS=always "$floe" table compact "${cat[@]}" demo.t >/dev/null 2>"$tmp/err.compact"
check "compact progress" "floe table compact: 0/4 files
floe table compact: 1/4 files  1,000 rows
floe table compact: 2/4 files  2,000 rows
floe table compact: 3/4 files  3,000 rows
floe table compact: 4/4 files  4,000 rows" "$(sed '$d' "$tmp/err.compact")"
check "compact summary" "floe table compact: demo.t 4 data files rewritten into 1" \
  "$(tail -1 "$tmp/err.compact" | sed 's/ (snapshot [0-9-]*)$//')"
FLOE_PROGRESS=always sql -c "$q" >"$tmp/out.after" 2>"$tmp/err.after"
check "after compaction: one file" "floe sql: 1/1 files  4,000 rows" "$(tail -1 "$tmp/err.after" | sed 's/  [0-9.]* [kMGT]*B$//')"
check "after compaction: same rows" "$(cat "$tmp/out.never")" "$(cat "$tmp/out.after")"
sql -c "INSERT INTO demo.t VALUES (5000, 'x')" -c "INSERT INTO demo.t VALUES (5001, 'y')" >/dev/null 2>&1
"$floe" table compact "${cat[@]}" demo.t >/dev/null 2>"$tmp/err.compact2"
check "compact, stderr a file: only the summary" "floe table compact: demo.t 3 data files rewritten into 1" \
  "$(sed 's/ (snapshot [0-9-]*)$//' "$tmp/err.compact2")"

[ "$fails" = 0 ] || { echo "$fails progress failures"; exit 1; }
echo "ok: progress"
