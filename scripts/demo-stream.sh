#!/usr/bin/env bash
# scripts/demo-stream.sh URL [SECONDS] [FIRST_ID]: the order stream of `make run`. Every SECONDS (default 2) it posts
# 20 new orders as NDJSON to URL (a floe serve's POST /v1/ingest/default/orders) and they land in the Iceberg table
# exactly once: each batch carries Producer-Id/Producer-Seq, so a retry after a lost response is answered
# "duplicate" and writes nothing. Orders are dated today, so the current month's net_revenue grows while you watch.
# Deterministic amounts (a linear congruential generator seeded by the order id); runs until killed.
set -uo pipefail
url="${1:?usage: demo-stream.sh URL [SECONDS] [FIRST_ID]}"
every="${2:-2}"
id="${3:-100001}"
seq=1
producer="demo-stream-$id"
while :; do
  body=$(awk -v first="$id" -v day="$(date -u +%F)" 'BEGIN {
    split("placed,completed,completed,completed,cancelled", status, ",")
    for (i = 0; i < 20; i++) {
      n = first + i; x = (n * 1103515245 + 12345) % 2147483648
      gross = 10 + x % 490; disc = int(x / 7) % 30; ret = (x % 9 == 0) ? int(x / 11) % 60 : 0
      printf "{\"order_id\":%d,\"customer_id\":%d,\"order_date\":\"%s\",\"status\":\"%s\",\"gross_amount\":%d.25,\"discount_applied\":%d,\"return_amount\":%d}\n", \
        n, 1 + x % 40, day, status[1 + int(x / 13) % 5], gross, disc, ret
    }
  }')
  for attempt in 1 2 3; do
    if curl -fsS -o /dev/null -X POST "$url" -H 'Content-Type: application/x-ndjson' \
         -H "Producer-Id: $producer" -H "Producer-Seq: $seq" --data-binary "$body"; then
      break
    fi
    sleep 1  # the same Producer-Seq again: written once whatever happened to the first try
  done
  id=$((id + 20)); seq=$((seq + 1))
  sleep "$every"
done
