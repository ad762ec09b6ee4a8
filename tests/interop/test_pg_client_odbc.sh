#!/usr/bin/env bash
# test_pg_client_odbc.sh - issue 5 acceptance: psqlODBC (Debian's
# odbc-postgresql, psqlodbcw.so) through unixODBC's `isql` against `floe serve
# --pg-port` (SCRAM). odbcinst.ini and odbc.ini are written into a temp dir
# (ODBCSYSINI / ODBCINI). Two DSNs:
#   floe_plain : UseDeclareFetch=0 (the whole result in one go), server-side prepare
#                (both: ConnSettings=SET search_path TO lake, public, so that
#                SQLColumns with a NULL schema finds lake.od, as Tableau's initial SQL)
#   floe_cursor: UseDeclareFetch=1, Fetch=2500 - the driver wraps each SELECT
#                in DECLARE "SQL_CUR..." CURSOR [WITH HOLD] + FETCH 2500 (what
#                Tableau and Power BI do through psqlODBC)
# Checks DDL, DML (by the rows it leaves), queries, SQL PREPARE/EXECUTE with
# parameters, `help` (SQLTables), `help <table>` (SQLColumns), a 100,000-row
# SELECT through the cursor DSN (every row checked), errors with SQLSTATE.
# FLOE_PG_TARGET=postgres runs it against PostgreSQL 15.
# Exit 77 when isql or the psqlODBC driver is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pgclients/pgc-lib.sh"
drv=/usr/lib/x86_64-linux-gnu/odbc/psqlodbcw.so
command -v isql >/dev/null || pgc_skip "isql not installed (unixodbc)"
[ -f $drv ] || pgc_skip "$drv missing (odbc-postgresql)"
pgc_start odbc
out=$(pgc_psql -q -f "$here/../pgclients/setup.sql" 2>&1) || pgc_fail "setup.sql: $out"
export ODBCSYSINI=$PGC_WORK/odbc ODBCINI=$PGC_WORK/odbc/odbc.ini
mkdir -p "$ODBCSYSINI"
printf '[PostgreSQL Unicode]\nDescription=psqlODBC\nDriver=%s\nUsageCount=1\n' $drv >"$ODBCSYSINI/odbcinst.ini"
dsn() { # name usedeclarefetch
  printf '[%s]\nDriver=PostgreSQL Unicode\nServername=%s\nPort=%s\nDatabase=%s\nUsername=%s\nPassword=%s\nSSLMode=disable\nUseDeclareFetch=%s\nFetch=2500\nUseServerSidePrepare=1\nBoolsAsChar=0\nTextAsLongVarchar=1\nMaxLongVarcharSize=65536\nConnSettings=SET search_path TO lake, public\nDebug=0\nCommLog=0\n\n' \
    "$1" "$PGC_HOST" "$PGC_PORT" "$PGC_DB" "$PGC_USER" "$PGC_PASSWORD" "$2"
}
{ dsn floe_plain 0; dsn floe_cursor 1; } >"$ODBCINI"
fails=0
check() { if [ "$2" == "$3" ]; then echo "ok   $1"; else
  echo "FAIL $1"; echo "  expected: $(printf '%s' "$3" | head -c 1500)"; echo "  actual:   $(printf '%s' "$2" | head -c 1500)"; fails=$((fails + 1)); fi; }
check_grep() { if grep -Eq -- "$3" <<< "$2"; then echo "ok   $1"; else
  echo "FAIL $1: no line matches /$3/ in:"; printf '%s\n' "$2" | head -40; fails=$((fails + 1)); fi; }
# isql: batch mode, '|'-delimited; drop isql's "SQLRowCount returns" lines unless wanted
runisql() { isql "$1" -b -v -d'|' 2>&1; }

out=$(runisql floe_plain <<'EOF'
CREATE TABLE lake.od (id integer, name text, amount numeric(10,2), d date, ok boolean)
INSERT INTO lake.od VALUES (1, 'one', 1.25, '2024-01-31', true), (2, 'twö', -3.50, '1999-12-31', false), (3, NULL, NULL, NULL, NULL)
UPDATE lake.od SET amount = amount * 2 WHERE id <= 2
DELETE FROM lake.od WHERE id = 3
SELECT id, name, amount, d, ok FROM lake.od ORDER BY id
SELECT count(*), sum(v) FROM lake.big WHERE id <= 1000
EOF
)
# (isql -b prints no row counts: the DML is checked by the rows it leaves)
check "ddl/dml/query via isql" "$out" "1|one|2.50|2024-01-31|1
2|twö|-7.00|1999-12-31|0
1000|1001000"

out=$(runisql floe_plain <<'EOF'
PREPARE odq(integer, text) AS SELECT id, name FROM lake.od WHERE id >= $1 AND name <> $2 ORDER BY id
EXECUTE odq(1, 'one')
EXECUTE odq(0, 'x')
DEALLOCATE odq
EOF
)
check "PREPARE/EXECUTE with parameters" "$(printf '%s\n' "$out" | grep -v '^SQLRowCount')" "2|twö
1|one
2|twö"

# SQLTables: isql's `help` lists every table (catalog|schema|name|type|remarks)
out=$(printf 'help\n' | runisql floe_plain)
check_grep "help (SQLTables) lists lake.big" "$out" '\|lake\|big\|TABLE\|'
check_grep "help (SQLTables) lists lake.od" "$out" '\|lake\|od\|TABLE\|'
# SQLColumns: `help od` (catalog|schema|table|column|data type|type name|size|...)
out=$(printf 'help od\n' | runisql floe_plain)
check_grep "help od: id int4" "$out" '\|lake\|od\|id\|4\|int4\|10\|'
check_grep "help od: name text" "$out" '\|lake\|od\|name\|-(1|10)\|text\|'
check_grep "help od: amount numeric(10,2)" "$out" '\|lake\|od\|amount\|2\|numeric\|10\|'
check_grep "help od: d date" "$out" '\|lake\|od\|d\|(9|91)\|date\|'
check_grep "help od: ok bool" "$out" '\|lake\|od\|ok\|-7\|bool\|'

# 100,000 rows through UseDeclareFetch (DECLARE CURSOR + FETCH 2500)
printf 'SELECT id, v, s FROM lake.big ORDER BY id\n' | isql floe_cursor -b -v -d'|' >big.txt 2>&1
out=$(grep -v '^SQLRowCount' big.txt | awk -F'|' '{ n++; if ($1 != n || $2 != 2*n || $3 != "row" n) { print "bad row " NR ": " $0; exit } } END { print n }')
check "UseDeclareFetch 100k rows" "$out" "100000"
# the cursor DSN also runs DML and small queries
out=$(runisql floe_cursor <<'EOF'
INSERT INTO lake.od VALUES (4, 'four', 4.00, '2000-02-29', true)
SELECT id, name FROM lake.od WHERE id > 1 ORDER BY id
EOF
)
check "cursor DSN: insert + select" "$(printf '%s\n' "$out" | grep -v '^SQLRowCount')" "2|twö
4|four"

# errors: isql -v prints the driver's diagnostic with the SQLSTATE
out=$(printf 'SELECT * FROM lake.nope\nSELECT 1/0\nSELECT 42\n' | runisql floe_plain)
check_grep "42P01 reported" "$out" '42P01'
check_grep "22012 reported" "$out" '22012'
check_grep "usable after errors" "$out" '^42$'
# wrong password
out=$(isql floe_plain "$PGC_USER" wrong-password -b -v </dev/null 2>&1); rc=$?
[ $rc != 0 ] && printf '%s' "$out" | grep 'Could not SQLConnect\|28P01\|password' >/dev/null && echo "ok   wrong password rejected" \
  || { echo "FAIL wrong password: rc=$rc $out"; fails=$((fails + 1)); }
[ $fails = 0 ] || { pgc_server_log_tail; echo "FAILED: $fails check(s)"; exit 1; }
echo "PASS"
