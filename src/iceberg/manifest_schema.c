/*
 * manifest_schema.c - the Avro schemas of manifests and manifest lists, as
 * Java writes them (V1Metadata/V2Metadata/V3Metadata + AvroSchemaUtil), so
 * files we write have the same shape as Java's: record names manifest_entry,
 * r2 (data_file), r102 (partition), manifest_file, r508 (field_summary),
 * k<key>_v<value> for int-keyed maps written as arrays with logicalType map,
 * element-id on lists, every field-id, the same docs and the same field
 * order:
 *
 *   manifest_entry v1: 0 status, 1 snapshot_id, 2 data_file
 *                  v2/v3: 0, 1, 3 sequence_number, 4 file_sequence_number, 2
 *   data_file v1: 100 101 102 103 104 105 108 109 110 137 125 128 131 132 140
 *             v2: 134 100 101 102 103 104 108 109 110 137 125 128 131 132 135 140 143
 *             v3: 134 100 101 102 103 104 108 109 110 137 125 128 131 132 135 140 142 143 144 145
 *   manifest_file v1: 500 501 502 503 504 505 506 507 512 513 514 519 (counts optional)
 *                 v2: 500 501 502 517 515 516 503 504 505 506 512 513 514 507 519 (required)
 *                 v3: v2 + 520
 *
 * Partition fields are optional unions ["null", T] with T the Avro form of
 * the transform result type: date {"type":"int","logicalType":"date"},
 * time-micros, timestamp-micros / timestamp-nanos with adjust-to-utc,
 * uuid as fixed uuid_fixed[16], fixed[L] as fixed_L, decimal(P,S) as fixed
 * decimal_P_S of minBytes(P) bytes; a named type used twice is referenced by
 * name the second time. Field names that are not Avro names are sanitized as
 * Java does (_xHH, _<digit>) with the original kept in iceberg-field-name.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "floe/avro.h"
#include "iceberg/manifest_write_int.h"

typedef struct sb {
    fl_avro_buf b;
    bool oom;
} sb;

static void put(sb *s, const char *str)
{
    if (!s->oom && fl_avro_buf_append(&s->b, str, strlen(str), NULL) != FL_OK)
        s->oom = true;
}

static void putf(sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(sb *s, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    put(s, tmp);
}

/* JSON string literal. */
static void put_str(sb *s, const char *str)
{
    put(s, "\"");
    for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
        char tmp[8];
        if (*p == '"' || *p == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)*p;
            tmp[2] = 0;
        } else if (*p < 0x20) {
            snprintf(tmp, sizeof tmp, "\\u%04x", *p);
        } else {
            tmp[0] = (char)*p;
            tmp[1] = 0;
        }
        put(s, tmp);
    }
    put(s, "\"");
}

static bool is_alpha(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* Decodes one UTF-8 code point (invalid bytes as themselves). */
static uint32_t next_cp(const unsigned char **p)
{
    const unsigned char *s = *p;
    uint32_t c = s[0];
    int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (c < 0x80 || !n) {
        *p = s + 1;
        return c;
    }
    c &= 0x3F >> n;
    for (int i = 1; i <= n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *p = s + 1;
            return s[0];
        }
        c = c << 6 | (s[i] & 0x3F);
    }
    *p = s + n + 1;
    return c;
}

static void sanitize_cp(sb *s, uint32_t c)
{
    if (c < 0x80 && is_digit((int)c)) {
        putf(s, "_%c", (char)c);
    } else if (c > 0xFFFF) { /* Java works on UTF-16 chars: two surrogates */
        c -= 0x10000;
        putf(s, "_x%X_x%X", (unsigned)(0xD800 + (c >> 10)), (unsigned)(0xDC00 + (c & 0x3FF)));
    } else {
        putf(s, "_x%X", (unsigned)c);
    }
}

bool ice_avro_name_valid(const char *name)
{
    if (!name[0] || !(is_alpha((unsigned char)name[0]) || name[0] == '_'))
        return false;
    for (const char *p = name + 1; *p; p++)
        if (!(is_alpha((unsigned char)*p) || is_digit((unsigned char)*p) || *p == '_'))
            return false;
    return true;
}

/* Java's AvroSchemaUtil.sanitize (ASCII letters only are kept as letters). */
static void put_sanitized(sb *s, const char *name)
{
    put(s, "\"");
    const unsigned char *p = (const unsigned char *)name;
    bool first = true;
    while (*p) {
        uint32_t c = next_cp(&p);
        bool ok = c < 0x80 && (is_alpha((int)c) || c == '_' || (!first && is_digit((int)c)));
        if (ok) {
            char t[2] = {(char)c, 0};
            put(s, t);
        } else {
            sanitize_cp(s, c);
        }
        first = false;
    }
    put(s, "\"");
}

static int decimal_min_bytes(int precision)
{
    int n = 1;
    /* smallest n with 2^(8n-1) > 10^precision - 1 */
    while (n < 16) {
        double maxv = 1.0;
        for (int i = 0; i < 8 * n - 1; i++)
            maxv *= 2.0;
        double need = 1.0;
        for (int i = 0; i < precision; i++)
            need *= 10.0;
        if (maxv >= need)
            break;
        n++;
    }
    return n;
}

int ice_decimal_size(int precision)
{
    return decimal_min_bytes(precision);
}

typedef struct named {
    char names[64][40];
    int n;
} named;

/* Writes a named type's definition, or its name when already defined. */
static bool defined(named *nm, const char *name)
{
    for (int i = 0; i < nm->n; i++)
        if (!strcmp(nm->names[i], name))
            return true;
    if (nm->n < 64)
        snprintf(nm->names[nm->n++], sizeof nm->names[0], "%s", name);
    return false;
}

static fl_status put_avro_type(sb *s, const fl_type *t, named *nm, fl_error *err)
{
    char name[40];
    switch (t->id) {
    case FL_TYPE_BOOLEAN: put(s, "\"boolean\""); break;
    case FL_TYPE_INT32: put(s, "\"int\""); break;
    case FL_TYPE_INT64: put(s, "\"long\""); break;
    case FL_TYPE_FLOAT32: put(s, "\"float\""); break;
    case FL_TYPE_FLOAT64: put(s, "\"double\""); break;
    case FL_TYPE_DATE: put(s, "{\"type\":\"int\",\"logicalType\":\"date\"}"); break;
    case FL_TYPE_TIME: put(s, "{\"type\":\"long\",\"logicalType\":\"time-micros\"}"); break;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
        putf(s, "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":%s}",
             t->id == FL_TYPE_TIMESTAMPTZ ? "true" : "false");
        break;
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        putf(s, "{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\",\"adjust-to-utc\":%s}",
             t->id == FL_TYPE_TIMESTAMPTZ_NS ? "true" : "false");
        break;
    case FL_TYPE_STRING: put(s, "\"string\""); break;
    case FL_TYPE_BINARY: put(s, "\"bytes\""); break;
    case FL_TYPE_UUID:
        if (defined(nm, "uuid_fixed"))
            put(s, "\"uuid_fixed\"");
        else
            put(s, "{\"type\":\"fixed\",\"name\":\"uuid_fixed\",\"size\":16,\"logicalType\":"
                   "\"uuid\"}");
        break;
    case FL_TYPE_FIXED:
        snprintf(name, sizeof name, "fixed_%d", (int)t->fixed_len);
        if (defined(nm, name))
            putf(s, "\"%s\"", name);
        else
            putf(s, "{\"type\":\"fixed\",\"name\":\"%s\",\"size\":%d}", name, (int)t->fixed_len);
        break;
    case FL_TYPE_DECIMAL:
        snprintf(name, sizeof name, "decimal_%d_%d", (int)t->precision, (int)t->scale);
        if (defined(nm, name))
            putf(s, "\"%s\"", name);
        else
            putf(s,
                 "{\"type\":\"fixed\",\"name\":\"%s\",\"size\":%d,\"logicalType\":\"decimal\","
                 "\"precision\":%d,\"scale\":%d}",
                 name, decimal_min_bytes(t->precision), (int)t->precision, (int)t->scale);
        break;
    default: {
        char tn[64];
        fl_type_format(t, tn, sizeof tn);
        return fl_errorf(err, FL_EUNSUPPORTED, "partition values of type %s", tn);
    }
    }
    return FL_OK;
}

static fl_status put_partition(sb *s, const ice_part_layout *pl, fl_error *err)
{
    named nm = {.n = 0};
    put(s, "{\"type\":\"record\",\"name\":\"r102\",\"fields\":[");
    for (uint32_t i = 0; i < pl->n; i++) {
        const char *name = pl->names[i];
        bool valid = ice_avro_name_valid(name);
        put(s, i ? ",{\"name\":" : "{\"name\":");
        if (valid)
            put_str(s, name);
        else
            put_sanitized(s, name);
        put(s, ",\"type\":[\"null\",");
        FL_TRY(put_avro_type(s, &pl->types[i], &nm, err));
        putf(s, "],\"default\":null,\"field-id\":%d", (int)pl->ids[i]);
        if (!valid) {
            put(s, ",\"iceberg-field-name\":");
            put_str(s, name);
        }
        put(s, "}");
    }
    put(s, "]}");
    return FL_OK;
}

static void put_map(sb *s, const char *name, int id, int kid, const char *vtype, const char *doc)
{
    putf(s,
         ",{\"name\":\"%s\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\","
         "\"name\":\"k%d_v%d\",\"fields\":[{\"name\":\"key\",\"type\":\"int\",\"field-id\":%d},"
         "{\"name\":\"value\",\"type\":\"%s\",\"field-id\":%d}]},\"logicalType\":\"map\"}],",
         name, kid, kid + 1, kid, vtype, kid + 1);
    putf(s, "\"doc\":\"%s\",\"default\":null,\"field-id\":%d}", doc, id);
}

static void put_opt(sb *s, const char *name, const char *type, const char *doc, int id)
{
    putf(
        s,
        ",{\"name\":\"%s\",\"type\":[\"null\",%s],\"doc\":\"%s\",\"default\":null,\"field-id\":%d}",
        name, type, doc, id);
}

static void put_req(sb *s, const char *name, const char *type, const char *doc, int id, bool first)
{
    putf(s, "%s{\"name\":\"%s\",\"type\":%s,", first ? "" : ",", name, type);
    if (doc)
        putf(s, "\"doc\":\"%s\",", doc);
    putf(s, "\"field-id\":%d}", id);
}

/* v1 lists: optional counts (unions with a default); v2+: required. */
static void put_count(sb *s, bool v1, const char *name, const char *type, const char *doc, int id)
{
    if (v1)
        put_opt(s, name, type, doc, id);
    else
        put_req(s, name, type, doc, id, false);
}

char *ice_manifest_entry_schema(int fv, const ice_part_layout *pl, fl_error *err)
{
    sb s = {.oom = false};
    put(&s, "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":[");
    put_req(&s, "status", "\"int\"", NULL, 0, true);
    put(&s,
        ",{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":1}");
    if (fv >= 2) {
        put(&s, ",{\"name\":\"sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,"
                "\"field-id\":3}");
        put(&s, ",{\"name\":\"file_sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,"
                "\"field-id\":4}");
    }
    put(&s, ",{\"name\":\"data_file\",\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":[");
    bool first = true;
    if (fv >= 2) {
        put_req(&s, "content", "\"int\"",
                "Contents of the file: 0=data, 1=position deletes, 2=equality deletes", 134, true);
        first = false;
    }
    put_req(&s, "file_path", "\"string\"", "Location URI with FS scheme", 100, first);
    put_req(&s, "file_format", "\"string\"", "File format name: avro, orc, or parquet", 101, false);
    put(&s, ",{\"name\":\"partition\",\"type\":");
    fl_status rc = put_partition(&s, pl, err);
    if (rc) {
        fl_avro_buf_free(&s.b);
        return NULL;
    }
    if (fv >= 2)
        put(&s, ",\"doc\":\"Partition data tuple, schema based on the partition spec\"");
    put(&s, ",\"field-id\":102}");
    put_req(&s, "record_count", "\"long\"", "Number of records in the file", 103, false);
    put_req(&s, "file_size_in_bytes", "\"long\"", "Total file size in bytes", 104, false);
    if (fv == 1)
        put_req(&s, "block_size_in_bytes", "\"long\"", NULL, 105, false);
    put_map(&s, "column_sizes", 108, 117, "long", "Map of column id to total size on disk");
    put_map(&s, "value_counts", 109, 119, "long",
            "Map of column id to total count, including null and NaN");
    put_map(&s, "null_value_counts", 110, 121, "long", "Map of column id to null value count");
    put_map(&s, "nan_value_counts", 137, 138, "long",
            "Map of column id to number of NaN values in the column");
    put_map(&s, "lower_bounds", 125, 126, "bytes", "Map of column id to lower bound");
    put_map(&s, "upper_bounds", 128, 129, "bytes", "Map of column id to upper bound");
    put_opt(&s, "key_metadata", "\"bytes\"", "Encryption key metadata blob", 131);
    put_opt(&s, "split_offsets", "{\"type\":\"array\",\"items\":\"long\",\"element-id\":133}",
            "Splittable offsets", 132);
    if (fv >= 2)
        put_opt(&s, "equality_ids", "{\"type\":\"array\",\"items\":\"int\",\"element-id\":136}",
                "Equality comparison field IDs", 135);
    put_opt(&s, "sort_order_id", "\"int\"", "Sort order ID", 140);
    if (fv >= 3)
        put_opt(&s, "first_row_id", "\"long\"",
                "The first row ID assigned to the first row in the data file", 142);
    if (fv >= 2)
        put_opt(&s, "referenced_data_file", "\"string\"",
                "Fully qualified location (URI with FS scheme) of a data file that all deletes "
                "reference",
                143);
    if (fv >= 3) {
        put_opt(&s, "content_offset", "\"long\"", "The offset in the file where the content starts",
                144);
        put_opt(&s, "content_size_in_bytes", "\"long\"",
                "The length of referenced content stored in the file", 145);
    }
    put(&s, "]},\"field-id\":2}]}");
    if (s.oom || fl_avro_buf_append(&s.b, "", 1, NULL) != FL_OK) {
        fl_avro_buf_free(&s.b);
        fl_errorf(err, FL_ENOMEM, "out of memory");
        return NULL;
    }
    return (char *)s.b.data; /* malloc'd */
}

char *ice_manifest_list_schema(int fv, fl_error *err)
{
    sb s = {.oom = false};
    bool v1 = fv == 1;
    put(&s, "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":[");
    put_req(&s, "manifest_path", "\"string\"", "Location URI with FS scheme", 500, true);
    put_req(&s, "manifest_length", "\"long\"", "Total file size in bytes", 501, false);
    put_req(&s, "partition_spec_id", "\"int\"", "Spec ID used to write", 502, false);
    if (!v1) {
        put_req(&s, "content", "\"int\"", "Contents of the manifest: 0=data, 1=deletes", 517,
                false);
        put_req(&s, "sequence_number", "\"long\"", "Sequence number when the manifest was added",
                515, false);
        put_req(&s, "min_sequence_number", "\"long\"", "Lowest sequence number in the manifest",
                516, false);
    }
    put_req(&s, "added_snapshot_id", "\"long\"", "Snapshot ID that added the manifest", 503, false);
    const char *partitions =
        ",{\"name\":\"partitions\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":"
        "\"record\","
        "\"name\":\"r508\",\"fields\":[{\"name\":\"contains_null\",\"type\":\"boolean\",\"doc\":"
        "\"True if "
        "any file has a null partition "
        "value\",\"field-id\":509},{\"name\":\"contains_nan\",\"type\":["
        "\"null\",\"boolean\"],\"doc\":\"True if any file has a nan partition "
        "value\",\"default\":null,"
        "\"field-id\":518},{\"name\":\"lower_bound\",\"type\":[\"null\",\"bytes\"],\"doc\":"
        "\"Partition "
        "lower bound for all "
        "files\",\"default\":null,\"field-id\":510},{\"name\":\"upper_bound\",\"type\""
        ":[\"null\",\"bytes\"],\"doc\":\"Partition upper bound for all "
        "files\",\"default\":null,\"field-id"
        "\":511}]},\"element-id\":508}],\"doc\":\"Summary for each partition\",\"default\":null,"
        "\"field-id\":507}";
    put_count(&s, v1, "added_files_count", "\"int\"", "Added entry count", 504);
    put_count(&s, v1, "existing_files_count", "\"int\"", "Existing entry count", 505);
    put_count(&s, v1, "deleted_files_count", "\"int\"", "Deleted entry count", 506);
    if (v1)
        put(&s, partitions);
    put_count(&s, v1, "added_rows_count", "\"long\"", "Added rows count", 512);
    put_count(&s, v1, "existing_rows_count", "\"long\"", "Existing rows count", 513);
    put_count(&s, v1, "deleted_rows_count", "\"long\"", "Deleted rows count", 514);
    if (!v1)
        put(&s, partitions);
    put_opt(&s, "key_metadata", "\"bytes\"", "Encryption key metadata blob", 519);
    if (fv >= 3)
        put_opt(&s, "first_row_id", "\"long\"",
                "Starting row ID to assign to new rows in ADDED data files", 520);
    put(&s, "]}");
    if (s.oom || fl_avro_buf_append(&s.b, "", 1, NULL) != FL_OK) {
        fl_avro_buf_free(&s.b);
        fl_errorf(err, FL_ENOMEM, "out of memory");
        return NULL;
    }
    return (char *)s.b.data;
}
