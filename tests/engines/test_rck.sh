#!/usr/bin/env bash
# Iceberg's REST Compatibility Kit against a real `floe serve` (rck/rck.sh, rck/run_rck.py):
# 0 failures; the tests floe's storage confinement refuses count as "not supported by policy"
# only when they fail with exactly that refusal (tests/engines/README.md, "REST Compatibility Kit").
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec bash "$here/rck/rck.sh" "$@"
