#!/usr/bin/env bash
# floe's REST catalog client end to end: `floe load`, `floe table create / add-column /
# delete / set-properties / rename / drop / cat / snapshots` and the namespace commands run
# with --catalog http://... against the reference REST catalog (oracle/test/
# reference-rest-catalog.mjs: an in-memory catalog written from the OpenAPI spec that
# validates every request body against the spec), then the result is checked WITHOUT floe:
# through the REST API directly (rest-client-check.mjs), with iceberg-js (oracle/iceberg-rest.mjs),
# and by reading the table's data with icebird (oracle/iceberg-read.mjs) from the metadata the
# REST API returns. Also: a catalog with a prefix (config overrides), OAuth2 client
# credentials (env, URI, wrong secret, static token), concurrent commits (409 -> retry),
# and, when the floe binary has `serve`, the same round trip against floe's own server.
# Skips (77) only when node or the pinned npm packages are missing.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
shared="${FLOE_SHARED:-$here/../../../shared}"
spec="$shared/reference/rest-catalog-open-api.yaml"
if ! command -v node >/dev/null || [ ! -d "$here/node_modules/iceberg-js" ] ||
  [ ! -d "$here/node_modules/icebird" ] || [ ! -d "$here/node_modules/ajv" ]; then
  echo "skip: node or node_modules (iceberg-js, icebird, ajv) missing in $here"; exit 77
fi
if [ ! -f "$spec" ]; then echo "skip: $spec missing (FLOE_SHARED)"; exit 77; fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-rest-client.XXXXXX")"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
unset FLOE_CATALOG FLOE_WAREHOUSE FLOE_REST_CREDENTIAL FLOE_REST_TOKEN
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then ok "$1"; else fail "$1: expected [$2], got [$3]"; fi
}
floe() { "$FLOE_BIN" "$@"; }
chk() { node "$here/rest-client-check.mjs" "$@"; }
field() { python3 -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print(",".join(map(str,v)) if isinstance(v,list) else v)' "$1"; }

# launch NAME ARGS...: a reference catalog on a free port (all three start in parallel);
# url_of NAME: waits for it and sets $url
launch() {
  local name=$1; shift
  node "$here/oracle/test/reference-rest-catalog.mjs" --port=0 --spec="$spec" "$@" \
    >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pids+=($!)
}
url_of() {
  local name=$1
  for _ in $(seq 1 300); do
    if [ -s "$tmp/$name.out" ]; then break; fi
    sleep 0.1
  done
  url=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["url"])' "$tmp/$name.out" 2>/dev/null)
  if [ -z "$url" ]; then echo "FAIL: $name did not start: $(cat "$tmp/$name.err")"; exit 1; fi
}
launch plain
launch prefixed --prefix=wh1/sub
launch oauth --client-id=floe --client-secret=s3cret

printf 'id,name\n1,a\n2,b\n3,c\n' >"$tmp/a.csv"
printf 'id,name\n10,x\n' >"$tmp/b.csv"
wh="$tmp/wh"

# round_trip LABEL CATALOG_URI REST_ROOT [TOKEN]: the CLI writes, the REST API and icebird read
round_trip() {
  local L=$1 C=$2 R=$3 T=${4:-} W=(--catalog "$2" --warehouse "$wh")
  floe table create-namespace db --property owner=floe "${W[@]}" 2>/dev/null ||
    fail "$L: create-namespace db"
  check "$L: namespace listed by floe" "db" "$(floe table namespaces "${W[@]}")"
  check "$L: namespace listed by the REST API" "db" "$(chk namespaces "$R" $T)"
  check "$L: namespace properties" "owner=floe" "$(floe table namespace db "${W[@]}" | grep owner)"
  floe load "$tmp/a.csv" db.t1 "${W[@]}" --quiet || fail "$L: load (create)"
  floe load "$tmp/a.csv" db.t1 "${W[@]}" --quiet || fail "$L: load (append)"
  check "$L: table listed by the REST API" "t1" "$(chk tables "$R" db $T)"
  floe table add-column db.t1 score double "${W[@]}" 2>/dev/null || fail "$L: add-column"
  floe table delete db.t1 --where "id = 2" "${W[@]}" 2>/dev/null || fail "$L: delete"
  local s
  s=$(chk table "$R" db t1 "$wh/db/t1/metadata/rest.metadata.json" $T)
  check "$L: REST snapshots" "append,append,delete" "$(echo "$s" | field operations)"
  check "$L: REST columns" "id,name,score" "$(echo "$s" | field columns)"
  check "$L: REST location under the warehouse" "$wh/db/t1" "$(echo "$s" | field location)"
  local cur
  cur=$(echo "$s" | field current)
  check "$L: floe snapshots agree with the REST API" "3 $cur" \
    "$(floe table snapshots db.t1 "${W[@]}" --format csv | tail -n +2 | wc -l) $(floe table snapshots db.t1 "${W[@]}" --format csv | tail -n 1 | cut -d, -f2)"
  local want="1,a,
1,a,
3,c,
3,c,"
  check "$L: floe cat" "$want" "$(floe table cat db.t1 "${W[@]}" --format csv | tail -n +2 | LC_ALL=C sort)"
  local ice
  ice=$(node "$here/oracle/iceberg-read.mjs" "$wh/db/t1/metadata/rest.metadata.json" --rows=all |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["row_count"], sorted(int(r["id"]) for r in d["rows"]))')
  check "$L: icebird reads the table the REST API describes" "4 [1, 1, 3, 3]" "$ice"
  # concurrent commits: 409 CommitFailedException -> refresh and retry
  floe table set-properties db.t1 commit.retry.num-retries=20 commit.retry.min-wait-ms=20 "${W[@]}" 2>/dev/null ||
    fail "$L: set-properties"
  local bp=()
  for i in 1 2 3; do floe load "$tmp/b.csv" db.t1 "${W[@]}" --quiet & bp+=($!); done
  local bad=0
  for p in "${bp[@]}"; do wait "$p" || bad=1; done
  check "$L: 3 concurrent loads all commit" "0" "$bad"
  s=$(chk table "$R" db t1 "$wh/db/t1/metadata/rest.metadata.json" $T)
  check "$L: every concurrent commit landed once" "append,append,delete,append,append,append" \
    "$(echo "$s" | field operations | sed 's/,overwrite//g')"
  check "$L: rows after concurrent loads" "7" "$(floe table cat db.t1 "${W[@]}" --format csv | tail -n +2 | wc -l)"
  # create with spec/order/properties, rename, drop --purge
  floe table create db.t2 --schema "k:long,v:string,ts:timestamptz" --partition-by "bucket(k, 4)" \
    --partition-by "day(ts)" --sort-by "k DESC" --property format-version=1 --property x=y "${W[@]}" 2>/dev/null ||
    fail "$L: create t2"
  s=$(chk table "$R" db t2 "$tmp/t2.json" $T)
  check "$L: created table format" "1" "$(echo "$s" | field format-version)"
  check "$L: created table columns" "k,v,ts" "$(echo "$s" | field columns)"
  check "$L: created table spec" "bucket[4] day" \
    "$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); s=[p for p in m["partition-specs"] if p["spec-id"]==m["default-spec-id"]][0]; print(" ".join(f["transform"] for f in s["fields"]))' "$tmp/t2.json")"
  check "$L: created table sort order" "desc" \
    "$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); o=[p for p in m["sort-orders"] if p["order-id"]==m["default-sort-order-id"]][0]; print(" ".join(f["direction"] for f in o["fields"]))' "$tmp/t2.json")"
  check "$L: created table property" "y" "$(echo "$s" | python3 -c 'import json,sys; print(json.load(sys.stdin)["properties"].get("x"))')"
  floe table rename db.t2 db.t3 "${W[@]}" 2>/dev/null || fail "$L: rename"
  check "$L: tables after rename" "t1 t3" "$(chk tables "$R" db $T | tr '\n' ' ' | sed 's/ $//')"
  check "$L: floe lists tables" "db.t1 db.t3" "$(floe table tables db "${W[@]}" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
  floe table drop db.t3 --purge "${W[@]}" 2>/dev/null || fail "$L: drop --purge"
  check "$L: tables after drop" "t1" "$(chk tables "$R" db $T)"
  local out
  out=$(floe table drop-namespace db "${W[@]}" 2>&1) && fail "$L: dropping a non-empty namespace succeeded"
  case "$out" in *409*NamespaceNotEmpty*) ok "$L: non-empty namespace refused (409)" ;; *) fail "$L: drop-namespace said: $out" ;; esac
  out=$(floe table cat db.nope "${W[@]}" 2>&1) && fail "$L: cat of a missing table succeeded"
  case "$out" in *404*NoSuchTable*) ok "$L: missing table is a 404 error" ;; *) fail "$L: missing table said: $out" ;; esac
  floe table create-namespace a.b "${W[@]}" 2>/dev/null || fail "$L: nested create-namespace"
  check "$L: nested namespace" "a.b" "$(floe table namespaces a "${W[@]}")"
  floe table drop-namespace a.b "${W[@]}" 2>/dev/null && floe table drop-namespace a "${W[@]}" 2>/dev/null ||
    fail "$L: drop nested namespaces"
}

# light_trip LABEL CATALOG_URI REST_ROOT [TOKEN]: load + delete through floe, checked via REST
light_trip() {
  local L=$1 W=(--catalog "$2" --warehouse "$wh") R=$3 T=${4:-}
  floe load "$tmp/a.csv" db.t1 "${W[@]}" --quiet || fail "$L: load (create)"
  floe table delete db.t1 --where "id = 2" "${W[@]}" 2>/dev/null || fail "$L: delete"
  local s
  s=$(chk table "$R" db t1 "$tmp/$L.json" $T)
  check "$L: REST snapshots" "append,delete" "$(echo "$s" | field operations)"
  check "$L: floe cat" "1,a
3,c" "$(floe table cat db.t1 "${W[@]}" --format csv | tail -n +2 | LC_ALL=C sort)"
  check "$L: tables" "db.t1" "$(floe table tables db "${W[@]}")"
}

# ---- the reference catalog, plain ----
url_of plain
plain_url=$url
round_trip plain "$plain_url" "$plain_url/v1"
# iceberg-js (an independent client) sees the same table
js=$(node "$here/oracle/iceberg-rest.mjs" --url="$plain_url" load-table db.t1 |
  python3 -c 'import json,sys; d=json.load(sys.stdin); m=d["result"]["metadata"]; print(d["ok"], len(m["snapshots"]), m["current-snapshot-id"]==m["refs"]["main"]["snapshot-id"])')
check "iceberg-js loads the table floe wrote" "True 6 True" "$js"
# pagination: many tables, listed through pages
for i in $(seq 1 5); do floe table create db.p$i --schema "k:long" --catalog "$plain_url" 2>/dev/null || fail "create p$i"; done
check "tables listed (floe, paginated)" "db.p1 db.p2 db.p3 db.p4 db.p5 db.t1" \
  "$(floe table tables db --catalog "$plain_url" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
# no --warehouse: the server chooses the location (the reference's is mem://, which floe cannot write)
s=$(chk table "$plain_url/v1" db p1 "$tmp/p1.json")
case "$(echo "$s" | field location)" in mem://*) ok "server-chosen location without --warehouse" ;; *) fail "location: $s" ;; esac

# ---- a prefix from the config response ----
url_of prefixed
light_trip prefix "$url" "$url/v1/wh1/sub"

# ---- OAuth2 client credentials ----
url_of oauth
oauth_url=$url
out=$(floe table namespaces --catalog "$oauth_url" 2>&1) && fail "oauth: no credential accepted"
case "$out" in *401*) ok "oauth: no credential -> 401" ;; *) fail "oauth: no credential said: $out" ;; esac
out=$(FLOE_REST_CREDENTIAL=floe:wrong floe table namespaces --catalog "$oauth_url" 2>&1) && fail "oauth: wrong secret accepted"
case "$out" in *invalid_client*) ok "oauth: wrong secret -> invalid_client" ;; *) fail "oauth: wrong secret said: $out" ;; esac
case "$out" in *wrong*) fail "oauth: the secret appears in an error message" ;; *) ok "oauth: secret not echoed" ;; esac
tok=$(chk token "$oauth_url" floe s3cret)
FLOE_REST_CREDENTIAL=floe:s3cret light_trip oauth "$oauth_url" "$oauth_url/v1" "$tok"
out=$(floe table cat db.nope --catalog "$oauth_url?credential=floe%3As3cret" 2>&1)
case "$out" in *s3cret*) fail "oauth: the URI credential appears in an error: $out" ;; *404*) ok "oauth: credential in the URI works and is not echoed" ;; *) fail "oauth: URI credential said: $out" ;; esac
check "oauth: static token (FLOE_REST_TOKEN)" "db.t1" "$(FLOE_REST_TOKEN=$tok floe table tables db --catalog "$oauth_url")"
out=$(FLOE_REST_TOKEN=bogus floe table namespaces --catalog "$oauth_url" 2>&1) && fail "oauth: bogus static token accepted"
case "$out" in *401*) ok "oauth: bogus static token -> 401" ;; *) fail "oauth: bogus token said: $out" ;; esac
out=$(floe table namespaces --catalog "$oauth_url?credentail=x" 2>&1) && fail "a misspelt URI option was accepted"
case "$out" in *"unknown option"*) ok "misspelt URI option refused" ;; *) fail "misspelt option said: $out" ;; esac

# ---- floe's own REST server (floe serve) with OAuth2 principals ----
if "$FLOE_BIN" serve --help >/dev/null 2>&1 && "$FLOE_BIN" admin --help >/dev/null 2>&1; then
  sd="$tmp/serve"; mkdir -p "$sd/wh"
  scat="sqlite:$sd/wh/catalog.db"
  "$FLOE_BIN" admin bootstrap --catalog "$scat" >/dev/null 2>&1 || fail "serve: admin bootstrap"
  secret=$("$FLOE_BIN" admin principal create writer --admin --catalog "$scat" 2>/dev/null | sed -n 's/^client_secret: //p')
  [ -n "$secret" ] || fail "serve: principal create printed no secret"
  "$FLOE_BIN" serve --port 0 --catalog "$scat" --warehouse "$sd/wh" --ready-file "$sd/ready" 2>"$sd/log" &
  pids+=($!)
  for _ in $(seq 1 200); do [ -s "$sd/ready" ] && break; sleep 0.05; done
  if [ ! -s "$sd/ready" ]; then
    fail "floe serve did not start: $(tail -3 "$sd/log")"
  else
    surl="http://$(cat "$sd/ready")"
    stok=$(chk token "$surl" writer "$secret")
    saved_wh=$wh; wh="$sd/wh"
    FLOE_REST_CREDENTIAL="writer:$secret" round_trip serve "$surl" "$surl/v1" "$stok"
    # floe serve writes real metadata files: icebird reads the file the REST API names, and the
    # server's own catalog database (opened directly, no REST) records the same table state
    s=$(chk table "$surl/v1" db t1 "$tmp/serve-t1.json" "$stok")
    mloc=$(echo "$s" | field metadata-location)
    [ -f "$mloc" ] && ok "serve: metadata file $mloc exists" || fail "serve: no metadata file at $mloc"
    ice=$(node "$here/oracle/iceberg-read.mjs" "$mloc" --rows=all | python3 -c 'import json,sys; print(json.load(sys.stdin)["row_count"])')
    check "serve: icebird reads the server's metadata file" "7" "$ice"
    check "serve: the server's catalog database has the same snapshots" \
      "$(echo "$s" | field current)" \
      "$("$FLOE_BIN" table snapshots db.t1 --catalog "$scat" --warehouse "$sd/wh" --format csv | tail -n 1 | cut -d, -f2)"
    # no --warehouse: floe serve chooses the location (inside its warehouse)
    FLOE_REST_CREDENTIAL="writer:$secret" floe load "$tmp/a.csv" db.auto --catalog "$surl" --quiet ||
      fail "serve: load without --warehouse"
    s=$(chk table "$surl/v1" db auto "$tmp/auto.json" "$stok")
    case "$(echo "$s" | field location)" in "$sd/wh/"*) ok "serve: server-chosen location in its warehouse" ;; *) fail "serve: location $s" ;; esac
    out=$(FLOE_REST_CREDENTIAL="writer:nope" floe table tables db --catalog "$surl" 2>&1) && fail "serve: wrong secret accepted"
    case "$out" in *401*|*invalid_client*) ok "serve: wrong secret refused" ;; *) fail "serve: wrong secret said: $out" ;; esac
    wh=$saved_wh
  fi
else
  echo "note: this floe has no serve/admin command; floe serve round trip skipped"
fi

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
