// PgMetaSweep.java - calls every java.sql.DatabaseMetaData method that Metabase's sql-jdbc sync
// (github:metabase/metabase src/metabase/driver/sql_jdbc/sync/*.clj: getSchemas, getTables with type
// filters, getColumns, getPrimaryKeys, getImportedKeys, getIndexInfo, getDatabaseProductName/Version,
// getIdentifierQuoteString, getSearchStringEscape) and DBeaver's generic JDBC layer
// (github:dbeaver/dbeaver plugins/org.jkiss.dbeaver.model/.../jdbc: JDBCDatabaseMetaData: getCatalogs,
// getTableTypes, getTypeInfo, getFunctions, getFunctionColumns, getProcedures, getProcedureColumns,
// getUDTs, getSuperTables, getSuperTypes, getAttributes, getClientInfoProperties, getSQLKeywords,
// getExportedKeys, getCrossReference, getBestRowIdentifier, getVersionColumns, getPseudoColumns,
// getTablePrivileges, getColumnPrivileges, the max*Length probes) use, through pgJDBC 42.5.
//
// Usage: java -cp .:postgresql.jar PgMetaSweep host port db user password
// Prints a transcript: for each call "== <call>", "cols: LABEL:jdbcType,..." (the result set's column
// labels and java.sql.Types codes) and the rows that are the same on every server (those about schema
// sales; for catalog-wide results the presence of a few well-known rows). test_pg_client_bitools.sh runs
// it against floe and against PostgreSQL 15 and compares the transcripts block by block. A call that
// throws prints "ERROR [sqlstate] message". Exit status 0 (the comparison is the script's).
import java.sql.*;
import java.util.*;

public class PgMetaSweep {
    static final StringBuilder out = new StringBuilder();

    interface Call { ResultSet run() throws SQLException; }
    interface Keep { String row(ResultSet rs) throws SQLException; }

    static String s(ResultSet rs, String col) throws SQLException {
        String v = rs.getString(col);
        return v == null ? "NULL" : v;
    }

    // one metadata call: its column set, then the rows `keep` renders (null = row not printed)
    static void call(String label, Call c, Keep keep) { call(label, c, keep, false); }

    // distinct: rows printed once each (overload counts differ: floe has fewer overloads)
    @SuppressWarnings("unchecked")
    static void call(String label, Call c, Keep keep, boolean distinct) {
        out.append("== ").append(label).append('\n');
        try (ResultSet rs = c.run()) {
            ResultSetMetaData md = rs.getMetaData();
            StringBuilder cols = new StringBuilder("cols:");
            for (int i = 1; i <= md.getColumnCount(); i++)
                cols.append(i > 1 ? "," : " ").append(md.getColumnLabel(i)).append(':').append(md.getColumnType(i));
            out.append(cols).append('\n');
            Collection<String> rows = distinct ? new TreeSet<>() : new ArrayList<>();
            int n = 0;
            while (rs.next()) {
                n++;
                String r = keep == null ? null : keep.row(rs);
                if (r != null) rows.add(r);
            }
            if (!distinct) Collections.sort((List<String>) rows);
            for (String r : rows) out.append("row: ").append(r).append('\n');
            if (keep == null) out.append(n > 0 ? "rows: some\n" : "rows: none\n");
        } catch (SQLException e) {
            out.append("ERROR [").append(e.getSQLState()).append("] ").append(e.getMessage().split("\n")[0]).append('\n');
        }
    }

    interface Scalar { Object get() throws SQLException; }
    static void scalar(String label, Scalar f, boolean printValue) {
        out.append("== ").append(label).append('\n');
        try {
            Object v = f.get();
            if (printValue) out.append("value: ").append(v).append('\n');
            else out.append(v == null || v.toString().isEmpty() ? "value: empty\n" : "value: present\n");
        } catch (SQLException e) {
            out.append("ERROR [").append(e.getSQLState()).append("] ").append(e.getMessage().split("\n")[0]).append('\n');
        }
    }

    static boolean sales(ResultSet rs, String col) throws SQLException { return "sales".equals(rs.getString(col)); }

    public static void main(String[] a) throws Exception {
        String url = "jdbc:postgresql://" + a[0] + ":" + a[1] + "/" + a[2] + "?sslmode=disable";
        try (Connection c = DriverManager.getConnection(url, a[3], a[4])) {
            DatabaseMetaData m = c.getMetaData();
            // connect-time probes (Metabase: driver version checks; DBeaver: dialect setup)
            scalar("getDatabaseProductName", m::getDatabaseProductName, true);
            scalar("getDatabaseMajorVersion", m::getDatabaseMajorVersion, true);
            scalar("getDatabaseProductVersion", m::getDatabaseProductVersion, false);
            scalar("getIdentifierQuoteString", m::getIdentifierQuoteString, true);
            scalar("getSearchStringEscape", m::getSearchStringEscape, true);
            scalar("getSQLKeywords", m::getSQLKeywords, false);
            scalar("getNumericFunctions", m::getNumericFunctions, false);
            scalar("getStringFunctions", m::getStringFunctions, false);
            scalar("getUserName", m::getUserName, false);
            scalar("getMaxColumnNameLength", m::getMaxColumnNameLength, true);
            scalar("getMaxTableNameLength", m::getMaxTableNameLength, true);
            scalar("getMaxSchemaNameLength", m::getMaxSchemaNameLength, true);
            scalar("getDefaultTransactionIsolation", m::getDefaultTransactionIsolation, true);
            scalar("supportsTransactions", m::supportsTransactions, true);
            scalar("isReadOnly", m::isReadOnly, true);
            scalar("getTransactionIsolation", c::getTransactionIsolation, true);
            scalar("getSchema", c::getSchema, false); // "public" on PostgreSQL, floe's session namespace on floe
            // catalogs, schemas, table types
            call("getCatalogs", m::getCatalogs, null);
            call("getSchemas()", m::getSchemas, rs -> sales(rs, "TABLE_SCHEM") || "pg_catalog".equals(rs.getString("TABLE_SCHEM")) ? s(rs, "TABLE_SCHEM") : null);
            call("getSchemas(null, sales)", () -> m.getSchemas(null, "sales"), rs -> s(rs, "TABLE_SCHEM"));
            call("getTableTypes", m::getTableTypes, rs -> s(rs, "TABLE_TYPE"));
            // tables, with the type filters Metabase and DBeaver pass
            Keep tables = rs -> sales(rs, "TABLE_SCHEM") ? s(rs, "TABLE_SCHEM") + "|" + s(rs, "TABLE_NAME") + "|" + s(rs, "TABLE_TYPE") + "|" + s(rs, "REMARKS") : null;
            call("getTables(sales, %, TABLE/VIEW/FOREIGN TABLE/MATERIALIZED VIEW/PARTITIONED TABLE)",
                 () -> m.getTables(null, "sales", "%", new String[] {"TABLE", "PARTITIONED TABLE", "VIEW", "FOREIGN TABLE", "MATERIALIZED VIEW"}), tables);
            call("getTables(sales, %, null)", () -> m.getTables(null, "sales", "%", null), tables);
            call("getTables(null, %, TABLE)", () -> m.getTables(null, null, "%", new String[] {"TABLE"}), tables);
            call("getTables(sales, ord%, VIEW)", () -> m.getTables(null, "sales", "ord%", new String[] {"VIEW"}), tables);
            call("getTables(pg_catalog, pg_class, SYSTEM TABLE)", () -> m.getTables(null, "pg_catalog", "pg_class", new String[] {"SYSTEM TABLE"}),
                 rs -> s(rs, "TABLE_NAME") + "|" + s(rs, "TABLE_TYPE"));
            // columns
            Keep cols = rs -> sales(rs, "TABLE_SCHEM") ? String.join("|", s(rs, "TABLE_NAME"), s(rs, "COLUMN_NAME"), s(rs, "DATA_TYPE"),
                 s(rs, "TYPE_NAME"), s(rs, "COLUMN_SIZE"), s(rs, "DECIMAL_DIGITS"), s(rs, "NULLABLE"), s(rs, "COLUMN_DEF"),
                 s(rs, "ORDINAL_POSITION"), s(rs, "IS_NULLABLE"), s(rs, "IS_AUTOINCREMENT"), s(rs, "IS_GENERATEDCOLUMN")) : null;
            call("getColumns(sales, orders, %)", () -> m.getColumns(null, "sales", "orders", "%"), cols);
            call("getColumns(sales, %, %)", () -> m.getColumns(null, "sales", "%", "%"), cols);
            call("getColumns(sales, big, amount)", () -> m.getColumns(null, "sales", "big", "amount"), cols);
            // keys and indexes
            Keep pk = rs -> String.join("|", s(rs, "TABLE_NAME"), s(rs, "COLUMN_NAME"), s(rs, "KEY_SEQ"), s(rs, "PK_NAME"));
            call("getPrimaryKeys(sales, orders)", () -> m.getPrimaryKeys(null, "sales", "orders"), pk);
            call("getPrimaryKeys(sales, keyed)", () -> m.getPrimaryKeys(null, "sales", "keyed"), pk);
            Keep fk = rs -> String.join("|", s(rs, "PKTABLE_NAME"), s(rs, "PKCOLUMN_NAME"), s(rs, "FKTABLE_NAME"), s(rs, "FKCOLUMN_NAME"), s(rs, "KEY_SEQ"));
            call("getImportedKeys(sales, items)", () -> m.getImportedKeys(null, "sales", "items"), fk);
            call("getExportedKeys(sales, orders)", () -> m.getExportedKeys(null, "sales", "orders"), fk);
            call("getCrossReference(orders, items)", () -> m.getCrossReference(null, "sales", "orders", null, "sales", "items"), fk);
            Keep ix = rs -> String.join("|", s(rs, "TABLE_NAME"), s(rs, "NON_UNIQUE"), s(rs, "INDEX_NAME"), s(rs, "TYPE"), s(rs, "ORDINAL_POSITION"), s(rs, "COLUMN_NAME"));
            call("getIndexInfo(sales, orders, unique=false)", () -> m.getIndexInfo(null, "sales", "orders", false, true), ix);
            call("getIndexInfo(sales, keyed, unique=true)", () -> m.getIndexInfo(null, "sales", "keyed", true, true), ix);
            call("getBestRowIdentifier(sales, keyed)", () -> m.getBestRowIdentifier(null, "sales", "keyed", DatabaseMetaData.bestRowSession, true),
                 rs -> s(rs, "COLUMN_NAME") + "|" + s(rs, "TYPE_NAME"));
            call("getVersionColumns(sales, orders)", () -> m.getVersionColumns(null, "sales", "orders"), null);
            call("getPseudoColumns(sales, orders)", () -> m.getPseudoColumns(null, "sales", "orders", "%"), null);
            // privileges
            call("getTablePrivileges(sales, orders)", () -> m.getTablePrivileges(null, "sales", "orders"), null);
            call("getColumnPrivileges(sales, orders, id)", () -> m.getColumnPrivileges(null, "sales", "orders", "id"), null);
            // types, UDTs, routines
            call("getTypeInfo", m::getTypeInfo, rs -> {
                String t = rs.getString("TYPE_NAME");
                return Set.of("int4", "int8", "text", "numeric", "timestamptz", "bool", "varchar").contains(t) ? t + "|" + s(rs, "DATA_TYPE") : null;
            });
            Keep udt = rs -> sales(rs, "TYPE_SCHEM") ? String.join("|", s(rs, "TYPE_NAME"), s(rs, "DATA_TYPE")) : null;
            call("getUDTs(sales, %)", () -> m.getUDTs(null, "sales", "%", null), udt);
            call("getUDTs(null, %, STRUCT/DISTINCT)", () -> m.getUDTs(null, null, "%", new int[] {Types.STRUCT, Types.DISTINCT}), udt);
            call("getSuperTables(sales, %)", () -> m.getSuperTables(null, "sales", "%"), null);
            call("getSuperTypes(sales, %)", () -> m.getSuperTypes(null, "sales", "%"), null);
            call("getAttributes(sales, %, %)", () -> m.getAttributes(null, "sales", "%", "%"), null);
            call("getFunctions(pg_catalog, lower)", () -> m.getFunctions(null, "pg_catalog", "lower"), rs -> s(rs, "FUNCTION_NAME"), true);
            call("getFunctions(sales, %)", () -> m.getFunctions(null, "sales", "%"), null);
            call("getFunctionColumns(pg_catalog, lower, %)", () -> m.getFunctionColumns(null, "pg_catalog", "lower", "%"), null);
            call("getProcedures(sales, %)", () -> m.getProcedures(null, "sales", "%"), null);
            call("getProcedureColumns(sales, %, %)", () -> m.getProcedureColumns(null, "sales", "%", "%"), null);
            call("getClientInfoProperties", m::getClientInfoProperties, rs -> s(rs, "NAME"));
        }
        System.out.print(out);
    }
}
