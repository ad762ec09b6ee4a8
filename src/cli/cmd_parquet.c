/*
 * cmd_parquet.c - `floe parquet schema|meta|cat FILE`: look inside a Parquet
 * file with floe's own reader.
 *
 *   schema  the Parquet schema tree as stored (physical, logical and legacy
 *           converted types, repetition, field_id), then the floe schema the
 *           reader maps it to
 *   meta    footer facts: writer, rows, row groups, and per column chunk the
 *           path, codec, encodings, sizes, offsets, statistics (min/max
 *           decoded to readable values, null/distinct counts), page index and
 *           bloom filter presence, plus key-value metadata
 *   cat     rows as a table, CSV or JSON lines, with projection (--columns),
 *           filters (--where "col op literal", repeatable; they also prune row
 *           groups and pages through the reader), --limit and --verify-crc
 *
 * Errors print "floe parquet: <message>" and exit 1; usage errors exit 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/file_tool.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "cli/textparse.h"
#include "cli/where.h"
#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/parquet_meta.h"

static int fail(const fl_error *err)
{
    fprintf(stderr, "floe parquet: %s\n", err->msg);
    return 1;
}

/* An open file: FileIO + reader. */
typedef struct pq_handle {
    fl_fileio *io;
    fl_file *file;
    fl_parquet_reader *reader;
} pq_handle;

static fl_status open_file(const char *path, bool verify_crc, pq_handle *h, fl_error *err)
{
    memset(h, 0, sizeof *h);
    h->io = cli_fileio();
    if (!h->io)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(fl_fileio_open(h->io, path, &h->file, err));
    fl_parquet_read_options ro = {.verify_crc = verify_crc};
    fl_status rc = fl_parquet_open(h->file, &ro, &h->reader, err);
    if (rc != FL_OK && !strstr(err->msg, path))
        fl_error_prefix(err, "%s", path);
    return rc;
}

static void close_file(pq_handle *h)
{
    fl_parquet_close(h->reader);
    fl_file_close(h->file);
    fl_fileio_destroy(h->io);
}

/* ---- names of Parquet enums ---- */

static const char *physical_name(fl_pq_type t)
{
    static const char *const n[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                    "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return (unsigned)t < 8 ? n[t] : "?";
}

static const char *converted_name(fl_pq_converted c)
{
    static const char *const n[] = {"UTF8",
                                    "MAP",
                                    "MAP_KEY_VALUE",
                                    "LIST",
                                    "ENUM",
                                    "DECIMAL",
                                    "DATE",
                                    "TIME_MILLIS",
                                    "TIME_MICROS",
                                    "TIMESTAMP_MILLIS",
                                    "TIMESTAMP_MICROS",
                                    "UINT_8",
                                    "UINT_16",
                                    "UINT_32",
                                    "UINT_64",
                                    "INT_8",
                                    "INT_16",
                                    "INT_32",
                                    "INT_64",
                                    "JSON",
                                    "BSON",
                                    "INTERVAL"};
    return (unsigned)c < sizeof n / sizeof n[0] ? n[c] : "?";
}

static const char *repetition_name(fl_pq_repetition r)
{
    return r == FL_PQ_REQUIRED   ? "required"
           : r == FL_PQ_OPTIONAL ? "optional"
           : r == FL_PQ_REPEATED ? "repeated"
                                 : "";
}

static const char *codec_name(fl_pq_codec c)
{
    static const char *const n[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                    "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
    return (unsigned)c < 8 ? n[c] : "?";
}

static const char *encoding_name(fl_pq_encoding e)
{
    switch (e) {
    case FL_PQ_ENC_PLAIN: return "PLAIN";
    case FL_PQ_ENC_PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case FL_PQ_ENC_RLE: return "RLE";
    case FL_PQ_ENC_BIT_PACKED: return "BIT_PACKED";
    case FL_PQ_ENC_DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case FL_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case FL_PQ_ENC_DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case FL_PQ_ENC_RLE_DICTIONARY: return "RLE_DICTIONARY";
    case FL_PQ_ENC_BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
    }
    return "?";
}

static const char *unit_name(fl_pq_time_unit u)
{
    return u == FL_PQ_MILLIS ? "MILLIS" : u == FL_PQ_MICROS ? "MICROS" : "NANOS";
}

static void logical_text(const fl_pq_logical *l, char *buf, size_t cap)
{
    switch (l->kind) {
    case FL_PQ_LT_NONE: buf[0] = '\0'; return;
    case FL_PQ_LT_STRING: snprintf(buf, cap, "STRING"); return;
    case FL_PQ_LT_MAP: snprintf(buf, cap, "MAP"); return;
    case FL_PQ_LT_LIST: snprintf(buf, cap, "LIST"); return;
    case FL_PQ_LT_ENUM: snprintf(buf, cap, "ENUM"); return;
    case FL_PQ_LT_DECIMAL:
        snprintf(buf, cap, "DECIMAL(%d,%d)", l->decimal_precision, l->decimal_scale);
        return;
    case FL_PQ_LT_DATE: snprintf(buf, cap, "DATE"); return;
    case FL_PQ_LT_TIME:
        snprintf(buf, cap, "TIME(%s,%s)", unit_name(l->unit),
                 l->is_adjusted_to_utc ? "true" : "false");
        return;
    case FL_PQ_LT_TIMESTAMP:
        snprintf(buf, cap, "TIMESTAMP(%s,%s)", unit_name(l->unit),
                 l->is_adjusted_to_utc ? "true" : "false");
        return;
    case FL_PQ_LT_INTEGER:
        snprintf(buf, cap, "INTEGER(%d,%s)", l->int_bit_width, l->int_is_signed ? "true" : "false");
        return;
    case FL_PQ_LT_UNKNOWN: snprintf(buf, cap, "UNKNOWN"); return;
    case FL_PQ_LT_JSON: snprintf(buf, cap, "JSON"); return;
    case FL_PQ_LT_BSON: snprintf(buf, cap, "BSON"); return;
    case FL_PQ_LT_UUID: snprintf(buf, cap, "UUID"); return;
    case FL_PQ_LT_FLOAT16: snprintf(buf, cap, "FLOAT16"); return;
    case FL_PQ_LT_VARIANT: snprintf(buf, cap, "VARIANT"); return;
    case FL_PQ_LT_GEOMETRY:
        snprintf(buf, cap, "GEOMETRY(crs=%s)", l->crs ? l->crs : "");
        return;
    case FL_PQ_LT_GEOGRAPHY:
        snprintf(buf, cap, "GEOGRAPHY(crs=%s, algorithm=%s)", l->crs ? l->crs : "",
                 fl_geo_edges_name(l->algorithm));
        return;
    }
    snprintf(buf, cap, "LOGICAL(%d)", (int)l->kind);
}

/* "geospatial: types 1,3001 bbox x [10, 40] y [10, 40] z [30, 80]" */
static void print_geo_stats(const fl_pq_geo_stats *g)
{
    printf("      geospatial:");
    if (g->types_set) {
        printf(" types ");
        for (uint32_t i = 0; i < g->ntypes; i++)
            printf("%s%d", i ? "," : "", g->types[i]);
    }
    if (g->bbox_set) {
        printf(" bbox x [%.17g, %.17g] y [%.17g, %.17g]", g->xmin, g->xmax, g->ymin, g->ymax);
        if (g->z_set)
            printf(" z [%.17g, %.17g]", g->zmin, g->zmax);
        if (g->m_set)
            printf(" m [%.17g, %.17g]", g->mmin, g->mmax);
    }
    printf("\n");
}

/* ---- schema ---- */

/* Prints schema element *i and its subtree; advances *i. */
static void print_element(const fl_pq_file_meta *m, uint32_t *i, int depth)
{
    if (*i >= m->nschema || depth > 100)
        return;
    const fl_pq_schema_element *e = &m->schema[(*i)++];
    char lt[96];
    logical_text(&e->logical, lt, sizeof lt);
    printf("%*s", depth * 2, "");
    if (depth == 0)
        printf("message %s", e->name ? e->name : "schema");
    else if (e->num_children > 0 || !e->type_set)
        printf("%s group %s", repetition_name(e->repetition), e->name ? e->name : "");
    else if (e->type == FL_PQ_FIXED_LEN_BYTE_ARRAY)
        printf("%s fixed_len_byte_array(%d) %s", repetition_name(e->repetition), e->type_length,
               e->name ? e->name : "");
    else {
        char pn[32];
        snprintf(pn, sizeof pn, "%s", physical_name(e->type));
        for (char *c = pn; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
        printf("%s %s %s", repetition_name(e->repetition), pn, e->name ? e->name : "");
    }
    if (lt[0] || e->converted_type != FL_PQ_CT_NONE) {
        printf(" (");
        if (lt[0])
            printf("%s", lt);
        if (e->converted_type != FL_PQ_CT_NONE) {
            printf("%sconverted %s", lt[0] ? "; " : "", converted_name(e->converted_type));
            if (e->converted_type == FL_PQ_CT_DECIMAL)
                printf("(%d,%d)", e->precision, e->scale);
        }
        printf(")");
    }
    if (e->field_id_set)
        printf(" = %d", e->field_id);
    if (depth > 0 && e->num_children <= 0 && e->type_set) {
        printf(";\n");
        return;
    }
    printf(" {\n");
    for (int32_t c = 0; c < e->num_children && *i < m->nschema; c++)
        print_element(m, i, depth + 1);
    printf("%*s}\n", depth * 2, "");
}

static int cmd_schema(const char *path)
{
    pq_handle h;
    fl_error err;
    fl_error_clear(&err);
    if (open_file(path, false, &h, &err) != FL_OK) {
        close_file(&h);
        return fail(&err);
    }
    const fl_pq_file_meta *m = fl_parquet_footer(h.reader);
    uint32_t i = 0;
    printf("Parquet schema:\n");
    print_element(m, &i, 0);
    const fl_schema *s = fl_parquet_schema(h.reader);
    printf("\nfloe schema:\n");
    for (uint32_t c = 0; c < s->nfields; c++)
        cli_print_floe_field(&s->fields[c], 0);
    close_file(&h);
    return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- meta ---- */

/* The floe type a leaf's statistics decode to (units as the leaf stores them
 * are converted by fl_pq_stat_to_value). */
static void leaf_type(const fl_pq_schema_element *e, fl_type *t)
{
    memset(t, 0, sizeof *t);
    const fl_pq_logical *l = &e->logical;
    fl_pq_converted ct = e->converted_type;
    bool dec = l->kind == FL_PQ_LT_DECIMAL || ct == FL_PQ_CT_DECIMAL;
    if (dec) {
        t->id = FL_TYPE_DECIMAL;
        t->precision = l->kind == FL_PQ_LT_DECIMAL ? l->decimal_precision : e->precision;
        t->scale = l->kind == FL_PQ_LT_DECIMAL ? l->decimal_scale : e->scale;
        if (e->type == FL_PQ_INT32 || e->type == FL_PQ_INT64 || e->type == FL_PQ_BYTE_ARRAY ||
            e->type == FL_PQ_FIXED_LEN_BYTE_ARRAY)
            return;
    }
    switch (e->type) {
    case FL_PQ_BOOLEAN: t->id = FL_TYPE_BOOLEAN; return;
    case FL_PQ_INT32:
        if (l->kind == FL_PQ_LT_DATE || ct == FL_PQ_CT_DATE)
            t->id = FL_TYPE_DATE;
        else if (l->kind == FL_PQ_LT_TIME || ct == FL_PQ_CT_TIME_MILLIS)
            t->id = FL_TYPE_TIME;
        else if ((l->kind == FL_PQ_LT_INTEGER && !l->int_is_signed && l->int_bit_width == 32) ||
                 ct == FL_PQ_CT_UINT_32)
            t->id = FL_TYPE_INT64;
        else
            t->id = FL_TYPE_INT32;
        return;
    case FL_PQ_INT64:
        if (l->kind == FL_PQ_LT_TIMESTAMP) {
            bool ns = l->unit == FL_PQ_NANOS;
            t->id = l->is_adjusted_to_utc ? (ns ? FL_TYPE_TIMESTAMPTZ_NS : FL_TYPE_TIMESTAMPTZ)
                                          : (ns ? FL_TYPE_TIMESTAMP_NS : FL_TYPE_TIMESTAMP);
        } else if (ct == FL_PQ_CT_TIMESTAMP_MICROS || ct == FL_PQ_CT_TIMESTAMP_MILLIS) {
            t->id = FL_TYPE_TIMESTAMPTZ;
        } else if (l->kind == FL_PQ_LT_TIME || ct == FL_PQ_CT_TIME_MICROS) {
            t->id = FL_TYPE_TIME;
        } else {
            t->id = FL_TYPE_INT64;
        }
        return;
    case FL_PQ_INT96: t->id = FL_TYPE_TIMESTAMP_NS; return;
    case FL_PQ_FLOAT: t->id = FL_TYPE_FLOAT32; return;
    case FL_PQ_DOUBLE: t->id = FL_TYPE_FLOAT64; return;
    case FL_PQ_BYTE_ARRAY:
        t->id =
            (l->kind == FL_PQ_LT_STRING || l->kind == FL_PQ_LT_ENUM || l->kind == FL_PQ_LT_JSON ||
             ct == FL_PQ_CT_UTF8 || ct == FL_PQ_CT_ENUM || ct == FL_PQ_CT_JSON)
                ? FL_TYPE_STRING
                : FL_TYPE_BINARY;
        return;
    case FL_PQ_FIXED_LEN_BYTE_ARRAY:
        if (l->kind == FL_PQ_LT_UUID && e->type_length == 16) {
            t->id = FL_TYPE_UUID;
            t->fixed_len = 16;
        } else if (l->kind == FL_PQ_LT_FLOAT16) {
            t->id = FL_TYPE_FLOAT32;
        } else {
            t->id = FL_TYPE_FIXED;
            t->fixed_len = e->type_length;
        }
        return;
    }
    t->id = FL_TYPE_BINARY;
}

/* Collects the leaf schema elements in column order. Returns the count. */
static uint32_t collect_leaves(const fl_pq_file_meta *m, const fl_pq_schema_element **leaves,
                               uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 1; i < m->nschema; i++)
        if (m->schema[i].num_children <= 0 && m->schema[i].type_set && n < cap)
            leaves[n++] = &m->schema[i];
    return n;
}

static void print_bytes_raw(const char *label, fl_pq_bytes b)
{
    printf("%s \\x", label);
    for (uint32_t i = 0; i < b.len && i < 64; i++)
        printf("%02x", b.ptr[i]);
    if (b.len > 64)
        printf("... (%u bytes)", b.len);
}

static void print_stats(const fl_pq_schema_element *leaf, fl_pq_column_order order,
                        const fl_pq_column_meta *cm)
{
    const fl_pq_statistics *st = &cm->statistics;
    fl_type t;
    leaf_type(leaf, &t);
    fl_pq_leaf_info info = {
        .physical = leaf->type,
        .type_length = leaf->type_length,
        .logical = &leaf->logical,
        .converted = leaf->converted_type,
        .scale = leaf->scale,
        .precision = leaf->precision,
        .order = order,
        .type = &t,
    };
    printf("      statistics:");
    fl_value mn, mx;
    fl_buf sb = {0};
    fl_error err;
    if (fl_pq_stats_bounds(&info, st, &mn, &mx)) {
        fl_buf_puts(&sb, "", &err);
        if (fl_format_scalar(&sb, &mn, &err) == FL_OK)
            printf(" min %s,", sb.data);
        fl_buf_reset(&sb);
        if (fl_format_scalar(&sb, &mx, &err) == FL_OK)
            printf(" max %s,", sb.data);
    } else {
        fl_pq_bytes lo = st->min_value.ptr ? st->min_value : st->min;
        fl_pq_bytes hi = st->max_value.ptr ? st->max_value : st->max;
        if (lo.ptr) {
            print_bytes_raw(" min (raw, not usable)", lo);
            printf(",");
        }
        if (hi.ptr) {
            print_bytes_raw(" max (raw, not usable)", hi);
            printf(",");
        }
        if (!lo.ptr && !hi.ptr)
            printf(" no min/max,");
    }
    fl_buf_free(&sb);
    if (st->null_count_set)
        printf(" nulls %" PRId64, st->null_count);
    else
        printf(" nulls ?");
    if (st->distinct_count_set)
        printf(", distinct %" PRId64, st->distinct_count);
    if (st->nan_count_set)
        printf(", nans %" PRId64, st->nan_count);
    if (st->is_min_value_exact_set || st->is_max_value_exact_set)
        printf(", exact min %s max %s", st->is_min_value_exact ? "yes" : "no",
               st->is_max_value_exact ? "yes" : "no");
    printf("\n");
}

static void print_kv(const fl_pq_kv *kv, uint32_t n, const char *indent)
{
    for (uint32_t i = 0; i < n; i++) {
        printf("%s%s = ", indent, kv[i].key ? kv[i].key : "");
        if (!kv[i].value) {
            printf("(no value)\n");
            continue;
        }
        uint32_t len = kv[i].value_len;
        uint32_t show = len > 200 ? 200 : len;
        for (uint32_t k = 0; k < show; k++) {
            unsigned char c = (unsigned char)kv[i].value[k];
            putchar(c < 0x20 ? ' ' : c);
        }
        if (len > show)
            printf("... (%u bytes)", len);
        printf("\n");
    }
}

static int cmd_meta(const char *path)
{
    pq_handle h;
    fl_error err;
    fl_error_clear(&err);
    if (open_file(path, false, &h, &err) != FL_OK) {
        close_file(&h);
        return fail(&err);
    }
    const fl_pq_file_meta *m = fl_parquet_footer(h.reader);
    printf("file: %s\n", path);
    printf("size: %" PRIu64 " bytes\n", h.file->size);
    printf("created_by: %s\n", m->created_by ? m->created_by : "(not set)");
    printf("format version: %d\n", m->version);
    printf("rows: %" PRId64 "\n", m->num_rows);
    printf("row groups: %u\n", m->nrow_groups);
    printf("leaf columns: %u\n", m->nrow_groups ? m->row_groups[0].ncolumns : 0);
    if (m->nkv) {
        printf("key-value metadata:\n");
        print_kv(m->key_value_metadata, m->nkv, "  ");
    }
    const fl_pq_schema_element **leaves = calloc(m->nschema ? m->nschema : 1, sizeof *leaves);
    if (!leaves) {
        close_file(&h);
        fl_errorf(&err, FL_ENOMEM, "out of memory");
        return fail(&err);
    }
    uint32_t nleaves = collect_leaves(m, leaves, m->nschema);
    for (uint32_t g = 0; g < m->nrow_groups; g++) {
        const fl_pq_row_group *rg = &m->row_groups[g];
        printf("row group %u: %" PRId64 " rows, %" PRId64 " bytes uncompressed", g, rg->num_rows,
               rg->total_byte_size);
        if (rg->total_compressed_size >= 0)
            printf(", %" PRId64 " compressed", rg->total_compressed_size);
        if (rg->file_offset >= 0)
            printf(", offset %" PRId64, rg->file_offset);
        printf("\n");
        for (uint32_t s = 0; s < rg->nsorting_columns; s++)
            printf("  sorted by column %d %s nulls %s\n", rg->sorting_columns[s].column_idx,
                   rg->sorting_columns[s].descending ? "desc" : "asc",
                   rg->sorting_columns[s].nulls_first ? "first" : "last");
        for (uint32_t c = 0; c < rg->ncolumns; c++) {
            const fl_pq_column_chunk *cc = &rg->columns[c];
            if (!cc->meta_data_set) {
                printf("  column %u: %s\n", c,
                       cc->encrypted ? "encrypted (metadata not readable)" : "no metadata");
                continue;
            }
            const fl_pq_column_meta *cm = &cc->meta_data;
            printf("  column ");
            for (uint32_t p = 0; p < cm->npath; p++)
                printf("%s%s", p ? "." : "", cm->path_in_schema[p]);
            printf(" (%s", physical_name(cm->type));
            if (c < nleaves) {
                char lt[96];
                logical_text(&leaves[c]->logical, lt, sizeof lt);
                if (lt[0])
                    printf(" %s", lt);
                else if (leaves[c]->converted_type != FL_PQ_CT_NONE)
                    printf(" %s", converted_name(leaves[c]->converted_type));
                if (leaves[c]->field_id_set)
                    printf(", field_id %d", leaves[c]->field_id);
            }
            printf(")\n");
            printf("      codec %s, encodings ", codec_name(cm->codec));
            for (uint32_t e = 0; e < cm->nencodings; e++)
                printf("%s%s", e ? "," : "", encoding_name(cm->encodings[e]));
            printf(", values %" PRId64 ", %" PRId64 " bytes compressed, %" PRId64 " uncompressed\n",
                   cm->num_values, cm->total_compressed_size, cm->total_uncompressed_size);
            printf("      data page @%" PRId64, cm->data_page_offset);
            if (cm->dictionary_page_offset >= 0)
                printf(", dictionary page @%" PRId64, cm->dictionary_page_offset);
            if (cc->column_index_offset >= 0)
                printf(", column index @%" PRId64 " (%d bytes)", cc->column_index_offset,
                       cc->column_index_length);
            else
                printf(", no column index");
            if (cc->offset_index_offset >= 0)
                printf(", offset index @%" PRId64 " (%d bytes)", cc->offset_index_offset,
                       cc->offset_index_length);
            else
                printf(", no offset index");
            if (cm->bloom_filter_offset >= 0) {
                printf(", bloom filter @%" PRId64, cm->bloom_filter_offset);
                if (cm->bloom_filter_length >= 0)
                    printf(" (%d bytes)", cm->bloom_filter_length);
            } else {
                printf(", no bloom filter");
            }
            printf("\n");
            if (cm->statistics_set && c < nleaves) {
                fl_pq_column_order order =
                    c < m->ncolumn_orders ? m->column_orders[c] : FL_PQ_ORDER_UNKNOWN;
                print_stats(leaves[c], order, cm);
            } else {
                printf("      statistics: none\n");
            }
            if (cm->geo_stats_set)
                print_geo_stats(&cm->geo_stats);
            if (cm->nkv) {
                printf("      key-value metadata:\n");
                print_kv(cm->key_value_metadata, cm->nkv, "        ");
            }
        }
    }
    free(leaves);
    close_file(&h);
    return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- cat ---- */

typedef struct cat_args {
    const char *path;
    const char **columns; /* requested, NULL = all */
    uint32_t ncolumns;
    const char *const *wheres;
    uint32_t nwheres;
    fl_out_format fmt;
    bool has_limit;
    uint64_t limit;
    bool verify_crc;
    bool stats;
} cat_args;

/* Splits "a,b,c" into arena strings. */
static fl_status split_columns(const char *s, fl_arena *a, const char ***out, uint32_t *n,
                               fl_error *err)
{
    uint32_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    const char **cols = fl_arena_calloc(a, cap, sizeof *cols);
    if (!cols)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = 0;
    const char *p = s;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ') {
            p++;
            len--;
        }
        while (len && p[len - 1] == ' ')
            len--;
        if (!len)
            return fl_errorf(err, FL_EINVAL, "--columns: empty column name in '%s'", s);
        cols[k] = fl_arena_strndup(a, p, len);
        if (!cols[k++])
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (!e)
            break;
        p = e + 1;
    }
    *out = cols;
    *n = k;
    return FL_OK;
}

static bool term_holds(const fl_col_pred *t, const fl_value *v)
{
    switch (t->op) {
    case FL_CMP_IS_NULL: return v->is_null;
    case FL_CMP_NOT_NULL: return !v->is_null;
    default: break;
    }
    if (v->is_null)
        return false;
    /* NaN compares false with everything except != */
    if ((v->type.id == FL_TYPE_FLOAT64 && v->v.f64 != v->v.f64) ||
        (v->type.id == FL_TYPE_FLOAT32 && v->v.f32 != v->v.f32) ||
        (t->value.type.id == FL_TYPE_FLOAT64 && t->value.v.f64 != t->value.v.f64) ||
        (t->value.type.id == FL_TYPE_FLOAT32 && t->value.v.f32 != t->value.v.f32))
        return t->op == FL_CMP_NE;
    int c = fl_value_compare(v, &t->value);
    switch (t->op) {
    case FL_CMP_EQ: return c == 0;
    case FL_CMP_NE: return c != 0;
    case FL_CMP_LT: return c < 0;
    case FL_CMP_LE: return c <= 0;
    case FL_CMP_GT: return c > 0;
    case FL_CMP_GE: return c >= 0;
    default: return false;
    }
}

enum { CAT_COLUMNS, CAT_WHERE, CAT_FORMAT, CAT_LIMIT, CAT_VERIFY_CRC, CAT_STATS };
static const cli_opt cat_opts[] = {
    [CAT_COLUMNS] = {"columns", 0, "a,b", false, "project top-level columns"},
    [CAT_WHERE] = {"where", 0, "\"col op v\"", true,
                   "filter (op: = != < <= > >= 'is null' 'is not null');\n"
                   "repeatable, all must hold; also prunes row groups/pages"},
    [CAT_FORMAT] = {"format", 0, "F", false, "table (default) | csv | jsonl"},
    [CAT_LIMIT] = {"limit", 0, "N", false, "at most N rows"},
    [CAT_VERIFY_CRC] = {"verify-crc", 0, NULL, false, "check page CRCs"},
    [CAT_STATS] = {"stats", 0, NULL, false, "print scan statistics to stderr"},
};
static const cli_command cat_cmd = {
    .name = "parquet cat",
    .synopsis = "parquet cat FILE [options]",
    .opts = cat_opts,
    .nopts = CLI_NOPTS(cat_opts),
    .min_args = 1,
    .max_args = 1,
};

/* The parsed options of cat into c; 0, 1 (err set) or 2 (usage, printed). */
static int cat_args_from(const char *path, const cli_args *p, fl_arena *a, cat_args *c,
                         fl_error *err)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    int n;
    const char *const *w = cli_values(p, CAT_WHERE, &n);
    c->wheres = w;
    c->nwheres = (uint32_t)n;
    c->verify_crc = cli_has(p, CAT_VERIFY_CRC);
    c->stats = cli_has(p, CAT_STATS);
    const char *v;
    if ((v = cli_value(p, CAT_COLUMNS)) && split_columns(v, a, &c->columns, &c->ncolumns, err))
        return 1;
    if ((v = cli_value(p, CAT_FORMAT)) && !fl_out_format_parse(v, &c->fmt))
        return cli_usage_error(&cat_cmd, "unknown format '%s' (table, csv, jsonl)", v);
    if ((v = cli_value(p, CAT_LIMIT))) {
        int64_t l;
        if (!fl_parse_int64(v, strlen(v), &l) || l < 0)
            return cli_usage_error(&cat_cmd, "bad --limit '%s'", v);
        c->has_limit = true;
        c->limit = (uint64_t)l;
    }
    return 0;
}

/* Index of name in list, or -1. */
static int find_col(const char *const *list, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(list[i], name))
            return (int)i;
    return -1;
}

static fl_status run_cat(const cat_args *c, pq_handle *h, fl_arena *a, fl_error *err)
{
    FL_TRY(open_file(c->path, c->verify_crc, h, err));
    const fl_schema *fs = fl_parquet_schema(h->reader);
    /* predicate terms */
    fl_col_pred *terms = fl_arena_calloc(a, c->nwheres ? c->nwheres : 1, sizeof *terms);
    if (!terms)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < c->nwheres; i++)
        FL_TRY(fl_cli_parse_where(c->wheres[i], fs, a, &terms[i], err));
    fl_predicate pred = {.nterms = c->nwheres, .terms = terms};
    /* projection: the requested columns, then filter columns not among them */
    uint32_t nshow = c->columns ? c->ncolumns : fs->nfields;
    const char **proj = fl_arena_calloc(a, nshow + c->nwheres + 1, sizeof *proj);
    if (!proj)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nshow; i++) {
        proj[i] = c->columns ? c->columns[i] : fs->fields[i].name;
        if (!fl_schema_find_name(fs, proj[i]))
            return fl_errorf(err, FL_ENOTFOUND, "%s: no column '%s'", c->path, proj[i]);
        if (find_col(proj, i, proj[i]) >= 0)
            return fl_errorf(err, FL_EINVAL, "--columns: '%s' given twice", proj[i]);
    }
    uint32_t nproj = nshow;
    for (uint32_t i = 0; i < c->nwheres; i++)
        if (find_col(proj, nproj, terms[i].column) < 0)
            proj[nproj++] = terms[i].column;
    fl_parquet_scan_options so = {
        .columns = proj,
        .ncolumns = nproj,
        .predicate = c->nwheres ? &pred : NULL,
    };
    fl_parquet_scan *scan = NULL;
    FL_TRY(fl_parquet_scan_open(h->reader, &so, &scan, err));
    const fl_schema *ss = fl_parquet_scan_schema(scan);
    /* where each shown / filtered column sits in the scan's batches */
    int *show_idx = fl_arena_calloc(a, nshow + 1, sizeof(int));
    int *term_idx = fl_arena_calloc(a, c->nwheres + 1, sizeof(int));
    fl_schema shown = {.nfields = nshow, .fields = fl_arena_calloc(a, nshow + 1, sizeof(fl_field))};
    fl_vector *view_cols = fl_arena_calloc(a, nshow + 1, sizeof(fl_vector));
    uint32_t *sel_idx = fl_arena_calloc(a, FL_BATCH_CAP, sizeof(uint32_t));
    fl_status rc = FL_OK;
    if (!show_idx || !term_idx || !shown.fields || !view_cols || !sel_idx)
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; rc == FL_OK && i < nshow; i++) {
        const char *const *names = proj;
        int k = -1;
        for (uint32_t j = 0; j < ss->nfields; j++)
            if (!strcmp(ss->fields[j].name, names[i]))
                k = (int)j;
        if (k < 0)
            rc = fl_errorf(err, FL_ENOTFOUND, "scan did not return column '%s'", names[i]);
        else {
            show_idx[i] = k;
            shown.fields[i] = ss->fields[k];
        }
    }
    for (uint32_t t = 0; rc == FL_OK && t < c->nwheres; t++) {
        int k = -1;
        for (uint32_t j = 0; j < ss->nfields; j++)
            if (!strcmp(ss->fields[j].name, terms[t].column))
                k = (int)j;
        if (k < 0)
            rc = fl_errorf(err, FL_ENOTFOUND, "scan did not return column '%s'", terms[t].column);
        term_idx[t] = k;
    }
    fl_row_printer *printer = NULL;
    fl_batch b;
    bool batch_ok = false;
    if (rc == FL_OK)
        rc = fl_row_printer_open(stdout, c->fmt, &shown, true, &printer, err);
    if (rc == FL_OK) {
        rc = fl_batch_init(&b, ss, err);
        batch_ok = rc == FL_OK;
    }
    uint64_t remaining = c->limit;
    while (rc == FL_OK && (!c->has_limit || remaining > 0)) {
        bool eof;
        rc = fl_parquet_scan_next(scan, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        /* row filter on top of any selection the scan made */
        fl_sel sel = {.idx = sel_idx, .count = 0, .cap = FL_BATCH_CAP};
        uint32_t live = fl_batch_live_rows(&b);
        if (c->nwheres && live > FL_BATCH_CAP) {
            rc = fl_errorf(err, FL_ELIMIT, "scan returned a batch of %u rows (more than %d)", live,
                           FL_BATCH_CAP);
            break;
        }
        for (uint32_t i = 0; i < live && c->nwheres; i++) {
            uint32_t row = b.sel ? b.sel->idx[i] : i;
            bool keep = true;
            for (uint32_t t = 0; t < c->nwheres && keep; t++) {
                fl_value v;
                if (!fl_vector_row_value(&b.cols[term_idx[t]], row, &v)) {
                    rc = fl_errorf(err, FL_ECORRUPT, "column '%s': bad dictionary index",
                                   terms[t].column);
                    break;
                }
                keep = term_holds(&terms[t], &v);
            }
            if (keep)
                sel.idx[sel.count++] = row;
        }
        if (rc != FL_OK)
            break;
        fl_batch view = {.schema = &shown,
                         .ncols = nshow,
                         .cols = view_cols,
                         .nrows = b.nrows,
                         .sel = c->nwheres ? &sel : b.sel};
        for (uint32_t i = 0; i < nshow; i++)
            view_cols[i] = b.cols[show_idx[i]]; /* shallow: printing only reads */
        rc = fl_row_printer_batch(printer, &view, c->has_limit ? &remaining : NULL, err);
    }
    if (printer) {
        if (rc == FL_OK)
            rc = fl_row_printer_close(printer, err);
        else
            fl_row_printer_free(printer);
    }
    if (c->stats) {
        fl_parquet_scan_stats st;
        fl_parquet_scan_get_stats(scan, &st);
        fprintf(stderr,
                "row groups: %u of %u pruned; pages: %" PRIu64 " of %" PRIu64
                " pruned; rows decoded: %" PRIu64 "; bytes read: %" PRIu64 "\n",
                st.row_groups_pruned, st.row_groups_total, st.pages_pruned, st.pages_total,
                st.rows_produced, st.bytes_read);
    }
    if (batch_ok)
        fl_batch_destroy(&b);
    fl_parquet_scan_close(scan);
    return rc;
}

static int cmd_cat(const char *path, const cli_args *p)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_error_clear(&err);
    cat_args c;
    int u = cat_args_from(path, p, &a, &c, &err);
    if (u) {
        fl_arena_free(&a);
        return u == 1 ? fail(&err) : u;
    }
    pq_handle h;
    memset(&h, 0, sizeof h);
    fl_status rc = run_cat(&c, &h, &a, &err);
    close_file(&h);
    fl_arena_free(&a);
    return rc == FL_OK ? 0 : fail(&err);
}

int fl_cmd_parquet(int argc, char **argv)
{
    static const cli_file_tool tool = {
        .name = "parquet",
        .about = "  schema FILE   the Parquet schema tree and the floe schema\n"
                 "  meta FILE     footer: row groups, column chunks, statistics, metadata\n"
                 "  cat FILE      print rows\n"
                 "FILE '-' is stdin.",
        .cat = &cat_cmd,
        .run_cat = cmd_cat,
        .schema = cmd_schema,
        .meta = cmd_meta};
    return cli_file_tool_main(&tool, argc, argv);
}
