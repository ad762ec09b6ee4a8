#!/usr/bin/env bash
# test_iceberg_interop.sh - Iceberg manifests and manifest lists written by
# floe, checked by independent readers (tests/interop/iceberg-interop.mjs):
#
# (a) the manifests/lists the C round-trip test writes (format v1, v2, v3;
#     every partition result type; data and delete manifests) are decoded by
#     avsc (oracle/avro-dump.mjs) and Debian python3-avro
#     (oracle/avro-dump-py.py) with every required field present under its
#     field-id, Java's record names and element/key/value ids, the spec's
#     header keys, and the same records as `floe avro cat`.
#
# Env (set by ctest): FLOE_BIN, FLOE_SHARED, FLOE_SRC, FLOE_BUILD.
# Exit 77 (skip) when node_modules, python3-avro or the test binary are missing.
set -euo pipefail

FLOE_SRC=${FLOE_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
FLOE_BUILD=${FLOE_BUILD:-$FLOE_SRC/build}
FLOE_BIN=${FLOE_BIN:-$FLOE_BUILD/floe}
here=$FLOE_SRC/tests/interop

skip() { echo "SKIP: $*"; exit 77; }
command -v node >/dev/null || skip "node not installed"
[ -d "$here/node_modules/avsc" ] && [ -d "$here/node_modules/lossless-json" ] ||
  skip "tests/interop/node_modules (avsc, lossless-json) not installed: run npm ci there"
/usr/bin/python3 -c 'import avro.datafile' 2>/dev/null || skip "python3-avro not installed"
[ -x "$FLOE_BIN" ] || { echo "FAIL: floe binary not found at $FLOE_BIN"; exit 1; }
writer=$FLOE_BUILD/iceberg_test_manifest_write
[ -x "$writer" ] || skip "$writer not built"

work=$(mktemp -d "${TMPDIR:-/tmp}/floe-iceberg-interop.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== (a) manifests and lists written by the C round-trip test"
FLOE_MANIFEST_OUT=$work/written "$writer" >"$work/writer.log" 2>&1 ||
  { cat "$work/writer.log"; echo "FAIL: $writer"; exit 1; }
n=$(ls "$work/written"/*.avro | wc -l)
[ "$n" -ge 8 ] || { echo "FAIL: expected at least 8 Avro files, got $n"; exit 1; }
FLOE_BIN=$FLOE_BIN node "$here/iceberg-interop.mjs" avro "$work/written"
echo "PASS"
