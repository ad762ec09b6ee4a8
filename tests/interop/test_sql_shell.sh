#!/bin/bash
# test_sql_shell.sh - the interactive `floe sql` under a pseudo-terminal
# (sql_shell_pty.py): Ctrl-C clears the input, history is saved as it goes,
# \r / \q inside an unfinished statement, Ctrl-D; plus -c '\dt'.
set -u
floe=${FLOE_BIN:?FLOE_BIN not set}
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
dir=$(mktemp -d /tmp/floe-shell-XXXXXX)
trap 'rm -rf "$dir"' EXIT
cat=(--catalog "sqlite:$dir/cat.db" --warehouse "$dir/wh")
"$floe" sql "${cat[@]}" -q -c "create schema shop; create table shop.orders (order_id bigint, customer_name varchar); insert into shop.orders values (1, 'ann')" || exit 1
fails=0
out=$("$floe" sql "${cat[@]}" -c '\dt' 2>&1)
if echo "$out" | grep -q "shop  *| orders"; then echo "ok   -c '\\dt' lists tables"; else echo "FAIL: -c '\\dt': $out"; fails=1; fi
"$floe" sql "${cat[@]}" -c '\nosuch' >/dev/null 2>&1
if [ $? = 1 ]; then echo "ok   -c unknown backslash command exits 1"; else echo "FAIL: -c '\\nosuch' exit status"; fails=1; fi
python3 "$here/sql_shell_pty.py" "$floe" "$dir" || fails=1
exit $fails
