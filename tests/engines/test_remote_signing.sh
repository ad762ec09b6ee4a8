#!/usr/bin/env bash
# Remote signing (REST spec): engines that hold only a catalog token read and write an S3
# warehouse by having floe sign each S3 request, and floe signs only inside one table's
# location, for principals with the right privilege. Runs PyIceberg (FsspecFileIO with the
# S3V4RestSigner) against the strict fake S3 of tests/interop (real SigV4 verification),
# plus raw sign requests for the refusals. Prints "remote-signing: N passed, M failed".
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
[ -x "$FLOE_ENGINE_PY" ] || { echo "FAIL: engine venv missing ($FLOE_ENGINE_PY): run scripts/install-deps.sh"; exit 1; }
[ -d "$here/../interop/node_modules/s3rver" ] || { echo "FAIL: tests/interop/node_modules missing: run scripts/install-deps.sh"; exit 1; }
exec "$FLOE_ENGINE_PY" "$here/remote_signing/scenarios.py"
