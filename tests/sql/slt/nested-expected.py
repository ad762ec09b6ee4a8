"""nested-expected.py - the reference answers of tests/sql/slt/nested.slt.

Each query record of nested.slt is preceded by a comment naming its
reference engine: `# reference: postgres` (arrays and composite types:
PostgreSQL 15) or `# reference: duckdb` (maps and structs: DuckDB), and
optionally `# duckdb sql: ...` / `# postgres sql: ...` when the engine spells
the same query otherwise (floe's text of a struct is its JSON: PostgreSQL's
to_json of the composite is the reference).
This script builds the same tables in that engine (SETUP below: PostgreSQL
needs a composite type for ROW(...), DuckDB struct_pack and MAP), runs every
record there and formats the rows as the slt runner does (tests/sql/test_slt.c:
NULL, (empty), tab-separated, rowsort sorts lines).

  python nested-expected.py PG_URL            compare: exit 1 when any record's
                                              expected rows differ from the engine's
  python nested-expected.py PG_URL --write    rewrite the expected rows from the engines

Run with the engine venv's python (duckdb, psycopg2; tests/engines/lib/env.sh)
and a throwaway PostgreSQL (tests/interop/oracle/pg-tmp-server.sh), or through
nested-expected.sh, which starts one. The results stay in nested.slt, so
`make test` needs neither engine.
"""
import os
import sys

import duckdb
import psycopg2
import psycopg2.extensions

HERE = os.path.dirname(os.path.abspath(__file__))
SLT = os.path.join(HERE, "nested.slt")

BASE = [
    "CREATE TABLE b (id integer, name varchar, city varchar, zip varchar)",
    "INSERT INTO b VALUES (1, 'alice', 'Lima', '01234'), (2, 'bob', 'Kyoto', '02468'), "
    "(3, 'carol', 'Lima', NULL), (4, 'dave', NULL, NULL)",
]
ARRAYS = ("CASE id WHEN 1 THEN ARRAY['t1', 'vip'] WHEN 2 THEN ARRAY['t2'] WHEN 3 THEN ARRAY['vip', NULL] END AS tags, "
          "CASE id WHEN 1 THEN ARRAY[3, 1, 2] WHEN 2 THEN ARRAY[5] WHEN 3 THEN ARRAY[1, NULL] END AS nums")
SETUP = {
    "postgres": BASE + [
        "CREATE TYPE addr AS (f1 text, f2 text)",
        "CREATE TABLE c AS SELECT id, name, CASE WHEN city IS NOT NULL THEN ROW(city, zip)::addr END AS address, "
        + ARRAYS + " FROM b",
    ],
    "duckdb": BASE + [
        "CREATE TABLE c AS SELECT id, name, "
        "CASE WHEN city IS NOT NULL THEN struct_pack(f1 := city, f2 := zip) END AS address, " + ARRAYS + ", "
        "CASE id WHEN 1 THEN MAP(['a', 'b'], [1, 2]) WHEN 2 THEN MAP(['a'], [NULL::int]) "
        "WHEN 3 THEN MAP(['c'], [3]) END AS m, "
        "CASE WHEN id < 4 THEN struct_pack(f1 := id, f2 := struct_pack(f1 := name, f2 := [id, id * 10])) END AS deep, "
        "CASE WHEN id < 3 THEN [struct_pack(f1 := name, f2 := id), struct_pack(f1 := name || '2', f2 := id + 1)] "
        "END AS ls FROM b",
    ],
}


def cell(v, engine):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "t" if v else "f"
    s = str(v)
    if s == "":
        return "(empty)"
    return s.replace("\t", "\\t").replace("\n", "\\n")


def parse(lines):
    """Query records: (index of the 'query' line, index after its expected rows, sql, engine, alt sql)."""
    recs, i = [], 0
    engine = alt = None
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("# reference: "):
            engine = ln.split(":", 1)[1].strip()
        elif ln.startswith("# duckdb sql: ") or ln.startswith("# postgres sql: "):
            alt = ln.split(":", 1)[1].strip()
        elif ln.startswith("query "):
            j = i + 1
            sql = []
            while lines[j] != "----":
                sql.append(lines[j])
                j += 1
            k = j + 1
            while k < len(lines) and lines[k] != "":
                k += 1
            recs.append((i, j + 1, k, " ".join(sql), engine, alt, "rowsort" in ln))
            engine = alt = None
            i = k
            continue
        i += 1
    return recs


def main():
    url = sys.argv[1]
    write = "--write" in sys.argv
    text = [ln.rstrip("\n") for ln in open(SLT)]
    pg = psycopg2.connect(url)
    pg.autocommit = True
    # every value as PostgreSQL's own text output
    raw = psycopg2.extensions.new_type(tuple(range(1, 5000)), "RAW", lambda s, c: s)
    psycopg2.extensions.register_type(raw, pg)
    pc = pg.cursor()
    pc.execute("DROP SCHEMA IF EXISTS slt_nested CASCADE")
    pc.execute("CREATE SCHEMA slt_nested")
    pc.execute("SET search_path = slt_nested")
    for s in SETUP["postgres"]:
        pc.execute(s)
    dk = duckdb.connect()
    for s in SETUP["duckdb"]:
        dk.execute(s)
    out, last, bad = [], 0, 0
    for q, start, end, sql, engine, alt, rowsort in parse(text):
        if engine == "postgres":
            pc.execute(alt or sql)
            rows = pc.fetchall()
        elif engine == "duckdb":
            rows = dk.execute(alt or sql).fetchall()
        else:
            sys.exit(f"nested.slt line {q + 1}: no '# reference:' comment before the record")
        got = ["\t".join(cell(v, engine) for v in r) for r in rows]
        if rowsort:
            got.sort()
        if got != text[start:end]:
            bad += 1
            print(f"line {q + 1} ({engine}): {sql}\n  slt:    {text[start:end]}\n  engine: {got}")
        out += text[last:start] + got
        last = end
    out += text[last:]
    if write:
        with open(SLT, "w") as f:
            f.write("\n".join(out) + "\n")
        print(f"nested.slt: {len(parse(text))} records written from the engines")
        return
    n = len(parse(text))
    print(f"nested-expected: {n - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


main()
