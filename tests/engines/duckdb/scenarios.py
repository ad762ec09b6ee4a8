"""DuckDB (1.5.5) and its iceberg extension against floe serve, offline: the extensions are
installed from the pinned wheels' files (no network, autoinstall off), the REST catalog is
attached with OAuth2 client credentials, and every table floe writes is read by DuckDB and
compared cell by cell with floe's answer; DuckDB's writes (CREATE TABLE, INSERT, DELETE,
UPDATE where 1.5 has them) are read back by floe. What DuckDB itself refuses is listed with
its own error (card.unsupported), never counted as a pass.
"""
import glob
import importlib
import os
import sys
import tempfile

import duckdb

from floe_engine import FloeServer, Scorecard, Unsupported, same_rows


def connect(tmp, floe):
    con = duckdb.connect(config={"autoinstall_known_extensions": "false",
                                 "autoload_known_extensions": "false",
                                 "extension_directory": os.path.join(tmp, "duckdb-ext")})
    for name in ("httpfs", "avro", "iceberg"):  # from the wheels' files, never a repository
        mod = importlib.import_module("duckdb_extension_" + name)
        path = glob.glob(os.path.join(os.path.dirname(mod.__file__), "extensions", "*",
                                      name + ".duckdb_extension"))[0]
        con.execute("INSTALL '%s'" % path)
        con.execute("LOAD " + name)
    con.execute("SET TimeZone = 'UTC'")
    con.execute("CREATE SECRET floe_secret (TYPE iceberg, CLIENT_ID '%s', CLIENT_SECRET '%s', "
                "OAUTH2_SERVER_URI '%s')" % (floe.client_id, floe.secret, floe.token_uri))
    con.execute("ATTACH '%s' AS floe (TYPE iceberg, ENDPOINT '%s', SECRET floe_secret, "
                "ACCESS_DELEGATION_MODE 'none')" % (floe.warehouse, floe.rest_uri))
    return con


def ddb(con, sql):
    try:
        return [tuple(r) for r in con.execute(sql).fetchall()]
    except duckdb.NotImplementedException as e:
        raise Unsupported("%s: %s" % (type(e).__name__, e))


def main():
    tmp = tempfile.mkdtemp(prefix="floe-duckdb.")
    floe = FloeServer.start(tmp)
    card = Scorecard("duckdb")
    ex = floe.execute
    ex("CREATE SCHEMA dk")
    con = connect(tmp, floe)

    def same(sql_floe, sql_duck=None, ordered=False):
        same_rows(floe.rows(sql_floe), ddb(con, sql_duck or sql_floe.replace(" dk.", " floe.dk.")),
                  ordered=ordered, what=sql_floe[:80])

    def types():
        ex("CREATE TABLE dk.types (id int, big bigint, f real, d double precision, flag boolean, s varchar, "
           "amt decimal(10,2), wide decimal(38,6), day date, t time, ts timestamp, tstz timestamptz, bin bytea, "
           "u uuid, l int[])")
        ex("INSERT INTO dk.types VALUES "
           "(1, 9007199254740993, 1.5, -2.5e-300, true, 'ünï', 12.34, -12345678901234567890123456789012.123456, "
           "DATE '2024-02-29', TIME '12:34:56.789012', TIMESTAMP '2024-01-02 03:04:05.678901', "
           "TIMESTAMPTZ '2024-01-02 03:04:05.000001+00', '\\x00ff'::bytea, '12345678-1234-5678-1234-567812345678', ARRAY[1, NULL, 3]), "
           "(2, -1, -0.0, 1e300, false, '', -0.01, 0, DATE '1969-12-31', TIME '00:00:00', TIMESTAMP '1900-01-01 00:00:00', "
           "TIMESTAMPTZ '1970-01-01 00:00:00+00', '\\x'::bytea, '00000000-0000-0000-0000-0000000000ff', ARRAY[]::int[]), "
           "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
        cols = "id, big, f, d, flag, s, amt, wide, day, t, ts, tstz, bin, CAST(u AS varchar), l"
        same("SELECT %s FROM dk.types" % cols)
    card.run("read types", types)

    def partitioned():
        ex("CREATE TABLE dk.part (id bigint, cat varchar, ts timestamptz, name varchar, v double precision) "
           "WITH (partitioning = ARRAY['cat', 'bucket(8, id)', 'day(ts)', 'truncate(3, name)'])")
        ex("INSERT INTO dk.part SELECT g, CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END, "
           "TIMESTAMPTZ '2024-03-01 12:00:00+00' + g * INTERVAL '7 hours', "
           "CASE WHEN g % 5 = 0 THEN NULL ELSE 'name' || g END, g * 0.5 FROM generate_series(0, 59) g")
        same("SELECT id, cat, ts, name, v FROM dk.part")
        for where in ["cat = 'a'", "id = 13", "ts >= TIMESTAMPTZ '2024-03-05 00:00:00+00' AND ts < TIMESTAMPTZ '2024-03-07 00:00:00+00'",
                      "name = 'name7'", "name IS NULL"]:
            same("SELECT id, cat, ts, name, v FROM dk.part WHERE " + where)
    card.run("read partitioned (identity/bucket/day/truncate) with filters", partitioned)

    def deletes(version):
        t = "dk.del_v%d" % version
        ex("CREATE TABLE %s (id int, cat varchar, v bigint) WITH (format_version = %d, partitioning = ARRAY['cat'])" % (t, version))
        ex("INSERT INTO %s SELECT g, CASE WHEN g %% 3 = 0 THEN 'x' ELSE 'y' END, g * 100 FROM generate_series(1, 300) g" % t)
        ex("DELETE FROM %s WHERE id %% 7 = 0" % t)
        ex("UPDATE %s SET v = -v WHERE id BETWEEN 10 AND 20" % t)
        ex("MERGE INTO %s t USING (VALUES (5, 5), (14, 14), (1000, 1000)) s(id, v) ON t.id = s.id "
           "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'z', s.v)" % t)
        if version == 3:  # floe wrote deletion vectors: at most one per data file
            dvs = floe.rows("SELECT referenced_data_file FROM dk.\"del_v3$delete_files\" "
                            "WHERE file_format = 'PUFFIN'")
            if not dvs or len(set(dvs)) != len(dvs):
                raise AssertionError("expected one deletion vector per data file, got %r" % (dvs,))
        same("SELECT id, cat, v FROM %s" % t)
        same("SELECT count(*), sum(v) FROM %s WHERE cat = 'x'" % t)
    card.run("read after floe DELETE/UPDATE/MERGE (v2 position deletes)", deletes, 2)
    card.run("read after floe DELETE/UPDATE/MERGE (v3 deletion vectors)", deletes, 3)

    def evolution():
        ex("CREATE TABLE dk.evo (id int, x real, amt decimal(9,2), old varchar, dropme int)")
        ex("INSERT INTO dk.evo VALUES (1, 1.5, 1.25, 'a', 9), (2, 2.5, 2.5, 'b', 9)")
        ex("ALTER TABLE dk.evo ADD COLUMN added varchar")
        ex("ALTER TABLE dk.evo RENAME COLUMN old TO renamed")
        ex("ALTER TABLE dk.evo DROP COLUMN dropme")
        ex("ALTER TABLE dk.evo ALTER COLUMN id TYPE bigint")
        ex("ALTER TABLE dk.evo ALTER COLUMN x TYPE double precision")
        ex("ALTER TABLE dk.evo ALTER COLUMN amt TYPE decimal(20,2)")
        ex("ALTER TABLE dk.evo SET (partitioning = 'renamed')")
        ex("INSERT INTO dk.evo VALUES (3000000000, 1e100, 123456789012345.67, 'ccc', 'new')")
        same("SELECT id, x, amt, renamed, added FROM dk.evo")
        same("SELECT id FROM dk.evo WHERE renamed = 'ccc'")
    card.run("read after schema and partition evolution", evolution)

    def compaction():
        ex("CREATE TABLE dk.small (id int, s varchar)")
        for i in range(5):
            ex("INSERT INTO dk.small VALUES (%d, 'r%d'), (%d, 'r%d')" % (2 * i, i, 2 * i + 1, i))
        ex("DELETE FROM dk.small WHERE id = 3")
        snap = floe.rows('SELECT snapshot_id FROM dk."small$snapshots" ORDER BY committed_at DESC LIMIT 1')[0][0]
        ex("ALTER TABLE dk.small EXECUTE optimize")
        same("SELECT id, s FROM dk.small")
        same_rows(floe.rows("SELECT id, s FROM dk.small FOR VERSION AS OF %d" % snap),
                  ddb(con, "SELECT id, s FROM floe.dk.small AT (VERSION => %d)" % snap), what="time travel")
    card.run("read after compaction, and time travel", compaction)

    def listing():
        got = ddb(con, "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'floe' AND table_schema = 'dk'")
        same_rows(floe.rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'dk'"), got)
    card.run("list tables", listing)

    def duck_create_insert():
        try:
            con.execute("CREATE TABLE floe.dk.from_duck (id INTEGER, s VARCHAR, amt DECIMAL(10,2), d DATE, ts TIMESTAMP)")
            con.execute("INSERT INTO floe.dk.from_duck VALUES (1, 'a', 1.25, DATE '2024-01-01', TIMESTAMP '2024-01-01 01:02:03.456789'), "
                        "(2, NULL, NULL, NULL, NULL)")
            con.execute("INSERT INTO floe.dk.from_duck SELECT i, 's' || i, i / 4, DATE '2024-01-01' + CAST(i AS INTEGER), NULL FROM range(3, 100) t(i)")
        except (duckdb.NotImplementedException, duckdb.NotImplementedException) as e:
            raise Unsupported("%s: %s" % (type(e).__name__, e))
        same("SELECT id, s, amt, d, ts FROM dk.from_duck")
        floe.execute("INSERT INTO dk.from_duck VALUES (500, 'floe', 5.5, DATE '2025-05-05', NULL)")
        same("SELECT id, s, amt, d, ts FROM dk.from_duck")
    card.run("DuckDB CREATE TABLE + INSERT, floe reads", duck_create_insert)

    def duck_insert_floe_table():
        con.execute("INSERT INTO floe.dk.part VALUES (1000, 'a', TIMESTAMPTZ '2024-03-04 01:00:00+00', 'zzz', 1.0)")
        same("SELECT id, cat, ts, name, v FROM dk.part")
        same("SELECT id FROM dk.part WHERE id = 1000")
    card.run("DuckDB INSERT into floe's partitioned table, floe reads", duck_insert_floe_table)

    def duck_delete_update():
        try:
            con.execute("DELETE FROM floe.dk.from_duck WHERE id % 10 = 0")
        except (duckdb.NotImplementedException, duckdb.InvalidInputException, duckdb.CatalogException) as e:
            raise Unsupported("DELETE: %s: %s" % (type(e).__name__, e))
        same("SELECT id, s, amt, d, ts FROM dk.from_duck")
        try:
            con.execute("UPDATE floe.dk.from_duck SET s = 'upd' WHERE id < 5")
        except (duckdb.NotImplementedException, duckdb.InvalidInputException, duckdb.CatalogException) as e:
            raise Unsupported("UPDATE: %s: %s" % (type(e).__name__, e))
        same("SELECT id, s, amt, d, ts FROM dk.from_duck")
    card.run("DuckDB DELETE/UPDATE, floe reads", duck_delete_update)

    con.close()
    floe.stop()
    return card.finish()


if __name__ == "__main__":
    sys.exit(main())
