"""pg_client_nested.py - issue 17: psycopg2 and pandas.read_sql decode every
column of every demo table (tests/pgclients/nested/make-demo.sh), nested ones
included: structs and maps arrive as json (dicts), lists of scalars as arrays
of their element type (Python lists, quoting and NULL elements intact), lists
of structs as json[] (lists of dicts), lists of lists as json. Connection from
PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE. Exits 1 on the first failure."""
import datetime as dt
import sys
import warnings

import pandas
import psycopg2

checks = 0


def check(label, got, want):
    global checks
    if got != want:
        print(f"FAIL {label}: got {got!r}, want {want!r}")
        sys.exit(1)
    checks += 1
    print(f"ok {label}")


conn = psycopg2.connect("")
conn.autocommit = True
cur = conn.cursor()


def rows(sql):
    cur.execute(sql)
    return cur.fetchall()


def read_sql(sql, conn):
    """pandas.read_sql on the raw psycopg2 connection (what the issue's user ran); pandas
    warns that it only tests SQLAlchemy connections, which is beside the point here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return pandas.read_sql(sql, conn)


def types(sql):
    cur.execute(sql)
    return [d.type_code for d in cur.description]


# demo.customers: struct address, list tags, struct limits
cust = rows("SELECT name, since, address, tags, limits FROM demo.customers ORDER BY name")
check("customers rows", len(cust), 10)
check("customers alice", cust[0],
      ("alice", dt.date(2011, 2, 11), {"city": "Lima", "zip": "01234"}, ["t1", "vip"],
       {"daily": 100, "monthly": 1000}))
check("customers type oids", types("SELECT address, tags, limits FROM demo.customers"), [114, 1009, 114])
df = read_sql("SELECT * FROM demo.customers ORDER BY name", conn)
check("pandas customers shape", df.shape, (10, 5))
check("pandas customers address", df["address"][1], {"city": "Kyoto", "zip": "02468"})
check("pandas customers tags", df["tags"][9], ["t2", "vip"])
check("pandas customers limits", df["limits"][9]["monthly"], 10000)

# the nested forms in SQL, through the wire
check("subscript and field", rows("SELECT tags[1], address.city, (address).zip, limits.daily "
                                  "FROM demo.customers WHERE name = 'bob'"),
      [("t2", "Kyoto", "02468", 200)])
check("ANY over a list column", rows("SELECT count(*) FROM demo.customers WHERE 'vip' = ANY(tags)"), [(10,)])
check("to_json", rows("SELECT to_json(address) FROM demo.customers WHERE name = 'carol'"),
      [('{"city":"Accra","zip":"03702"}',)])

# demo.nested: map, list of structs, deep struct, quoting, list of lists, NULLs
nest = rows("SELECT * FROM demo.nested ORDER BY id")
check("nested map", nest[0][1], {"a": 1, "b": None})
check("nested list of structs", nest[0][2], [{"f1": "Lima", "f2": "01"}, {"f1": "Oslo", "f2": None}])
check("nested deep struct", nest[0][3], {"f1": 1, "f2": {"f1": "x", "f2": [1, 2]}})
check("nested text list quoting", nest[0][4], ["a,b", 'q"t', None, "back\\slash", "{}", "", "NULL"])
check("nested list of lists", nest[0][5], [[1, 2], [3]])
check("nested NULL row", nest[1], (2, None, None, None, None, None))
check("nested type oids", types("SELECT m, ls, deep, tricky, ll FROM demo.nested"), [114, 199, 114, 1009, 114])
df = read_sql("SELECT * FROM demo.nested ORDER BY id", conn)
check("pandas nested shape", df.shape, (2, 6))
check("pandas nested ls", df["ls"][0][1]["f1"], "Oslo")

# demo.orders: flat, every column
orders = rows("SELECT * FROM demo.orders ORDER BY order_id")
check("orders rows", len(orders), 200)
check("orders first", orders[0][0], 1001)
check("orders amount type", type(orders[0][4]), float)  # floe load infers double
df = read_sql("SELECT * FROM demo.orders", conn)
check("pandas orders shape", df.shape, (200, 8))
print(f"psycopg2/pandas nested: {checks} passed, 0 failed")
