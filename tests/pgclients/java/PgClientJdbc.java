// PgClientJdbc.java - issue 5 acceptance with pgJDBC 42.5 (Debian's
// libpostgresql-jdbc-java) on Java 17: argv = host port db user password.
// Needs lake.big (tests/pgclients/setup.sql). Checks:
//  - DDL and DML through Statement and PreparedStatement (update counts, batch);
//  - one PreparedStatement executed 12 times per row of a table holding every
//    type: pgJDBC switches to a server-prepared statement at the 5th execution
//    (prepareThreshold=5) and then to binary transfer for the types it can
//    receive in binary; getString/getObject/getBytes must stay identical
//    across the switch, and equal the expected values;
//  - setFetchSize(1000) with autocommit off: 100,000 rows through a named
//    portal (Execute with a row limit, more Executes after each Sync);
//  - DatabaseMetaData getSchemas/getTables/getColumns/getPrimaryKeys;
//  - SQLSTATEs of errors; a wrong password fails with 28P01.
// Prints one line per check; exits 1 on the first failure.
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

public class PgClientJdbc {
    static int checks = 0;
    static void ok(String label) { checks++; System.out.println("ok   " + label); }
    static int failures = 0;
    // the reason when label is a known gap against floe (tests/pgclients/known-gaps.txt)
    static String knownGap(String label) {
        String path = System.getenv("PGC_KNOWN_GAPS");
        if (path == null) return null;
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of(path))) {
                int tab = line.indexOf('\t');
                if (line.startsWith("#") || tab < 0) continue;
                if (label.contains(line.substring(0, tab))) return line.substring(tab + 1);
            }
        } catch (java.io.IOException e) { throw new RuntimeException(e); }
        return null;
    }
    static void eq(String label, Object actual, Object expected) {
        if (!Objects.equals(actual, expected) && knownGap(label) != null) {
            System.out.println("GAP  " + label + " (known gap: " + knownGap(label) + ")");
            return;
        }
        if (!Objects.equals(actual, expected))
            throw new AssertionError(label + "\n  expected: " + expected + "\n  actual:   " + actual);
        ok(label);
    }
    static void fail(String msg) { throw new AssertionError(msg); }
    interface Body { void run() throws Exception; }
    // a failing section (assertion or SQLException) is reported and the next one runs
    static void section(Connection c, String name, Body b) {
        try { b.run(); }
        catch (Throwable e) {
            failures++;
            System.out.println("FAIL section '" + name + "': " + (e instanceof SQLException ? "[" + ((SQLException) e).getSQLState() + "] " : "") + e.getMessage());
            try { if (!c.getAutoCommit()) { c.rollback(); c.setAutoCommit(true); } } catch (SQLException ignored) { }
        }
    }

    static String url;
    static Properties props(String user, String pw) {
        Properties p = new Properties();
        p.setProperty("user", user); p.setProperty("password", pw);
        p.setProperty("sslmode", "disable"); p.setProperty("prepareThreshold", "5");
        p.setProperty("ApplicationName", "pgc-jdbc");
        return p;
    }

    // every column of one row, as getString, getObject (class + toString) and, for bytea, hex of getBytes
    static List<String> snapshot(ResultSet rs) throws SQLException {
        List<String> out = new ArrayList<>();
        int n = rs.getMetaData().getColumnCount();
        for (int i = 1; i <= n; i++) {
            Object o = rs.getObject(i);
            // pgJDBC's getString of a binary-format bytea is byte[].toString() ("[B@..."): compare getBytes only
            // and getString of a binary numeric is BigDecimal.toString() ("-1E-10" where text gives
            // "-0.0000000001"): compare numerics by toPlainString() and scale
            String s = o instanceof byte[] ? "<bytes>"
                     : o instanceof BigDecimal ? ((BigDecimal) o).toPlainString() + " scale " + ((BigDecimal) o).scale()
                     : (o instanceof Double || o instanceof Float) ? "float " + o   // ditto: "-1e-300" vs "-1.0E-300"
                     : rs.getString(i);
            String extra = "";
            if (o instanceof byte[]) extra = " hex=" + HexFormat.of().formatHex(rs.getBytes(i));
            out.add(rs.getMetaData().getColumnName(i) + "=" + s + " [" + (o == null ? "null" : o.getClass().getSimpleName()
                    + (o instanceof byte[] ? "" : ":" + o)) + "]" + extra);
        }
        return out;
    }

    public static void main(String[] a) throws Exception {
        url = "jdbc:postgresql://" + a[0] + ":" + a[1] + "/" + a[2];
        Connection c = DriverManager.getConnection(url, props(a[3], a[4]));
        ok("connect (SCRAM)");
        Statement st = c.createStatement();
        st.execute("SET TIME ZONE 'UTC'");

        // ---- DDL + DML
        section(c, "DDL + DML", () -> {
            eq("create table", st.executeUpdate("CREATE TABLE lake.jt (id bigint PRIMARY KEY, b boolean, i integer, l bigint, "
                    + "r real, d double precision, n numeric(38,10), dt date, ts timestamp, tz timestamptz, t text, u uuid, by bytea)"), 0);
            PreparedStatement ins = c.prepareStatement("INSERT INTO lake.jt VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
            Object[][] rows = {
                {1L, true, Integer.MAX_VALUE, Long.MAX_VALUE, 1.5f, Math.PI, new BigDecimal("1234567890123456789012345678.0123456789"),
                 java.sql.Date.valueOf("2024-02-29"), Timestamp.valueOf("2024-02-29 23:59:59.123456"),
                 "2024-02-29 23:59:59.654321+00", "héllo wörld ☃", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", new byte[]{0, 1, 127, (byte) 128, (byte) 255}},
                {2L, false, Integer.MIN_VALUE, Long.MIN_VALUE, -0.25f, -1e-300, new BigDecimal("-0.0000000001"),
                 java.sql.Date.valueOf("1970-01-01"), Timestamp.valueOf("1970-01-01 00:00:00"),
                 "1969-12-31 23:59:59.999999+00", "", "00000000-0000-0000-0000-000000000000", new byte[0]},
                {3L, null, null, null, null, null, null, null, null, null, null, null, null},
            };
            for (Object[] r : rows) {
                for (int i = 0; i < r.length; i++) {
                    if (i == 9 && r[i] != null) ins.setObject(i + 1, r[i], Types.OTHER);       // timestamptz as text
                    else if (i == 11 && r[i] != null) ins.setObject(i + 1, UUID.fromString((String) r[i]));
                    else if (r[i] == null) ins.setNull(i + 1, Types.NULL);
                    else ins.setObject(i + 1, r[i]);
                }
                ins.addBatch();
            }
            int[] counts = ins.executeBatch();
            eq("batch insert counts", Arrays.toString(counts), "[1, 1, 1]");
            PreparedStatement up = c.prepareStatement("UPDATE lake.jt SET i = i - ?, t = t || ? WHERE id = ?");
            up.setInt(1, 1); up.setString(2, "!"); up.setLong(3, 1L);
            eq("update count", up.executeUpdate(), 1);
            eq("insert+delete count", st.executeUpdate("INSERT INTO lake.jt (id) VALUES (4)") + st.executeUpdate("DELETE FROM lake.jt WHERE id = 4"), 2);

        });
        // ---- one PreparedStatement x12 per row: values identical across the binary switch
        section(c, "one PreparedStatement x12 per row: values identical across the binary switch", () -> {
            Map<Long, List<String>> expected = new HashMap<>();
            expected.put(1L, List.of("id=1 [Long:1]", "b=t [Boolean:true]", "i=2147483646 [Integer:2147483646]",
                    "l=9223372036854775807 [Long:9223372036854775807]", "r=float 1.5 [Float:1.5]", "d=float 3.141592653589793 [Double:3.141592653589793]",
                    "n=1234567890123456789012345678.0123456789 scale 10 [BigDecimal:1234567890123456789012345678.0123456789]",
                    "dt=2024-02-29 [Date:2024-02-29]", "ts=2024-02-29 23:59:59.123456 [Timestamp:2024-02-29 23:59:59.123456]",
                    "tz=2024-02-29 23:59:59.654321+00 [Timestamp:2024-02-29 23:59:59.654321]", "t=héllo wörld ☃! [String:héllo wörld ☃!]",
                    "u=a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 [UUID:a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11]", "by=<bytes> [byte[]] hex=00017f80ff"));
            expected.put(2L, List.of("id=2 [Long:2]", "b=f [Boolean:false]", "i=-2147483648 [Integer:-2147483648]",
                    "l=-9223372036854775808 [Long:-9223372036854775808]", "r=float -0.25 [Float:-0.25]", "d=float -1.0E-300 [Double:-1.0E-300]",
                    "n=-0.0000000001 scale 10 [BigDecimal:-1E-10]", "dt=1970-01-01 [Date:1970-01-01]", "ts=1970-01-01 00:00:00 [Timestamp:1970-01-01 00:00:00.0]",
                    "tz=1969-12-31 23:59:59.999999+00 [Timestamp:1969-12-31 23:59:59.999999]", "t= [String:]",
                    "u=00000000-0000-0000-0000-000000000000 [UUID:00000000-0000-0000-0000-000000000000]", "by=<bytes> [byte[]] hex="));
            expected.put(3L, List.of("id=3 [Long:3]", "b=null [null]", "i=null [null]", "l=null [null]", "r=null [null]", "d=null [null]",
                    "n=null [null]", "dt=null [null]", "ts=null [null]", "tz=null [null]", "t=null [null]", "u=null [null]", "by=null [null]"));
            PreparedStatement sel = null;
            for (long id = 1; id <= 3; id++) {
                // one statement text per row, so that every row goes through the switch (pgJDBC counts per SQL text)
                sel = c.prepareStatement("SELECT * FROM lake.jt WHERE id = ? /* row " + id + " */");
                List<String> first = null;
                for (int k = 1; k <= 12; k++) {
                    sel.setLong(1, id);
                    try (ResultSet rs = sel.executeQuery()) {
                        if (!rs.next()) fail("row " + id + " missing at execution " + k);
                        List<String> snap = snapshot(rs);
                        if (first == null) { first = snap; eq("row " + id + " values (text format)", snap, expected.get(id)); }
                        else if (!snap.equals(first)) eq("row " + id + " execution " + k + " equals execution 1", snap, first);
                        if (rs.next()) fail("row " + id + " twice");
                    }
                }
                ok("row " + id + ": 12 executions identical");
            }
            eq("statement is server-prepared after the threshold", sel.unwrap(org.postgresql.PGStatement.class).isUseServerPrepare(), true);
            // a second statement mixing parameter types, x10
            PreparedStatement agg = c.prepareStatement("SELECT count(*), sum(v), max(s) FROM lake.big WHERE id BETWEEN ? AND ? AND s <> ?");
            for (int k = 1; k <= 10; k++) {
                agg.setLong(1, k); agg.setLong(2, k + 999); agg.setString(3, "row" + (k + 1));
                try (ResultSet rs = agg.executeQuery()) {
                    rs.next();
                    long sum = 0; for (long x = k; x <= k + 999; x++) if (x != k + 1) sum += 2 * x;
                    if (rs.getLong(1) != 999 || rs.getLong(2) != sum) fail("aggregate execution " + k + ": " + rs.getLong(1) + " " + rs.getLong(2));
                }
            }
            ok("aggregate PreparedStatement x10");

        });
        // ---- setFetchSize with autocommit off: a named portal read across Syncs
        section(c, "setFetchSize with autocommit off: a named portal read across Syncs", () -> {
            c.setAutoCommit(false);
            PreparedStatement big = c.prepareStatement("SELECT id, v, s FROM lake.big WHERE id > ? ORDER BY id");
            big.setFetchSize(1000);
            big.setLong(1, 0);
            long n = 0;
            try (ResultSet rs = big.executeQuery()) {
                while (rs.next()) {
                    n++;
                    if (rs.getLong(1) != n || rs.getLong(2) != 2 * n || !rs.getString(3).equals("row" + n))
                        fail("fetch-size row " + n + ": " + rs.getLong(1) + "," + rs.getLong(2) + "," + rs.getString(3));
                }
            }
            eq("setFetchSize(1000) rows", n, 100000L);
            // two open cursors interleaved in one transaction
            Statement s1 = c.createStatement(), s2 = c.createStatement();
            s1.setFetchSize(10); s2.setFetchSize(10);
            ResultSet r1 = s1.executeQuery("SELECT id FROM lake.big ORDER BY id");
            ResultSet r2 = s2.executeQuery("SELECT id FROM lake.big ORDER BY id DESC");
            long sum1 = 0, sum2 = 0;
            for (int k = 0; k < 25; k++) { r1.next(); r2.next(); sum1 += r1.getLong(1); sum2 += r2.getLong(1); }
            eq("interleaved portals", sum1 + "/" + sum2, "325/2499700");
            r1.close(); r2.close();
            c.commit();
            c.setAutoCommit(true);

        });
        // ---- DatabaseMetaData
        section(c, "DatabaseMetaData", () -> {
            DatabaseMetaData md = c.getMetaData();
            Set<String> schemas = new TreeSet<>();
            try (ResultSet rs = md.getSchemas()) { while (rs.next()) schemas.add(rs.getString("TABLE_SCHEM")); }
            eq("getSchemas has lake", schemas.contains("lake"), true);
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = md.getTables(null, "lake", "%", new String[]{"TABLE"})) {
                while (rs.next()) tables.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + ":" + rs.getString("TABLE_TYPE"));
            }
            eq("getTables", tables, List.of("lake.big:TABLE", "lake.jt:TABLE"));
            List<String> cols = new ArrayList<>();
            try (ResultSet rs = md.getColumns(null, "lake", "jt", "%")) {
                while (rs.next()) cols.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("DATA_TYPE") + ":" + rs.getString("TYPE_NAME")
                        + ":" + rs.getInt("COLUMN_SIZE") + ":" + rs.getInt("DECIMAL_DIGITS") + ":" + rs.getString("IS_NULLABLE") + ":" + rs.getInt("ORDINAL_POSITION"));
            }
            eq("getColumns", cols, List.of("id:-5:int8:19:0:NO:1", "b:-7:bool:1:0:YES:2", "i:4:int4:10:0:YES:3", "l:-5:int8:19:0:YES:4",
                    "r:7:float4:8:8:YES:5", "d:8:float8:17:17:YES:6", "n:2:numeric:38:10:YES:7", "dt:91:date:13:0:YES:8",
                    "ts:93:timestamp:29:6:YES:9", "tz:93:timestamptz:35:6:YES:10", "t:12:text:2147483647:0:YES:11",
                    "u:1111:uuid:2147483647:0:YES:12", "by:-2:bytea:2147483647:0:YES:13"));
            List<String> pks = new ArrayList<>();
            try (ResultSet rs = md.getPrimaryKeys(null, "lake", "jt")) {
                while (rs.next()) pks.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("KEY_SEQ"));
            }
            eq("getPrimaryKeys", pks, List.of("id:1"));
            try (ResultSet rs = md.getPrimaryKeys(null, "lake", "big")) { eq("getPrimaryKeys (none)", rs.next(), false); }
            eq("getDatabaseProductName", md.getDatabaseProductName(), "PostgreSQL");
            ok("getDatabaseProductVersion " + md.getDatabaseProductVersion());

        });
        // ---- errors
        section(c, "errors", () -> {
            try { st.executeQuery("SELECT * FROM lake.nope"); fail("no error for a missing table"); }
            catch (SQLException e) { eq("42P01", e.getSQLState(), "42P01"); }
            try { PreparedStatement p = c.prepareStatement("SELECT 10 / ?"); p.setInt(1, 0); p.executeQuery(); fail("no error for 1/0"); }
            catch (SQLException e) { eq("22012", e.getSQLState(), "22012"); }
            try (ResultSet rs = st.executeQuery("SELECT 'alive'")) { rs.next(); eq("usable after errors", rs.getString(1), "alive"); }
            try { DriverManager.getConnection(url, props(a[3], "wrong-password")); fail("wrong password accepted"); }
            catch (SQLException e) { eq("wrong password 28P01", e.getSQLState(), "28P01"); }

        });
        eq("drop table", st.executeUpdate("DROP TABLE lake.jt"), 0);
        c.close();
        if (failures > 0) { System.out.println("FAILED pgJDBC: " + failures + " section(s) failed, " + checks + " checks passed"); System.exit(1); }
        System.out.println("PASS pgJDBC: " + checks + " checks");
    }
}
