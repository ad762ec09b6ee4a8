#!/bin/bash
# test_pgwire_habits.sh - the statements people type from habit, through
# floe serve's PostgreSQL listener with the real psql: \copy ... CSV HEADER
# both ways (psql's everyday form: COPY ... FROM STDIN / TO STDOUT with the
# old "CSV HEADER" options, and the new (FORMAT csv, HEADER) ones), a COPY
# FROM STDIN error that names the column and not the spool file, and SHOW
# TABLES / SHOW SCHEMAS / DESCRIBE / SHOW CREATE TABLE / USE / COPY TO a
# server file / FROM 'file.csv' over the wire.
set -u
floe=${FLOE_BIN:?FLOE_BIN not set}
command -v psql >/dev/null || { echo "skip: psql not installed"; exit 77; }
dir=$(mktemp -d /tmp/floe-pghabit-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
fails=0
check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL: $1: expected [$2] got [$3]"; fails=$((fails+1)); else echo "ok   $1"; fi
}
cat="--catalog sqlite:$dir/wh/catalog.db"
secret=$("$floe" admin principal create alice --admin $cat 2>/dev/null | sed -n 's/^client_secret: //p')
"$floe" serve --port 0 --pg-port 0 $cat --warehouse "$dir/wh" --ready-file "$dir/ready" 2>"$dir/log" &
pid=$!
for _ in $(seq 100); do grep -qs '^pg' ready && break; sleep 0.1; done
port=$(sed -n 's/^pg .*://p' ready)
[ -n "$port" ] || { echo "FAIL: server did not start"; cat "$dir/log"; exit 1; }
export PGHOST=127.0.0.1 PGPORT=$port PGUSER=alice PGPASSWORD=$secret PGDATABASE=floe PGSSLMODE=disable
q() { psql -X -q -A -t -v ON_ERROR_STOP=0 "$@" 2>&1; }

q -c 'create schema demo' -c 'create table demo.orders (id bigint, name text, amount decimal(8,2))' >/dev/null
printf 'id,name,amount\n1,"a,b",1.50\n2,,\n3,"say ""hi""",3.00\n' > in.csv
check "\\copy FROM ... CSV HEADER skips the header" "COPY 3" \
  "$(psql -X -c '\copy demo.orders from in.csv CSV HEADER' 2>&1)"
check "rows imported" $'1|a,b|1.50\n2||\n3|say "hi"|3.00' "$(q -c 'select * from demo.orders order by id')"
psql -X -q -c '\copy (select * from demo.orders order by id) to out.csv CSV HEADER' 2>&1
check "\\copy TO ... CSV HEADER writes the header" "$(cat in.csv)" "$(cat out.csv)"
psql -X -q -c '\copy demo.orders to out2.csv with (format csv, header)' 2>&1
check "\\copy TO ... (FORMAT csv, HEADER)" "id,name,amount" "$(head -1 out2.csv)"
check "\\copy FROM ... (FORMAT csv, HEADER true)" "COPY 3" \
  "$(psql -X -c '\copy demo.orders from out2.csv with (format csv, header true)' 2>&1)"
check "header false reads the first line as data" "yes" \
  "$(psql -X -c '\copy demo.orders from in.csv with (format csv, header false)' 2>&1 | grep -q "cannot parse 'id'" && echo yes)"
err=$(psql -X -c '\copy demo.orders from in.csv csv' 2>&1)
check "COPY FROM STDIN error names the column, not the spool file" "yes" \
  "$(echo "$err" | grep -q "COPY from stdin: line 1, column 'id'" && ! echo "$err" | grep -q floe-copy && echo yes)"
printf 'id,name,amount\n4,d,1\nx,e,2\n' > bad.csv
check "after HEADER, error lines are the file's" "yes" \
  "$(psql -X -c '\copy demo.orders from bad.csv CSV HEADER' 2>&1 | grep -q "COPY from stdin: line 3, column 'id'" && echo yes)"
check "a failed COPY adds nothing" "6" "$(q -c 'select count(*) from demo.orders')"
check "SHOW TABLES FROM" "orders" "$(q -c 'show tables from demo')"
check "SHOW SCHEMAS" "demo" "$(q -c 'show schemas')"
check "USE, then SHOW TABLES and DESCRIBE" $'orders\nid|bigint|YES|1|\nname|text|YES|2|\namount|numeric(8,2)|YES|3|' \
  "$(q -c 'use demo' -c 'show tables' -c 'describe orders')"
check "SHOW CREATE TABLE" "CREATE TABLE \"demo\".\"orders\" (" "$(q -c 'show create table demo.orders' | head -1)"
check "COPY TO a server file" "COPY 6" "$(psql -X -c "copy demo.orders to '$dir/srv.csv' (format csv, header)" 2>&1)"
check "FROM 'file.csv'" "6" "$(q -c "select count(*) from '$dir/srv.csv'")"
check "ANALYZE's command tag" "ANALYZE" "$(psql -X -c 'analyze demo.orders' 2>&1)"
check "VACUUM says what to use instead" "0A000" "$(q -c 'vacuum demo.orders' -c '\echo :LAST_ERROR_SQLSTATE' | tail -1)"
[ "$fails" = 0 ] || { echo "$fails failed"; exit 1; }
echo "all passed"
