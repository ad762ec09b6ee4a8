"""superset-reflect.py - the SQLAlchemy reflection Apache Superset does when a PostgreSQL database is
added and a dataset is created (github:apache/superset superset/db_engine_specs/base.py and postgres.py:
get_schema_names, get_table_names + get_foreign_table_names + view names incl. materialized views,
get_columns, get_pk_constraint, get_foreign_keys, get_indexes, get_unique_constraints,
get_check_constraints, get_table_comment, get_view_definition, the default schema, select_star with
LIMIT 100), through SQLAlchemy 1.4 / psycopg2 (Debian's python3-sqlalchemy, python3-psycopg2).
Used to capture tests/sql/pgcat/superset_reflect.sql from a PostgreSQL 15 log. Usage:
  /usr/bin/python3 superset-reflect.py postgresql://user:pw@host:port/db"""
import sys

import sqlalchemy as sa

eng = sa.create_engine(sys.argv[1])
with eng.connect() as c:
    c.execute(sa.text("SELECT 1")).fetchall()
    insp = sa.inspect(c)
    print("default schema", insp.default_schema_name)
    schemas = insp.get_schema_names()
    print("schemas", schemas)
    tables = insp.get_table_names("sales")
    print("tables", tables, insp.get_foreign_table_names("sales"))
    print("views", insp.get_view_names("sales", include=("plain", "materialized")))
    for t in ("orders", "big"):
        print(t, [col["name"] for col in insp.get_columns(t, "sales")])
        print(insp.get_pk_constraint(t, "sales"), insp.get_foreign_keys(t, "sales"),
              insp.get_indexes(t, "sales"), insp.get_unique_constraints(t, "sales"),
              insp.get_check_constraints(t, "sales"), insp.get_table_comment(t, "sales"))
    print(insp.get_view_definition("big", "sales"))
    print(c.execute(sa.text('SELECT * FROM sales.orders LIMIT 100')).fetchall())
