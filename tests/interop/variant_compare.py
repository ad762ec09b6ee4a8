"""variant_compare.py - Parquet variants through floe, checked by DuckDB.

usage: variant_compare.py FLOE_BIN WORKDIR CASES_DIR

1. Every readable shredded_variant case of apache/parquet-testing goes through
   `floe convert` (which rewrites the variant column unshredded, as a VARIANT
   group). DuckDB must see a VARIANT column in floe's file and read from it
   the JSON floe reads from the original (Java-written, shredded) file.
2. floe's JSON of every case must equal DuckDB's JSON of the original file,
   value for value (numbers compared exactly as decimals, timestamps and
   binary in one spelling: canon()), wherever DuckDB can read the original.
3. A file DuckDB writes with a VARIANT column reads in floe to the same JSON.
Prints one line per failure and a summary; exits 1 on any failure.
"""
import base64
import decimal
import json
import os
import re
import subprocess
import sys

import duckdb

floe, work, cases_dir = sys.argv[1], sys.argv[2], sys.argv[3]
con = duckdb.connect()
fails = 0
checked = {"convert": 0, "floe_json": 0, "duckdb_written": 0}


def fail(msg):
    global fails
    fails += 1
    print("FAIL " + msg)


def norm(text):
    """JSON text -> a value with exact numbers (None stays None)."""
    if text is None:
        return None
    return json.loads(text, parse_float=decimal.Decimal, parse_int=decimal.Decimal)


def duck_json(path, col="var"):
    rows = con.sql(f"SELECT CAST({col} AS JSON)::VARCHAR FROM read_parquet('{path}')").fetchall()
    return [norm(r[0]) for r in rows]


def floe_json(path, col="var"):
    # --format json embeds each variant's JSON as it is
    out = subprocess.run(
        [floe, "sql", "--no-catalog", "--format", "json", "-c",
         f"SELECT {col} AS j FROM read_parquet('{path}')"],
        capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    rows = json.loads(out.stdout, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
    return [r["j"] for r in rows]


TS = re.compile(r"^(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(\+00(?::00)?)?$")
HEX = re.compile(r"^(?:\\x[0-9A-Fa-f]{2})+$")


def canon(x):
    """One spelling for the strings engines print differently: timestamps
    (DuckDB "+00", floe "+00:00"; DuckDB keeps microseconds of a nanosecond
    value, so they compare to 10 microseconds) and binary (DuckDB "\\x0A", floe base64)."""
    m = TS.match(x)
    if m:
        frac = (m.group(2) or "").ljust(9, "0")
        tens_of_us = int(frac) // 10000  # DuckDB truncates or rounds nanoseconds
        return ("ts", m.group(1).replace("T", " "), tens_of_us, bool(m.group(3)))
    if HEX.match(x):
        raw = bytes(int(x[i + 2:i + 4], 16) for i in range(0, len(x), 4))
        return base64.b64encode(raw).decode()
    return x


def same(a, b):
    """Equal values; a FLOAT (4-byte) variant prints shortest as a float in
    floe and widened to double in DuckDB, so numbers may differ by 1e-6."""
    if isinstance(a, str) and isinstance(b, str):
        return canon(a) == canon(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, decimal.Decimal) and isinstance(b, decimal.Decimal):
        return a == b or abs(a - b) <= abs(b) * decimal.Decimal("1e-6")
    return a == b


cases = json.load(open(os.path.join(cases_dir, "cases.json")))
duck_unreadable = []
for c in cases:
    if "error_message" in c or "notes" in c:
        continue
    name = c["parquet_file"]
    src = os.path.join(cases_dir, name)
    dst = os.path.join(work, "floe-" + name)
    r = subprocess.run([floe, "convert", "--quiet", src, dst], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{name}: floe convert: {r.stderr.strip()}")
        continue
    described = con.sql(f"DESCRIBE SELECT * FROM read_parquet('{dst}')").fetchall()
    types = {x[0]: x[1] for x in described}
    if types.get("var") != "VARIANT":
        fail(f"{name}: DuckDB sees {types.get('var')} in floe's file, not VARIANT")
        continue
    try:
        mine = floe_json(src)
    except RuntimeError as e:
        fail(f"{name}: floe sql: {e}")
        continue
    got = duck_json(dst)
    if not same(got, mine):
        fail(f"{name}: DuckDB reads floe's file as {got}, floe read the original as {mine}")
    checked["convert"] += 1
    try:
        want = duck_json(src)
    except duckdb.Error:
        duck_unreadable.append(name)  # DuckDB's own limits on Java's shredding
        con = duckdb.connect()  # a fatal error invalidates the connection
        continue
    if len(mine) != len(want):
        fail(f"{name}: floe read {len(mine)} rows, DuckDB {len(want)}")
    for i, (a, b) in enumerate(zip(mine, want)):
        if not same(a, b):
            fail(f"{name} row {i}: floe {a}, DuckDB {b}")
    checked["floe_json"] += 1
if duck_unreadable:
    print("DuckDB cannot read the originals " + " ".join(duck_unreadable))

# a file DuckDB writes
docs = ['{"a": 1, "b": [true, null, "x"], "c": {"d": 2.5}}', '[1, 2, 3]', '"text"', 'null',
        '{"nested": {"deeper": {"k": -7}}, "e": []}', '123456789012']
duck_file = os.path.join(work, "duckdb-variant.parquet")
values = ", ".join(f"({i}, '{d}')" for i, d in enumerate(docs))
con.sql(f"COPY (SELECT id, CAST(CAST(j AS JSON) AS VARIANT) AS v FROM (VALUES {values}) t(id, j) "
        f"ORDER BY id) TO '{duck_file}' (FORMAT parquet)")
want = duck_json(duck_file, "v")
try:
    got = floe_json(duck_file, "v")
    if got != want:
        fail(f"DuckDB's variant file: floe reads {got}, DuckDB {want}")
    checked["duckdb_written"] = len(got)
except RuntimeError as e:
    fail(f"DuckDB's variant file: floe sql: {e}")

print(f"variant_compare: {checked['convert']} cases converted and read back by DuckDB, "
      f"{checked['floe_json']} read by floe as DuckDB reads them, "
      f"{checked['duckdb_written']} rows of a DuckDB-written file; {fails} failed")
sys.exit(1 if fails else 0)
