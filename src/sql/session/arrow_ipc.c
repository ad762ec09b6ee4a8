/*
 * arrow_ipc.c - Arrow IPC stream messages (Schema, RecordBatch, EOS) from
 * floe batches. See arrow_ipc.h for the type mapping.
 *
 * FRAMING (Columnar.rst "Encapsulated message format"): each message is
 *   uint32 0xFFFFFFFF (continuation), int32 metadata size M (multiple of 8,
 *   including padding), M bytes of flatbuffer Message (padded with zeros),
 *   then bodyLength bytes of body (each buffer padded to 8 bytes).
 * The stream ends with 0xFFFFFFFF 0x00000000. Little-endian throughout.
 *
 * FLATBUFFERS (Message.fbs, Schema.fbs) are built front to back: a table is
 * written as its vtable (uint16 vtable bytes, uint16 table bytes, uint16
 * field offsets, 0 = absent) followed by the table (int32 soffset = table
 * position - vtable position, then the fields, each aligned to its size);
 * strings, vectors and sub-tables come after the table that refers to them,
 * so every uoffset (target - field position) is positive. Fields are written
 * even when equal to their schema default (Date.unit DAY differs from the
 * default MILLISECOND, so that matters). The message starts 8-aligned in
 * the stream, so alignments relative to its start are absolute.
 *
 * BODY: per field in depth-first order one FieldNode {length, null_count}
 * and its buffers {offset, length}: validity (length 0 when no nulls),
 * then data (fixed width; Bool bit-packed), or int32 offsets + bytes
 * (Utf8/Binary), or int32 offsets (List/Map, then the child). Map's child
 * is a non-null "entries" struct of key and value.
 *
 * Ownership: fl_ipc_buf memory is malloc'd and freed by fl_ipc_buf_free.
 */
#include "floe/arrow_ipc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sql/func.h"

/* ---- growable buffers ---- */

static bool buf_grow(fl_ipc_buf *b, size_t more)
{
    if (b->len + more <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + more) {
        if (cap > SIZE_MAX / 2)
            return false;
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        return false;
    b->p = p;
    b->cap = cap;
    return true;
}

static bool buf_put(fl_ipc_buf *b, const void *d, size_t n)
{
    if (!buf_grow(b, n))
        return false;
    if (n)
        memcpy(b->p + b->len, d, n);
    b->len += n;
    return true;
}

static bool buf_zero(fl_ipc_buf *b, size_t n)
{
    if (!buf_grow(b, n))
        return false;
    memset(b->p + b->len, 0, n);
    b->len += n;
    return true;
}

static bool buf_pad(fl_ipc_buf *b, size_t align)
{
    size_t r = b->len % align;
    return r == 0 || buf_zero(b, align - r);
}

void fl_ipc_buf_free(fl_ipc_buf *b)
{
    if (!b)
        return;
    free(b->p);
    memset(b, 0, sizeof *b);
}

static void wr_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void wr_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void wr_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- flatbuffer builder ---- */

#define FB_MAXF 8

typedef struct fbf {
    uint8_t size; /* 0 = absent; 1, 2, 4, 8 */
    bool off;     /* a uoffset to patch later (size 4) */
    uint64_t v;
} fbf;

typedef struct fb {
    fl_ipc_buf b;
    bool oom;
} fb;

/* Writes a table of n fields; pos[i] receives each field's absolute position. */
static size_t fb_table(fb *f, uint32_t n, const fbf *fld, size_t *pos)
{
    size_t off[FB_MAXF] = {0};
    size_t o = 4, maxal = 4;
    for (uint32_t i = 0; i < n; i++) {
        if (!fld[i].size)
            continue;
        size_t s = fld[i].size;
        o = (o + s - 1) / s * s;
        off[i] = o;
        o += s;
        if (s > maxal)
            maxal = s;
    }
    size_t tsize = (o + maxal - 1) / maxal * maxal;
    if (!buf_pad(&f->b, 2) || !buf_grow(&f->b, 4 + 2 * n)) {
        f->oom = true;
        return 0;
    }
    size_t vt = f->b.len;
    uint8_t *p = f->b.p + vt;
    wr_u16(p, (uint16_t)(4 + 2 * n));
    wr_u16(p + 2, (uint16_t)tsize);
    for (uint32_t i = 0; i < n; i++)
        wr_u16(p + 4 + 2 * i, (uint16_t)off[i]);
    f->b.len += 4 + 2 * n;
    if (!buf_pad(&f->b, maxal) || !buf_grow(&f->b, tsize)) {
        f->oom = true;
        return 0;
    }
    size_t t = f->b.len;
    memset(f->b.p + t, 0, tsize);
    wr_u32(f->b.p + t, (uint32_t)(t - vt));
    for (uint32_t i = 0; i < n; i++) {
        if (!fld[i].size)
            continue;
        uint8_t *q = f->b.p + t + off[i];
        switch (fld[i].size) {
        case 1:
            q[0] = (uint8_t)fld[i].v;
            break;
        case 2:
            wr_u16(q, (uint16_t)fld[i].v);
            break;
        case 4:
            wr_u32(q, (uint32_t)fld[i].v);
            break;
        default:
            wr_u64(q, fld[i].v);
        }
        if (pos)
            pos[i] = t + off[i];
    }
    f->b.len += tsize;
    return t;
}

static void fb_patch(fb *f, size_t at, size_t target)
{
    if (!f->oom)
        wr_u32(f->b.p + at, (uint32_t)(target - at));
}

static size_t fb_string(fb *f, const char *s)
{
    size_t n = strlen(s);
    if (!buf_pad(&f->b, 4) || !buf_grow(&f->b, 4 + n + 1)) {
        f->oom = true;
        return 0;
    }
    size_t at = f->b.len;
    wr_u32(f->b.p + at, (uint32_t)n);
    memcpy(f->b.p + at + 4, s, n);
    f->b.p[at + 4 + n] = 0;
    f->b.len += 4 + n + 1;
    return at;
}

/* A vector of n elements of esize bytes aligned to align; returns the
 * position of the length prefix (elements follow it, zeroed). */
static size_t fb_vector(fb *f, uint32_t n, size_t esize, size_t align)
{
    while (!f->oom && (f->b.len + 4) % align)
        if (!buf_zero(&f->b, 1))
            f->oom = true;
    if (f->oom || !buf_grow(&f->b, 4 + (size_t)n * esize)) {
        f->oom = true;
        return 0;
    }
    size_t at = f->b.len;
    wr_u32(f->b.p + at, n);
    memset(f->b.p + at + 4, 0, (size_t)n * esize);
    f->b.len += 4 + (size_t)n * esize;
    return at;
}

/* ---- schema ---- */

enum {
    T_INT = 2,
    T_FLOAT = 3,
    T_BINARY = 4,
    T_UTF8 = 5,
    T_BOOL = 6,
    T_DECIMAL = 7,
    T_DATE = 8,
    T_TIME = 9,
    T_TIMESTAMP = 10,
    T_INTERVAL = 11,
    T_LIST = 12,
    T_STRUCT = 13,
    T_FSB = 15,
    T_MAP = 17,
};

/* Union tag and the type table for t; writes the table (and its strings). */
static size_t write_type(fb *f, const fl_type *t, uint8_t *tag)
{
    fbf x[3];
    memset(x, 0, sizeof x);
    size_t pos[3] = {0};
    uint32_t n = 0;
    bool tz = false;
    if (fl_type_is_interval(t)) {
        *tag = T_INTERVAL;
        x[0] = (fbf){2, false, 2}; /* MONTH_DAY_NANO */
        return fb_table(f, 1, x, pos);
    }
    switch (t->id) {
    case FL_TYPE_BOOLEAN:
        *tag = T_BOOL;
        break;
    case FL_TYPE_INT32:
    case FL_TYPE_INT64:
        *tag = T_INT;
        x[0] = (fbf){4, false, t->id == FL_TYPE_INT32 ? 32 : 64};
        x[1] = (fbf){1, false, 1};
        n = 2;
        break;
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64:
        *tag = T_FLOAT;
        x[0] = (fbf){2, false, t->id == FL_TYPE_FLOAT32 ? 1 : 2};
        n = 1;
        break;
    case FL_TYPE_DECIMAL:
        *tag = T_DECIMAL;
        x[0] = (fbf){4, false, (uint32_t)t->precision};
        x[1] = (fbf){4, false, (uint32_t)t->scale};
        x[2] = (fbf){4, false, 128};
        n = 3;
        break;
    case FL_TYPE_DATE:
        *tag = T_DATE;
        x[0] = (fbf){2, false, 0}; /* DAY */
        n = 1;
        break;
    case FL_TYPE_TIME:
        *tag = T_TIME;
        x[0] = (fbf){2, false, 2}; /* MICROSECOND */
        x[1] = (fbf){4, false, 64};
        n = 2;
        break;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        *tag = T_TIMESTAMP;
        x[0] = (fbf){2, false,
                     (t->id == FL_TYPE_TIMESTAMP || t->id == FL_TYPE_TIMESTAMPTZ) ? 2 : 3};
        tz = t->id == FL_TYPE_TIMESTAMPTZ || t->id == FL_TYPE_TIMESTAMPTZ_NS;
        if (tz)
            x[1] = (fbf){4, true, 0};
        n = 2;
        break;
    case FL_TYPE_STRING:
        *tag = T_UTF8;
        break;
    case FL_TYPE_BINARY:
        *tag = T_BINARY;
        break;
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED:
        *tag = T_FSB;
        x[0] = (fbf){4, false, t->id == FL_TYPE_UUID ? 16u : (uint32_t)t->fixed_len};
        n = 1;
        break;
    case FL_TYPE_STRUCT:
        *tag = T_STRUCT;
        break;
    case FL_TYPE_LIST:
        *tag = T_LIST;
        break;
    case FL_TYPE_MAP:
        *tag = T_MAP;
        x[0] = (fbf){1, false, 0};
        n = 1;
        break;
    default:
        *tag = 0;
        return 0;
    }
    size_t at = fb_table(f, n, x, pos);
    if (tz)
        fb_patch(f, pos[1], fb_string(f, "UTC"));
    return at;
}

typedef struct ipc_field {
    const char *name;
    const fl_type *type; /* NULL: the synthetic map "entries" struct */
    const fl_type *map;  /* for entries: the map type */
    bool nullable;
} ipc_field;

static size_t write_field(fb *f, const ipc_field *fd);

static size_t write_children(fb *f, const ipc_field *kids, uint32_t n)
{
    size_t vec = fb_vector(f, n, 4, 4);
    for (uint32_t i = 0; i < n && !f->oom; i++) {
        size_t t = write_field(f, &kids[i]);
        fb_patch(f, vec + 4 + 4 * i, t);
    }
    return vec;
}

static size_t write_uuid_metadata(fb *f)
{
    static const char *const kv[2][2] = {{"ARROW:extension:name", "arrow.uuid"},
                                         {"ARROW:extension:metadata", ""}};
    size_t vec = fb_vector(f, 2, 4, 4);
    for (uint32_t i = 0; i < 2 && !f->oom; i++) {
        fbf x[2] = {{4, true, 0}, {4, true, 0}};
        size_t pos[2];
        size_t t = fb_table(f, 2, x, pos);
        fb_patch(f, vec + 4 + 4 * i, t);
        fb_patch(f, pos[0], fb_string(f, kv[i][0]));
        fb_patch(f, pos[1], fb_string(f, kv[i][1]));
    }
    return vec;
}

/* Field: name(0) nullable(1) type_type(2) type(3) dictionary(4) children(5)
 * custom_metadata(6). */
static size_t write_field(fb *f, const ipc_field *fd)
{
    const fl_type *t = fd->type;
    bool uuid = t && t->id == FL_TYPE_UUID;
    fbf x[7];
    memset(x, 0, sizeof x);
    x[0] = (fbf){4, true, 0};
    x[1] = (fbf){1, false, fd->nullable ? 1 : 0};
    x[2] = (fbf){1, false, t ? 0 : T_STRUCT}; /* tag patched below */
    x[3] = (fbf){4, true, 0};
    x[5] = (fbf){4, true, 0};
    if (uuid)
        x[6] = (fbf){4, true, 0};
    size_t pos[7] = {0};
    size_t at = fb_table(f, 7, x, pos);
    if (f->oom)
        return 0;
    fb_patch(f, pos[0], fb_string(f, fd->name ? fd->name : ""));
    uint8_t tag = T_STRUCT;
    size_t tt;
    if (t) {
        tt = write_type(f, t, &tag);
    } else {
        tt = fb_table(f, 0, NULL, NULL);
    }
    if (!f->oom)
        f->b.p[pos[2]] = tag;
    fb_patch(f, pos[3], tt);
    ipc_field kids[2];
    uint32_t nk = 0;
    size_t ch;
    if (!t) { /* map entries */
        kids[0] = (ipc_field){"key", &fd->map->children[0].type, NULL, false};
        kids[1] = (ipc_field){"value", &fd->map->children[1].type, NULL, true};
        ch = write_children(f, kids, 2);
    } else if (t->id == FL_TYPE_STRUCT) {
        size_t vec = fb_vector(f, t->nchildren, 4, 4);
        for (uint32_t i = 0; i < t->nchildren && !f->oom; i++) {
            ipc_field k = {t->children[i].name, &t->children[i].type, NULL, true};
            fb_patch(f, vec + 4 + 4 * i, write_field(f, &k));
        }
        ch = vec;
    } else if (t->id == FL_TYPE_LIST) {
        kids[0] = (ipc_field){"element", &t->children[0].type, NULL, true};
        nk = 1;
        ch = write_children(f, kids, nk);
    } else if (t->id == FL_TYPE_MAP) {
        kids[0] = (ipc_field){"entries", NULL, t, false};
        ch = write_children(f, kids, 1);
    } else {
        ch = fb_vector(f, 0, 4, 4);
    }
    fb_patch(f, pos[5], ch);
    if (uuid)
        fb_patch(f, pos[6], write_uuid_metadata(f));
    return at;
}

static bool type_supported(const fl_type *t)
{
    if (t->id < FL_TYPE_BOOLEAN || t->id >= FL_TYPE__COUNT)
        return false;
    if (t->id == FL_TYPE_LIST && t->nchildren != 1)
        return false;
    if (t->id == FL_TYPE_MAP && t->nchildren != 2)
        return false;
    for (uint32_t i = 0; i < t->nchildren; i++)
        if (!type_supported(&t->children[i].type))
            return false;
    return true;
}

/* Frames the flatbuffer in f and appends it plus the body to out. */
static fl_status frame(fb *f, const fl_ipc_buf *body, fl_ipc_buf *out, fl_error *err)
{
    if (f->oom || !buf_pad(&f->b, 8)) {
        fl_ipc_buf_free(&f->b);
        return fl_errorf(err, FL_ENOMEM, "out of memory encoding an Arrow IPC message");
    }
    uint8_t hdr[8];
    wr_u32(hdr, 0xFFFFFFFFu);
    wr_u32(hdr + 4, (uint32_t)f->b.len);
    bool ok = buf_put(out, hdr, 8) && buf_put(out, f->b.p, f->b.len) &&
              (!body || buf_put(out, body->p, body->len));
    fl_ipc_buf_free(&f->b);
    return ok ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory encoding an Arrow IPC message");
}

/* Message: version(0) header_type(1) header(2) bodyLength(3). Returns the
 * position of the header offset field to patch. */
static size_t write_message(fb *f, uint8_t header_type, uint64_t body_len)
{
    if (!buf_zero(&f->b, 4)) { /* root uoffset */
        f->oom = true;
        return 0;
    }
    fbf x[4] = {{2, false, 4}, {1, false, header_type}, {4, true, 0}, {8, false, body_len}};
    size_t pos[4];
    size_t t = fb_table(f, 4, x, pos);
    fb_patch(f, 0, t);
    return pos[2];
}

fl_status fl_arrow_ipc_schema(const fl_schema *schema, fl_ipc_buf *out, fl_error *err)
{
    for (uint32_t i = 0; i < schema->nfields; i++)
        if (!type_supported(&schema->fields[i].type))
            return fl_errorf(err, FL_EUNSUPPORTED, "column \"%s\": type has no Arrow mapping",
                             schema->fields[i].name);
    fb f = {0};
    size_t hdr = write_message(&f, 1, 0);
    fbf x[2] = {{2, false, 0}, {4, true, 0}};
    size_t pos[2];
    size_t st = fb_table(&f, 2, x, pos);
    fb_patch(&f, hdr, st);
    size_t vec = fb_vector(&f, schema->nfields, 4, 4);
    fb_patch(&f, pos[1], vec);
    for (uint32_t i = 0; i < schema->nfields && !f.oom; i++) {
        ipc_field fd = {schema->fields[i].name, &schema->fields[i].type, NULL, true};
        fb_patch(&f, vec + 4 + 4 * i, write_field(&f, &fd));
    }
    return frame(&f, NULL, out, err);
}

fl_status fl_arrow_ipc_eos(fl_ipc_buf *out, fl_error *err)
{
    uint8_t eos[8];
    wr_u32(eos, 0xFFFFFFFFu);
    wr_u32(eos + 4, 0);
    return buf_put(out, eos, 8) ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

/* ---- record batches ---- */

typedef struct enc {
    fl_ipc_buf body;
    int64_t *nodes; /* pairs: length, null_count */
    uint32_t nnodes, capnodes;
    int64_t *bufs; /* pairs: offset, length */
    uint32_t nbufs, capbufs;
    fl_error *err;
} enc;

static fl_status oom(enc *e)
{
    return fl_errorf(e->err, FL_ENOMEM, "out of memory encoding an Arrow record batch");
}

static bool push_pair(int64_t **arr, uint32_t *n, uint32_t *cap, int64_t a, int64_t b)
{
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 16;
        int64_t *p = realloc(*arr, (size_t)nc * 2 * sizeof *p);
        if (!p)
            return false;
        *arr = p;
        *cap = nc;
    }
    (*arr)[2 * *n] = a;
    (*arr)[2 * *n + 1] = b;
    (*n)++;
    return true;
}

/* Reserves a body buffer of len bytes (zeroed); returns its start or NULL. */
static uint8_t *body_buffer(enc *e, size_t len)
{
    size_t padded = (len + 7) / 8 * 8;
    size_t at = e->body.len;
    if (!e->body.p && !buf_grow(&e->body, 64)) /* a real pointer even for 0 bytes */
        return NULL;
    if (!buf_zero(&e->body, padded) || !push_pair(&e->bufs, &e->nbufs, &e->capbufs, (int64_t)at,
                                                  (int64_t)len))
        return NULL;
    return e->body.p + at;
}

static fl_status enc_vector(enc *e, const fl_vector *v, const uint32_t *rows, uint32_t n);

/* Validity buffer + node; base rows into brow (n entries). */
static fl_status enc_validity(enc *e, const fl_unified *u, const uint32_t *rows, uint32_t n,
                              uint32_t *brow, bool *valid)
{
    int64_t nulls = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = rows ? rows[i] : i;
        brow[i] = fl_unified_row(u, r);
        valid[i] = fl_unified_is_valid(u, r);
        nulls += !valid[i];
    }
    if (!push_pair(&e->nodes, &e->nnodes, &e->capnodes, n, nulls))
        return oom(e);
    uint8_t *bits = body_buffer(e, nulls ? (n + 7) / 8 : 0);
    if (!bits)
        return oom(e);
    if (nulls)
        for (uint32_t i = 0; i < n; i++)
            if (valid[i])
                bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    return FL_OK;
}

static fl_status enc_varlen(enc *e, const fl_vector *b, const uint32_t *brow, const bool *valid,
                            uint32_t n)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        if (valid[i])
            total += (uint64_t)(b->offsets[brow[i] + 1] - b->offsets[brow[i]]);
    if (total > INT32_MAX)
        return fl_errorf(e->err, FL_ELIMIT, "a batch holds more than 2 GiB of string bytes");
    uint8_t *off = body_buffer(e, ((size_t)n + 1) * 4);
    if (!off)
        return oom(e);
    size_t offpos = (size_t)(off - e->body.p);
    uint8_t *data = body_buffer(e, (size_t)total);
    if (!data)
        return oom(e);
    off = e->body.p + offpos;
    uint32_t o = 0;
    wr_u32(off, 0);
    for (uint32_t i = 0; i < n; i++) {
        if (valid[i]) {
            size_t len;
            const uint8_t *s = fl_vector_bytes(b, brow[i], &len);
            memcpy(data + o, s, len);
            o += (uint32_t)len;
        }
        wr_u32(off + 4 * (i + 1), o);
    }
    return FL_OK;
}

/* List/Map offsets; child rows into *crows (malloc'd), count *nc. */
static fl_status enc_offsets(enc *e, const fl_vector *b, const uint32_t *brow, const bool *valid,
                             uint32_t n, uint32_t **crows, uint32_t *nc)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        if (valid[i])
            total += (uint64_t)(b->offsets[brow[i] + 1] - b->offsets[brow[i]]);
    if (total > INT32_MAX)
        return fl_errorf(e->err, FL_ELIMIT, "a batch holds more than 2^31 list elements");
    uint8_t *off = body_buffer(e, ((size_t)n + 1) * 4);
    if (!off)
        return oom(e);
    uint32_t *cr = malloc((total ? total : 1) * sizeof *cr);
    if (!cr)
        return oom(e);
    uint32_t o = 0;
    wr_u32(off, 0);
    for (uint32_t i = 0; i < n; i++) {
        if (valid[i])
            for (int64_t k = b->offsets[brow[i]]; k < b->offsets[brow[i] + 1]; k++)
                cr[o++] = (uint32_t)k;
        wr_u32(off + 4 * (i + 1), o);
    }
    *crows = cr;
    *nc = o;
    return FL_OK;
}

static fl_status enc_body(enc *e, const fl_vector *b, const uint32_t *brow, const bool *valid,
                          uint32_t n)
{
    const fl_type *t = b->type;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: {
        uint8_t *bits = body_buffer(e, (n + 7) / 8);
        if (!bits)
            return oom(e);
        for (uint32_t i = 0; i < n; i++)
            if (valid[i] && b->data[brow[i]])
                bits[i >> 3] |= (uint8_t)(1u << (i & 7));
        return FL_OK;
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
        return enc_varlen(e, b, brow, valid, n);
    case FL_TYPE_STRUCT:
        for (uint32_t k = 0; k < b->nchildren; k++)
            FL_TRY(enc_vector(e, &b->children[k], brow, n));
        return FL_OK;
    case FL_TYPE_LIST:
    case FL_TYPE_MAP: {
        uint32_t *cr = NULL, nc = 0;
        FL_TRY(enc_offsets(e, b, brow, valid, n, &cr, &nc));
        fl_status rc = FL_OK;
        if (t->id == FL_TYPE_MAP) { /* entries: a struct without nulls */
            if (!push_pair(&e->nodes, &e->nnodes, &e->capnodes, nc, 0) || !body_buffer(e, 0))
                rc = oom(e);
            for (uint32_t k = 0; k < 2 && rc == FL_OK; k++)
                rc = enc_vector(e, &b->children[k], cr, nc);
        } else {
            rc = enc_vector(e, &b->children[0], cr, nc);
        }
        free(cr);
        return rc;
    }
    default: {
        size_t w = fl_type_width(t);
        if (fl_type_is_interval(t)) { /* months, days, micros -> nanos */
            uint8_t *d = body_buffer(e, (size_t)n * 16);
            if (!d)
                return oom(e);
            for (uint32_t i = 0; i < n; i++) {
                int32_t md[2];
                int64_t us;
                memcpy(md, b->data + (size_t)brow[i] * 16, 8);
                memcpy(&us, b->data + (size_t)brow[i] * 16 + 8, 8);
                wr_u32(d + 16 * i, (uint32_t)md[0]);
                wr_u32(d + 16 * i + 4, (uint32_t)md[1]);
                wr_u64(d + 16 * i + 8, (uint64_t)us * 1000u);
            }
            return FL_OK;
        }
        uint8_t *d = body_buffer(e, (size_t)n * w);
        if (!d)
            return oom(e);
        for (uint32_t i = 0; i < n; i++)
            memcpy(d + (size_t)i * w, b->data + (size_t)brow[i] * w, w);
        return FL_OK;
    }
    }
}

static fl_status enc_vector(enc *e, const fl_vector *v, const uint32_t *rows, uint32_t n)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    uint32_t *brow = malloc(((size_t)n + 1) * sizeof *brow);
    bool *valid = malloc((size_t)n + 1);
    fl_status rc = (brow && valid) ? FL_OK : oom(e);
    if (rc == FL_OK)
        rc = enc_validity(e, &u, rows, n, brow, valid);
    if (rc == FL_OK)
        rc = enc_body(e, u.base, brow, valid, n);
    free(brow);
    free(valid);
    return rc;
}

static fl_status write_batch_message(const enc *e, int64_t length, fl_ipc_buf *out,
                                     fl_error *err)
{
    fb f = {0};
    size_t hdr = write_message(&f, 3, e->body.len);
    fbf x[3] = {{8, false, (uint64_t)length}, {4, true, 0}, {4, true, 0}};
    size_t pos[3];
    size_t rb = fb_table(&f, 3, x, pos);
    fb_patch(&f, hdr, rb);
    size_t nv = fb_vector(&f, e->nnodes, 16, 8);
    fb_patch(&f, pos[1], nv);
    if (!f.oom)
        for (uint32_t i = 0; i < e->nnodes; i++) {
            wr_u64(f.b.p + nv + 4 + 16 * i, (uint64_t)e->nodes[2 * i]);
            wr_u64(f.b.p + nv + 4 + 16 * i + 8, (uint64_t)e->nodes[2 * i + 1]);
        }
    size_t bv = fb_vector(&f, e->nbufs, 16, 8);
    fb_patch(&f, pos[2], bv);
    if (!f.oom)
        for (uint32_t i = 0; i < e->nbufs; i++) {
            wr_u64(f.b.p + bv + 4 + 16 * i, (uint64_t)e->bufs[2 * i]);
            wr_u64(f.b.p + bv + 4 + 16 * i + 8, (uint64_t)e->bufs[2 * i + 1]);
        }
    return frame(&f, &e->body, out, err);
}

fl_status fl_arrow_ipc_batch(const fl_schema *schema, const fl_batch *b, fl_ipc_buf *out,
                             fl_error *err)
{
    if (b->ncols != schema->nfields)
        return fl_errorf(err, FL_EINVAL, "batch has %u columns, schema %u", b->ncols,
                         schema->nfields);
    enc e;
    memset(&e, 0, sizeof e);
    e.err = err;
    const uint32_t *rows = b->sel ? b->sel->idx : NULL;
    uint32_t n = fl_batch_live_rows(b);
    fl_status rc = FL_OK;
    for (uint32_t c = 0; c < b->ncols && rc == FL_OK; c++)
        rc = enc_vector(&e, &b->cols[c], rows, n);
    if (rc == FL_OK)
        rc = write_batch_message(&e, n, out, err);
    fl_ipc_buf_free(&e.body);
    free(e.nodes);
    free(e.bufs);
    return rc;
}
