#!/usr/bin/env bash
# Installs what floe needs to build and test, from Debian's archive and npm lockfiles, then the
# engine tests' pinned Python venvs, jars and Trino (scripts/install-engines.sh).
# Idempotent: when every package is present it only checks and returns (well under a second).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

DEBS=(
  build-essential cmake pkg-config clang clang-format libclang-rt-14-dev
  libzstd-dev libsnappy-dev zlib1g-dev liblz4-dev libbrotli-dev libbz2-dev
  libjansson-dev libedit-dev libssl-dev libxxhash-dev libyaml-dev
  libsqlite3-dev libpq-dev libcurl4-openssl-dev postgresql postgresql-client
  libpg-query-dev libprotobuf-c-dev libmicrohttpd-dev libpcre2-dev libutf8proc-dev librdkafka-dev wrk
  nodejs npm python3 python3-venv python3-dev python3-avro valgrind maven
  openjdk-17-jdk-headless libpostgresql-jdbc-java odbc-postgresql unixodbc
  python3-psycopg2 python3-pandas python3-sqlalchemy sqlsmith
  chromium groff-base
)

missing=()
for p in "${DEBS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# node/npm may come from outside Debian on developer machines; accept any working binary.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  tmp=()
  for p in "${missing[@]}"; do [[ "$p" == nodejs || "$p" == npm ]] || tmp+=("$p"); done
  missing=("${tmp[@]+"${tmp[@]}"}")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm packages for the interop tests, pinned by tests/interop/package-lock.json, and Cube's client,
# pinned by tests/interop/cube-client/package-lock.json (its own folder: it needs nothing else).
for npmdir in "$here/tests/interop" "$here/tests/interop/cube-client"; do
  [ -f "$npmdir/package-lock.json" ] || continue
  stamp="$npmdir/node_modules/.floe-lock-stamp"
  want="$(sha256sum "$npmdir/package-lock.json" | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "install-deps: npm ci in ${npmdir#"$here"/}"
    (cd "$npmdir" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" > "$stamp"
  fi
done

# The engines of tests/engines (pinned pip requirements, poms with exact versions, Trino).
bash "$here/scripts/install-engines.sh"
