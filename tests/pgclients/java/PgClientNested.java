// PgClientNested.java - issue 17: pgJDBC's getObject on every column of every
// demo table (tests/pgclients/nested/make-demo.sh), nested ones included, in
// text transfer and in binary transfer (prepareThreshold=-1 with
// binaryTransferEnable for the array types): structs, maps and lists
// of lists are json PGobjects whose value parses back to the same JSON; lists
// of texts are java.sql.Array of String with quoting and NULLs intact; lists of
// structs are json[] arrays. Args: host port db user password. Exits 1 on the
// first failure.
import java.sql.*;
import java.util.*;

public class PgClientNested {
    static int checks = 0;

    static void eq(String label, Object got, Object want) {
        if (!Objects.equals(got, want)) {
            System.out.println("FAIL " + label + ": got " + got + ", want " + want);
            System.exit(1);
        }
        checks++;
        System.out.println("ok " + label);
    }

    // getObject as text: arrays element by element, json objects as their type and value
    static String show(Object o) throws SQLException {
        if (o == null) return "null";
        if (o instanceof java.sql.Array) {
            Object[] a = (Object[]) ((java.sql.Array) o).getArray();
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < a.length; i++) b.append(i > 0 ? "|" : "").append(show(a[i]));
            return b.append("]").toString();
        }
        if (o instanceof org.postgresql.util.PGobject) {
            org.postgresql.util.PGobject p = (org.postgresql.util.PGobject) o;
            return p.getType() + ":" + p.getValue();
        }
        return o.getClass().getSimpleName() + ":" + o;
    }

    static List<String> row(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement st = c.prepareStatement(sql); ResultSet rs = st.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            rs.next();
            for (int i = 1; i <= md.getColumnCount(); i++) out.add(show(rs.getObject(i)));
        }
        return out;
    }

    static int count(Connection c, String sql) throws SQLException {
        int n = 0;
        try (PreparedStatement st = c.prepareStatement(sql); ResultSet rs = st.executeQuery()) {
            int cols = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= cols; i++) rs.getObject(i); // every column decodes
                n++;
            }
        }
        return n;
    }

    static void run(Connection c, String mode) throws SQLException {
        eq(mode + " customers", row(c, "SELECT name, address, tags, limits FROM demo.customers ORDER BY name"),
           List.of("String:alice", "json:{\"city\":\"Lima\",\"zip\":\"01234\"}", "[String:t1|String:vip]",
                   "json:{\"daily\":100,\"monthly\":1000}"));
        eq(mode + " nested", row(c, "SELECT m, ls, deep, tricky, ll FROM demo.nested ORDER BY id"),
           List.of("json:{\"a\":1,\"b\":null}",
                   "[String:{\"f1\":\"Lima\",\"f2\":\"01\"}|String:{\"f1\":\"Oslo\",\"f2\":null}]", // pgJDBC gives json[] elements as String, as from PostgreSQL
                   "json:{\"f1\":1,\"f2\":{\"f1\":\"x\",\"f2\":[1,2]}}",
                   "[String:a,b|String:q\"t|null|String:back\\slash|String:{}|String:|String:NULL]",
                   "json:[[1,2],[3]]"));
        eq(mode + " nested NULL row", row(c, "SELECT * FROM demo.nested WHERE id = 2"),
           List.of("Integer:2", "null", "null", "null", "null", "null"));
        eq(mode + " nested forms", row(c, "SELECT tags[1], address.city, limits.daily FROM demo.customers WHERE name = 'bob'"),
           List.of("String:t2", "String:Kyoto", "Long:200"));
        eq(mode + " every customers column", count(c, "SELECT * FROM demo.customers"), 10);
        eq(mode + " every nested column", count(c, "SELECT * FROM demo.nested"), 2);
        eq(mode + " every orders column", count(c, "SELECT * FROM demo.orders"), 200);
    }

    public static void main(String[] a) throws Exception {
        String url = "jdbc:postgresql://" + a[0] + ":" + a[1] + "/" + a[2];
        Properties p = new Properties();
        p.setProperty("user", a[3]);
        p.setProperty("password", a[4]);
        p.setProperty("sslmode", "disable");
        try (Connection c = DriverManager.getConnection(url, p)) {
            run(c, "text");
        }
        p.setProperty("prepareThreshold", "-1");
        // json stays text: pgJDBC decodes no binary json (from PostgreSQL neither)
        p.setProperty("binaryTransferEnable", "1009,1007,1016,25,23,20");
        try (Connection c = DriverManager.getConnection(url, p)) {
            run(c, "binary");
        }
        System.out.println("pgJDBC nested: " + checks + " passed, 0 failed");
    }
}
