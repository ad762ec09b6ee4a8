"""tableau_odbc.py - Tableau's PostgreSQL session through psqlODBC, driven with ctypes over unixODBC
(libodbc.so.2; no pyodbc needed). Usage: tableau_odbc.py CONNSTR TRANSCRIPT-FILE

Tableau's connector (github:tableau/connector-plugin-sdk samples/plugins/postgres_odbc: connectionBuilder.js
sets BOOLSASCHAR=0, LFCONVERSION=0, UseDeclareFetch=1, Fetch=2048; manifest.xml sets CAP_CREATE_TEMP_TABLES,
CAP_QUERY_WHERE_FALSE_METADATA, CAP_QUERY_TOP_N, CAP_QUERY_GROUP_BY_DEGREE, CAP_ODBC_METADATA_* and suppresses
SQLStatistics) connects, sets its session (client_min_messages, timezone, as
github:risingwavelabs/risingwave issue 10459 shows), probes temp-table support (CREATE LOCAL TEMPORARY
TABLE ... ON COMMIT PRESERVE ROWS; Tableau rewrites to subqueries when it fails: connector-plugin-sdk
PR 199), lists schemas and tables (SQLTables), describes columns (SQLColumns, SQLPrimaryKeys,
SQLForeignKeys, SQLGetTypeInfo), reads result metadata with `WHERE (1 = 0)` and LIMIT 0 queries, and
fetches data with psqlODBC's DECLARE "SQL_CUR..." CURSOR WITH HOLD + FETCH 2048 (UseDeclareFetch=1).

Every call writes a block to the transcript: "== <call>", its result column names and the rows that
concern schema sales, or "ERROR <sqlstate> <message>". test_pg_client_bitools.sh compares the transcripts
of floe and PostgreSQL 15 (transcript_diff.py). The temp-table probe's outcome is printed, not compared
(floe has had temporary tables since round 5; the probe is still only printed). Exit 0 when the transcript was written, 1 when the session broke."""
import ctypes as C
import sys

odbc = C.CDLL("libodbc.so.2")
H = C.c_void_p
SQL_NTS = -3
SQL_HANDLE_ENV, SQL_HANDLE_DBC, SQL_HANDLE_STMT = 1, 2, 3
SQL_NO_DATA = 100
SQL_C_CHAR = 1
SQL_CLOSE = 0
for _f in ("SQLAllocHandle", "SQLSetEnvAttr", "SQLDriverConnect", "SQLGetDiagRec", "SQLNumResultCols",
           "SQLDescribeCol", "SQLFetch", "SQLGetData", "SQLFreeStmt", "SQLExecDirect", "SQLTables",
           "SQLColumns", "SQLPrimaryKeys", "SQLForeignKeys", "SQLGetTypeInfo"):
    getattr(odbc, _f).restype = C.c_short  # SQLRETURN


def ok(rc):
    return rc in (0, 1)


def diag(kind, h):
    state = C.create_string_buffer(6)
    msg = C.create_string_buffer(1024)
    native = C.c_int()
    ln = C.c_short()
    out = []
    rec = 1
    while ok(odbc.SQLGetDiagRec(C.c_short(kind), h, C.c_short(rec), state, C.byref(native), msg,
                                C.c_short(len(msg)), C.byref(ln))):
        out.append("%s %s" % (state.value.decode(), msg.value.decode(errors="replace")))
        rec += 1
    return "; ".join(out)


class Odbc:
    def __init__(self, connstr):
        self.env = H()
        self.dbc = H()
        odbc.SQLAllocHandle(C.c_short(SQL_HANDLE_ENV), None, C.byref(self.env))
        odbc.SQLSetEnvAttr(self.env, 200, C.c_void_p(3), 0)  # SQL_ATTR_ODBC_VERSION = SQL_OV_ODBC3
        odbc.SQLAllocHandle(C.c_short(SQL_HANDLE_DBC), self.env, C.byref(self.dbc))
        out = C.create_string_buffer(2048)
        ln = C.c_short()
        rc = odbc.SQLDriverConnect(self.dbc, None, connstr.encode(), C.c_short(SQL_NTS), out,
                                   C.c_short(len(out)), C.byref(ln), C.c_ushort(0))
        if not ok(rc):
            raise RuntimeError("connect: " + diag(SQL_HANDLE_DBC, self.dbc))
        self.stmt = H()
        odbc.SQLAllocHandle(C.c_short(SQL_HANDLE_STMT), self.dbc, C.byref(self.stmt))

    def fetch_all(self):
        """(column names, rows) of the statement's current result; rows as lists of str/None."""
        n = C.c_short()
        odbc.SQLNumResultCols(self.stmt, C.byref(n))
        names = []
        for i in range(1, n.value + 1):
            name = C.create_string_buffer(256)
            nl, ty, dg, nu = C.c_short(), C.c_short(), C.c_short(), C.c_short()
            sz = C.c_ulong()
            odbc.SQLDescribeCol(self.stmt, C.c_ushort(i), name, C.c_short(256), C.byref(nl), C.byref(ty),
                                C.byref(sz), C.byref(dg), C.byref(nu))
            names.append(name.value.decode())
        rows = []
        while True:
            rc = odbc.SQLFetch(self.stmt)
            if rc == SQL_NO_DATA:
                break
            if not ok(rc):
                raise RuntimeError("fetch: " + diag(SQL_HANDLE_STMT, self.stmt))
            row = []
            for i in range(1, n.value + 1):
                buf = C.create_string_buffer(4096)
                ind = C.c_long()
                rc = odbc.SQLGetData(self.stmt, C.c_ushort(i), C.c_short(SQL_C_CHAR), buf, C.c_long(4096),
                                     C.byref(ind))
                if not ok(rc):
                    raise RuntimeError("getdata: " + diag(SQL_HANDLE_STMT, self.stmt))
                row.append(None if ind.value == -1 else buf.value.decode(errors="replace"))
            rows.append(row)
        odbc.SQLFreeStmt(self.stmt, C.c_ushort(SQL_CLOSE))
        return names, rows

    def call(self, fn, *args):
        rc = fn(self.stmt, *args)
        if not ok(rc):
            err = diag(SQL_HANDLE_STMT, self.stmt)
            odbc.SQLFreeStmt(self.stmt, C.c_ushort(SQL_CLOSE))
            raise RuntimeError(err)
        return self.fetch_all()

    def sql(self, text):
        return self.call(odbc.SQLExecDirect, text.encode(), C.c_int(SQL_NTS))


def s(v):
    """an ODBC catalog-function string argument (pattern/identifier) and its length"""
    if v is None:
        return (None, C.c_short(0))
    return (v.encode(), C.c_short(SQL_NTS))


out = []


def show(label, names, rows, keep=lambda r: True, cols=None):
    out.append("== " + label)
    out.append("cols: " + ",".join(names))
    sel = [r for r in rows if keep(r)]
    for r in sel:
        vals = r if cols is None else [r[i] for i in cols]
        out.append("row: " + "|".join("NULL" if v is None else v for v in vals))


def step(label, f):
    try:
        return f()
    except RuntimeError as e:
        out.append("== " + label)
        out.append("ERROR " + str(e).split(";")[0][:200])
        print("error in %s: %s" % (label, str(e)[:300]))
        return None


def main():
    o = Odbc(sys.argv[1])
    # session setup (Tableau's connect; psqlODBC itself sent its ConnSettings)
    for q in ("SET client_min_messages TO WARNING", "SET TIME ZONE 'UTC'", "SELECT 1"):
        step(q, lambda q=q: o.sql(q))
    # temp-table capability probe: an error is an answer Tableau handles (it then uses subqueries)
    try:
        o.sql('CREATE LOCAL TEMPORARY TABLE "#Tableau_1_Connect" ("COL" INTEGER) ON COMMIT PRESERVE ROWS')
        o.sql('DROP TABLE "#Tableau_1_Connect"')
        print("temp tables: supported")
    except RuntimeError as e:
        print("temp tables: not supported (%s)" % str(e)[:120])
    # schema list, table list, columns, keys, types
    r = step("SQLTables schemas", lambda: o.call(odbc.SQLTables, *s(""), *s("%"), *s(""), *s("")))
    if r:
        show("SQLTables schemas", r[0], r[1], lambda x: x[1] == "sales", cols=[1])
    r = step("SQLTables sales", lambda: o.call(odbc.SQLTables, *s(None), *s("sales"), *s("%"),
                                                 *s("'TABLE','VIEW'")))
    if r:
        show("SQLTables sales", r[0], r[1], cols=[1, 2, 3])
    for t in ("orders", "items", "big", "keyed"):
        r = step("SQLColumns " + t, lambda t=t: o.call(odbc.SQLColumns, *s(None), *s("sales"), *s(t), *s("%")))
        if r:
            show("SQLColumns " + t, r[0], r[1], cols=[1, 2, 3, 4, 5, 6, 10, 16])
        r = step("SQLPrimaryKeys " + t, lambda t=t: o.call(odbc.SQLPrimaryKeys, *s(None), *s("sales"), *s(t)))
        if r:
            show("SQLPrimaryKeys " + t, r[0], r[1])
        r = step("SQLForeignKeys " + t, lambda t=t: o.call(odbc.SQLForeignKeys, *s(None), *s(None), *s(None),
                                                             *s(None), *s("sales"), *s(t)))
        if r:
            show("SQLForeignKeys " + t, r[0], r[1])
    r = step("SQLGetTypeInfo", lambda: o.call(odbc.SQLGetTypeInfo, C.c_short(0)))
    if r:
        show("SQLGetTypeInfo", r[0], r[1], lambda x: x[0] in ("int8", "text", "numeric", "timestamptz"),
             cols=[0, 1])
    # result metadata (CAP_QUERY_WHERE_FALSE_METADATA), then data through DECLARE/FETCH cursors
    queries = [
        'SELECT * FROM "sales"."orders" "orders" WHERE (1 = 0)',
        'SELECT "orders"."id" AS "id", "orders"."customer" AS "customer" FROM "sales"."orders" "orders" LIMIT 0',
        'SELECT "orders"."customer" AS "customer", SUM("orders"."amount") AS "sum:amount:ok" '
        'FROM "sales"."orders" "orders" GROUP BY 1',
        'SELECT COUNT(1) AS "cnt:items:ok" FROM "sales"."items" "items" HAVING (COUNT(1) > 0)',
        'SELECT CAST("orders"."placed" AS DATE) AS "tdy:placed:ok", MIN("orders"."id") AS "min:id:ok" '
        'FROM "sales"."orders" "orders" GROUP BY 1 ORDER BY 1 ASC LIMIT 1000',
        'SELECT "big"."id" AS "id", "big"."amount" AS "amount" FROM "sales"."big" "big" LIMIT 10000',
        'SELECT "t0"."customer" AS "customer" FROM (SELECT "orders"."customer" AS "customer", '
        'SUM("orders"."amount") AS "$__alias__0" FROM "sales"."orders" "orders" GROUP BY 1 '
        'ORDER BY 2 DESC LIMIT 10) "t0"',
    ]
    for q in queries:
        r = step(q, lambda q=q: o.sql(q))
        if r:
            show(q, r[0], r[1])
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")
    print("tableau_odbc: %d calls" % sum(1 for x in out if x.startswith("== ")))
    return 0


sys.exit(main())
