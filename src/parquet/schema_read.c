/*
 * schema_read.c - Parquet schema (flat SchemaElement list) -> floe schema
 * plus the level tree (fl_pq_node) and leaf column descriptors.
 *
 * The footer stores the schema depth-first: element 0 is the root group,
 * every group is followed by its num_children children (recursively). We
 * first rebuild that tree (bounding depth and child counts by the list
 * length), then convert each field:
 *
 *   - primitives map to floe types as in fl_pq_leaf_type below (the table
 *     stats.c relies on through fl_pq_leaf_info.type);
 *   - LIST groups follow LogicalTypes.md "Lists", including the backward-
 *     compatibility rules: the repeated child is itself the element when it
 *     is a primitive, a group with several fields, or a one-field group named
 *     "array" or "<list name>_tuple"; otherwise its single child is the
 *     element (standard 3-level list);
 *   - MAP / MAP_KEY_VALUE groups (incl. a bare repeated MAP_KEY_VALUE group)
 *     become MAP(key, value); a key_value group holding only a key becomes a
 *     LIST of keys, since a floe MAP always has two children;
 *   - a repeated field outside a LIST/MAP becomes a required LIST of a
 *     required element of that field's type (the element keeps the name);
 *   - a VARIANT group becomes one BINARY variant field (types.h), its
 *     columns described by a STRUCT kept aside (variant_read.c);
 *   - other groups are STRUCTs.
 *
 * Levels: an OPTIONAL field adds one definition level; a REPEATED field adds
 * one definition and one repetition level. Each node records the levels that
 * delimit its slots (see reader_int.h and assemble.c).
 */
#include <string.h>

#include "parquet/reader_int.h"

typedef struct tnode {
    const fl_pq_schema_element *el;
    uint32_t nch;
    struct tnode *ch;
} tnode;

typedef struct ctx {
    int16_t def, rep, slot_def, slot_rep;
} ctx;

typedef struct builder {
    fl_parquet_reader *r;
    fl_arena *a;
    uint32_t nleaves;
    const char *names[FL_PQ_MAX_DEPTH + 2];
    uint32_t depth;
} builder;

/* Rebuilds the tree rooted at schema[*i]; advances *i past the subtree. */
static fl_status build_tree(const fl_pq_file_meta *m, fl_arena *a, uint32_t *i, uint32_t depth,
                            tnode *out, fl_error *err)
{
    FL_CHECK(depth <= FL_PQ_MAX_DEPTH, err, FL_ELIMIT, "schema nested deeper than %d levels",
             FL_PQ_MAX_DEPTH);
    FL_CHECK(*i < m->nschema, err, FL_ECORRUPT, "schema: element %u missing (list has %u)", *i,
             m->nschema);
    const fl_pq_schema_element *el = &m->schema[*i];
    (*i)++;
    out->el = el;
    out->nch = 0;
    out->ch = NULL;
    if (el->num_children <= 0)
        return FL_OK;
    FL_CHECK((uint64_t)el->num_children <= m->nschema - *i, err, FL_ECORRUPT,
             "schema: element '%s' claims %d children, only %u elements follow",
             el->name ? el->name : "", el->num_children, m->nschema - *i);
    out->nch = (uint32_t)el->num_children;
    out->ch = fl_arena_calloc(a, out->nch, sizeof *out->ch);
    if (!out->ch)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < out->nch; k++)
        FL_TRY(build_tree(m, a, i, depth + 1, &out->ch[k], err));
    return FL_OK;
}

static bool is_leaf(const tnode *t)
{
    return t->nch == 0 && t->el->type_set;
}

static bool decimal_params(const fl_pq_schema_element *el, int32_t *p, int32_t *s)
{
    if (el->logical.kind == FL_PQ_LT_DECIMAL) {
        *p = el->logical.decimal_precision;
        *s = el->logical.decimal_scale;
    } else if (el->logical.kind == FL_PQ_LT_NONE && el->converted_type == FL_PQ_CT_DECIMAL) {
        *p = el->precision;
        *s = el->scale;
    } else {
        return false;
    }
    return *p >= 1 && *p <= 38 && *s >= 0 && *s <= *p;
}

static void set_type(fl_pq_leaf *leaf, fl_type_id id, fl_pq_conv conv, size_t out_width)
{
    leaf->type->id = id;
    leaf->conv = conv;
    leaf->out_width = out_width;
}

fl_status fl_pq_leaf_type(const fl_pq_schema_element *el, fl_pq_leaf *leaf, fl_arena *a,
                          fl_error *err)
{
    if (!leaf->type) {
        leaf->type = fl_arena_calloc(a, 1, sizeof *leaf->type);
        if (!leaf->type)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    memset(leaf->type, 0, sizeof *leaf->type);
    leaf->physical = el->type;
    leaf->type_length = el->type_length;
    const fl_pq_logical *lt = &el->logical;
    fl_pq_converted ct = lt->kind == FL_PQ_LT_NONE ? el->converted_type : FL_PQ_CT_NONE;
    int32_t prec, scale;
    bool dec = decimal_params(el, &prec, &scale);
    if (dec) {
        leaf->type->precision = prec;
        leaf->type->scale = scale;
    }
    switch (el->type) {
    case FL_PQ_BOOLEAN:
        leaf->raw_width = 1;
        set_type(leaf, FL_TYPE_BOOLEAN, FL_PQC_BOOL, 1);
        break;
    case FL_PQ_INT32:
        leaf->raw_width = 4;
        if (dec)
            set_type(leaf, FL_TYPE_DECIMAL, FL_PQC_I32_DEC, 16);
        else if (lt->kind == FL_PQ_LT_DATE || ct == FL_PQ_CT_DATE)
            set_type(leaf, FL_TYPE_DATE, FL_PQC_COPY, 4);
        else if ((lt->kind == FL_PQ_LT_TIME && lt->unit == FL_PQ_MILLIS) ||
                 ct == FL_PQ_CT_TIME_MILLIS)
            set_type(leaf, FL_TYPE_TIME, FL_PQC_I32_MS_US, 8);
        else if ((lt->kind == FL_PQ_LT_INTEGER && !lt->int_is_signed && lt->int_bit_width == 32) ||
                 ct == FL_PQ_CT_UINT_32)
            set_type(leaf, FL_TYPE_INT64, FL_PQC_U32_I64, 8);
        else
            set_type(leaf, FL_TYPE_INT32, FL_PQC_COPY, 4);
        break;
    case FL_PQ_INT64:
        leaf->raw_width = 8;
        if (dec) {
            set_type(leaf, FL_TYPE_DECIMAL, FL_PQC_I64_DEC, 16);
        } else if ((lt->kind == FL_PQ_LT_INTEGER && !lt->int_is_signed) || ct == FL_PQ_CT_UINT_64) {
            set_type(leaf, FL_TYPE_DECIMAL, FL_PQC_U64_DEC, 16);
            leaf->type->precision = 20;
            leaf->type->scale = 0;
        } else if (lt->kind == FL_PQ_LT_TIME) {
            set_type(leaf, FL_TYPE_TIME,
                     lt->unit == FL_PQ_MICROS  ? FL_PQC_COPY
                     : lt->unit == FL_PQ_NANOS ? FL_PQC_I64_NS_US
                                               : FL_PQC_I64_MS_US,
                     8);
        } else if (ct == FL_PQ_CT_TIME_MICROS) {
            set_type(leaf, FL_TYPE_TIME, FL_PQC_COPY, 8);
        } else if (lt->kind == FL_PQ_LT_TIMESTAMP) {
            bool tz = lt->is_adjusted_to_utc;
            if (lt->unit == FL_PQ_NANOS)
                set_type(leaf, tz ? FL_TYPE_TIMESTAMPTZ_NS : FL_TYPE_TIMESTAMP_NS, FL_PQC_COPY, 8);
            else
                set_type(leaf, tz ? FL_TYPE_TIMESTAMPTZ : FL_TYPE_TIMESTAMP,
                         lt->unit == FL_PQ_MILLIS ? FL_PQC_I64_MS_US : FL_PQC_COPY, 8);
        } else if (ct == FL_PQ_CT_TIMESTAMP_MILLIS) {
            set_type(leaf, FL_TYPE_TIMESTAMPTZ, FL_PQC_I64_MS_US, 8);
        } else if (ct == FL_PQ_CT_TIMESTAMP_MICROS) {
            set_type(leaf, FL_TYPE_TIMESTAMPTZ, FL_PQC_COPY, 8);
        } else {
            set_type(leaf, FL_TYPE_INT64, FL_PQC_COPY, 8);
        }
        break;
    case FL_PQ_INT96:
        leaf->raw_width = 12;
        set_type(leaf, FL_TYPE_TIMESTAMP_NS, FL_PQC_INT96_NS, 8);
        break;
    case FL_PQ_FLOAT:
        leaf->raw_width = 4;
        set_type(leaf, FL_TYPE_FLOAT32, FL_PQC_COPY, 4);
        break;
    case FL_PQ_DOUBLE:
        leaf->raw_width = 8;
        set_type(leaf, FL_TYPE_FLOAT64, FL_PQC_COPY, 8);
        break;
    case FL_PQ_BYTE_ARRAY:
        leaf->raw_width = 0;
        if (dec)
            set_type(leaf, FL_TYPE_DECIMAL, FL_PQC_BYTES_DEC, 16);
        else if (lt->kind == FL_PQ_LT_STRING || lt->kind == FL_PQ_LT_ENUM ||
                 lt->kind == FL_PQ_LT_JSON || ct == FL_PQ_CT_UTF8 || ct == FL_PQ_CT_ENUM ||
                 ct == FL_PQ_CT_JSON)
            set_type(leaf, FL_TYPE_STRING, FL_PQC_VARLEN, 0);
        else
            set_type(leaf, FL_TYPE_BINARY, FL_PQC_VARLEN, 0);
        if (lt->kind == FL_PQ_LT_GEOMETRY || lt->kind == FL_PQ_LT_GEOGRAPHY) {
            /* the CRS string lives in the footer arena, as long as the type */
            leaf->type->ext = lt->kind == FL_PQ_LT_GEOMETRY ? FL_EXT_GEOMETRY : FL_EXT_GEOGRAPHY;
            leaf->type->edges = lt->algorithm > 0 ? (uint8_t)lt->algorithm : FL_EDGES_SPHERICAL;
            leaf->type->crs = lt->crs && *lt->crs ? lt->crs : NULL;
        }
        break;
    case FL_PQ_FIXED_LEN_BYTE_ARRAY:
        FL_CHECK(el->type_length > 0 && el->type_length <= (1 << 20), err, FL_ECORRUPT,
                 "schema: column '%s': FIXED_LEN_BYTE_ARRAY length %d out of range",
                 el->name ? el->name : "", el->type_length);
        leaf->raw_width = (size_t)el->type_length;
        if (dec)
            set_type(leaf, FL_TYPE_DECIMAL, FL_PQC_BYTES_DEC, 16);
        else if (lt->kind == FL_PQ_LT_UUID && el->type_length == 16)
            set_type(leaf, FL_TYPE_UUID, FL_PQC_COPY, 16);
        else if (lt->kind == FL_PQ_LT_FLOAT16 && el->type_length == 2)
            set_type(leaf, FL_TYPE_FLOAT32, FL_PQC_F16_F32, 4);
        else
            set_type(leaf, FL_TYPE_FIXED, FL_PQC_COPY, (size_t)el->type_length);
        if (leaf->type->id == FL_TYPE_UUID || leaf->type->id == FL_TYPE_FIXED)
            leaf->type->fixed_len = el->type_length;
        break;
    default:
        return fl_errorf(err, FL_ECORRUPT, "schema: column '%s': invalid physical type %d",
                         el->name ? el->name : "", (int)el->type);
    }
    return FL_OK;
}

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

static fl_status convert(builder *b, const tnode *t, bool force_required, const char *name, ctx c,
                         fl_field *f, fl_pq_node *n, fl_error *err);

static void init_field(fl_field *f, const char *name, const fl_pq_schema_element *el, bool nullable)
{
    memset(f, 0, sizeof *f);
    f->name = name;
    f->field_id = el && el->field_id_set ? el->field_id : 0;
    f->nullable = nullable;
}

static fl_status alloc_children(builder *b, fl_field *f, fl_pq_node *n, uint32_t k, fl_error *err)
{
    f->type.nchildren = k;
    n->nchildren = k;
    if (k == 0)
        return FL_OK;
    f->type.children = fl_arena_calloc(b->a, k, sizeof *f->type.children);
    n->children = fl_arena_calloc(b->a, k, sizeof *n->children);
    if (!f->type.children || !n->children)
        return oom(err);
    return FL_OK;
}

static fl_status push_name(builder *b, const char *name, fl_error *err)
{
    FL_CHECK(b->depth < FL_PQ_MAX_DEPTH + 2, err, FL_ELIMIT, "schema nested too deep");
    b->names[b->depth++] = name;
    return FL_OK;
}

static fl_status make_leaf(builder *b, const tnode *t, ctx c, int16_t def, fl_field *f,
                           fl_pq_node *n, fl_error *err)
{
    fl_parquet_reader *r = b->r;
    FL_CHECK(b->nleaves < r->nleaves, err, FL_ECORRUPT, "schema: more leaves than counted");
    fl_pq_leaf *leaf = &r->leaves[b->nleaves];
    leaf->index = b->nleaves;
    leaf->el = t->el;
    leaf->max_def = def;
    leaf->max_rep = c.rep;
    leaf->type = &f->type;
    FL_TRY(fl_pq_leaf_type(t->el, leaf, b->a, err));
    size_t plen = 0;
    for (uint32_t i = 0; i < b->depth; i++)
        plen += strlen(b->names[i]) + 1;
    char *path = fl_arena_alloc(b->a, plen + 1);
    if (!path)
        return oom(err);
    path[0] = '\0';
    size_t at = 0;
    for (uint32_t i = 0; i < b->depth; i++) {
        size_t l = strlen(b->names[i]);
        if (i)
            path[at++] = '.';
        memcpy(path + at, b->names[i], l);
        at += l;
    }
    path[at] = '\0';
    leaf->path = path;
    leaf->info.physical = leaf->physical;
    leaf->info.type_length = leaf->type_length;
    leaf->info.logical = t->el->logical.kind != FL_PQ_LT_NONE ? &t->el->logical : NULL;
    leaf->info.converted = t->el->converted_type;
    leaf->info.scale = t->el->scale;
    leaf->info.precision = t->el->precision;
    leaf->info.order = leaf->index < r->meta.ncolumn_orders ? r->meta.column_orders[leaf->index]
                                                            : FL_PQ_ORDER_UNKNOWN;
    leaf->info.type = leaf->type;
    n->kind = FL_PQN_LEAF;
    n->leaf = leaf;
    b->nleaves++;
    return FL_OK;
}

/* A VARIANT group: the user sees one BINARY variant field; the group's
 * columns are described by a STRUCT kept aside in n->phys. */
static fl_status make_variant(builder *b, const tnode *t, ctx c, fl_field *f, fl_pq_node *n,
                              fl_error *err)
{
    FL_CHECK(t->nch > 0, err, FL_EUNSUPPORTED, "schema: variant group '%s' has no fields",
             t->el->name);
    fl_field *phys = fl_arena_calloc(b->a, 1, sizeof *phys);
    if (!phys)
        return oom(err);
    *phys = *f;
    phys->type.id = FL_TYPE_STRUCT;
    f->type.id = FL_TYPE_BINARY;
    f->type.ext = FL_EXT_VARIANT;
    n->kind = FL_PQN_VARIANT;
    n->phys = phys;
    FL_TRY(alloc_children(b, phys, n, t->nch, err));
    for (uint32_t i = 0; i < t->nch; i++)
        FL_TRY(convert(b, &t->ch[i], false, t->ch[i].el->name, c, &phys->type.children[i],
                       &n->children[i], err));
    return fl_pq_variant_check_group(n, err);
}

static fl_status make_struct(builder *b, const tnode *t, ctx c, fl_field *f, fl_pq_node *n,
                             fl_error *err)
{
    FL_CHECK(t->nch > 0, err, FL_EUNSUPPORTED, "schema: group '%s' has no fields", t->el->name);
    f->type.id = FL_TYPE_STRUCT;
    n->kind = FL_PQN_STRUCT;
    FL_TRY(alloc_children(b, f, n, t->nch, err));
    for (uint32_t i = 0; i < t->nch; i++)
        FL_TRY(convert(b, &t->ch[i], false, t->ch[i].el->name, c, &f->type.children[i],
                       &n->children[i], err));
    return FL_OK;
}

/* A LIST or MAP whose slot is at levels c (def already includes the node's own
 * optional level in `def`); returns the context of its elements. */
static ctx repeated_ctx(fl_pq_node *n, ctx c, int16_t def)
{
    n->elem_def = (int16_t)(def + 1);
    n->elem_rep = (int16_t)(c.rep + 1);
    ctx e = {n->elem_def, n->elem_rep, n->elem_def, n->elem_rep};
    return e;
}

static bool is_map_group(const tnode *t)
{
    return t->el->logical.kind == FL_PQ_LT_MAP || t->el->converted_type == FL_PQ_CT_MAP ||
           t->el->converted_type == FL_PQ_CT_MAP_KEY_VALUE;
}

/* Map body: kv is the repeated key_value group. */
static fl_status make_map(builder *b, const tnode *kv, ctx c, int16_t def, fl_field *f,
                          fl_pq_node *n, fl_error *err)
{
    ctx e = repeated_ctx(n, c, def);
    FL_TRY(push_name(b, kv->el->name, err));
    if (kv->nch == 1) { /* keys only: LIST<key> */
        f->type.id = FL_TYPE_LIST;
        n->kind = FL_PQN_LIST;
        FL_TRY(alloc_children(b, f, n, 1, err));
        FL_TRY(convert(b, &kv->ch[0], false, "element", e, &f->type.children[0], &n->children[0],
                       err));
    } else {
        f->type.id = FL_TYPE_MAP;
        n->kind = FL_PQN_MAP;
        FL_TRY(alloc_children(b, f, n, 2, err));
        FL_TRY(convert(b, &kv->ch[0], false, "key", e, &f->type.children[0], &n->children[0], err));
        FL_TRY(
            convert(b, &kv->ch[1], false, "value", e, &f->type.children[1], &n->children[1], err));
    }
    b->depth--;
    return FL_OK;
}

static fl_status make_list(builder *b, const tnode *t, ctx c, int16_t def, fl_field *f,
                           fl_pq_node *n, fl_error *err)
{
    const tnode *rp = &t->ch[0];
    f->type.id = FL_TYPE_LIST;
    n->kind = FL_PQN_LIST;
    FL_TRY(alloc_children(b, f, n, 1, err));
    ctx e = repeated_ctx(n, c, def);
    fl_field *ef = &f->type.children[0];
    fl_pq_node *en = &n->children[0];
    if (is_leaf(rp) || rp->nch != 1) /* element = the repeated field itself */
        return convert(b, rp, true, "element", e, ef, en, err);
    size_t tl = strlen(t->el->name);
    const char *rn = rp->el->name;
    bool tuple =
        strlen(rn) == tl + 6 && strncmp(rn, t->el->name, tl) == 0 && strcmp(rn + tl, "_tuple") == 0;
    if (strcmp(rn, "array") == 0 || tuple)
        return convert(b, rp, true, "element", e, ef, en, err);
    FL_TRY(push_name(b, rn, err));
    FL_TRY(convert(b, &rp->ch[0], false, "element", e, ef, en, err));
    b->depth--;
    return FL_OK;
}

static fl_status convert(builder *b, const tnode *t, bool force_required, const char *name, ctx c,
                         fl_field *f, fl_pq_node *n, fl_error *err)
{
    const fl_pq_schema_element *el = t->el;
    FL_CHECK(el->name != NULL, err, FL_ECORRUPT, "schema: element without a name");
    fl_pq_repetition rep = force_required ? FL_PQ_REQUIRED : el->repetition;
    n->first_leaf = b->nleaves;
    n->slot_def = c.slot_def;
    n->slot_rep = c.slot_rep;
    FL_TRY(push_name(b, el->name, err));
    fl_status st = FL_OK;
    if (rep == FL_PQ_REPEATED) {
        /* a repeated field outside LIST/MAP: required list (or legacy map) of it */
        init_field(f, name, el, false);
        n->def = c.def;
        n->field = f;
        b->depth--; /* the element re-pushes the name */
        if (!is_leaf(t) && el->converted_type == FL_PQ_CT_MAP_KEY_VALUE && t->nch == 2) {
            st = make_map(b, t, c, c.def, f, n, err);
            /* make_map pushed/popped the kv name itself */
            return st;
        }
        f->type.id = FL_TYPE_LIST;
        n->kind = FL_PQN_LIST;
        FL_TRY(alloc_children(b, f, n, 1, err));
        ctx e = repeated_ctx(n, c, c.def);
        st = convert(b, t, true, el->name, e, &f->type.children[0], &n->children[0], err);
        f->type.children[0].field_id = 0; /* the id names the list field */
        return st;
    }
    bool optional = rep == FL_PQ_OPTIONAL;
    int16_t def = (int16_t)(c.def + (optional ? 1 : 0));
    init_field(f, name, el, optional);
    n->def = def;
    n->field = f;
    if (is_leaf(t)) {
        st = make_leaf(b, t, c, def, f, n, err);
    } else if ((el->logical.kind == FL_PQ_LT_LIST || el->converted_type == FL_PQ_CT_LIST) &&
               t->nch == 1 && t->ch[0].el->repetition == FL_PQ_REPEATED) {
        st = make_list(b, t, c, def, f, n, err);
    } else if (is_map_group(t) && t->nch == 1 && !is_leaf(&t->ch[0]) &&
               t->ch[0].el->repetition == FL_PQ_REPEATED &&
               (t->ch[0].nch == 1 || t->ch[0].nch == 2)) {
        st = make_map(b, &t->ch[0], c, def, f, n, err);
    } else {
        ctx sc = {def, c.rep, c.slot_def, c.slot_rep};
        st = el->logical.kind == FL_PQ_LT_VARIANT ? make_variant(b, t, sc, f, n, err)
                                                   : make_struct(b, t, sc, f, n, err);
    }
    if (st == FL_OK)
        b->depth--;
    return st;
}

static uint32_t count_leaves(const tnode *t)
{
    if (t->nch == 0)
        return 1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->nch; i++)
        k += count_leaves(&t->ch[i]);
    return k;
}

fl_status fl_pq_schema_build(fl_parquet_reader *r, fl_error *err)
{
    const fl_pq_file_meta *m = &r->meta;
    FL_CHECK(m->nschema >= 1, err, FL_ECORRUPT, "schema: empty schema");
    tnode root;
    uint32_t i = 0;
    FL_TRY(build_tree(m, &r->arena, &i, 0, &root, err));
    FL_CHECK(i == m->nschema, err, FL_ECORRUPT,
             "schema: %u elements after the root's subtree are unreachable", m->nschema - i);
    r->nleaves = root.nch ? count_leaves(&root) : 0;
    if (r->nleaves) {
        r->leaves = fl_arena_calloc(&r->arena, r->nleaves, sizeof *r->leaves);
        if (!r->leaves)
            return oom(err);
    }
    for (uint32_t k = 0; k < root.nch; k++)
        FL_CHECK(root.ch[k].nch > 0 || root.ch[k].el->type_set, err, FL_EUNSUPPORTED,
                 "schema: field '%s' is an empty group",
                 root.ch[k].el->name ? root.ch[k].el->name : "");
    builder b = {.r = r, .a = &r->arena};
    r->schema.nfields = root.nch;
    if (root.nch) {
        r->schema.fields = fl_arena_calloc(&r->arena, root.nch, sizeof *r->schema.fields);
        r->top = fl_arena_calloc(&r->arena, root.nch, sizeof *r->top);
        if (!r->schema.fields || !r->top)
            return oom(err);
    }
    ctx c = {0, 0, 0, 0};
    for (uint32_t k = 0; k < root.nch; k++)
        FL_TRY(convert(&b, &root.ch[k], false, root.ch[k].el->name, c, &r->schema.fields[k],
                       &r->top[k], err));
    FL_CHECK(b.nleaves == r->nleaves, err, FL_ECORRUPT, "schema: leaf count mismatch");
    return FL_OK;
}
