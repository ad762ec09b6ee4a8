// Java's own Iceberg JdbcCatalog on a floe catalog database (tests/engines/test_jdbc_catalog.sh).
//
//   java JdbcCatalogCheck JDBC_URL WAREHOUSE COMMAND [ARGS]
//     tables NS                 the tables JdbcCatalog lists in namespace NS, one per line
//     read NS.T                 every row (deletes applied), one JSON array per line
//     create NS.T               a table (id long, name string, amount decimal(10,2), day date,
//                               ts timestamptz), format v2
//     append NS.T FROM TO       one Parquet data file with rows id = FROM..TO, committed
//     add-column NS.T NAME      a new optional string column
//     append-note NS.T FROM TO  rows with the new column set to "j<id>"
//
// Values are printed in one canonical form that the Python side also produces from floe's
// answers: integers as numbers, strings as strings, decimals as "dec:<plain>", dates as
// "date:YYYY-MM-DD", timestamps with zone as "tstz:<epoch micros>", null as null.
import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

public class JdbcCatalogCheck {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "amount", Types.DecimalType.of(10, 2)),
          Types.NestedField.optional(4, "day", Types.DateType.get()),
          Types.NestedField.optional(5, "ts", Types.TimestampType.withZone()));

  public static void main(String[] args) throws IOException {
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, args[0]);
    props.put(CatalogProperties.WAREHOUSE_LOCATION, args[1]);
    props.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.hadoop.HadoopFileIO");
    if (System.getenv("JDBC_USER") != null) {
      props.put("jdbc.user", System.getenv("JDBC_USER"));
      props.put("jdbc.password", System.getenv("JDBC_PASSWORD"));
    }
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("floe", props);
    String cmd = args[2];
    switch (cmd) {
      case "tables":
        for (TableIdentifier t : catalog.listTables(Namespace.of(args[3].split("\\.")))) {
          System.out.println(t);
        }
        break;
      case "read":
        read(catalog.loadTable(TableIdentifier.parse(args[3])));
        break;
      case "create":
        catalog.createTable(
            TableIdentifier.parse(args[3]),
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of(TableProperties.FORMAT_VERSION, "2"));
        break;
      case "append":
      case "append-note":
        append(
            catalog.loadTable(TableIdentifier.parse(args[3])),
            Long.parseLong(args[4]),
            Long.parseLong(args[5]),
            cmd.equals("append-note"));
        break;
      case "add-column":
        catalog
            .loadTable(TableIdentifier.parse(args[3]))
            .updateSchema()
            .addColumn(args[4], Types.StringType.get())
            .commit();
        break;
      default:
        throw new IllegalArgumentException("unknown command " + cmd);
    }
    catalog.close();
  }

  static void append(Table table, long from, long to, boolean note) throws IOException {
    Schema schema = table.schema();
    String path = table.location() + "/data/java-" + UUID.randomUUID() + ".parquet";
    OutputFile out = table.io().newOutputFile(path);
    DataWriter<Record> writer =
        Parquet.writeData(out)
            .schema(schema)
            .createWriterFunc(GenericParquetWriter::create)
            .overwrite()
            .withSpec(PartitionSpec.unpartitioned())
            .build();
    try {
      for (long i = from; i <= to; i++) {
        GenericRecord r = GenericRecord.create(schema);
        r.setField("id", i);
        r.setField("name", "n" + i);
        r.setField("amount", new BigDecimal(i + ".25"));
        r.setField("day", LocalDate.of(2026, 1, 1).plusDays(i % 28));
        r.setField("ts", OffsetDateTime.of(2026, 1, 1, 12, (int) (i % 60), 0, 0, ZoneOffset.UTC));
        if (note) {
          r.setField("note", "j" + i);
        }
        writer.write(r);
      }
    } finally {
      writer.close();
    }
    DataFile file = writer.toDataFile();
    table.newAppend().appendFile(file).commit();
  }

  static void read(Table table) throws IOException {
    List<String> cols = new ArrayList<>();
    for (Types.NestedField f : table.schema().columns()) {
      cols.add(f.name());
    }
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record r : rows) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < cols.size(); i++) {
          if (i > 0) {
            sb.append(',');
          }
          sb.append(value(r.getField(cols.get(i))));
        }
        System.out.println(sb.append(']'));
      }
    }
  }

  static String value(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof Integer || v instanceof Long) {
      return v.toString();
    }
    if (v instanceof BigDecimal) {
      return quote("dec:" + ((BigDecimal) v).toPlainString());
    }
    if (v instanceof LocalDate) {
      return quote("date:" + v);
    }
    if (v instanceof OffsetDateTime) {
      OffsetDateTime t = (OffsetDateTime) v;
      return quote(
          "tstz:" + ChronoUnit.MICROS.between(OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC), t));
    }
    return quote(v.toString());
  }

  static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.append('"').toString();
  }
}
