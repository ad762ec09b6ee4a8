/*
 * manifest_read.c - reads an Iceberg manifest (spec "Manifests"): an Avro
 * object container whose records are manifest_entry {status 0, snapshot_id 1,
 * sequence_number 3, file_sequence_number 4, data_file 2 {content 134,
 * file_path 100, file_format 101, partition 102 {...}, record_count 103,
 * file_size_in_bytes 104, metric maps 108/109/110/137/125/128, key_metadata
 * 131, split_offsets 132, equality_ids 135, sort_order_id 140, first_row_id
 * 142, referenced_data_file 143, content_offset 144, content_size 145}}.
 *
 * Every field is found by its Avro "field-id" attribute, so the names and the
 * field order of the writer do not matter (BigQuery writes data_file fields
 * in another order and wraps every field in a ["null", T] union; old Java
 * names differ). Fields with unknown ids are ignored (v1's
 * block_size_in_bytes, distinct_counts, v4 fields).
 *
 * Maps with int keys are arrays of {key, value} records (spec Appendix A);
 * key and value are found by key-id/value-id, else by name, else position.
 *
 * Inheritance (spec "Sequence Number Inheritance", "First Row ID
 * Inheritance"), as Java's InheritableMetadataFactory and ManifestReader do:
 * a null snapshot_id takes the manifest's added_snapshot_id; a null
 * sequence_number / file_sequence_number takes the manifest's
 * sequence_number when the entry is ADDED or the manifest's sequence number
 * is 0 (v1); any other null is an error. In data manifests with a
 * first_row_id, live data files without one get first_row_id + the
 * record_count of earlier such files.
 *
 * Memory: each record is decoded into a scratch arena that is reset per
 * entry (its first block is reused, so no malloc per entry); the fields kept
 * are copied into the caller's arena. Entries are staged in fixed-size
 * malloc'd chunks and copied into one arena array at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/iceberg.h"
#include "iceberg/manifest_int.h"

typedef struct rd {
    const char *path;
    fl_arena *out;
    const fl_ice_manifest_file *mf;
    uint32_t npart;
    int32_t *part_ids;   /* partition field ids, spec order */
    fl_type *part_types; /* result types */
    ice_metric_item *items;
    uint32_t nitems, cap;
} rd;

static const fl_avro_schema *unwrap(const fl_avro_schema *s)
{
    if (s && s->type == FL_AVRO_UNION)
        for (uint32_t i = 0; i < s->nbranches; i++)
            if (s->branches[i]->type != FL_AVRO_NULL)
                return s->branches[i];
    return s;
}

static const fl_avro_field *field_by_id(const fl_avro_schema *rec, int32_t id)
{
    if (!rec || rec->type != FL_AVRO_RECORD)
        return NULL;
    for (uint32_t i = 0; i < rec->nfields; i++)
        if (rec->fields[i].has_field_id && rec->fields[i].field_id == id)
            return &rec->fields[i];
    return NULL;
}

/* The partition record schema of a manifest_entry writer schema, or NULL. */
static const fl_avro_schema *partition_schema(const fl_avro_schema *entry)
{
    const fl_avro_field *df = field_by_id(entry, MF_DATA_FILE);
    const fl_avro_field *p = df ? field_by_id(unwrap(df->type), DF_PARTITION) : NULL;
    const fl_avro_schema *s = p ? unwrap(p->type) : NULL;
    return s && s->type == FL_AVRO_RECORD ? s : NULL;
}

/* Partition layout: from the table's spec when m is given (types from the
 * table schemas, falling back to the Avro field's type), else from the Avro
 * partition record. */
static fl_status setup_partition(rd *r, const fl_ice_metadata *m, const fl_avro_schema *entry,
                                 fl_error *err)
{
    const fl_avro_schema *ps = partition_schema(entry);
    if (!ps && m == NULL)
        return fl_errorf(err, FL_ECORRUPT, "no data_file.partition record (field id 102) in the Avro schema");
    const fl_ice_partition_spec *spec = NULL;
    if (m) {
        spec = fl_ice_metadata_spec(m, r->mf->partition_spec_id);
        if (!spec)
            return fl_errorf(err, FL_ENOTFOUND, "partition spec %d is not in the table metadata",
                             (int)r->mf->partition_spec_id);
        r->npart = spec->nfields;
    } else {
        r->npart = ps->nfields;
    }
    if (r->npart == 0)
        return FL_OK;
    r->part_ids = fl_arena_calloc(r->out, r->npart, sizeof *r->part_ids);
    r->part_types = fl_arena_calloc(r->out, r->npart, sizeof *r->part_types);
    if (!r->part_ids || !r->part_types)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < r->npart; i++) {
        const fl_avro_field *af = NULL;
        if (spec) {
            r->part_ids[i] = spec->fields[i].field_id;
            af = field_by_id(ps, r->part_ids[i]);
            if (!af && ps && i < ps->nfields && !ps->fields[i].has_field_id)
                af = &ps->fields[i];
            fl_error e2;
            if (ice_partition_field_type(m, &spec->fields[i], &r->part_types[i], &e2) == FL_OK)
                continue;
            if (!af) {
                *err = e2;
                return e2.code;
            }
        } else {
            af = &ps->fields[i];
            r->part_ids[i] = af->has_field_id ? af->field_id : FL_ICE_PARTITION_FIELD_ID_BASE + (int32_t)i;
        }
        fl_status rc = ice_type_from_avro(af->type, &r->part_types[i], err);
        if (rc)
            return fl_error_prefix(err, "partition field '%s'", af->name);
    }
    return FL_OK;
}

static fl_status push_item(rd *r, int32_t fid, uint8_t kind, int64_t n, const uint8_t *p,
                           uint32_t len, fl_error *err)
{
    if (r->nitems == r->cap) {
        uint32_t nc = r->cap ? r->cap * 2 : 256;
        ice_metric_item *ni = realloc(r->items, (size_t)nc * sizeof *ni);
        if (!ni)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        r->items = ni;
        r->cap = nc;
    }
    ice_metric_item *it = &r->items[r->nitems];
    it->field_id = fid;
    it->order = r->nitems++;
    it->kind = kind;
    it->n = n;
    it->ptr = p;
    it->len = len;
    return FL_OK;
}

/* One metrics map (array of k/v records, or an Avro map with decimal keys). */
static fl_status read_metric_map(rd *r, const fl_avro_value *v, uint8_t kind, int32_t key_id,
                                 const char *what, fl_error *err)
{
    bool bounds = kind >= 4;
    if (v->type == FL_AVRO_MAP) {
        for (size_t i = 0; i < v->u.map.n; i++) {
            const fl_avro_value *k = &v->u.map.keys[i], *val = &v->u.map.values[i];
            char buf[16];
            size_t kl = k->u.bytes.len < sizeof buf - 1 ? k->u.bytes.len : sizeof buf - 1;
            memcpy(buf, k->u.bytes.ptr, kl);
            buf[kl] = 0;
            char *end;
            long id = strtol(buf, &end, 10);
            if (kl == 0 || *end || id < INT32_MIN || id > INT32_MAX)
                return fl_errorf(err, FL_ECORRUPT, "field '%s': map key is not a field id", what);
            if (mv_null(val))
                continue;
            int64_t n = 0;
            const uint8_t *p = NULL;
            uint32_t len = 0;
            if (bounds)
                FL_TRY(mv_bytes(val, what, r->out, &p, &len, err));
            else
                FL_TRY(mv_long(val, what, &n, err));
            FL_TRY(push_item(r, (int32_t)id, kind, n, p, len, err));
        }
        return FL_OK;
    }
    if (v->type != FL_AVRO_ARRAY)
        return fl_errorf(err, FL_ETYPE, "field '%s': expected an array of key/value records, found %s",
                         what, fl_avro_type_name(v->type));
    for (size_t i = 0; i < v->u.list.n; i++) {
        const fl_avro_value *kv = &v->u.list.items[i];
        if (mv_null(kv))
            continue;
        if (kv->type != FL_AVRO_RECORD || kv->u.list.n < 2)
            return fl_errorf(err, FL_ETYPE, "field '%s': item %zu is not a key/value record", what, i);
        const fl_avro_value *k = NULL, *val = NULL;
        for (size_t j = 0; j < kv->u.list.n; j++) {
            int32_t fid = mv_field_id(kv, j);
            if (fid == key_id)
                k = &kv->u.list.items[j];
            else if (fid == key_id + 1)
                val = &kv->u.list.items[j];
        }
        for (size_t j = 0; j < kv->u.list.n && (!k || !val); j++) {
            const char *nm = mv_field_name(kv, j);
            if (!k && !strcmp(nm, "key"))
                k = &kv->u.list.items[j];
            else if (!val && !strcmp(nm, "value"))
                val = &kv->u.list.items[j];
        }
        if (!k)
            k = &kv->u.list.items[0];
        if (!val)
            val = &kv->u.list.items[1];
        if (mv_null(k))
            return fl_errorf(err, FL_ECORRUPT, "field '%s': item %zu has a null key", what, i);
        int32_t id;
        FL_TRY(mv_int(k, what, &id, err));
        if (mv_null(val))
            continue;
        int64_t n = 0;
        const uint8_t *p = NULL;
        uint32_t len = 0;
        if (bounds)
            FL_TRY(mv_bytes(val, what, r->out, &p, &len, err));
        else
            FL_TRY(mv_long(val, what, &n, err));
        FL_TRY(push_item(r, id, kind, n, p, len, err));
    }
    return FL_OK;
}

static fl_status read_long_list(rd *r, const fl_avro_value *v, const char *what, int64_t **out,
                                uint32_t *n, fl_error *err)
{
    if (v->type != FL_AVRO_ARRAY)
        return fl_errorf(err, FL_ETYPE, "field '%s': expected an array, found %s", what,
                         fl_avro_type_name(v->type));
    if (v->u.list.n > UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "field '%s': too many items", what);
    int64_t *a = fl_arena_alloc(r->out, (v->u.list.n ? v->u.list.n : 1) * sizeof *a);
    if (!a)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < v->u.list.n; i++) {
        if (mv_null(&v->u.list.items[i]))
            return fl_errorf(err, FL_ECORRUPT, "field '%s': item %zu is null", what, i);
        FL_TRY(mv_long(&v->u.list.items[i], what, &a[i], err));
    }
    *out = a;
    *n = (uint32_t)v->u.list.n;
    return FL_OK;
}

static fl_status read_partition(rd *r, const fl_avro_value *v, fl_ice_data_file *f, fl_error *err)
{
    f->npartition = r->npart;
    if (r->npart == 0)
        return FL_OK;
    f->partition = fl_arena_alloc(r->out, (size_t)r->npart * sizeof *f->partition);
    if (!f->partition)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < r->npart; i++) {
        memset(&f->partition[i], 0, sizeof f->partition[i]);
        f->partition[i].type = r->part_types[i];
        f->partition[i].is_null = true;
    }
    if (mv_null(v))
        return FL_OK;
    if (v->type != FL_AVRO_RECORD)
        return fl_errorf(err, FL_ETYPE, "field 'partition': expected a record, found %s",
                         fl_avro_type_name(v->type));
    for (size_t j = 0; j < v->u.list.n; j++) {
        int32_t fid = mv_field_id(v, j);
        uint32_t k = 0;
        if (fid < 0)
            k = (uint32_t)j; /* writers without partition field ids: by position */
        else
            while (k < r->npart && r->part_ids[k] != fid)
                k++;
        if (k >= r->npart)
            continue; /* not a field of this spec */
        fl_status rc = ice_partition_from_avro(&v->u.list.items[j], &r->part_types[k], r->out,
                                               &f->partition[k], err);
        if (rc)
            return fl_error_prefix(err, "partition field '%s'", mv_field_name(v, j));
    }
    return FL_OK;
}

/* file_format: the usual spellings are shared static strings (one copy less
 * per entry); anything else is copied. */
static fl_status read_format(rd *r, const fl_avro_value *x, const char *nm, const char **out,
                             fl_error *err)
{
    static const char *const known[] = {"PARQUET", "AVRO", "ORC", "PUFFIN",
                                        "parquet", "avro", "orc", "puffin"};
    if (x->type == FL_AVRO_STRING || x->type == FL_AVRO_BYTES)
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            if (x->u.bytes.len == strlen(known[i]) && !memcmp(x->u.bytes.ptr, known[i], x->u.bytes.len)) {
                *out = known[i];
                return FL_OK;
            }
    return mv_str(x, nm, r->out, out, err);
}

static fl_status read_file(rd *r, const fl_avro_value *v, fl_ice_data_file *f, fl_error *err)
{
    if (v->type != FL_AVRO_RECORD)
        return fl_errorf(err, FL_ETYPE, "field 'data_file': expected a record, found %s",
                         fl_avro_type_name(v->type));
    f->content = FL_ICE_CONTENT_DATA;
    f->spec_id = r->mf->partition_spec_id;
    f->record_count = f->file_size_in_bytes = -1;
    r->nitems = 0;
    bool seen_part = false;
    for (size_t i = 0; i < v->u.list.n; i++) {
        const fl_avro_value *x = &v->u.list.items[i];
        int32_t fid = mv_field_id(v, i);
        const char *nm = mv_field_name(v, i);
        if (fid == DF_PARTITION) {
            FL_TRY(read_partition(r, x, f, err));
            seen_part = true;
            continue;
        }
        if (mv_null(x))
            continue;
        int32_t i32;
        switch (fid) {
        case DF_CONTENT:
            FL_TRY(mv_int(x, nm, &i32, err));
            if (i32 < 0 || i32 > 2)
                return fl_errorf(err, FL_ECORRUPT, "field '%s': unknown content %d", nm, (int)i32);
            f->content = (fl_ice_content)i32;
            break;
        case DF_FILE_PATH: FL_TRY(mv_str(x, nm, r->out, &f->file_path, err)); break;
        case DF_FILE_FORMAT: FL_TRY(read_format(r, x, nm, &f->file_format, err)); break;
        case DF_RECORD_COUNT: FL_TRY(mv_long(x, nm, &f->record_count, err)); break;
        case DF_FILE_SIZE: FL_TRY(mv_long(x, nm, &f->file_size_in_bytes, err)); break;
        case DF_COLUMN_SIZES: FL_TRY(read_metric_map(r, x, 0, 117, nm, err)); break;
        case DF_VALUE_COUNTS: FL_TRY(read_metric_map(r, x, 1, 119, nm, err)); break;
        case DF_NULL_COUNTS: FL_TRY(read_metric_map(r, x, 2, 121, nm, err)); break;
        case DF_NAN_COUNTS: FL_TRY(read_metric_map(r, x, 3, 138, nm, err)); break;
        case DF_LOWER_BOUNDS: FL_TRY(read_metric_map(r, x, 4, 126, nm, err)); break;
        case DF_UPPER_BOUNDS: FL_TRY(read_metric_map(r, x, 5, 129, nm, err)); break;
        case DF_KEY_METADATA:
            FL_TRY(mv_bytes(x, nm, r->out, &f->key_metadata, &f->key_metadata_len, err));
            break;
        case DF_SPLIT_OFFSETS:
            FL_TRY(read_long_list(r, x, nm, &f->split_offsets, &f->nsplit_offsets, err));
            break;
        case DF_EQUALITY_IDS: {
            int64_t *ids;
            uint32_t n;
            FL_TRY(read_long_list(r, x, nm, &ids, &n, err));
            f->equality_ids = (int32_t *)ids; /* narrowed in place: int32 fits in int64 slots */
            for (uint32_t k = 0; k < n; k++) {
                if (ids[k] < INT32_MIN || ids[k] > INT32_MAX)
                    return fl_errorf(err, FL_ECORRUPT, "field '%s': id out of range", nm);
                f->equality_ids[k] = (int32_t)ids[k];
            }
            f->nequality_ids = n;
            break;
        }
        case DF_SORT_ORDER_ID:
            FL_TRY(mv_int(x, nm, &f->sort_order_id, err));
            f->has_sort_order_id = true;
            break;
        case DF_FIRST_ROW_ID:
            FL_TRY(mv_long(x, nm, &f->first_row_id, err));
            f->has_first_row_id = true;
            break;
        case DF_REFERENCED_FILE: FL_TRY(mv_str(x, nm, r->out, &f->referenced_data_file, err)); break;
        case DF_CONTENT_OFFSET:
            FL_TRY(mv_long(x, nm, &f->content_offset, err));
            f->has_content_offset = true;
            break;
        case DF_CONTENT_SIZE: FL_TRY(mv_long(x, nm, &f->content_size_in_bytes, err)); break;
        default: break; /* block_size_in_bytes, distinct_counts, unknown ids */
        }
    }
    if (!f->file_path)
        return fl_errorf(err, FL_ECORRUPT, "data_file.file_path (field id 100) is missing or null");
    if (!f->file_format)
        return fl_errorf(err, FL_ECORRUPT, "data_file.file_format (field id 101) is missing or null");
    if (f->record_count < 0)
        return fl_errorf(err, FL_ECORRUPT, "data_file.record_count (field id 103) is missing, null or negative");
    if (f->file_size_in_bytes < 0)
        return fl_errorf(err, FL_ECORRUPT,
                         "data_file.file_size_in_bytes (field id 104) is missing, null or negative");
    if (!seen_part)
        FL_TRY(read_partition(r, NULL, f, err));
    if (f->has_content_offset && f->content_size_in_bytes <= 0)
        return fl_errorf(err, FL_ECORRUPT, "data_file.content_offset without content_size_in_bytes");
    return ice_metrics_merge(r->items, r->nitems, r->out, &f->metrics, &f->nmetrics, err);
}

static fl_status read_entry(rd *r, const fl_avro_value *v, fl_ice_manifest_entry *e, fl_error *err)
{
    memset(e, 0, sizeof *e);
    if (v->type != FL_AVRO_RECORD)
        return fl_errorf(err, FL_ETYPE, "expected a manifest_entry record, found %s",
                         fl_avro_type_name(v->type));
    bool has_status = false, has_file = false, has_snap = false, has_seq = false, has_fseq = false;
    for (size_t i = 0; i < v->u.list.n; i++) {
        const fl_avro_value *x = &v->u.list.items[i];
        int32_t fid = mv_field_id(v, i);
        const char *nm = mv_field_name(v, i);
        if (fid == MF_DATA_FILE) {
            if (mv_null(x))
                return fl_errorf(err, FL_ECORRUPT, "data_file (field id 2) is null");
            FL_TRY(read_file(r, x, &e->file, err));
            has_file = true;
            continue;
        }
        if (mv_null(x))
            continue;
        int32_t st;
        switch (fid) {
        case MF_STATUS:
            FL_TRY(mv_int(x, nm, &st, err));
            if (st < 0 || st > 2)
                return fl_errorf(err, FL_ECORRUPT, "field '%s': unknown status %d", nm, (int)st);
            e->status = (fl_ice_entry_status)st;
            has_status = true;
            break;
        case MF_SNAPSHOT_ID:
            FL_TRY(mv_long(x, nm, &e->snapshot_id, err));
            has_snap = true;
            break;
        case MF_SEQ:
            FL_TRY(mv_long(x, nm, &e->sequence_number, err));
            has_seq = true;
            break;
        case MF_FILE_SEQ:
            FL_TRY(mv_long(x, nm, &e->file_sequence_number, err));
            has_fseq = true;
            break;
        default: break;
        }
    }
    if (!has_status)
        return fl_errorf(err, FL_ECORRUPT, "status (field id 0) is missing or null");
    if (!has_file)
        return fl_errorf(err, FL_ECORRUPT, "data_file (field id 2) is missing");
    const fl_ice_manifest_file *mf = r->mf;
    if (!has_snap) {
        if (mf->added_snapshot_id < 0)
            return fl_errorf(err, FL_ECORRUPT,
                             "snapshot_id is null and the manifest list gives no added_snapshot_id");
        e->snapshot_id = mf->added_snapshot_id;
    }
    bool inherit = e->status == FL_ICE_STATUS_ADDED || mf->sequence_number == 0;
    if (!has_seq) {
        if (!inherit)
            return fl_errorf(err, FL_ECORRUPT, "sequence_number is null in a %s entry",
                             e->status == FL_ICE_STATUS_DELETED ? "DELETED" : "EXISTING");
        e->sequence_number = mf->sequence_number;
    }
    if (!has_fseq) {
        if (!inherit)
            return fl_errorf(err, FL_ECORRUPT, "file_sequence_number is null in a %s entry",
                             e->status == FL_ICE_STATUS_DELETED ? "DELETED" : "EXISTING");
        e->file_sequence_number = mf->sequence_number;
    }
    return FL_OK;
}

#define CHUNK 256u /* entries per malloc'd staging chunk (~50 KiB: from the heap, not mmap) */

static fl_status read_all(rd *r, fl_avro_reader *ar, fl_ice_manifest_entry **out, uint32_t *n,
                          fl_error *err)
{
    fl_arena scratch;
    fl_arena_init(&scratch, 256u << 10);
    /* entries are staged in fixed-size chunks (no realloc copies) and copied
     * once into one arena array at the end */
    fl_ice_manifest_entry **chunks = NULL;
    uint32_t nchunks = 0, len = 0;
    fl_status rc = FL_OK;
    for (;;) {
        fl_avro_value v;
        bool done;
        fl_arena_reset(&scratch);
        rc = fl_avro_reader_next(ar, &scratch, &v, &done, err);
        if (rc) {
            fl_error_prefix(err, "reading entry %u", len);
            break;
        }
        if (done)
            break;
        if (len == nchunks * CHUNK) {
            if (nchunks >= UINT32_MAX / CHUNK - 1) {
                rc = fl_errorf(err, FL_ELIMIT, "manifest %s: too many entries", r->path);
                break;
            }
            fl_ice_manifest_entry **nc = realloc(chunks, (nchunks + 1) * sizeof *nc);
            fl_ice_manifest_entry *c = nc ? malloc(CHUNK * sizeof *c) : NULL;
            if (nc)
                chunks = nc;
            if (!c) {
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
                break;
            }
            chunks[nchunks++] = c;
        }
        rc = read_entry(r, &v, &chunks[len / CHUNK][len % CHUNK], err);
        if (rc) {
            fl_error_prefix(err, "manifest %s: entry %u", r->path, len);
            break;
        }
        len++;
    }
    fl_arena_free(&scratch);
    if (rc == FL_OK) {
        *out = fl_arena_alloc(r->out, (len ? len : 1) * sizeof **out);
        if (!*out)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; rc == FL_OK && i < nchunks; i++) {
            uint32_t k = len - i * CHUNK < CHUNK ? len - i * CHUNK : CHUNK;
            memcpy(*out + (size_t)i * CHUNK, chunks[i], (size_t)k * sizeof **out);
        }
        *n = len;
    }
    for (uint32_t i = 0; i < nchunks; i++)
        free(chunks[i]);
    free(chunks);
    return rc;
}

/* First row id inheritance (spec "First Row ID Inheritance", Java's
 * ManifestReader.idAssigner: DELETED entries take no ids). */
static void assign_row_ids(const fl_ice_manifest_file *mf, fl_ice_manifest_entry *es, uint32_t n)
{
    if (!mf->has_first_row_id || mf->content != FL_ICE_MANIFEST_DATA)
        return;
    int64_t next = mf->first_row_id;
    for (uint32_t i = 0; i < n; i++) {
        fl_ice_data_file *f = &es[i].file;
        if (es[i].status == FL_ICE_STATUS_DELETED || f->content != FL_ICE_CONTENT_DATA ||
            f->has_first_row_id)
            continue;
        f->has_first_row_id = true;
        f->first_row_id = next;
        next += f->record_count;
    }
}

fl_status fl_ice_manifest_read(fl_fileio *io, const fl_ice_metadata *m,
                               const fl_ice_manifest_file *mf, fl_arena *a,
                               fl_ice_manifest_entry **out, uint32_t *n, fl_error *err)
{
    *out = NULL;
    *n = 0;
    if (!mf->manifest_path)
        return fl_errorf(err, FL_EINVAL, "manifest without a path");
    fl_file *f = NULL;
    fl_status rc = fl_fileio_open(io, mf->manifest_path, &f, err);
    if (rc)
        return fl_error_prefix(err, "manifest %s", mf->manifest_path);
    fl_avro_reader *ar = NULL;
    rc = fl_avro_reader_open(f, NULL, &ar, err);
    if (rc) {
        fl_file_close(f);
        return fl_error_prefix(err, "manifest %s", mf->manifest_path);
    }
    rd r = {.path = mf->manifest_path, .out = a, .mf = mf};
    const fl_avro_schema *entry = fl_avro_reader_schema(ar);
    if (entry->type != FL_AVRO_RECORD || !field_by_id(entry, MF_DATA_FILE))
        rc = fl_errorf(err, FL_ECORRUPT,
                       "manifest %s: the Avro schema is not a manifest_entry (no field id 2)",
                       mf->manifest_path);
    else if ((rc = setup_partition(&r, m, entry, err)) != FL_OK)
        fl_error_prefix(err, "manifest %s", mf->manifest_path);
    if (rc == FL_OK)
        rc = read_all(&r, ar, out, n, err);
    free(r.items);
    fl_avro_reader_close(ar);
    fl_file_close(f);
    if (rc == FL_OK)
        assign_row_ids(mf, *out, *n);
    return rc;
}
