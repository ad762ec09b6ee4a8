#!/usr/bin/env bash
# The examples of README.md and docs/*.md run against the demo data (doc_examples.py): a doc
# example that errors fails the test, naming its file and line.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
exec python3 "$here/doc_examples.py" "$FLOE_BIN" "$(cd "$here/../.." && pwd)"
