"""metricflow/oracle.py - floe semantic query answers against dbt MetricFlow running the same model files.

usage: oracle.py FLOE_BIN MODELS WORKDIR MF_VENV
  WORKDIR holds the floe catalog (cat.db, wh/) and the tables exported as CSV (csv/<table>.csv). The dbt
  project of this folder is copied to WORKDIR/mf with floe's older-spec model files (MODELS/*.yml, as they
  are) under models/semantic/; `dbt run` builds the tables in DuckDB from the CSVs, then every case runs as
  `mf query` and as `floe semantic query`. Rows are matched on the group-by columns (dates by their day) and
  the metrics compared with a relative tolerance of 1e-9. For metrics MetricFlow fills from its time spine
  (cumulative, offsets) floe reports only the periods that have data: those cases compare floe's rows and
  allow MetricFlow's extra periods. Exits 1 naming each case that differs.
"""
import csv
import glob
import io
import math
import os
import shutil
import subprocess
import sys

# name: (metrics, group_by, where, MetricFlow may have extra periods)
CASES = [
    ("net_revenue by month (the seed's example)", "net_revenue", "metric_time__month", None, False),
    ("simple metrics and the measure expr", "net_revenue_simple,gross_revenue,discounts,returns",
     "metric_time__quarter", None, False),
    ("join: NULL region included", "net_revenue", "customer__region", None, False),
    ("multi-hop join with a where filter", "gross_revenue,order_total", "customer__country__continent",
     "{{ Dimension('order__status') }} <> 'cancelled'", False),
    ("metric and measure filters", "completed_revenue,eu_gross_revenue", "metric_time__month", None, False),
    ("ratio", "return_rate", "metric_time__month", None, False),
    ("derived with a month-over-month offset", "net_revenue_mom_delta", "metric_time__month", None, True),
    ("cumulative all time", "cumulative_net_revenue", "metric_time__day", None, True),
    ("cumulative 60-day window", "net_revenue_trailing_60_days", "metric_time__day", None, True),
    ("cumulative month to date", "net_revenue_mtd", "metric_time__day", None, True),
    ("cumulative by month (period_agg first)", "cumulative_net_revenue,net_revenue_trailing_60_days,net_revenue_mtd",
     "metric_time__month", None, True),
    ("metric_time filters choose periods, not rows (cumulative, offset)",
     "cumulative_net_revenue,net_revenue_trailing_60_days,net_revenue_mom_delta", "metric_time__month",
     "{{ TimeDimension('metric_time', 'month') }} >= '2024-03-01'", True),
    ("semi-additive closing balance", "closing_balance", "metric_time__month", None, False),
    ("two semantic models side by side", "customer_total,net_revenue", "customer__region", None, False),
    ("conversion rate and count", "visit_to_order_rate,visit_to_order_conversions,visits",
     "metric_time__month,visit__channel", None, False),
    ("conversion by a joined dimension", "visit_to_order_rate", "customer__region", None, False),
    ("a saved query (saved_queries:)", "saved:monthly_net_revenue_by_region:net_revenue,return_rate",
     "metric_time__month,customer__region", None, False),
    ("count, max, average", "order_total,largest_order,average_order_gross", "order__status", None, False),
]


def rows_of(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def norm_key(v):
    if len(v) >= 10 and v[4:5] == "-" and v[7:8] == "-":
        return v[:10]
    return v


def num_same(a, b):
    if a == b:
        return True
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-6)
    except ValueError:
        return False


def build_project(work, models, venv):
    here = os.path.dirname(os.path.abspath(__file__))
    proj = os.path.join(work, "mf")
    shutil.rmtree(proj, ignore_errors=True)
    shutil.copytree(os.path.join(here, "project"), proj)
    os.makedirs(os.path.join(proj, "models", "semantic"))
    for f in sorted(glob.glob(os.path.join(models, "*.yml"))):  # the older-spec files, unchanged
        shutil.copy(f, os.path.join(proj, "models", "semantic"))
    env = dict(os.environ, FLOE_CSV_DIR=os.path.join(work, "csv"), FLOE_MF_DUCKDB=os.path.join(work, "mf.duckdb"),
               DBT_PROFILES_DIR=proj, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    p = subprocess.run([os.path.join(venv, "bin", "dbt"), "run", "-q"], cwd=proj, env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"FAIL: dbt run: {p.stdout}{p.stderr}")
    return proj, env


def query_args(metrics, gb, saved_flag):
    """The query part of a command line: --metrics/--group-by, or a saved query
    ("saved:NAME:metric,metric" in CASES)."""
    if metrics.startswith("saved:"):
        return [saved_flag, metrics.split(":")[1]]
    return ["--metrics", metrics, "--group-by", gb]


def case_metrics(metrics):
    return metrics.split(":")[2] if metrics.startswith("saved:") else metrics


def mf_rows(venv, proj, env, metrics, gb, where):
    out = os.path.join(proj, "out.csv")
    cmd = [os.path.join(venv, "bin", "mf"), "query", *query_args(metrics, gb, "--saved-query"), "--csv", out]
    if where:
        cmd += ["--where", where]
    p = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True)
    if p.returncode != 0 or not os.path.exists(out):
        raise RuntimeError(f"mf query failed: {p.stdout[-800:]}{p.stderr[-800:]}")
    with open(out) as f:
        text = f.read()
    os.remove(out)
    return rows_of(text)


def floe_rows(floe, models, work, metrics, gb, where):
    cmd = [floe, "semantic", "query", "--models", models, "--catalog", f"sqlite:{work}/cat.db",
           "--warehouse", f"{work}/wh", "--format", "csv", *query_args(metrics, gb, "--saved")]
    if where:
        cmd += ["--where", where]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"floe failed: {p.stderr.strip()}")
    return rows_of(p.stdout)


def by_key(header, rows, gbs, metrics):
    """{key tuple: [metric values in `metrics` order]} using the header's column names."""
    idx = {name.lower(): i for i, name in enumerate(header)}
    out = {}
    for r in rows:
        key = tuple(norm_key(r[idx[g]]) for g in gbs)
        out[key] = [r[idx[m]] for m in metrics]
    return out


def main():
    floe, models, work, venv = sys.argv[1:5]
    proj, env = build_project(work, models, venv)
    fails = 0
    for name, metrics, gb, where, extra_ok in CASES:
        ms, gbs = case_metrics(metrics).split(","), gb.split(",")
        try:
            fh, fr = floe_rows(floe, models, work, metrics, gb, where)
            mh, mr = mf_rows(venv, proj, env, metrics, gb, where)
        except RuntimeError as e:
            print(f"FAIL {name}: {e}")
            fails += 1
            continue
        f, m = by_key(fh, fr, gbs, ms), by_key(mh, mr, gbs, ms)
        problems = []
        for k, vals in f.items():
            if k not in m:
                problems.append(f"{k}: floe {vals}, MetricFlow has no row")
            elif not all(num_same(a, b) for a, b in zip(vals, m[k])):
                problems.append(f"{k}: floe {vals}, MetricFlow {m[k]}")
        extra = [k for k in m if k not in f and any(v != "" for v in m[k])]
        if extra and not extra_ok:
            problems.append(f"MetricFlow rows floe lacks: {extra[:5]}")
        if not f:
            problems.append("floe returned no rows")
        if problems:
            print(f"FAIL {name} ({metrics} by {gb}):\n  " + "\n  ".join(problems[:8]))
            fails += 1
        else:
            print(f"ok {name}: {len(f)} rows equal MetricFlow's")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
