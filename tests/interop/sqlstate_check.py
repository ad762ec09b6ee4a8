#!/usr/bin/python3
"""sqlstate_check.py - driven by test_sqlstate.sh against a running floe serve.

1. Reads the SQLSTATE table from include/floe/errcodes.h (FL_SQLSTATE_LIST)
   and the HTTP mapping from src/base/errcodes.c (code_status, class_status),
   so the test follows the table rather than a copy of it.
2. For every code: raise_error(code, message) over pgwire must fail with
   e.pgcode == code and the message; over POST /v1/sql it must answer the
   mapped HTTP status with {"error": {"sqlstate": code}}. Classes 00/01/02 and
   codes outside the table are refused with 22023. A SELECT fails once the
   response has started (200 and a final {"$error": {"sqlstate"}}), so the
   status is checked with an INSERT, whose error comes before any row.
3. A corpus of natural statements raising the common codes, on both paths.
"""
import argparse
import json
import re
import sys
import urllib.error
import urllib.request

import psycopg2

fails = 0
oks = 0


def check(desc, expected, actual):
    global fails, oks
    if expected != actual:
        print(f"FAIL: {desc}: expected [{expected}] got [{actual}]")
        fails += 1
    else:
        oks += 1


def read_table(src):
    h = open(f"{src}/include/floe/errcodes.h").read()
    codes = re.findall(r'X\((\w+), "([0-9A-Z]{5})", "(\w+)"\)', h)
    c = open(f"{src}/src/base/errcodes.c").read()
    body = lambda name: c[c.index(name):c.index("};", c.index(name))]
    per_code = dict((k, int(v)) for k, v in re.findall(r'\{"([0-9A-Z]{5})", (\d+)\}', body("code_status[]")))
    per_class = dict((k, int(v)) for k, v in re.findall(r'\{"([0-9A-Z]{2})", (\d+)\}', body("class_status[]")))
    return codes, per_code, per_class


def http_status(code, per_code, per_class):
    return per_code.get(code, per_class.get(code[:2], 500))


class Pg:
    def __init__(self, hostport, user, password):
        host, port = hostport.rsplit(":", 1)
        self.conn = psycopg2.connect(host=host, port=int(port), user=user, password=password,
                                     dbname="floe", sslmode="disable")
        self.conn.autocommit = True

    def state(self, sql):
        """(pgcode, message) of the statement's error, or ("ok", None)."""
        try:
            with self.conn.cursor() as cur:
                cur.execute(sql)
                if cur.description:
                    cur.fetchall()
            return "ok", None
        except psycopg2.Error as e:
            msg = e.diag.message_primary if e.diag else str(e)
            return e.pgcode, msg


def http_post(base, token, sql):
    """(HTTP status, sqlstate, message); a failure after rows started is
    (200, $error's sqlstate, message)."""
    req = urllib.request.Request(f"http://{base}/v1/sql", data=sql.encode(), method="POST",
                                 headers={"Authorization": f"Bearer {token}",
                                          "Content-Type": "text/plain"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            lines = [json.loads(x) for x in r.read().decode().splitlines() if x.strip()]
            last = lines[-1] if lines else {}
            if "$error" in last:
                return 200, last["$error"].get("sqlstate"), last["$error"].get("message")
            return 200, "ok", None
    except urllib.error.HTTPError as e:
        body = json.loads(e.read().decode() or "{}").get("error", {})
        return e.code, body.get("sqlstate"), body.get("message")


def insert(code, msg):
    return f"INSERT INTO s.t (v) VALUES (raise_error('{code}', '{msg}'))"


def table_checks(codes, per_code, per_class, pg, base, token):
    for cname, code, cond in codes:
        msg = f"raised {cond}"
        sql = f"SELECT raise_error('{code}', '{msg}')"
        if code[:2] in ("00", "01", "02"):
            check(f"pgwire raise_error {code} refused", "22023", pg.state(sql)[0])
            check(f"http raise_error {code} refused", (400, "22023"),
                  http_post(base, token, insert(code, msg))[:2])
            continue
        st, m = pg.state(sql)
        check(f"pgwire raise_error {code} ({cond}): pgcode", code, st)
        check(f"pgwire raise_error {code}: message", msg, m)
        check(f"pgwire INSERT raise_error {code}: pgcode", code, pg.state(insert(code, msg))[0])
        check(f"http SELECT raise_error {code}: $error sqlstate", (200, code, msg), http_post(base, token, sql))
        hs, hstate, hm = http_post(base, token, insert(code, msg))
        check(f"http INSERT raise_error {code} ({cond}): status and sqlstate",
              (http_status(code, per_code, per_class), code), (hs, hstate))
        check(f"http INSERT raise_error {code}: message", msg, hm)
    for bad in ("ZZ999", "2201", "220120", "22p02"):
        sql = f"SELECT raise_error('{bad}', 'x')"
        check(f"pgwire raise_error {bad} refused", "22023", pg.state(sql)[0])
        check(f"http raise_error {bad} refused", (400, "22023"), http_post(base, token, insert(bad, "x"))[:2])
    check("raise_error with NULL is NULL", "ok", pg.state("SELECT raise_error(NULL, 'x')")[0])


def deep(n):
    return "SELECT " + "(" * n + "1" + ")" * n


# (description, statement, expected SQLSTATE); tables s.t and s.r are made first
CORPUS = [
    ("division by zero", "SELECT 1/0", "22012"),
    ("bigint division by zero", "SELECT 10::bigint % 0", "22012"),
    ("bad integer input", "SELECT 'abc'::int", "22P02"),
    ("bad json input", "SELECT json_typeof('{\"a\":')", "22P02"),
    ("integer overflow", "SELECT 2147483647::int + 1", "22003"),
    ("bigint cast out of range", "SELECT '99999999999999999999'::bigint", "22003"),
    ("date field out of range", "SELECT '2024-13-45'::date", "22008"),
    ("invalid regular expression", "SELECT 'a' ~ '('", "2201B"),
    ("invalid escape string", "SELECT 'a' LIKE 'a' ESCAPE 'ab'", "22025"),
    ("unknown time zone", "SELECT timezone('Nowhere/Zone', TIMESTAMPTZ '2024-01-01 00:00:00+00')", "22023"),
    ("ntile(0)", "SELECT ntile(0) OVER () FROM (VALUES (1)) v(x)", "22014"),
    ("negative LIMIT", "SELECT 1 LIMIT -1", "2201W"),
    ("scalar subquery with two rows", "SELECT (SELECT x FROM (VALUES (1), (2)) v(x))", "21000"),
    ("unknown column", "SELECT nosuch FROM s.t", "42703"),
    ("unknown table", "SELECT * FROM s.nosuch", "42P01"),
    ("syntax error", "SELEC 1", "42601"),
    ("unknown function", "SELECT nosuchfn(1)", "42883"),
    ("operator does not exist", "SELECT true + 1", "42883"),
    ("unknown type", "SELECT 1::nosuchtype", "42704"),
    ("ambiguous column", "SELECT id FROM s.t a, s.t b", "42702"),
    ("grouping error", "SELECT id, count(*) FROM s.t", "42803"),
    ("INSERT into an unknown column", "INSERT INTO s.t (nosuch) VALUES (1)", "42703"),
    ("CREATE TABLE that exists", "CREATE TABLE s.t (x int)", "42P07"),
    ("CREATE SCHEMA that exists", "CREATE SCHEMA s", "42P06"),
    ("NULL into a NOT NULL column", "INSERT INTO s.r VALUES (NULL)", "23502"),
    ("unknown setting", "SET nosuch_parameter = 1", "42704"),
    ("bad setting value", "SET statement_timeout = 'abc'", "22023"),
    ("ROLLBACK TO outside a block", "ROLLBACK TO SAVEPOINT x", "25P01"),
    ("deep nesting", deep(10000), "54001"),
]


def setup(pg):
    for sql in ("CREATE SCHEMA s", "CREATE TABLE s.t (id bigint, v text)",
                "INSERT INTO s.t VALUES (1, 'a')", "CREATE TABLE s.r (a int NOT NULL)"):
        check(f"setup: {sql}", "ok", pg.state(sql)[0])


def corpus_checks(pg, bob_pg, base, token, bob_token, per_code, per_class):
    cases = [(d, s, c, False) for d, s, c in CORPUS]
    cases.append(("permission denied", "SELECT * FROM s.t", "42501", True))
    for desc, sql, code, as_bob in cases:
        st, _ = (bob_pg if as_bob else pg).state(sql)
        check(f"pgwire {desc}", code, st)
        hs, hstate, _ = http_post(base, bob_token if as_bob else token, sql)
        expected = http_status(code, per_code, per_class)
        # a failure after rows started is a 200 with a final $error line
        check(f"http {desc}", (expected, code), (expected if hs == 200 else hs, hstate))


def main():
    ap = argparse.ArgumentParser()
    for a in ("--src", "--pg", "--http", "--secret", "--bob-secret", "--token", "--bob-token"):
        ap.add_argument(a, required=True)
    ap.add_argument("--corpus-only", action="store_true", help="skip raise_error (for older builds)")
    o = ap.parse_args()
    codes, per_code, per_class = read_table(o.src)
    check("the table was read", True, len(codes) > 60)
    pg = Pg(o.pg, "alice", o.secret)
    bob_pg = Pg(o.pg, "bob", o.bob_secret)
    setup(pg)
    if not o.corpus_only:
        table_checks(codes, per_code, per_class, pg, o.http, o.token)
    corpus_checks(pg, bob_pg, o.http, o.token, o.bob_token, per_code, per_class)
    print(f"{oks} checks passed, {fails} failed ({len(codes)} codes, {len(CORPUS) + 1} statements)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
