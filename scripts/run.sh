#!/usr/bin/env bash
# `make run`: the most complete thing floe does today. Generates a small demo data set (deterministic, no network,
# no fixtures needed), loads it into Iceberg tables in ./warehouse (SQLite catalog ./warehouse/catalog.db, the
# embedded default), changes them (append, row-level delete, schema evolution), reads them back (time travel,
# metadata tables, pruned scans), and prints how to use the tools and how other engines read the same tables.
set -euo pipefail
cd "$(dirname "$0")/.."
floe="${FLOE_BIN:-./build/floe}"
[ -x "$floe" ] || { echo "run: $floe missing (make build)"; exit 1; }
wh="${FLOE_RUN_WAREHOUSE:-warehouse}"  # (tests/interop/test_run.sh runs it on a folder of its own)
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

# ---- the shop: the semantic layer's tables and the certified net_revenue metric ----------
models="$(pwd)/tests/semantic/models"
banner "the shop: orders with gross_amount, discount_applied, return_amount (namespace default), and net_revenue"
fsql() { "$floe" sql --catalog="sqlite:$wh/catalog.db" --warehouse="$wh" -q "$@"; }
if ! fsql -c "SELECT 1 FROM orders LIMIT 0" >/dev/null 2>&1; then
  tmp="$(mktemp -d)"
  . tests/interop/semantic/seed.sh  # 600 orders over 7 months, 40 customers (the semantic tests' data)
  rm -rf "$tmp"
fi
show "$floe" semantic query --models "$models" --catalog "sqlite:$wh/catalog.db" --warehouse "$wh" \
  --metrics net_revenue,order_total --group-by customer__region --order-by -net_revenue
# the metrics as SQL views (semantic.net_revenue_by_month, ...) for BI tools over the Postgres wire (docs/bi.md)
"$floe" semantic publish --models "$models" --catalog "sqlite:$wh/catalog.db" --warehouse "$wh" | tail -n 1

# ---- floe serve: REST catalog, SQL over HTTP, MCP, Postgres wire; the order stream over HTTP ----
port="${FLOE_SERVE_PORT:-8181}"
pgport="${FLOE_SERVE_PG_PORT:-5433}"
ready="$wh/.serve-ready"
rm -f "$ready"
"$floe" serve --insecure-no-auth --port "$port" --catalog "sqlite:$wh/catalog.db" --warehouse "$wh" \
  --pg-port "$pgport" --pg-trust --models "$models" --ready-file "$ready" --maintain-interval 30s &
serve_pid=$!
stream_pid=
cdc_pid=
changes_pid=
pgdir=
stop() {
  for p in $stream_pid $changes_pid; do kill "$p" 2>/dev/null; done
  [ -n "$cdc_pid" ] && { kill "$cdc_pid" 2>/dev/null; wait "$cdc_pid" 2>/dev/null; }  # SIGTERM: a last checkpoint
  [ -n "$pgdir" ] && bash scripts/demo-postgres.sh stop "$pgdir"
  kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; exit 0
}
trap stop INT TERM
for _ in $(seq 1 600); do [ -s "$ready" ] && break; kill -0 "$serve_pid" 2>/dev/null || exit 1; sleep 0.1; done
[ -s "$ready" ] || { echo "run: floe serve did not start"; kill "$serve_pid"; exit 1; }
# the ports it listens on (0 asks for free ones: tests/interop/test_run.sh)
port=$(sed -n '1s/.*://p' "$ready")
pgport=$(sed -n 's/^pg .*://p' "$ready")
next_id=$(( $(fsql --format csv --no-header -c "SELECT coalesce(max(order_id), 0) FROM orders") + 1 ))
bash scripts/demo-stream.sh "http://127.0.0.1:$port/v1/ingest/default/orders" 2 "$next_id" &
stream_pid=$!
# maintenance: floe serve's --maintain-interval 30s compacts the streams' small files and expires old snapshots
# in every table (docs/maintenance.md; a compaction that loses a race to an append runs again next pass)

# Postgres CDC: a local PostgreSQL (when its server binaries are installed) whose customers and products tables
# replicate into crm.customers and crm.products (floe ingest postgres: upserts and deletes by primary key, exactly
# once), with a change every 3 s (scripts/demo-postgres.sh). FLOE_RUN_NO_POSTGRES=1 leaves it out.
src_pgport="${FLOE_RUN_PG_SOURCE_PORT:-5434}"
pg_url=
if [ -z "${FLOE_RUN_NO_POSTGRES:-}" ]; then
  pgdir="${FLOE_RUN_PG_DIR:-${TMPDIR:-/tmp}/floe-run-postgres-$(id -u)-$src_pgport}"
  if pg_url=$(bash scripts/demo-postgres.sh start "$pgdir" "$src_pgport" 2>"$wh/.postgres.log"); then
    "$floe" ingest postgres --dsn "$pg_url" --slot floe_demo --publication floe_demo --namespace crm \
      --checkpoint-interval 2s --catalog "sqlite:$wh/catalog.db" --warehouse "$wh" 2>"$wh/.pipeline.log" &
    cdc_pid=$!
    bash scripts/demo-postgres.sh changes "$pg_url" 3 "$wh/.postgres-paused" &
    changes_pid=$!
  else
    pgdir=
    pg_url=
  fi
fi
if [ -n "$pg_url" ]; then
  cdc_text="  Postgres CDC: a local PostgreSQL ($pg_url) replicates its tables customers and
  products (publication floe_demo) into crm.customers and crm.products: inserts, updates and deletes by
  primary key, exactly once (floe ingest postgres; log $wh/.pipeline.log), a change every 3 s
  (touch $wh/.postgres-paused to pause them); compare the source with the replica:
  source:    psql $pg_url -c 'SELECT count(*), sum(stock), sum(price) FROM products'
  replica:   ./build/floe sql --catalog sqlite:$wh/catalog.db --warehouse $wh -c 'SELECT count(*), sum(stock), sum(price) FROM crm.products'
  pipeline:  ./build/floe ingest status --into crm.customers --pipeline pg-floe_demo --catalog sqlite:$wh/catalog.db --warehouse $wh
"
else
  cdc_text="  Postgres CDC: not started ($(tail -n 1 "$wh/.postgres.log" 2>/dev/null || echo FLOE_RUN_NO_POSTGRES=1))
"
fi

banner "floe serve is ready: REST catalog and HTTP on http://127.0.0.1:$port, PostgreSQL on port $pgport (Ctrl-C stops it)"
cat <<CONNECT
  Serving $wh (catalog sqlite:$wh/catalog.db) without authentication
  (--insecure-no-auth: local development only; production: create principals with floe admin).
  Streaming: 20 new orders every 2 s into default.orders over HTTP (scripts/demo-stream.sh, exactly-once
  with Producer-Id/Producer-Seq); every 30 s the maintenance service compacts small files in every table
  (floe serve --maintain-interval 30s, counted in /metrics; docs/maintenance.md); watch them arrive:
             ./build/floe sql --catalog sqlite:$wh/catalog.db --warehouse $wh -c 'SELECT count(*), max(order_id) FROM orders'

  Console:   http://127.0.0.1:$port/console/   (open it in a browser: catalog, snapshots, SQL, metrics; docs/console.md)

  curl:      curl http://127.0.0.1:$port/v1/config
             curl http://127.0.0.1:$port/v1/namespaces
             curl http://127.0.0.1:$port/v1/namespaces/demo/tables/orders
  SQL/HTTP:  curl -X POST http://127.0.0.1:$port/v1/sql --data 'SELECT status, count(*) FROM orders GROUP BY 1'
  iceberg-js: new IcebergRestCatalog({ baseUrl: 'http://127.0.0.1:$port', auth: { type: 'none' } })
  PyIceberg: load_catalog('floe', **{'type': 'rest', 'uri': 'http://127.0.0.1:$port'})
  Spark:     --conf spark.sql.catalog.floe=org.apache.iceberg.spark.SparkCatalog \\
             --conf spark.sql.catalog.floe.type=rest --conf spark.sql.catalog.floe.uri=http://127.0.0.1:$port
  Trino:     connector.name=iceberg  iceberg.catalog.type=rest  iceberg.rest-catalog.uri=http://127.0.0.1:$port
  DuckDB:    ATTACH '' AS floe (TYPE iceberg, ENDPOINT 'http://127.0.0.1:$port', AUTHORIZATION_TYPE 'none');
  Health:    /healthz /readyz   Prometheus: /metrics

  The metric net_revenue (tests/semantic/models; docs/semantic.md):
  CLI:       ./build/floe semantic query --models tests/semantic/models --catalog sqlite:$wh/catalog.db --warehouse $wh \\
               --metrics net_revenue --group-by metric_time__month
  Cube API:  curl -G http://127.0.0.1:$port/cubejs-api/v1/load --data-urlencode 'query={"measures":["metrics.net_revenue"],"dimensions":["metrics.customer__region"]}'
  Python:    python3 -m venv .venv && .venv/bin/pip install ./python pandas   (docs/notebooks.md; examples/lakehouse.ipynb)
             FLOE_CATALOG=sqlite:$wh/catalog.db FLOE_WAREHOUSE=$wh FLOE_MODELS=tests/semantic/models .venv/bin/python -c \\
               "import floe; c = floe.connect(); print(c.metrics.query(metrics=['net_revenue'], dimensions=['metric_time__month']).df())"
             remote: floe.connect('http://127.0.0.1:$port').sql('SELECT count(*) FROM orders').df()

  LLM agents over MCP (docs/mcp.md): Streamable HTTP at http://127.0.0.1:$port/mcp (query_metrics, run_sql, ...), or stdio:
  inspect:   node tests/interop/mcp-inspector.mjs http://127.0.0.1:$port/mcp --transport http --method tools/list
  stdio:     ./build/floe mcp --catalog sqlite:$wh/catalog.db --warehouse $wh --models tests/semantic/models

$cdc_text
  PostgreSQL clients (psql, JDBC, ODBC, psycopg2, node pg, BI tools) on port $pgport, --pg-trust:
  no password (local development only; production: floe admin principal create NAME, SCRAM login):
  psql:      psql -h 127.0.0.1 -p $pgport -U demo -d floe -c 'SELECT region, count(*), sum(amount) FROM demo.orders GROUP BY 1 ORDER BY 1'
  JDBC:      jdbc:postgresql://127.0.0.1:$pgport/floe?user=demo
  psycopg2:  psycopg2.connect(host='127.0.0.1', port=$pgport, user='demo', dbname='floe')
  metrics:   psql -h 127.0.0.1 -p $pgport -U demo -d floe -c 'SELECT * FROM semantic.net_revenue_by_month'
  SQL API:   psql -h 127.0.0.1 -p $pgport -U demo -d floe -c 'SELECT customer__region, MEASURE(net_revenue) FROM semantic.metrics GROUP BY 1 ORDER BY 2 DESC'
  Superset:  postgresql+psycopg2://demo@127.0.0.1:$pgport/floe   (schemas default, demo, semantic; docs/bi.md)
CONNECT
echo "ready"
wait "$serve_pid"
