#!/usr/bin/env bash
# `make run`: the most complete thing floe does today. Generates a small demo data set (deterministic, no network,
# no fixtures needed), loads it into Iceberg tables in ./warehouse (SQLite catalog ./warehouse/catalog.db, the
# embedded default), changes them (append, row-level delete, schema evolution), reads them back (time travel,
# metadata tables, pruned scans), and prints how to use the tools and how other engines read the same tables.
set -euo pipefail
cd "$(dirname "$0")/.."
floe=./build/floe
[ -x "$floe" ] || { echo "run: $floe missing (make build)"; exit 1; }
wh=warehouse
mkdir -p "$wh"
export FLOE_CATALOG="sqlite:$wh/catalog.db" FLOE_WAREHOUSE="$wh"
banner() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '\033[2m$ %s\033[0m\n' "$*"; "$@"; }

banner "floe $("$floe" version | cut -d' ' -f2): load CSV into an Iceberg table (hidden partitioning by month, sorted)"
# orders.csv (5000 orders) and customers.jsonl (nested JSON) in ./warehouse, loaded into demo.orders (partitioned by
# month(ordered_at), sorted by customer) and demo.customers: scripts/demo-data.sh (shared with the docs' examples)
show env FLOE_BIN="$floe" bash scripts/demo-data.sh "$wh"
show "$floe" table describe demo.orders

banner "rows (the catalog knows the table; files are Parquet + Avro manifests + JSON metadata)"
show "$floe" table cat demo.orders --limit 5
show "$floe" table cat demo.customers --limit 3

banner "a second append, a row-level delete (merge-on-read position deletes), a new column"
show "$floe" load "$wh/orders.csv" demo.orders
show "$floe" table delete demo.orders --where "region = 'east'" --where "amount > 1000"
show "$floe" table add-column demo.orders discount "decimal(10,2)"
show "$floe" table count demo.orders

banner "snapshots, and time travel to the first one"
show "$floe" table snapshots demo.orders --format csv
first=$("$floe" table snapshots demo.orders --format csv | awk -F, 'NR == 2 { print $2 }')
show "$floe" table count demo.orders --snapshot "$first"

banner "a filtered scan: partitions and files pruned from metadata before any Parquet byte is read"
show "$floe" table cat demo.orders --columns order_id,customer,amount,ordered_at \
  --where "ordered_at >= 2024-12-24" --where "amount > 1500" --explain

banner "metadata tables: files and partitions"
show "$floe" table files demo.orders --limit 3
show "$floe" table partitions demo.orders --limit 5

cat <<HELP

== how to use floe (tables are in ./warehouse, catalog ./warehouse/catalog.db)
  floe load FILE... NS.TABLE [--partition-by "day(ts)"] [--sort-by col] [--schema ...] [--mode append|overwrite]
  floe table cat|count|describe NS.TABLE [--columns a,b] [--where "col op v"]... [--snapshot ID|--as-of TS|--ref R]
  floe table snapshots|history|refs|manifests|files|entries|partitions NS.TABLE       metadata tables
  floe table create|drop|add-column|rename-column|drop-column|add-partition|delete|rollback|expire|remove-orphans|compact ...
  floe table cat PATH                       any Iceberg table folder or metadata file (Spark, Trino, PyIceberg, ...)
  floe parquet schema|meta|cat FILE         Parquet files; floe avro schema|meta|cat FILE for Avro
  floe convert IN OUT                       between CSV, JSON lines and Parquet
  Catalog: --catalog sqlite:PATH | postgresql://... | fs:DIR (or \$FLOE_CATALOG); --warehouse DIR or s3://bucket/path
  S3: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL (path-style for custom endpoints)

== other engines read the same tables
  The SQLite file uses the table layout of Iceberg's JDBC catalog (PyIceberg SqlCatalog, Java JdbcCatalog).
  DuckDB (with its iceberg extension): SELECT * FROM iceberg_scan('$(ls -t "$(cd "$wh" && pwd)"/demo/orders/metadata/*.metadata.json | head -n 1)')
  make test     unit, fixture and interop tests (DuckDB, arrow-rs, hyparquet, avsc, python3-avro, icebird as oracles)
  make bench    floe vs DuckDB on a 6M-row lineitem table (SCALE=0.1 for a quick run)
HELP

# ---- the Iceberg REST catalog over the same warehouse ------------------------------------
port="${FLOE_SERVE_PORT:-8181}"
pgport="${FLOE_SERVE_PG_PORT:-5433}"
banner "floe serve: the Iceberg REST catalog on http://127.0.0.1:$port and PostgreSQL on port $pgport (Ctrl-C stops it)"
cat <<CONNECT
  Serving ./warehouse (catalog sqlite:./warehouse/catalog.db) without authentication
  (--insecure-no-auth: local development only; production: create principals with floe admin).

  curl:      curl http://127.0.0.1:$port/v1/config
             curl http://127.0.0.1:$port/v1/namespaces
             curl http://127.0.0.1:$port/v1/namespaces/demo/tables/orders
  iceberg-js: new IcebergRestCatalog({ baseUrl: 'http://127.0.0.1:$port', auth: { type: 'none' } })
  PyIceberg: load_catalog('floe', **{'type': 'rest', 'uri': 'http://127.0.0.1:$port'})
  Spark:     --conf spark.sql.catalog.floe=org.apache.iceberg.spark.SparkCatalog \\
             --conf spark.sql.catalog.floe.type=rest --conf spark.sql.catalog.floe.uri=http://127.0.0.1:$port
  Trino:     connector.name=iceberg  iceberg.catalog.type=rest  iceberg.rest-catalog.uri=http://127.0.0.1:$port
  DuckDB:    ATTACH '' AS floe (TYPE iceberg, ENDPOINT 'http://127.0.0.1:$port', AUTHORIZATION_TYPE 'none');
  Health:    /healthz /readyz   Prometheus: /metrics

  LLM agents over MCP (docs/mcp.md): Streamable HTTP at http://127.0.0.1:$port/mcp, or stdio:
  inspect:   node tests/interop/mcp-inspector.mjs http://127.0.0.1:$port/mcp --transport http --method tools/list
  stdio:     ./build/floe mcp --catalog sqlite:./warehouse/catalog.db --warehouse ./warehouse

  PostgreSQL clients (psql, JDBC, ODBC, psycopg2, node pg, BI tools) on port $pgport, --pg-trust:
  no password (local development only; production: floe admin principal create NAME, SCRAM login):
  psql:      psql -h 127.0.0.1 -p $pgport -U demo -d floe -c 'SELECT region, count(*), sum(amount) FROM demo.orders GROUP BY 1 ORDER BY 1'
  JDBC:      jdbc:postgresql://127.0.0.1:$pgport/floe?user=demo
  psycopg2:  psycopg2.connect(host='127.0.0.1', port=$pgport, user='demo', dbname='floe')
CONNECT
exec "$floe" serve --insecure-no-auth --port "$port" --catalog "sqlite:$wh/catalog.db" --warehouse "$wh" \
  --pg-port "$pgport" --pg-trust
