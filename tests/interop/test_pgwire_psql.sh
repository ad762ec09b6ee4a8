#!/bin/bash
# test_pgwire_psql.sh - floe serve's PostgreSQL listener driven by psql 15:
# SCRAM login, simple queries (multi-statement, empty, errors with SQLSTATE),
# DDL/DML, transaction blocks and the failed state, SET/SHOW, cursors,
# COPY TO/FROM STDIN (text and csv), TLS (sslmode=require), the connection
# limit (53300) and a message over the size limit (54000).
set -u
floe=${FLOE_BIN:?FLOE_BIN not set}
command -v psql >/dev/null || { echo "skip: psql not installed"; exit 77; }
dir=$(mktemp -d /tmp/floe-pgpsql-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
fails=0
check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL: $1: expected [$2] got [$3]"; fails=$((fails+1)); else echo "ok   $1"; fi
}
cat="--catalog sqlite:$dir/wh/catalog.db"
secret=$("$floe" admin principal create alice --admin $cat 2>/dev/null | sed -n 's/^client_secret: //p')
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj /CN=localhost >/dev/null 2>&1
"$floe" serve --port 0 --pg-port 0 $cat --warehouse "$dir/wh" --ready-file "$dir/ready" \
  --pg-tls-cert cert.pem --pg-tls-key key.pem --pg-max-connections 3 --pg-max-message-bytes 100000 \
  2>"$dir/log" &
pid=$!
for _ in $(seq 100); do grep -qs '^pg' ready && break; sleep 0.1; done
port=$(sed -n 's/^pg .*://p' ready)
[ -n "$port" ] || { echo "FAIL: server did not start"; cat "$dir/log"; exit 1; }
export PGHOST=127.0.0.1 PGPORT=$port PGUSER=alice PGPASSWORD=$secret PGDATABASE=floe PGSSLMODE=disable
q() { psql -X -q -A -t -v ON_ERROR_STOP=0 "$@" 2>&1; }

check "select" "1|x" "$(q -c "select 1 as a, 'x' as b")"
check "wrong password" "yes" "$(PGPASSWORD=nope q -c 'select 1' | grep -q 'password authentication failed' && echo yes)"
check "ddl+dml" "" "$(q -c 'create schema s' -c 'create table s.t (id bigint, name varchar, amt decimal(10,2), ts timestamptz)' \
  -c "insert into s.t values (1,'a',1.50,'2024-01-02 03:04:05.123456+00'),(2,null,null,null)")"
check "rows" $'1|a|1.50|2024-01-02 03:04:05.123456+00\n2|||' "$(q -c 'select * from s.t order by id')"
check "multi-statement" $'1\n2' "$(q -c 'select 1; select 2')"
check "error skips the rest" "ERROR:  division by zero in (1 / 0)" "$(q -c 'select 1/0; select 3')"
check "sqlstate of an error" "42703" "$(q -c 'select nope from s.t' -c '\echo :LAST_ERROR_SQLSTATE' | tail -1)"
check "empty query" "" "$(q -c ';')"
check "failed block" $'ERROR:  division by zero in (1 / 0)\nERROR:  current transaction is aborted, commands ignored until end of transaction block\n25P02' \
  "$(q -c 'begin' -c 'select 1/0' -c 'select 1' -c '\echo :LAST_ERROR_SQLSTATE' -c 'rollback')"
check "set/show" $'Europe/Paris\nmyapp\n2' "$(q -c "set time zone 'Europe/Paris'" -c 'show timezone' -c "set application_name = 'myapp'" -c 'show application_name' -c 'set extra_float_digits = 2' -c 'show extra_float_digits')"
check "unknown setting" "42704" "$(q -c 'show no_such_thing' -c '\echo :LAST_ERROR_SQLSTATE' | tail -1)"
check "client_encoding UTF8 only" "22023" "$(q -c "set client_encoding = 'LATIN1'" -c '\echo :LAST_ERROR_SQLSTATE' | tail -1)"
check "show all lists settings" "yes" "$(q -c 'show all' | grep -q '^DateStyle|ISO, MDY|' && echo yes)"
check "cursor" $'1|a\n2|' "$(q -c 'begin' -c 'declare c cursor for select id, name from s.t order by id' -c 'fetch 1 from c' -c 'fetch all from c' -c 'close c' -c 'commit')"
check "cursor needs a block" "25P01" "$(q -c 'declare c2 cursor for select 1' -c '\echo :LAST_ERROR_SQLSTATE' | tail -1)"
check "with hold cursor survives commit" $'1\n2' "$(q -c 'begin' -c 'declare h cursor with hold for select id from s.t order by id' -c 'commit' -c 'fetch 1 from h' -c 'move 0 in h' -c 'fetch next from h')"
check "copy to stdout csv" $'id,name\n1,a\n2,' "$(q -c 'copy (select id, name from s.t order by id) to stdout with (format csv, header)')"
check "copy to stdout text" $'1\ta\n2\t\\N' "$(q -c 'copy s.t (id, name) to stdout')"
printf '3\tc\\td\t2.25\t2024-05-05 00:00:00+00\n4\t\\N\t\\N\t\\N\n' > in.txt
check "copy from stdin text" "" "$(q -c '\copy s.t from in.txt')"
printf 'id,name\n5,"q,""x"""\n6,\n' > in.csv
check "copy from stdin csv" "" "$(q -c "\\copy s.t (id, name) from in.csv with (format csv, header)")"
check "copied rows" $'3|c\td|2.25\n4||\n5|q,"x"|\n6||' "$(q -c 'select id, name, amt from s.t where id > 2 order by id')"
check "tls" "yes" "$(PGSSLMODE=require q -c 'select 1' >/dev/null && PGSSLMODE=require psql -X -c '\conninfo' | grep -q 'SSL connection' && echo yes)"
# connection limit 3: hold three sessions open, the fourth is refused
for i in 1 2 3; do (echo 'select 1;'; sleep 3) | psql -X -q >/dev/null 2>&1 & done
sleep 1
check "connection limit" "yes" "$(q -c 'select 1' | grep -q 'too many clients' && echo yes)"
wait %2 %3 %4 2>/dev/null
big=$(head -c 150000 /dev/zero | tr '\0' 'x')
check "message over the limit" "yes" "$(echo "select '$big';" | q | grep -q 'exceeds the limit' && echo yes)"
check "server still up" "1" "$(q -c 'select 1')"
exit $((fails > 0))
