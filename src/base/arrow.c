/*
 * arrow.c - export through the Arrow C Data Interface (see floe/arrow.h and
 * https://arrow.apache.org/docs/format/CDataInterface.html).
 *
 * Every exported ArrowSchema / ArrowArray node owns a private block holding
 * what it allocated (strings, buffer pointer array, children). Its release
 * callback releases the children first, frees its block, and marks itself
 * released (release = NULL), so each allocation is freed exactly once and a
 * consumer may move children out (by taking them and nulling their release).
 *
 * Buffers of floe vectors are moved, not copied: the vector's pointer is set
 * to NULL and the export takes ownership. Two layouts differ from Arrow and
 * are converted into new buffers: BOOLEAN (one byte per value -> bits) and
 * MAP (int64 offsets -> int32). Non-FLAT vectors are flattened first; a batch
 * selection is applied by compacting rows in place.
 *
 * Field metadata uses the C Data Interface binary format (native endian):
 *   int32 npairs; then per pair: int32 klen, key bytes, int32 vlen, value.
 * Keys: "PARQUET:field_id" (decimal), and for UUID "ARROW:extension:name" =
 * "arrow.uuid" plus an empty "ARROW:extension:metadata".
 */
#include "floe/arrow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- schema ---- */

typedef struct schema_priv {
    char *format;
    char *name;
    char *metadata;
    struct ArrowSchema **child_ptrs;
    struct ArrowSchema *child_mem;
    int64_t nchildren;
} schema_priv;

static void schema_release(struct ArrowSchema *s)
{
    if (!s || !s->release)
        return;
    schema_priv *p = s->private_data;
    if (p) {
        for (int64_t i = 0; i < p->nchildren; i++)
            if (p->child_ptrs[i] && p->child_ptrs[i]->release)
                p->child_ptrs[i]->release(p->child_ptrs[i]);
        free(p->child_ptrs);
        free(p->child_mem);
        free(p->format);
        free(p->name);
        free(p->metadata);
        free(p);
    }
    s->release = NULL;
    s->private_data = NULL;
}

static void put_i32(char *p, int32_t v)
{
    memcpy(p, &v, 4);
}

/* Encodes npairs key/value pairs; returns a malloc'd buffer or NULL. */
static char *encode_metadata(int npairs, const char *const *keys, const char *const *vals)
{
    size_t total = 4;
    for (int i = 0; i < npairs; i++)
        total += 8 + strlen(keys[i]) + strlen(vals[i]);
    char *buf = malloc(total);
    if (!buf)
        return NULL;
    char *p = buf;
    put_i32(p, npairs);
    p += 4;
    for (int i = 0; i < npairs; i++) {
        size_t kl = strlen(keys[i]), vl = strlen(vals[i]);
        put_i32(p, (int32_t)kl);
        memcpy(p + 4, keys[i], kl);
        p += 4 + kl;
        put_i32(p, (int32_t)vl);
        memcpy(p + 4, vals[i], vl);
        p += 4 + vl;
    }
    return buf;
}

static char *type_format(const fl_type *t)
{
    char buf[64];
    switch (t->id) {
    case FL_TYPE_BOOLEAN: return strdup("b");
    case FL_TYPE_INT32: return strdup("i");
    case FL_TYPE_INT64: return strdup("l");
    case FL_TYPE_FLOAT32: return strdup("f");
    case FL_TYPE_FLOAT64: return strdup("g");
    case FL_TYPE_DECIMAL:
        snprintf(buf, sizeof buf, "d:%d,%d", t->precision, t->scale);
        return strdup(buf);
    case FL_TYPE_DATE: return strdup("tdD");
    case FL_TYPE_TIME: return strdup("ttu");
    case FL_TYPE_TIMESTAMP: return strdup("tsu:");
    case FL_TYPE_TIMESTAMPTZ: return strdup("tsu:UTC");
    case FL_TYPE_TIMESTAMP_NS: return strdup("tsn:");
    case FL_TYPE_TIMESTAMPTZ_NS: return strdup("tsn:UTC");
    case FL_TYPE_STRING: return strdup("U");
    case FL_TYPE_BINARY: return strdup("Z");
    case FL_TYPE_UUID: return strdup("w:16");
    case FL_TYPE_FIXED: snprintf(buf, sizeof buf, "w:%d", t->fixed_len); return strdup(buf);
    case FL_TYPE_STRUCT: return strdup("+s");
    case FL_TYPE_LIST: return strdup("+L");
    case FL_TYPE_MAP: return strdup("+m");
    default: return NULL;
    }
}

static fl_status schema_node(struct ArrowSchema *out, const char *name, int32_t field_id,
                             bool nullable, const fl_type *t, fl_error *err);

/* Allocates n children for out. */
static fl_status schema_children(struct ArrowSchema *out, schema_priv *p, int64_t n, fl_error *err)
{
    if (n == 0)
        return FL_OK;
    p->child_ptrs = calloc((size_t)n, sizeof *p->child_ptrs);
    p->child_mem = calloc((size_t)n, sizeof *p->child_mem);
    if (!p->child_ptrs || !p->child_mem)
        return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
    for (int64_t i = 0; i < n; i++)
        p->child_ptrs[i] = &p->child_mem[i];
    p->nchildren = n;
    out->n_children = n;
    out->children = p->child_ptrs;
    return FL_OK;
}

static fl_status schema_fill(struct ArrowSchema *out, schema_priv *p, const char *name,
                             int32_t field_id, bool nullable, const fl_type *t, fl_error *err)
{
    p->format = type_format(t);
    if (!p->format)
        return fl_errorf(err, FL_EUNSUPPORTED, "arrow: field '%s' has unknown type %d",
                         name ? name : "", (int)t->id);
    p->name = strdup(name ? name : "");
    if (!p->name)
        return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
    out->format = p->format;
    out->name = p->name;
    out->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
    const char *keys[3], *vals[3];
    int np = 0;
    char idbuf[16];
    if (field_id > 0) {
        snprintf(idbuf, sizeof idbuf, "%d", field_id);
        keys[np] = "PARQUET:field_id";
        vals[np++] = idbuf;
    }
    if (t->id == FL_TYPE_UUID) {
        keys[np] = "ARROW:extension:name";
        vals[np++] = "arrow.uuid";
        keys[np] = "ARROW:extension:metadata";
        vals[np++] = "";
    }
    if (np) {
        p->metadata = encode_metadata(np, keys, vals);
        if (!p->metadata)
            return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
        out->metadata = p->metadata;
    }
    switch (t->id) {
    case FL_TYPE_STRUCT:
        FL_TRY(schema_children(out, p, t->nchildren, err));
        for (uint32_t i = 0; i < t->nchildren; i++) {
            const fl_field *f = &t->children[i];
            FL_TRY(schema_node(out->children[i], f->name, f->field_id, f->nullable, &f->type, err));
        }
        return FL_OK;
    case FL_TYPE_LIST: {
        if (t->nchildren < 1)
            return fl_errorf(err, FL_EINVAL, "arrow: list '%s' has no element", p->name);
        FL_TRY(schema_children(out, p, 1, err));
        const fl_field *e = &t->children[0];
        return schema_node(out->children[0], e->name ? e->name : "element", e->field_id,
                           e->nullable, &e->type, err);
    }
    case FL_TYPE_MAP: {
        if (t->nchildren < 2)
            return fl_errorf(err, FL_EINVAL, "arrow: map '%s' needs a key and a value", p->name);
        FL_TRY(schema_children(out, p, 1, err));
        /* Arrow: map<entries: struct<key, value>> with non-nullable entries and keys */
        struct ArrowSchema *entries = out->children[0];
        schema_priv *ep = calloc(1, sizeof *ep);
        if (!ep)
            return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
        entries->private_data = ep;
        entries->release = schema_release;
        ep->format = strdup("+s");
        ep->name = strdup("entries");
        if (!ep->format || !ep->name)
            return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
        entries->format = ep->format;
        entries->name = ep->name;
        FL_TRY(schema_children(entries, ep, 2, err));
        const fl_field *k = &t->children[0], *v = &t->children[1];
        FL_TRY(schema_node(entries->children[0], k->name ? k->name : "key", k->field_id, false,
                           &k->type, err));
        return schema_node(entries->children[1], v->name ? v->name : "value", v->field_id,
                           v->nullable, &v->type, err);
    }
    default: return FL_OK;
    }
}

/* Fills *out (zeroed first). On failure *out is released and zeroed. */
static fl_status schema_node(struct ArrowSchema *out, const char *name, int32_t field_id,
                             bool nullable, const fl_type *t, fl_error *err)
{
    memset(out, 0, sizeof *out);
    schema_priv *p = calloc(1, sizeof *p);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
    out->private_data = p;
    out->release = schema_release;
    fl_status rc = schema_fill(out, p, name, field_id, nullable, t, err);
    if (rc) {
        schema_release(out);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

fl_status fl_arrow_export_schema(const fl_schema *schema, struct ArrowSchema *out, fl_error *err)
{
    fl_type root = {.id = FL_TYPE_STRUCT, .nchildren = schema->nfields, .children = schema->fields};
    return schema_node(out, "", 0, false, &root, err);
}

/* ---- arrays ---- */

typedef struct array_priv {
    const void *buffers[3];
    void *owned[3]; /* buffers this node frees */
    struct ArrowArray **child_ptrs;
    struct ArrowArray *child_mem;
    int64_t nchildren;
} array_priv;

static void array_release(struct ArrowArray *a)
{
    if (!a || !a->release)
        return;
    array_priv *p = a->private_data;
    if (p) {
        for (int64_t i = 0; i < p->nchildren; i++)
            if (p->child_ptrs[i] && p->child_ptrs[i]->release)
                p->child_ptrs[i]->release(p->child_ptrs[i]);
        free(p->child_ptrs);
        free(p->child_mem);
        for (int i = 0; i < 3; i++)
            free(p->owned[i]);
        free(p);
    }
    a->release = NULL;
    a->private_data = NULL;
}

static array_priv *array_start(struct ArrowArray *out, int64_t length, int64_t nbuffers)
{
    memset(out, 0, sizeof *out);
    array_priv *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    out->private_data = p;
    out->release = array_release;
    out->length = length;
    out->n_buffers = nbuffers;
    out->buffers = p->buffers;
    return p;
}

static fl_status array_children(struct ArrowArray *out, array_priv *p, int64_t n, fl_error *err)
{
    if (n == 0)
        return FL_OK;
    p->child_ptrs = calloc((size_t)n, sizeof *p->child_ptrs);
    p->child_mem = calloc((size_t)n, sizeof *p->child_mem);
    if (!p->child_ptrs || !p->child_mem)
        return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
    for (int64_t i = 0; i < n; i++)
        p->child_ptrs[i] = &p->child_mem[i];
    p->nchildren = n;
    out->n_children = n;
    out->children = p->child_ptrs;
    return FL_OK;
}

/* Sets buffer i to an owned pointer. */
static void own(array_priv *p, int i, void *buf)
{
    p->buffers[i] = buf;
    p->owned[i] = buf;
}

/* A valid, freeable buffer for empty arrays (Arrow wants non-NULL data). */
static fl_status own_empty(array_priv *p, int i, size_t bytes, fl_error *err)
{
    void *b = calloc(1, bytes ? bytes : 1);
    if (!b)
        return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
    own(p, i, b);
    return FL_OK;
}

static int64_t count_nulls(const uint8_t *bits, uint32_t n)
{
    if (!bits)
        return 0;
    int64_t valid = 0;
    uint32_t full = n / 8;
    for (uint32_t i = 0; i < full; i++)
        valid += __builtin_popcount(bits[i]);
    for (uint32_t i = full * 8; i < n; i++)
        valid += (bits[i >> 3] >> (i & 7)) & 1;
    return (int64_t)n - valid;
}

/* Moves the validity bitmap out of v into buffer 0. */
static void take_validity(fl_vector *v, struct ArrowArray *out, array_priv *p)
{
    out->null_count = count_nulls(v->validity, v->len);
    if (v->validity && out->null_count > 0)
        own(p, 0, v->validity);
    else
        free(v->validity);
    v->validity = NULL;
}

static fl_status export_vector(fl_vector *v, struct ArrowArray *out, fl_error *err);

/* Frees whatever buffers v still holds and leaves it empty but usable
 * (the next reserve reallocates). */
static void drop_buffers(fl_vector *v)
{
    free(v->validity);
    free(v->data);
    free(v->offsets);
    free(v->heap);
    v->validity = NULL;
    v->data = NULL;
    v->offsets = NULL;
    v->heap = NULL;
    v->len = 0;
    v->cap = 0;
    v->heap_len = 0;
    v->heap_cap = 0;
}

/* Moves v->offsets (int64, n + 1 entries) into buffer i. */
static fl_status take_offsets64(fl_vector *v, array_priv *p, int i, fl_error *err)
{
    if (!v->offsets)
        return own_empty(p, i, sizeof(int64_t), err);
    own(p, i, v->offsets);
    v->offsets = NULL;
    return FL_OK;
}

static fl_status export_fill(fl_vector *v, struct ArrowArray *out, array_priv *p, fl_error *err)
{
    const fl_type *t = v->type;
    uint32_t n = v->len;
    take_validity(v, out, p);
    switch (t->id) {
    case FL_TYPE_BOOLEAN: {
        uint8_t *bits = calloc(1, ((size_t)n + 7) / 8 + 1);
        if (!bits)
            return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
        for (uint32_t i = 0; i < n; i++)
            if (v->data[i])
                bits[i >> 3] |= (uint8_t)(1u << (i & 7));
        own(p, 1, bits);
        break;
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
        FL_TRY(take_offsets64(v, p, 1, err));
        if (!v->heap)
            FL_TRY(own_empty(p, 2, 1, err));
        else
            own(p, 2, v->heap);
        v->heap = NULL;
        break;
    case FL_TYPE_STRUCT:
        FL_TRY(array_children(out, p, v->nchildren, err));
        for (uint32_t i = 0; i < v->nchildren; i++) {
            if (v->children[i].len < n)
                return fl_errorf(err, FL_EINVAL, "arrow: struct child %u has %u rows, parent %u", i,
                                 v->children[i].len, n);
            FL_TRY(export_vector(&v->children[i], out->children[i], err));
        }
        break;
    case FL_TYPE_LIST:
        if (n && v->offsets[n] > (int64_t)v->children[0].len)
            return fl_errorf(err, FL_EINVAL, "arrow: list offsets exceed the child's %u rows",
                             v->children[0].len);
        FL_TRY(take_offsets64(v, p, 1, err));
        FL_TRY(array_children(out, p, 1, err));
        FL_TRY(export_vector(&v->children[0], out->children[0], err));
        break;
    case FL_TYPE_MAP: {
        int64_t total = n && v->offsets ? v->offsets[n] : 0;
        if (total > INT32_MAX)
            return fl_errorf(err, FL_EOVERFLOW, "arrow: map with %lld entries exceeds int32",
                             (long long)total);
        if (total > (int64_t)v->children[0].len || total > (int64_t)v->children[1].len)
            return fl_errorf(err, FL_EINVAL, "arrow: map offsets exceed the entries");
        int32_t *o32 = malloc(((size_t)n + 1) * sizeof *o32);
        if (!o32)
            return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
        for (uint32_t i = 0; i <= n; i++)
            o32[i] = n && v->offsets ? (int32_t)v->offsets[i] : 0;
        own(p, 1, o32);
        FL_TRY(array_children(out, p, 1, err));
        /* entries: a non-null struct of keys and values */
        struct ArrowArray *entries = out->children[0];
        array_priv *ep = array_start(entries, v->children[0].len, 1);
        if (!ep)
            return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
        FL_TRY(array_children(entries, ep, 2, err));
        FL_TRY(export_vector(&v->children[0], entries->children[0], err));
        FL_TRY(export_vector(&v->children[1], entries->children[1], err));
        break;
    }
    default: /* fixed width */
        if (!v->data)
            FL_TRY(own_empty(p, 1, fl_type_width(t), err));
        else
            own(p, 1, v->data);
        v->data = NULL;
        break;
    }
    drop_buffers(v);
    return FL_OK;
}

static int64_t buffers_for(fl_type_id id)
{
    switch (id) {
    case FL_TYPE_STRUCT: return 1;
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: return 3;
    default: return 2;
    }
}

/* Exports one (any-encoding) vector; on failure *out is released and zeroed. */
static fl_status export_vector(fl_vector *v, struct ArrowArray *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    FL_TRY(fl_vector_flatten(v, err));
    array_priv *p = array_start(out, v->len, buffers_for(v->type->id));
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
    fl_status rc = export_fill(v, out, p, err);
    if (rc) {
        drop_buffers(v);
        array_release(out);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

/* ---- selection compaction ---- */

/* Keeps rows idx[0..count) (ascending) of a FLAT vector, in place: each
 * destination row j <= idx[j], so nothing is overwritten before it is read
 * (the one offset that can be is stashed). */
static void compact_flat(fl_vector *v, const uint32_t *idx, uint32_t count)
{
    if (v->validity)
        for (uint32_t j = 0; j < count; j++)
            fl_bitmap_set(v->validity, j, fl_vector_is_valid(v, idx[j]));
    if (fl_type_is_varlen(v->type)) {
        int64_t pos = 0, stash = v->offsets[0];
        for (uint32_t j = 0; j < count; j++) {
            uint32_t r = idx[j];
            int64_t start = r == j ? stash : v->offsets[r];
            int64_t end = v->offsets[r + 1];
            if (end > start)
                memmove(v->heap + pos, v->heap + start, (size_t)(end - start));
            pos += end - start;
            stash = v->offsets[j + 1];
            v->offsets[j + 1] = pos;
        }
        v->offsets[0] = 0;
        v->heap_len = (size_t)pos;
    } else {
        size_t w = fl_type_width(v->type);
        for (uint32_t j = 0; j < count; j++)
            if (idx[j] != j)
                memcpy(v->data + (size_t)j * w, v->data + (size_t)idx[j] * w, w);
    }
    v->len = count;
}

static fl_status compact_vector(fl_vector *v, const uint32_t *idx, uint32_t count, fl_error *err)
{
    if (!fl_type_is_nested(v->type)) {
        FL_TRY(fl_vector_flatten(v, err));
        compact_flat(v, idx, count);
        return FL_OK;
    }
    fl_vector tmp;
    FL_TRY(fl_vector_init(&tmp, v->type, err));
    fl_status rc = fl_vector_reserve(&tmp, count, err);
    for (uint32_t j = 0; rc == FL_OK && j < count; j++)
        rc = fl_vector_append_from(&tmp, v, idx[j], err);
    if (rc) {
        fl_vector_destroy(&tmp);
        return rc;
    }
    fl_vector old = *v;
    *v = tmp;
    fl_vector_destroy(&old);
    return FL_OK;
}

static fl_status apply_selection(fl_batch *b, fl_error *err)
{
    const fl_sel *sel = b->sel;
    for (uint32_t j = 0; j < sel->count; j++)
        if (sel->idx[j] >= b->nrows || (j && sel->idx[j] <= sel->idx[j - 1]))
            return fl_errorf(err, FL_EINVAL,
                             "arrow: selection entry %u (row %u) is out of order or past %u rows",
                             j, sel->idx[j], b->nrows);
    for (uint32_t c = 0; c < b->ncols; c++) {
        fl_status rc = compact_vector(&b->cols[c], sel->idx, sel->count, err);
        if (rc)
            return fl_error_prefix(err, "column '%s'", b->schema->fields[c].name);
    }
    b->nrows = sel->count;
    b->sel = NULL;
    return FL_OK;
}

fl_status fl_arrow_export_batch(fl_batch *b, struct ArrowArray *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    fl_status rc = FL_OK;
    if (b->sel)
        rc = apply_selection(b, err);
    for (uint32_t c = 0; rc == FL_OK && c < b->ncols; c++)
        if (b->cols[c].len != b->nrows)
            rc = fl_errorf(err, FL_EINVAL, "arrow: column '%s' has %u rows, batch has %u",
                           b->schema->fields[c].name, b->cols[c].len, b->nrows);
    array_priv *p = NULL;
    if (rc == FL_OK && !(p = array_start(out, b->nrows, 1)))
        rc = fl_errorf(err, FL_ENOMEM, "arrow: out of memory");
    if (rc == FL_OK)
        rc = array_children(out, p, b->ncols, err);
    for (uint32_t c = 0; rc == FL_OK && c < b->ncols; c++) {
        rc = export_vector(&b->cols[c], out->children[c], err);
        if (rc)
            fl_error_prefix(err, "column '%s'", b->schema->fields[c].name);
    }
    if (rc) {
        array_release(out);
        memset(out, 0, sizeof *out);
    }
    fl_batch_reset(b);
    return rc;
}
