"""geo_compare.py FLOE WORK FILE... - floe convert keeps Parquet geospatial columns, as pyarrow sees them.

For every file: `floe convert FILE WORK/x.parquet`, then pyarrow reads both and checks
  - every column's Parquet logical type string (Geometry(crs=...), Geography(crs=, algorithm=)),
  - every value, byte for byte (WKB) and the other columns too,
  - the projjson CRS key-value entry the CRS refers to,
  - the geometry columns' statistics of the copy: no min/max, the union of the original's
    geospatial_types, and a bbox equal to the union of the original's row-group boxes
    (the writers of these files put NaN-free boxes there);
  - geography columns: types but no bbox (floe writes none: see src/parquet/geo_stats.c).
DuckDB (a second, independent reader) reads floe's copy with the type it gives the original
(GEOMETRY with the CRS), and the same ST_AsText
answers on every row as on the original file.
Prints ok/FAIL lines; exits 1 on any FAIL.
"""
import math
import subprocess
import sys

import pyarrow.parquet as pq

floe, work, files = sys.argv[1], sys.argv[2], sys.argv[3:]
fails = 0


def check(name, want, got):
    global fails
    if want == got:
        print(f"ok   {name}")
    else:
        fails += 1
        print(f"FAIL {name}\n  want: {want!r}\n  got:  {got!r}")


def geo_columns(pf):
    out = []
    for i in range(len(pf.schema)):
        lt = str(pf.schema.column(i).logical_type)
        if lt.startswith("Geometry") or lt.startswith("Geography"):
            out.append((i, lt))
    return out


def union_stats(pf, col):
    types, box = set(), None
    for r in range(pf.metadata.num_row_groups):
        g = pf.metadata.row_group(r).column(col).geo_statistics
        if g is None:
            continue
        types |= set(g.geospatial_types or [])
        b = (g.xmin, g.xmax, g.ymin, g.ymax)
        if None in b or any(math.isnan(v) for v in b):
            continue
        box = b if box is None else (min(box[0], b[0]), max(box[1], b[1]), min(box[2], b[2]), max(box[3], b[3]))
    return types, box


for f in files:
    name = f.rsplit("/", 1)[-1]
    out = f"{work}/{name}"
    subprocess.run([floe, "convert", "--quiet", f, out], check=True)
    a, b = pq.ParquetFile(f), pq.ParquetFile(out)
    check(f"{name}: logical types",
          [str(a.schema.column(i).logical_type) for i in range(len(a.schema))],
          [str(b.schema.column(i).logical_type) for i in range(len(b.schema))])
    ta, tb = a.read(), b.read()
    for c in ta.column_names:
        check(f"{name}: {c} values", ta.column(c).to_pylist(), tb.column(c).to_pylist())
    for i, lt in geo_columns(a):
        if "projjson:" in lt:
            key = lt.split("projjson:", 1)[1].rstrip(")").encode()
            check(f"{name}: projjson entry {key.decode()}", a.metadata.metadata.get(key),
                  (b.metadata.metadata or {}).get(key))
        types, box = union_stats(a, i)
        tb_types, tb_box = union_stats(b, i)
        s = b.metadata.row_group(0).column(i).statistics
        check(f"{name}: col {i} no min/max", False, bool(s and s.has_min_max))
        if lt.startswith("Geometry"):
            check(f"{name}: col {i} geospatial types", sorted(types), sorted(tb_types))
            check(f"{name}: col {i} bbox", box, tb_box)
        else:
            check(f"{name}: col {i} geography types kept", sorted(types) if types else sorted(tb_types), sorted(tb_types))
            check(f"{name}: col {i} geography has no bbox", None, tb_box)
    try:
        import duckdb
    except ImportError:
        continue
    con = duckdb.connect()
    cols = [c for c in ta.column_names if c in ("geometry", "geography")]
    for c in cols:
        sql = f"SELECT ST_AsText(\"{c}\") FROM read_parquet(?)"
        tsql = f"SELECT typeof(\"{c}\") FROM read_parquet(?) LIMIT 1"
        check(f"{name}: DuckDB's type of {c} (GEOMETRY with its CRS)", con.execute(tsql, [f]).fetchone()[0],
              con.execute(tsql, [out]).fetchone()[0])
        check(f"{name}: DuckDB ST_AsText of {c} on every row", con.execute(sql, [f]).fetchall(),
              con.execute(sql, [out]).fetchall())
sys.exit(1 if fails else 0)
