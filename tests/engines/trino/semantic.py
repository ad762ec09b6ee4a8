"""trino/semantic.py - the semantic layer's Trino dialect on a real Trino: the data of
tests/interop/semantic/seed.sh written by floe behind `floe serve` (REST catalog, auth on), Trino 476
on that catalog (TrinoServer of scenarios.py), and for every case the SQL of
`floe semantic compile --dialect trino` run by Trino must give the rows of `floe semantic query`
(matched on the group-by columns; numbers with a relative tolerance of 1e-9), and so must
`floe semantic query --engine trino://...` (floe sending the query to Trino over its HTTP protocol).
"""
import csv
import io
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import trino

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "metricflow"))
from floe_engine import FLOE_BIN, FloeServer  # noqa: E402
from oracle import CASES, query_args  # noqa: E402  (the MetricFlow oracle's cases, every metric type)
from scenarios import TrinoServer  # noqa: E402

SRC = os.path.abspath(os.path.join(here, "..", "..", ".."))
MODELS = os.path.join(SRC, "tests", "semantic", "models")


def floe_cmd(floe, *args):
    p = subprocess.run([FLOE_BIN, "semantic", *args, "--models", MODELS], env=floe.env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("floe semantic %s: %s" % (args[0], p.stderr.strip()))
    return p.stdout


def cell(v):
    return "" if v is None else str(v)


def same(a, b):
    if a == b:
        return True
    if len(a) >= 10 and a[:10] == b[:10] and a[4:5] == "-":
        return True
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-6)
    except ValueError:
        return False


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    tmp = tempfile.mkdtemp(prefix="floe-semantic-trino.")
    os.makedirs(os.path.join(tmp, "wh"))
    floe = FloeServer.start(tmp, warehouse="file://" + os.path.join(tmp, "wh"))
    tr = TrinoServer(tmp, floe)
    fails = 0
    try:
        seed = os.path.join(SRC, "tests", "interop", "semantic", "seed.sh")
        subprocess.run(["bash", "-c", 'set -euo pipefail; fsql() { "$FLOE_BIN" sql -q "$@"; }; . "$1"',
                        "seed", seed], env=dict(floe.env, FLOE_BIN=FLOE_BIN, tmp=tmp), check=True)
        tr.wait_ready('SELECT count(*) FROM iceberg."default".orders')
        con = trino.dbapi.connect(host="127.0.0.1", port=tr.port, user="floe", catalog="iceberg",
                                  schema="default")
        for name, metrics, gb, where, _ in CASES:
            args = query_args(metrics, gb, "--saved")
            if where:  # Trino compares dates with DATE literals only
                where = where.replace("'2024-03-01'", "DATE '2024-03-01'")
                args += ["--where", where]
            try:
                rows = list(csv.reader(io.StringIO(floe_cmd(floe, "query", *args, "--format", "csv"))))[1:]
                sql = floe_cmd(floe, "compile", *args, "--dialect", "trino")
                cur = con.cursor()
                cur.execute(sql)
                trows = [[cell(v) for v in r] for r in cur.fetchall()]
            except Exception as e:  # noqa: BLE001 - report and go on
                print("FAIL %s: %s" % (name, str(e)[:1500]))
                fails += 1
                continue
            try:
                engine = "trino://floe@127.0.0.1:%d/iceberg/default" % tr.port
                erows = list(csv.reader(io.StringIO(floe_cmd(floe, "query", *args, "--format", "csv",
                                                             "--engine", engine))))[1:]
            except RuntimeError as e:
                print("FAIL %s (--engine): %s" % (name, str(e)[:1500]))
                fails += 1
                continue
            for what, other in (("trino", trows), ("--engine trino", erows)):
                ok = len(rows) == len(other) and all(
                    len(x) == len(y) and all(same(a, b) for a, b in zip(x, y)) for x, y in zip(rows, other))
                if ok and rows:
                    print("ok %s (%s): %d rows equal floe's" % (name, what, len(rows)))
                else:
                    print("FAIL %s (%s):\n  floe:  %s\n  other: %s" % (name, what, rows[:4], other[:4]))
                    fails += 1
    finally:
        tr.stop()
        floe.stop()
    if not fails:
        shutil.rmtree(tmp, ignore_errors=True)
    print("semantic-trino: %d cases, %d failed" % (len(CASES), fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
