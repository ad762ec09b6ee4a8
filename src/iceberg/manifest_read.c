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
#include "iceberg/manifest_cursor.h"
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
        return fl_errorf(err, FL_ECORRUPT,
                         "no data_file.partition record (field id 102) in the Avro schema");
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
            r->part_ids[i] =
                af->has_field_id ? af->field_id : FL_ICE_PARTITION_FIELD_ID_BASE + (int32_t)i;
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

/* Value of a field: its union branch, then a primitive (null -> is null). */
static fl_status field_prim(mcur *c, const fl_avro_schema *t, const char *name, fl_avro_value *v,
                            fl_error *err)
{
    fl_status rc = mc_prim(c, t, v, err);
    return rc ? fl_error_prefix(err, "field '%s'", name) : FL_OK;
}

/* Metric value (long count or bytes bound) of schema s; *present false when null. */
static fl_status metric_value(rd *r, mcur *c, const fl_avro_schema *s, bool bounds,
                              const char *what, bool *present, int64_t *n, const uint8_t **p,
                              uint32_t *len, fl_error *err)
{
    const fl_avro_schema *t = NULL;
    FL_TRY(mc_branch(c, s, &t, err));
    *present = t->type != FL_AVRO_NULL;
    if (!*present)
        return FL_OK;
    fl_avro_value v;
    FL_TRY(field_prim(c, t, what, &v, err));
    return bounds ? mv_bytes(&v, what, r->out, p, len, err) : mv_long(&v, what, n, err);
}

/* Indexes of the key and value fields of a map-as-array k/v record: by
 * key-id/value-id, else by name, else position 0/1. */
static void kv_fields(const fl_avro_schema *rec, int32_t key_id, uint32_t *ki, uint32_t *vi)
{
    *ki = *vi = UINT32_MAX;
    for (uint32_t j = 0; j < rec->nfields; j++) {
        const fl_avro_field *f = &rec->fields[j];
        if (f->has_field_id && f->field_id == key_id)
            *ki = j;
        else if (f->has_field_id && f->field_id == key_id + 1)
            *vi = j;
    }
    for (uint32_t j = 0; j < rec->nfields && (*ki == UINT32_MAX || *vi == UINT32_MAX); j++) {
        if (*ki == UINT32_MAX && j != *vi && !strcmp(rec->fields[j].name, "key"))
            *ki = j;
        else if (*vi == UINT32_MAX && j != *ki && !strcmp(rec->fields[j].name, "value"))
            *vi = j;
    }
    if (*ki == UINT32_MAX)
        *ki = *vi == 0 ? 1 : 0;
    if (*vi == UINT32_MAX)
        *vi = *ki == 1 ? 0 : 1;
}

/* How to decode the k/v records of one metrics array: field positions, and
 * whether the record is the plain {int key, long|bytes value} Java writes
 * (decoded without per-field union/type dispatch). */
typedef struct kv_plan {
    const fl_avro_schema *rec;
    uint32_t ki, vi;
    bool fast;
} kv_plan;

static fl_status kv_plan_for(kv_plan *kp, const fl_avro_schema *rec, bool bounds, int32_t key_id,
                             const char *what, fl_error *err)
{
    if (kp->rec == rec)
        return FL_OK;
    if (rec->type != FL_AVRO_RECORD || rec->nfields < 2)
        return fl_errorf(err, FL_ETYPE, "field '%s': items are not key/value records", what);
    kp->rec = rec;
    kv_fields(rec, key_id, &kp->ki, &kp->vi);
    fl_avro_type vt = rec->fields[1].type->type;
    kp->fast =
        rec->nfields == 2 && kp->ki == 0 && kp->vi == 1 &&
        (rec->fields[0].type->type == FL_AVRO_INT || rec->fields[0].type->type == FL_AVRO_LONG) &&
        (bounds ? vt == FL_AVRO_BYTES : (vt == FL_AVRO_LONG || vt == FL_AVRO_INT));
    return FL_OK;
}

static fl_status metric_kv(rd *r, mcur *c, const kv_plan *kp, uint8_t kind, const char *what,
                           fl_error *err)
{
    const fl_avro_schema *rec = kp->rec;
    bool bounds = kind >= 4;
    if (kp->fast) {
        int64_t id, n = 0;
        FL_TRY(mc_long(c, &id, err));
        if (id < INT32_MIN || id > INT32_MAX)
            return fl_errorf(err, FL_ECORRUPT, "field '%s': key out of int range", what);
        if (!bounds) {
            FL_TRY(mc_long(c, &n, err));
            return push_item(r, (int32_t)id, kind, n, NULL, 0, err);
        }
        FL_TRY(mc_long(c, &n, err));
        if (n < 0 || (uint64_t)n > c->len - c->pos || n > UINT32_MAX)
            return fl_errorf(err, FL_ECORRUPT, "field '%s': bound length %lld beyond the block",
                             what, (long long)n);
        uint8_t *p = fl_arena_alloc(r->out, n ? (size_t)n : 1);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        memcpy(p, c->b + c->pos, (size_t)n);
        c->pos += (size_t)n;
        return push_item(r, (int32_t)id, kind, 0, p, (uint32_t)n, err);
    }
    bool has_key = false, present = false;
    int32_t id = 0;
    int64_t n = 0;
    const uint8_t *p = NULL;
    uint32_t len = 0;
    for (uint32_t j = 0; j < rec->nfields; j++) {
        const fl_avro_field *f = &rec->fields[j];
        if (j == kp->ki) {
            const fl_avro_schema *t = NULL;
            FL_TRY(mc_branch(c, f->type, &t, err));
            if (t->type == FL_AVRO_NULL)
                return fl_errorf(err, FL_ECORRUPT, "field '%s': null key", what);
            fl_avro_value v;
            FL_TRY(field_prim(c, t, what, &v, err));
            FL_TRY(mv_int(&v, what, &id, err));
            has_key = true;
        } else if (j == kp->vi) {
            FL_TRY(metric_value(r, c, f->type, bounds, what, &present, &n, &p, &len, err));
        } else {
            FL_TRY(mc_skip(c, f->type, err));
        }
    }
    return has_key && present ? push_item(r, id, kind, n, p, len, err) : FL_OK;
}

/* One metrics map: an array of k/v records (spec), or an Avro map with
 * decimal string keys. */
static fl_status read_metric_map(rd *r, mcur *c, const fl_avro_schema *t, uint8_t kind,
                                 int32_t key_id, const char *what, fl_error *err)
{
    if (t->type != FL_AVRO_ARRAY && t->type != FL_AVRO_MAP)
        return fl_errorf(err, FL_ETYPE,
                         "field '%s': expected an array of key/value records, found %s", what,
                         fl_avro_type_name(t->type));
    kv_plan kp = {NULL, 0, 0, false};
    for (;;) {
        int64_t cnt = 0;
        FL_TRY(mc_block_count(c, &cnt, err));
        if (cnt == 0)
            return FL_OK;
        for (int64_t i = 0; i < cnt; i++) {
            if (t->type == FL_AVRO_ARRAY) {
                const fl_avro_schema *it = NULL;
                FL_TRY(mc_branch(c, t->items, &it, err));
                if (it->type == FL_AVRO_NULL)
                    continue;
                FL_TRY(kv_plan_for(&kp, it, kind >= 4, key_id, what, err));
                FL_TRY(metric_kv(r, c, &kp, kind, what, err));
                continue;
            }
            fl_avro_value k = {0};
            FL_TRY(mc_prim(c, &(fl_avro_schema){.type = FL_AVRO_STRING}, &k, err));
            char buf[16];
            size_t kl = k.u.bytes.len < sizeof buf - 1 ? k.u.bytes.len : sizeof buf - 1;
            memcpy(buf, k.u.bytes.ptr, kl);
            buf[kl] = 0;
            char *end;
            long id = strtol(buf, &end, 10);
            if (kl == 0 || kl != k.u.bytes.len || *end || id < INT32_MIN || id > INT32_MAX)
                return fl_errorf(err, FL_ECORRUPT, "field '%s': map key is not a field id", what);
            bool present;
            int64_t n = 0;
            const uint8_t *p = NULL;
            uint32_t len = 0;
            FL_TRY(metric_value(r, c, t->values, kind >= 4, what, &present, &n, &p, &len, err));
            if (present)
                FL_TRY(push_item(r, (int32_t)id, kind, n, p, len, err));
        }
    }
}

/* split_offsets / equality_ids: arrays of int or long. */
static fl_status read_long_list(rd *r, mcur *c, const fl_avro_schema *t, const char *what,
                                bool narrow, void **out, uint32_t *n, fl_error *err)
{
    if (t->type != FL_AVRO_ARRAY)
        return fl_errorf(err, FL_ETYPE, "field '%s': expected an array, found %s", what,
                         fl_avro_type_name(t->type));
    int64_t *tmp = NULL;
    size_t len = 0, cap = 0;
    fl_status rc = FL_OK;
    for (;;) {
        int64_t cnt = 0;
        if ((rc = mc_block_count(c, &cnt, err)) != FL_OK || cnt == 0)
            break;
        if (len + (size_t)cnt > cap) {
            size_t nc = (len + (size_t)cnt) * 2;
            int64_t *nt = nc <= UINT32_MAX ? realloc(tmp, nc * sizeof *nt) : NULL;
            if (!nt) {
                rc = fl_errorf(err, FL_ENOMEM, "field '%s': out of memory", what);
                break;
            }
            tmp = nt;
            cap = nc;
        }
        for (int64_t i = 0; i < cnt && rc == FL_OK; i++) {
            const fl_avro_schema *it = NULL;
            fl_avro_value v;
            rc = mc_branch(c, t->items, &it, err);
            if (rc == FL_OK && it->type == FL_AVRO_NULL)
                rc = fl_errorf(err, FL_ECORRUPT, "field '%s': item %zu is null", what, len);
            if (rc == FL_OK)
                rc = field_prim(c, it, what, &v, err);
            if (rc == FL_OK && narrow) {
                int32_t x;
                rc = mv_int(&v, what, &x, err);
                tmp[len++] = x;
            } else if (rc == FL_OK) {
                rc = mv_long(&v, what, &tmp[len++], err);
            }
        }
        if (rc)
            break;
    }
    if (rc == FL_OK) {
        size_t w = narrow ? sizeof(int32_t) : sizeof(int64_t);
        uint8_t *a = fl_arena_alloc(r->out, len ? len * w : 1);
        if (!a)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        for (size_t i = 0; rc == FL_OK && i < len; i++) {
            if (narrow)
                ((int32_t *)a)[i] = (int32_t)tmp[i];
            else
                ((int64_t *)a)[i] = tmp[i];
        }
        *out = a;
        *n = (uint32_t)len;
    }
    free(tmp);
    return rc;
}

static fl_status init_partition(rd *r, fl_ice_data_file *f, fl_error *err)
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
    return FL_OK;
}

static fl_status read_partition(rd *r, mcur *c, const fl_avro_schema *t, fl_ice_data_file *f,
                                fl_error *err)
{
    if (t->type != FL_AVRO_RECORD)
        return fl_errorf(err, FL_ETYPE, "field 'partition': expected a record, found %s",
                         fl_avro_type_name(t->type));
    for (uint32_t j = 0; j < t->nfields; j++) {
        const fl_avro_field *pf = &t->fields[j];
        uint32_t k = 0;
        if (!pf->has_field_id)
            k = j; /* writers without partition field ids: by position */
        else
            while (k < r->npart && r->part_ids[k] != pf->field_id)
                k++;
        const fl_avro_schema *b = NULL;
        FL_TRY(mc_branch(c, pf->type, &b, err));
        if (k >= r->npart) { /* not a field of this spec */
            FL_TRY(mc_skip(c, b, err));
            continue;
        }
        fl_avro_value v;
        fl_status rc = mc_prim(c, b, &v, err);
        if (rc == FL_OK)
            rc = ice_partition_from_avro(&v, &r->part_types[k], r->out, &f->partition[k], err);
        if (rc)
            return fl_error_prefix(err, "partition field '%s'", pf->name);
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
            if (x->u.bytes.len == strlen(known[i]) &&
                !memcmp(x->u.bytes.ptr, known[i], x->u.bytes.len)) {
                *out = known[i];
                return FL_OK;
            }
    return mv_str(x, nm, r->out, out, err);
}

/* One scalar field of data_file. */
static fl_status file_scalar(rd *r, int32_t fid, const fl_avro_value *x, const char *nm,
                             fl_ice_data_file *f, fl_error *err)
{
    int32_t i32;
    switch (fid) {
    case DF_CONTENT:
        FL_TRY(mv_int(x, nm, &i32, err));
        if (i32 < 0 || i32 > 2)
            return fl_errorf(err, FL_ECORRUPT, "field '%s': unknown content %d", nm, (int)i32);
        f->content = (fl_ice_content)i32;
        return FL_OK;
    case DF_FILE_PATH: return mv_str(x, nm, r->out, &f->file_path, err);
    case DF_FILE_FORMAT: return read_format(r, x, nm, &f->file_format, err);
    case DF_RECORD_COUNT: return mv_long(x, nm, &f->record_count, err);
    case DF_FILE_SIZE: return mv_long(x, nm, &f->file_size_in_bytes, err);
    case DF_KEY_METADATA:
        return mv_bytes(x, nm, r->out, &f->key_metadata, &f->key_metadata_len, err);
    case DF_SORT_ORDER_ID:
        f->has_sort_order_id = true;
        return mv_int(x, nm, &f->sort_order_id, err);
    case DF_FIRST_ROW_ID: f->has_first_row_id = true; return mv_long(x, nm, &f->first_row_id, err);
    case DF_REFERENCED_FILE: return mv_str(x, nm, r->out, &f->referenced_data_file, err);
    case DF_CONTENT_OFFSET:
        f->has_content_offset = true;
        return mv_long(x, nm, &f->content_offset, err);
    case DF_CONTENT_SIZE: return mv_long(x, nm, &f->content_size_in_bytes, err);
    default: return FL_OK;
    }
}

static fl_status read_file(rd *r, mcur *c, const fl_avro_schema *t, fl_ice_data_file *f,
                           fl_error *err)
{
    if (t->type != FL_AVRO_RECORD)
        return fl_errorf(err, FL_ETYPE, "field 'data_file': expected a record, found %s",
                         fl_avro_type_name(t->type));
    f->content = FL_ICE_CONTENT_DATA;
    f->spec_id = r->mf->partition_spec_id;
    f->record_count = f->file_size_in_bytes = -1;
    r->nitems = 0;
    FL_TRY(init_partition(r, f, err));
    for (uint32_t i = 0; i < t->nfields; i++) {
        const fl_avro_field *fd = &t->fields[i];
        const char *nm = fd->name;
        const fl_avro_schema *b = NULL;
        FL_TRY(mc_branch(c, fd->type, &b, err));
        if (b->type == FL_AVRO_NULL)
            continue;
        int32_t fid = fd->has_field_id ? fd->field_id : -1;
        switch (fid) {
        case DF_PARTITION: FL_TRY(read_partition(r, c, b, f, err)); break;
        case DF_COLUMN_SIZES: FL_TRY(read_metric_map(r, c, b, 0, 117, nm, err)); break;
        case DF_VALUE_COUNTS: FL_TRY(read_metric_map(r, c, b, 1, 119, nm, err)); break;
        case DF_NULL_COUNTS: FL_TRY(read_metric_map(r, c, b, 2, 121, nm, err)); break;
        case DF_NAN_COUNTS: FL_TRY(read_metric_map(r, c, b, 3, 138, nm, err)); break;
        case DF_LOWER_BOUNDS: FL_TRY(read_metric_map(r, c, b, 4, 126, nm, err)); break;
        case DF_UPPER_BOUNDS: FL_TRY(read_metric_map(r, c, b, 5, 129, nm, err)); break;
        case DF_SPLIT_OFFSETS:
            FL_TRY(read_long_list(r, c, b, nm, false, (void **)&f->split_offsets,
                                  &f->nsplit_offsets, err));
            break;
        case DF_EQUALITY_IDS:
            FL_TRY(read_long_list(r, c, b, nm, true, (void **)&f->equality_ids, &f->nequality_ids,
                                  err));
            break;
        case DF_CONTENT:
        case DF_FILE_PATH:
        case DF_FILE_FORMAT:
        case DF_RECORD_COUNT:
        case DF_FILE_SIZE:
        case DF_KEY_METADATA:
        case DF_SORT_ORDER_ID:
        case DF_FIRST_ROW_ID:
        case DF_REFERENCED_FILE:
        case DF_CONTENT_OFFSET:
        case DF_CONTENT_SIZE: {
            fl_avro_value v;
            FL_TRY(field_prim(c, b, nm, &v, err));
            FL_TRY(file_scalar(r, fid, &v, nm, f, err));
            break;
        }
        default: FL_TRY(mc_skip(c, b, err)); break; /* block_size_in_bytes, distinct_counts, ... */
        }
    }
    if (!f->file_path)
        return fl_errorf(err, FL_ECORRUPT, "data_file.file_path (field id 100) is missing or null");
    if (!f->file_format)
        return fl_errorf(err, FL_ECORRUPT,
                         "data_file.file_format (field id 101) is missing or null");
    if (f->record_count < 0)
        return fl_errorf(err, FL_ECORRUPT,
                         "data_file.record_count (field id 103) is missing, null or negative");
    if (f->file_size_in_bytes < 0)
        return fl_errorf(
            err, FL_ECORRUPT,
            "data_file.file_size_in_bytes (field id 104) is missing, null or negative");
    if (f->has_content_offset && f->content_size_in_bytes <= 0)
        return fl_errorf(err, FL_ECORRUPT,
                         "data_file.content_offset without content_size_in_bytes");
    return ice_metrics_merge(r->items, r->nitems, r->out, &f->metrics, &f->nmetrics, err);
}

static fl_status read_entry(rd *r, mcur *c, const fl_avro_schema *rec, fl_ice_manifest_entry *e,
                            fl_error *err)
{
    memset(e, 0, sizeof *e);
    bool has_status = false, has_file = false, has_snap = false, has_seq = false, has_fseq = false;
    for (uint32_t i = 0; i < rec->nfields; i++) {
        const fl_avro_field *fd = &rec->fields[i];
        const char *nm = fd->name;
        const fl_avro_schema *b = NULL;
        FL_TRY(mc_branch(c, fd->type, &b, err));
        int32_t fid = fd->has_field_id ? fd->field_id : -1;
        if (fid == MF_DATA_FILE) {
            if (b->type == FL_AVRO_NULL)
                return fl_errorf(err, FL_ECORRUPT, "data_file (field id 2) is null");
            FL_TRY(read_file(r, c, b, &e->file, err));
            has_file = true;
            continue;
        }
        if (b->type == FL_AVRO_NULL)
            continue;
        if (fid != MF_STATUS && fid != MF_SNAPSHOT_ID && fid != MF_SEQ && fid != MF_FILE_SEQ) {
            FL_TRY(mc_skip(c, b, err));
            continue;
        }
        fl_avro_value v;
        FL_TRY(field_prim(c, b, nm, &v, err));
        int32_t st;
        switch (fid) {
        case MF_STATUS:
            FL_TRY(mv_int(&v, nm, &st, err));
            if (st < 0 || st > 2)
                return fl_errorf(err, FL_ECORRUPT, "field '%s': unknown status %d", nm, (int)st);
            e->status = (fl_ice_entry_status)st;
            has_status = true;
            break;
        case MF_SNAPSHOT_ID:
            FL_TRY(mv_long(&v, nm, &e->snapshot_id, err));
            has_snap = true;
            break;
        case MF_SEQ:
            FL_TRY(mv_long(&v, nm, &e->sequence_number, err));
            has_seq = true;
            break;
        default:
            FL_TRY(mv_long(&v, nm, &e->file_sequence_number, err));
            has_fseq = true;
            break;
        }
    }
    if (!has_status)
        return fl_errorf(err, FL_ECORRUPT, "status (field id 0) is missing or null");
    if (!has_file)
        return fl_errorf(err, FL_ECORRUPT, "data_file (field id 2) is missing");
    const fl_ice_manifest_file *mf = r->mf;
    if (!has_snap) {
        if (mf->added_snapshot_id == FL_ICE_NO_SNAPSHOT)
            return fl_errorf(
                err, FL_ECORRUPT,
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

typedef struct staging {
    fl_ice_manifest_entry **chunks;
    uint32_t nchunks, len;
} staging;

static fl_ice_manifest_entry *stage_next(staging *st, fl_error *err)
{
    if (st->len == st->nchunks * CHUNK) {
        if (st->nchunks >= UINT32_MAX / CHUNK - 1) {
            fl_errorf(err, FL_ELIMIT, "too many entries");
            return NULL;
        }
        fl_ice_manifest_entry **nc = realloc(st->chunks, (st->nchunks + 1) * sizeof *nc);
        fl_ice_manifest_entry *c = nc ? malloc(CHUNK * sizeof *c) : NULL;
        if (nc)
            st->chunks = nc;
        if (!c) {
            fl_errorf(err, FL_ENOMEM, "out of memory");
            return NULL;
        }
        st->chunks[st->nchunks++] = c;
    }
    return &st->chunks[st->len / CHUNK][st->len % CHUNK];
}

/* Decodes every record of every block straight from the block bytes. */
static fl_status read_all(rd *r, fl_avro_reader *ar, fl_ice_manifest_entry **out, uint32_t *n,
                          fl_error *err)
{
    const fl_avro_schema *rec = fl_avro_reader_schema(ar);
    staging st = {NULL, 0, 0};
    fl_status rc = FL_OK;
    for (;;) {
        fl_avro_block_info info;
        bool done;
        rc = fl_avro_reader_next_block(ar, &info, &done, err);
        if (rc || done)
            break;
        mcur c;
        c.b = fl_avro_reader_block_data(ar, &c.len);
        c.pos = 0;
        for (int64_t k = 0; k < info.records && rc == FL_OK; k++) {
            fl_ice_manifest_entry *e = stage_next(&st, err);
            rc = e ? read_entry(r, &c, rec, e, err) : err->code;
            if (rc)
                fl_error_prefix(err, "manifest %s: entry %u (block at byte offset %llu)", r->path,
                                st.len, (unsigned long long)info.offset);
            else
                st.len++;
        }
        if (rc == FL_OK && c.pos != c.len)
            rc = fl_errorf(
                err, FL_ECORRUPT,
                "manifest %s: block at byte offset %llu has %zu bytes after its last record",
                r->path, (unsigned long long)info.offset, c.len - c.pos);
        if (rc)
            break;
    }
    if (rc == FL_OK) {
        *out = fl_arena_alloc(r->out, (st.len ? st.len : 1) * sizeof **out);
        if (!*out)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; rc == FL_OK && i < st.nchunks; i++) {
            uint32_t k = st.len - i * CHUNK < CHUNK ? st.len - i * CHUNK : CHUNK;
            memcpy(*out + (size_t)i * CHUNK, st.chunks[i], (size_t)k * sizeof **out);
        }
        *n = st.len;
    }
    for (uint32_t i = 0; i < st.nchunks; i++)
        free(st.chunks[i]);
    free(st.chunks);
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
