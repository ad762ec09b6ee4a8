#!/usr/bin/env bash
# floe ingest files under repeated SIGKILL (issue 18, "Files"): a producer drops N small CSV and
# JSON-lines files into a landing folder (written as .tmp, renamed into place) while
# `floe ingest files` is killed with SIGKILL at random points and restarted; a few runs are
# stopped with SIGTERM instead (final checkpoint). Every 20th file is Parquet. At the end every file's rows are in the table
# exactly once: total count, distinct ids, per-file counts and sums, and `floe ingest status`
# lists every file as done. N defaults to 1000 (FLOE_INGEST_KILL_FILES overrides).
set -uo pipefail
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-ingest-kill.XXXXXX")"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  [ -n "${FLOE_KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
export FLOE_CATALOG="sqlite:$tmp/wh/catalog.db"
export FLOE_WAREHOUSE="$tmp/wh"
N="${FLOE_INGEST_KILL_FILES:-1000}"
ROWS=5
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }
floe() { "$FLOE_BIN" "$@"; }
q() { floe sql --format csv --no-header -q -c "$1"; }

mkdir -p "$tmp/land"
floe sql -q -c "CREATE SCHEMA demo" \
  -c "CREATE TABLE demo.ev (file int NOT NULL, seq int, id bigint NOT NULL, v double)" >/dev/null ||
  { echo "FAIL: create table"; exit 1; }

# The producer: file i holds ids i*100+1 .. i*100+ROWS; even files CSV, odd files JSON lines,
# every 20th (5, 25, ...) Parquet.
producer() {
  for ((i = 1; i <= N; i++)); do
    local t="$tmp/land/.f$i.tmp"
    if ((i % 20 == 5)); then # Parquet (int columns: widened to the table's bigint id)
      { echo "id,file,seq,v"
        for ((j = 1; j <= ROWS; j++)); do echo "$((i * 100 + j)),$i,$j,$j.75"; done; } >"$t.csv"
      "$FLOE_BIN" convert "$t.csv" "$t" --to parquet --quiet \
        --schema "id:int not null,file:int not null,seq:int,v:double" || echo "FAIL: convert $i"
      rm -f "$t.csv"
      mv "$t" "$tmp/land/f$i.parquet"
    elif ((i % 2 == 0)); then
      { echo "id,file,seq,v"
        for ((j = 1; j <= ROWS; j++)); do echo "$((i * 100 + j)),$i,$j,$j.5"; done; } >"$t"
      mv "$t" "$tmp/land/f$i.csv"
    else
      for ((j = 1; j <= ROWS; j++)); do
        echo "{\"file\":$i,\"id\":$((i * 100 + j)),\"seq\":$j,\"v\":$j.25}"
      done >"$t"
      mv "$t" "$tmp/land/f$i.jsonl"
    fi
    ((i % 10 == 0)) && sleep 0.1
  done
  touch "$tmp/producer.done"
}
producer &
pids+=($!)

# exec: the background job's pid is floe's own, so SIGKILL hits floe, not a wrapper shell
run_ingest() {
  exec "$FLOE_BIN" ingest files "$tmp/land" --into demo.ev --checkpoint-interval 200ms \
    --poll 50ms "$@" >>"$tmp/ingest.log" 2>&1
}

kills=0 terms=0 round=0
while [ ! -f "$tmp/producer.done" ] || ((round < 12)); do
  round=$((round + 1))
  run_ingest &
  p=$!
  pids+=($p)
  sleep "0.$((RANDOM % 9 + 1))"
  if ((round % 5 == 0)); then
    kill -TERM "$p" 2>/dev/null && terms=$((terms + 1))
  else
    kill -9 "$p" 2>/dev/null && kills=$((kills + 1))
  fi
  wait "$p" 2>/dev/null
  ((round > 400)) && break
done
wait "${pids[0]}"
# everything is in place now: one run to pick up the rest
(run_ingest --once --checkpoint-rows 50) || fail "final --once run: $(tail -3 "$tmp/ingest.log")"
echo "rounds: $round ($kills SIGKILL, $terms SIGTERM)"

grep -q "fenced\|error" "$tmp/ingest.log" && fail "errors in the log: $(grep 'fenced\|error' "$tmp/ingest.log" | head -3)"
want_rows=$((N * ROWS))
want_sum=0
for ((i = 1; i <= N; i++)); do want_sum=$((want_sum + ROWS * i * 100 + ROWS * (ROWS + 1) / 2)); done
got="$(q "SELECT count(*), count(DISTINCT id), count(DISTINCT file), sum(id) FROM demo.ev")"
[ "$got" = "$want_rows,$want_rows,$N,$want_sum" ] && ok "rows exactly once ($got)" ||
  fail "count/distinct/files/sum: got $got, want $want_rows,$want_rows,$N,$want_sum"
bad="$(q "SELECT count(*) FROM (SELECT file FROM demo.ev GROUP BY file
          HAVING count(*) <> $ROWS OR sum(id) <> file * 100 * $ROWS + $((ROWS * (ROWS + 1) / 2))
             OR min(id) <> file * 100 + 1 OR count(DISTINCT seq) <> $ROWS) x")"
[ "$bad" = "0" ] && ok "per-file counts and sums" || fail "$bad files with wrong rows"
st="$(floe ingest status --into demo.ev)"
grep -q "^files done: $N\$" <<< "$st" && ok "status: $N files done" || fail "status: $st"
grep -q "^files failed: 0\$" <<< "$st" && ok "status: no failed files" || fail "status: $st"
# another --once finds nothing new
(run_ingest --once)
got2="$(q "SELECT count(*) FROM demo.ev")"
[ "$got2" = "$want_rows" ] && ok "a rerun adds nothing" || fail "rerun: $got2 rows"
# Fencing: instance A runs, instance B of the same pipeline starts; new files arrive. A is
# refused ("fenced") at its next checkpoint and exits 1; none of its rows land.
: >"$tmp/a.log"
"$FLOE_BIN" ingest files "$tmp/land" --into demo.ev --checkpoint-interval 100ms --poll 50ms \
  >"$tmp/a.log" 2>&1 &
a=$!
pids+=($a)
until grep -q "epoch" "$tmp/a.log" || ! kill -0 "$a" 2>/dev/null; do sleep 0.05; done
"$FLOE_BIN" ingest files "$tmp/land" --into demo.ev --checkpoint-interval 100ms --poll 50ms \
  >"$tmp/b.log" 2>&1 &
b=$!
pids+=($b)
until grep -q "epoch" "$tmp/b.log" || ! kill -0 "$b" 2>/dev/null; do sleep 0.05; done
for ((i = N + 1; i <= N + 20; i++)); do
  { echo "id,file,seq,v"
    for ((j = 1; j <= ROWS; j++)); do echo "$((i * 100 + j)),$i,$j,$j.5"; done; } >"$tmp/land/.f$i.tmp"
  mv "$tmp/land/.f$i.tmp" "$tmp/land/f$i.csv"
done
for ((w = 0; w < 600 && ${#a} > 0; w++)); do kill -0 "$a" 2>/dev/null || break; sleep 0.1; done
wait "$a"
arc=$?
[ "$arc" = 1 ] && grep -q "fenced by epoch" "$tmp/a.log" && ok "the older instance is fenced" ||
  fail "instance A: exit $arc, log: $(tail -2 "$tmp/a.log")"
kill -TERM "$b"
wait "$b"
brc=$?
[ "$brc" = 0 ] && ok "the newer instance stops cleanly on SIGTERM" || fail "instance B: exit $brc: $(tail -2 "$tmp/b.log")"
# B may have stopped before the last of the new files looked stable: a last run takes them
(run_ingest --once) || fail "--once after fencing: $(tail -2 "$tmp/ingest.log")"
N2=$((N + 20))
got="$(q "SELECT count(*), count(DISTINCT id), count(DISTINCT file) FROM demo.ev")"
[ "$got" = "$((N2 * ROWS)),$((N2 * ROWS)),$N2" ] && ok "after fencing: rows exactly once ($got)" ||
  fail "after fencing: got $got, want $((N2 * ROWS)),$((N2 * ROWS)),$N2"

# SHOW PIPELINES reads the same committed state: the pipeline's rows are every row of the table, its
# epoch is the newest instance's, and its last checkpoint is the one floe ingest status reports
row="$(q "SHOW PIPELINES FROM demo" | grep '^ev,')"
IFS=, read -r _ pname epoch ckpt last _ commits rows _ npos _ <<<"$row"
status_ckpt="$(floe ingest status --into demo.ev | sed -n 's/^checkpoint: \([0-9][0-9]*\).*/\1/p')"
[ -n "$pname" ] && [ "$rows" = "$((N2 * ROWS))" ] && [ "$epoch" -ge 2 ] && [ -n "$last" ] &&
  [ "$npos" -ge "$N2" ] && [ "$ckpt" = "$status_ckpt" ] && [ "$commits" -ge 1 ] &&
  ok "SHOW PIPELINES: $pname epoch $epoch checkpoint $ckpt, $commits commits, $rows rows, $npos positions" ||
  fail "SHOW PIPELINES row: '$row' (floe ingest status checkpoint '$status_ckpt')"

if ((fails)); then
  echo "--- ingest log (tail)"; tail -20 "$tmp/ingest.log"
  exit 1
fi
echo "all ok"
