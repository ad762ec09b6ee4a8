#!/usr/bin/env bash
# scripts/demo-postgres.sh: the PostgreSQL source of `make run`'s CDC pipeline (floe ingest postgres).
#   start DIR PORT        a local cluster in DIR (Debian's postgresql server binaries; as the 'postgres' OS user
#                         when run as root, since PostgreSQL refuses root) on 127.0.0.1:PORT with wal_level=logical.
#                         The first start creates the shop's CRM tables (customers, products) with rows and the
#                         publication floe_demo. Prints the connection URL. Exit 3 when PostgreSQL is not installed.
#   changes URL SECONDS PAUSE_FILE
#                         every SECONDS: a price change, a stock change, a customer's tier, a new customer and,
#                         every third round, a deleted one; skipped while PAUSE_FILE exists. Runs until killed.
#   stop DIR
set -euo pipefail
cmd=${1:?usage: demo-postgres.sh start DIR PORT | changes URL SECONDS PAUSE_FILE | stop DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
[ -n "$bin" ] || { echo "PostgreSQL server binaries missing (apt-get install postgresql)" >&2; exit 3; }
as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi; }
psql_q() { "$bin/psql" -X -q -v ON_ERROR_STOP=1 "$1" -c "$2" >/dev/null; }

seed() {
  psql_q "$1" "
    CREATE TABLE customers (customer_id int PRIMARY KEY, name text NOT NULL, region text, tier text,
                            updated_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE products (sku text PRIMARY KEY, name text NOT NULL, price numeric(10,2), stock int);
    INSERT INTO customers (customer_id, name, region, tier)
      SELECT g, 'customer ' || g, (ARRAY['EU','NA','APAC'])[1 + g % 3], (ARRAY['free','pro','team'])[1 + g % 3]
      FROM generate_series(1, 40) g;
    INSERT INTO products SELECT 'SKU-' || lpad(g::text, 3, '0'), 'product ' || g, 5 + g * 2.5, 100 + g
      FROM generate_series(1, 25) g;
    CREATE PUBLICATION floe_demo FOR TABLE customers, products;"
}

case $cmd in
  start)
    dir=${2:?data dir}; port=${3:?port}
    command -v su >/dev/null || { echo "no su to run PostgreSQL as the postgres user" >&2; exit 3; }
    if [ "$(id -u)" = 0 ]; then id postgres >/dev/null 2>&1 || { echo "no 'postgres' OS user" >&2; exit 3; }; fi
    mkdir -p "$dir"; chmod 755 "$dir"; [ "$(id -u)" = 0 ] && chown postgres "$dir"
    fresh=
    if [ ! -f "$dir/PG_VERSION" ]; then
      as_pg "$bin/initdb -D '$dir' -A trust -U postgres -E UTF8 --locale=C.UTF-8" >"$dir.initdb.log" 2>&1
      printf '\nwal_level = logical\nmax_replication_slots = 4\nmax_wal_senders = 4\n' >>"$dir/postgresql.conf"
      fresh=1
    fi
    as_pg "$bin/pg_ctl -D '$dir' -w -l '$dir/server.log' -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1\" start" >/dev/null
    url="postgresql://postgres@127.0.0.1:$port/postgres"
    [ -z "$fresh" ] || seed "$url"
    echo "$url" ;;
  changes)
    url=${2:?url}; every=${3:-3}; pause=${4:-/nonexistent}; round=0
    while :; do
      sleep "$every"
      [ -e "$pause" ] && continue
      round=$((round + 1)); sku=$(printf 'SKU-%03d' $((1 + round % 25)))
      del=""; [ $((round % 3)) = 0 ] && del="DELETE FROM customers WHERE customer_id = (SELECT min(customer_id) FROM customers);"
      psql_q "$url" "BEGIN;
        UPDATE products SET price = price + 0.50, stock = stock - $((1 + round % 4)) WHERE sku = '$sku';
        UPDATE customers SET tier = (ARRAY['free','pro','team'])[1 + $round % 3], updated_at = now()
          WHERE customer_id = (SELECT max(customer_id) FROM customers WHERE customer_id < 1000);
        INSERT INTO customers (customer_id, name, region, tier)
          SELECT m, 'customer ' || m, 'EU', 'free'
          FROM (SELECT greatest(max(customer_id), 1000) + 1 AS m FROM customers) s;
        $del
        COMMIT;" || true  # the source restarting: try again next round
    done ;;
  stop)
    dir=${2:?data dir}
    [ -f "$dir/postmaster.pid" ] && as_pg "$bin/pg_ctl -D '$dir' -w -m fast stop" >/dev/null 2>&1 || true ;;
  *) echo "usage: demo-postgres.sh start DIR PORT | changes URL SECONDS PAUSE_FILE | stop DIR" >&2; exit 2 ;;
esac
