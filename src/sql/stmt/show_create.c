/*
 * show_create.c - SHOW CREATE TABLE t: the CREATE TABLE statement that
 * recreates t's current schema, partition spec, sort order and properties
 * (one row, column create_statement), in the syntax ddl_table.c reads:
 *
 *   CREATE TABLE "ns"."t" (
 *     "id" bigint NOT NULL,
 *     "ts" timestamp with time zone,
 *     PRIMARY KEY ("id")
 *   )
 *   WITH (format_version = 2, partitioning = ARRAY['day("ts")', 'bucket(16, "id")'],
 *         sorted_by = ARRAY['"id" DESC NULLS LAST'], "write.delete.mode" = 'copy-on-write')
 *
 * Round trip is the contract (tests/sql/test_stmt_habits.c runs the output on
 * a fresh catalog and compares): names are always quoted, types are the
 * names stmt_type_of reads back, identifier fields become PRIMARY KEY,
 * required columns NOT NULL. Left out on purpose: the location (a new table
 * gets its own from its catalog; copying it would point two tables at one
 * folder, which the catalog refuses) and field ids (assigned anew in the same
 * order). Structs, maps and lists print as struct<name type, ...>,
 * map<k, v> and type[], which CREATE TABLE reads back (parse/nested_type.c).
 * A table with a fixed column cannot be printed: CREATE TABLE cannot
 * declare it yet (0A000 naming the column), and a statement that silently
 * recreated another schema would break the contract.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sql/stmt/stmt_int.h"

const char *stmt_type_text(const fl_type *t, char *buf, size_t cap)
{
    char inner[200];
    switch (t->id) {
    case FL_TYPE_TIMESTAMP: snprintf(buf, cap, "timestamp"); break;
    case FL_TYPE_TIMESTAMPTZ: snprintf(buf, cap, "timestamp with time zone"); break;
    case FL_TYPE_TIME: snprintf(buf, cap, "time"); break;
    case FL_TYPE_STRING: snprintf(buf, cap, "text"); break;
    case FL_TYPE_LIST:
        if (t->nchildren < 1 || !t->children)
            return fl_sql_type_name(t, buf, cap);
        stmt_type_text(&t->children[0].type, inner, sizeof inner);
        snprintf(buf, cap, "%s[]", inner);
        break;
    case FL_TYPE_STRUCT: {
        size_t o = (size_t)snprintf(buf, cap, "struct<");
        for (uint32_t i = 0; i < t->nchildren && o < cap; i++) {
            stmt_type_text(&t->children[i].type, inner, sizeof inner);
            const char *nm = t->children[i].name;
            bool plain = *nm && !isdigit((unsigned char)*nm);
            for (const char *q = nm; *q; q++)
                plain &= islower((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_';
            o += (size_t)snprintf(buf + o, cap - o, plain ? "%s%s %s" : "%s\"%s\" %s",
                                  i ? ", " : "", nm, inner);
        }
        if (o < cap)
            snprintf(buf + o, cap - o, ">");
        break;
    }
    case FL_TYPE_MAP: {
        char v[200];
        if (t->nchildren < 2)
            return fl_sql_type_name(t, buf, cap);
        stmt_type_text(&t->children[0].type, inner, sizeof inner);
        stmt_type_text(&t->children[1].type, v, sizeof v);
        snprintf(buf, cap, "map<%s, %s>", inner, v);
        break;
    }
    default: return fl_sql_type_name(t, buf, cap);
    }
    return buf;
}

static bool creatable(const fl_type *t)
{
    if (t->id == FL_TYPE_LIST || t->id == FL_TYPE_STRUCT || t->id == FL_TYPE_MAP) {
        for (uint32_t i = 0; i < t->nchildren; i++)
            if (!creatable(&t->children[i].type))
                return false;
        return t->nchildren >= 1; /* ROW(...), MAP(...), type[]: parse/nested_type.c */
    }
    return t->id != FL_TYPE_FIXED || fl_type_is_interval(t);
}

/* ---- text building ---- */

typedef struct sbuf {
    fl_arena *a;
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void put(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 256;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *np = fl_arena_alloc(b->a, nc);
        if (!np) {
            b->oom = true;
            return;
        }
        if (b->len)
            memcpy(np, b->p, b->len);
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void puts_(sbuf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* q: '"' for identifiers, '\'' for literals; the quote is doubled inside */
static void quoted(sbuf *b, const char *s, char q)
{
    put(b, &q, 1);
    for (; *s; s++) {
        if (*s == q)
            put(b, &q, 1);
        put(b, s, 1);
    }
    put(b, &q, 1);
}

/* A partition or sort item as fl_ice_parse_*_field reads it, into item. */
static void transform_item(sbuf *item, const char *transform, const char *col)
{
    sbuf c = {.a = item->a};
    quoted(&c, col ? col : "?", '"');
    const char *cs = c.p ? c.p : "";
    const char *br = strchr(transform, '[');
    if (!strcmp(transform, "identity")) {
        puts_(item, cs);
    } else if (br) { /* bucket[16] -> bucket(16, "c") */
        put(item, transform, (size_t)(br - transform));
        puts_(item, "(");
        put(item, br + 1, strcspn(br + 1, "]"));
        puts_(item, ", ");
        puts_(item, cs);
        puts_(item, ")");
    } else { /* day -> day("c") */
        puts_(item, transform);
        puts_(item, "(");
        puts_(item, cs);
        puts_(item, ")");
    }
}

static const char *column_name(const fl_ice_schema *s, int32_t id)
{
    for (uint32_t i = 0; i < s->schema.nfields; i++)
        if (s->schema.fields[i].field_id == id)
            return s->schema.fields[i].name;
    return NULL;
}

/* ARRAY['a', 'b'] of the spec's fields (void fields, left by partition
 * evolution of v1 tables, are not part of the layout and are skipped). */
static void partitioning(sbuf *b, const fl_ice_schema *s, const fl_ice_partition_spec *sp)
{
    bool first = true;
    for (uint32_t i = 0; sp && i < sp->nfields; i++) {
        const fl_ice_partition_field *f = &sp->fields[i];
        if (!strcmp(f->transform, "void"))
            continue;
        puts_(b, first ? ", partitioning = ARRAY[" : ", ");
        first = false;
        sbuf item = {.a = b->a};
        transform_item(&item, f->transform, column_name(s, f->source_id));
        quoted(b, item.p ? item.p : "", '\'');
        b->oom |= item.oom;
    }
    if (!first)
        puts_(b, "]");
}

static void sorted_by(sbuf *b, const fl_ice_schema *s, const fl_ice_metadata *m)
{
    const fl_ice_sort_order *so = NULL;
    for (uint32_t i = 0; i < m->nsort_orders; i++)
        if (m->sort_orders[i].order_id == m->default_sort_order_id)
            so = &m->sort_orders[i];
    for (uint32_t i = 0; so && i < so->nfields; i++) {
        const fl_ice_sort_field *f = &so->fields[i];
        puts_(b, i ? ", " : ", sorted_by = ARRAY[");
        sbuf item = {.a = b->a};
        transform_item(&item, f->transform, column_name(s, f->source_id));
        puts_(&item, f->descending ? " DESC" : " ASC");
        puts_(&item, f->nulls_first ? " NULLS FIRST" : " NULLS LAST");
        quoted(b, item.p ? item.p : "", '\'');
        b->oom |= item.oom;
    }
    if (so && so->nfields)
        puts_(b, "]");
}

static fl_status columns(fl_stmt_ctx *c, sbuf *b, const fl_ice_schema *s, fl_error *err)
{
    for (uint32_t i = 0; i < s->schema.nfields; i++) {
        const fl_field *f = &s->schema.fields[i];
        if (!creatable(&f->type)) {
            char tb[256];
            return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                                  "SHOW CREATE TABLE: column \"%s\" has type %s, which CREATE "
                                  "TABLE cannot declare yet",
                                  f->name, stmt_type_text(&f->type, tb, sizeof tb));
        }
        char tb[256];
        puts_(b, i ? ",\n  " : "  ");
        quoted(b, f->name, '"');
        puts_(b, " ");
        puts_(b, stmt_type_text(&f->type, tb, sizeof tb));
        if (!f->nullable)
            puts_(b, " NOT NULL");
        const fl_ice_field_extra *x = fl_ice_schema_extra(s, f->field_id);
        if (x && x->write_default && strcmp(x->write_default, "null") != 0) {
            const char *text;
            bool quote;
            FL_TRY(stmt_default_sql(c->planner->arena, &f->type, x->write_default, &text, &quote,
                                    err));
            puts_(b, " DEFAULT ");
            if (quote)
                quoted(b, text, '\'');
            else
                puts_(b, text);
        }
    }
    for (uint32_t i = 0; i < s->nidentifier; i++) {
        puts_(b, i ? ", " : ",\n  PRIMARY KEY (");
        const char *n = column_name(s, s->identifier_field_ids[i]);
        quoted(b, n ? n : "?", '"');
    }
    if (s->nidentifier)
        puts_(b, ")");
    return FL_OK;
}

fl_status stmt_show_create(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_stmt_result *out,
                           fl_error *err)
{
    fl_arena *a = c->planner->arena;
    fl_table_ident id;
    fl_ice_table *t = NULL;
    FL_TRY(stmt_habit_table(c, h, &id, &t, err));
    const fl_ice_schema *s = stmt_current_schema(t);
    sbuf b = {.a = a};
    puts_(&b, "CREATE TABLE ");
    for (uint32_t i = 0; i < id.ns.nlevels; i++) {
        quoted(&b, id.ns.levels[i], '"');
        puts_(&b, ".");
    }
    quoted(&b, id.name, '"');
    puts_(&b, " (\n");
    fl_status rc = s ? columns(c, &b, s, err)
                     : fl_errorf(err, FL_EINVAL, "table %s has no current schema", id.name);
    if (rc == FL_OK) {
        char fv[48];
        snprintf(fv, sizeof fv, "\n)\nWITH (format_version = %d", (int)t->meta.format_version);
        puts_(&b, fv);
        partitioning(&b, s, fl_ice_metadata_spec(&t->meta, t->meta.default_spec_id));
        sorted_by(&b, s, &t->meta);
        for (uint32_t i = 0; i < t->meta.properties.n; i++) {
            const fl_ice_kv *kv = &t->meta.properties.items[i];
            puts_(&b, ", ");
            quoted(&b, kv->key, '"');
            puts_(&b, " = ");
            quoted(&b, kv->value ? kv->value : "", '\'');
        }
        puts_(&b, ")");
    }
    fl_ice_table_free(t);
    FL_TRY(rc);
    if (b.oom)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    static const char *const names[] = {"create_statement"};
    const char *cells[1] = {b.p};
    FL_TRY(stmt_result_strings(c, out, names, 1, cells, 1, err));
    stmt_tag(out, "SHOW");
    return FL_OK;
}
