/*
 * classify.c - what one SQL statement is, from libpg_query's JSON parse
 * tree: the statements the wire layer runs itself (transaction control,
 * SET/SHOW/RESET of protocol settings, DISCARD, LISTEN, DEALLOCATE,
 * cursors, COPY); everything else goes to the engine. Privileges are not
 * decided here: the engine authorizes every object a statement touches
 * (src/sql/authz), the same for every front end.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "floe/pgtypes.h"
#include "pgwire/pgw.h"

static const char *sv(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A_Const / TypeCast / String value as text. */
static void const_text(json_t *n, char *buf, size_t cap)
{
    json_t *c = json_object_get(n, "A_Const");
    json_t *bl = json_object_get(n, "Boolean");
    if (bl) { /* COPY's old syntax: CSV HEADER is header = Boolean true (absent = false) */
        snprintf(buf, cap, "%s", json_is_true(json_object_get(bl, "boolval")) ? "true" : "false");
        return;
    }
    if (!c) {
        json_t *tc = json_object_get(n, "TypeCast");
        if (tc)
            return const_text(json_object_get(tc, "arg"), buf, cap);
        json_t *s = json_object_get(n, "String");
        snprintf(buf, cap, "%s", s && sv(s, "sval") ? sv(s, "sval") : "");
        return;
    }
    json_t *v;
    if ((v = json_object_get(c, "sval")))
        snprintf(buf, cap, "%s", sv(v, "sval") ? sv(v, "sval") : "");
    else if ((v = json_object_get(c, "ival")))
        snprintf(buf, cap, "%lld", (long long)json_integer_value(json_object_get(v, "ival")));
    else if ((v = json_object_get(c, "fval")))
        snprintf(buf, cap, "%s", sv(v, "fval") ? sv(v, "fval") : "");
    else if ((v = json_object_get(c, "boolval")))
        snprintf(buf, cap, "%s", json_is_true(json_object_get(v, "boolval")) ? "on" : "off");
    else
        snprintf(buf, cap, "0");
}

static void set_stmt(pgw_class *k, json_t *s)
{
    const char *kind = sv(s, "kind"), *name = sv(s, "name");
    snprintf(k->name, sizeof k->name, "%s", name ? name : "");
    k->is_local = json_is_true(json_object_get(s, "is_local"));
    snprintf(k->tag, sizeof k->tag, "SET");
    if (!kind)
        kind = "";
    if (!strcmp(kind, "VAR_SET_MULTI")) {
        k->kind = PGW_K_SETTXN;
        return;
    }
    if (!strcmp(kind, "VAR_RESET_ALL") || !strcmp(kind, "VAR_RESET")) {
        k->kind = PGW_K_RESET;
        k->reset_all = !strcmp(kind, "VAR_RESET_ALL");
        snprintf(k->tag, sizeof k->tag, "RESET");
        return;
    }
    k->kind = PGW_K_SET;
    k->set_default = !strcmp(kind, "VAR_SET_DEFAULT") || !strcmp(kind, "VAR_SET_CURRENT");
    size_t i, len = 0;
    json_t *a;
    json_array_foreach(json_object_get(s, "args"), i, a)
    {
        char one[512];
        const_text(a, one, sizeof one);
        int w = snprintf(k->value + len, sizeof k->value - len, "%s%s", i ? ", " : "", one);
        if (w > 0 && (size_t)w < sizeof k->value - len)
            len += (size_t)w;
    }
}

static void txn_stmt(pgw_class *k, json_t *s)
{
    const char *kind = sv(s, "kind");
    static const struct {
        const char *kind, *tag;
        int k;
    } M[] = {{"TRANS_STMT_BEGIN", "BEGIN", PGW_K_BEGIN},
             {"TRANS_STMT_START", "START TRANSACTION", PGW_K_BEGIN},
             {"TRANS_STMT_COMMIT", "COMMIT", PGW_K_COMMIT},
             {"TRANS_STMT_ROLLBACK", "ROLLBACK", PGW_K_ROLLBACK},
             {"TRANS_STMT_SAVEPOINT", "SAVEPOINT", PGW_K_SAVEPOINT},
             {"TRANS_STMT_RELEASE", "RELEASE", PGW_K_SAVEPOINT},
             {"TRANS_STMT_ROLLBACK_TO", "ROLLBACK", PGW_K_SAVEPOINT}};
    k->kind = PGW_K_ENGINE; /* PREPARE TRANSACTION etc.: the engine refuses them */
    for (size_t i = 0; kind && i < sizeof M / sizeof *M; i++)
        if (!strcmp(kind, M[i].kind)) {
            k->kind = M[i].k;
            snprintf(k->tag, sizeof k->tag, "%s", M[i].tag);
            k->backward = !strcmp(kind, "TRANS_STMT_ROLLBACK_TO");
        }
}

/* Appends "x" (quotes doubled) and a dot after it when more follows. */
static size_t put_ident(char *out, size_t cap, size_t o, const char *x, bool dot)
{
    if (!x || !*x)
        return o;
    if (o + 1 < cap)
        out[o++] = '"';
    for (; *x && o + 3 < cap; x++) {
        if (*x == '"')
            out[o++] = '"';
        out[o++] = *x;
    }
    if (o + 1 < cap)
        out[o++] = '"';
    if (dot && o + 1 < cap)
        out[o++] = '.';
    out[o < cap ? o : cap - 1] = '\0';
    return o;
}

static void quote_name(char *out, size_t cap, const char *cat, const char *sch, const char *rel)
{
    size_t o = 0;
    out[0] = '\0';
    o = put_ident(out, cap, o, cat, true);
    o = put_ident(out, cap, o, sch, true);
    put_ident(out, cap, o, rel, false);
}

static void copy_stmt(pgw_class *k, json_t *s)
{
    if (sv(s, "filename") && !json_is_true(json_object_get(s, "is_program"))) {
        k->kind = PGW_K_ENGINE; /* a server-side file: the engine's (stmt/copy_file.c) */
        snprintf(k->tag, sizeof k->tag, "COPY");
        return;
    }
    k->kind = PGW_K_COPY;
    k->copy_from = json_is_true(json_object_get(s, "is_from"));
    k->copy_delim = 0;
    k->copy_quote = '"';
    k->copy_escape = 0;
    snprintf(k->copy_null, sizeof k->copy_null, "%s", "\x01");
    json_t *rel = json_object_get(s, "relation");
    if (rel) /* quoted, so the engine reads exactly the object named (a.b.t included) */
        quote_name(k->copy_table, sizeof k->copy_table, sv(rel, "catalogname"),
                   sv(rel, "schemaname"), sv(rel, "relname"));
    if (sv(s, "filename") || json_is_true(json_object_get(s, "is_program")))
        k->binary = true; /* marks "file/program", refused by copy.c */
    size_t i, len = 0;
    json_t *v;
    json_array_foreach(json_object_get(s, "attlist"), i, v)
    {
        json_t *str = json_object_get(v, "String");
        const char *c = str ? sv(str, "sval") : NULL;
        int w = snprintf(k->copy_cols + len, sizeof k->copy_cols - len, "%s\"%s\"", i ? ", " : "",
                         c ? c : "");
        if (w > 0 && (size_t)w < sizeof k->copy_cols - len)
            len += (size_t)w;
    }
    json_array_foreach(json_object_get(s, "options"), i, v)
    {
        json_t *d = json_object_get(v, "DefElem");
        const char *name = sv(d, "defname");
        char val[64] = "";
        json_t *arg = json_object_get(d, "arg");
        if (arg)
            const_text(arg, val, sizeof val);
        if (!name)
            continue;
        if (!strcmp(name, "format")) {
            k->copy_csv = !strcasecmp(val, "csv");
            if (!strcasecmp(val, "binary"))
                k->all = true; /* marks binary COPY: refused */
        } else if (!strcmp(name, "header"))
            k->copy_header = !arg || !strcasecmp(val, "true") || !strcasecmp(val, "on") ||
                             !strcmp(val, "1");
        else if (!strcmp(name, "delimiter"))
            k->copy_delim = val[0];
        else if (!strcmp(name, "quote"))
            k->copy_quote = val[0];
        else if (!strcmp(name, "escape"))
            k->copy_escape = val[0];
        else if (!strcmp(name, "null")) { /* at most 31 bytes, as before */
            size_t n = strnlen(val, sizeof k->copy_null - 1);
            memcpy(k->copy_null, val, n);
            k->copy_null[n] = '\0';
        }
    }
}

/* SHOW words that are statements of the engine, not settings */
static bool engine_show(const char *name)
{
    static const char *const w[] = {"tables", "schemas", "namespaces", "catalogs"};
    for (size_t i = 0; name && i < sizeof w / sizeof *w; i++)
        if (!strcasecmp(name, w[i]))
            return true;
    return false;
}

static void classify_node(pgw_class *k, const char *type, json_t *s)
{
    if (!strcmp(type, "TransactionStmt"))
        txn_stmt(k, s);
    else if (!strcmp(type, "VariableSetStmt"))
        set_stmt(k, s);
    else if (!strcmp(type, "VariableShowStmt") && engine_show(sv(s, "name"))) {
        k->kind = PGW_K_ENGINE; /* SHOW TABLES etc. (src/sql/parse/habit.c) return rows */
        k->select = true;
    } else if (!strcmp(type, "VariableShowStmt")) {
        k->kind = PGW_K_SHOW;
        snprintf(k->name, sizeof k->name, "%s", sv(s, "name") ? sv(s, "name") : "");
        snprintf(k->tag, sizeof k->tag, "SHOW");
    } else if (!strcmp(type, "DiscardStmt")) {
        k->kind = PGW_K_DISCARD;
        const char *t = sv(s, "target");
        k->all = t && !strcmp(t, "DISCARD_ALL");
        snprintf(k->tag, sizeof k->tag, "DISCARD %s", t && strlen(t) > 8 ? t + 8 : "ALL");
    } else if (!strcmp(type, "UnlistenStmt")) {
        k->kind = PGW_K_UNLISTEN;
        snprintf(k->tag, sizeof k->tag, "UNLISTEN");
    } else if (!strcmp(type, "ListenStmt") || !strcmp(type, "NotifyStmt")) {
        k->kind = PGW_K_LISTEN;
    } else if (!strcmp(type, "DeallocateStmt")) {
        k->kind = PGW_K_DEALLOCATE;
        snprintf(k->name, sizeof k->name, "%s", sv(s, "name") ? sv(s, "name") : "");
        snprintf(k->tag, sizeof k->tag, "%s", k->name[0] ? "DEALLOCATE" : "DEALLOCATE ALL");
    } else if (!strcmp(type, "DeclareCursorStmt")) {
        k->kind = PGW_K_DECLARE;
        snprintf(k->name, sizeof k->name, "%s", sv(s, "portalname") ? sv(s, "portalname") : "");
        long long o = json_integer_value(json_object_get(s, "options"));
        k->binary = (o & 0x1) != 0;
        k->backward = (o & 0x2) != 0; /* SCROLL */
        k->hold = (o & 0x20) != 0;
        snprintf(k->tag, sizeof k->tag, "DECLARE CURSOR");
    } else if (!strcmp(type, "FetchStmt")) {
        k->kind = PGW_K_FETCH;
        snprintf(k->name, sizeof k->name, "%s", sv(s, "portalname") ? sv(s, "portalname") : "");
        const char *d = sv(s, "direction");
        k->backward = d && strcmp(d, "FETCH_FORWARD") != 0;
        json_t *hm = json_object_get(s, "howMany");
        k->count = hm ? (long long)json_integer_value(hm) : 0;
        if (k->count == INT64_MAX)
            k->count = -1;
        k->move = json_is_true(json_object_get(s, "ismove"));
    } else if (!strcmp(type, "ClosePortalStmt")) {
        k->kind = PGW_K_CLOSE;
        snprintf(k->name, sizeof k->name, "%s", sv(s, "portalname") ? sv(s, "portalname") : "");
        k->all = !k->name[0];
        snprintf(k->tag, sizeof k->tag, "CLOSE CURSOR");
    } else if (!strcmp(type, "PrepareStmt")) {
        k->kind = PGW_K_PREPARE;
        snprintf(k->name, sizeof k->name, "%s", sv(s, "name") ? sv(s, "name") : "");
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(s, "argtypes"), i, a)
        {
            if (k->nargs >= PGW_MAX_ARGS) {
                k->bad_arg = true;
                break;
            }
            json_t *names = json_object_get(json_object_get(a, "TypeName"), "names");
            size_t nn = json_array_size(names);
            const char *tn = nn ? sv(json_object_get(json_array_get(names, nn - 1), "String"),
                                     "sval")
                                : NULL;
            const fl_pg_type_info *ti = tn ? fl_pg_type_by_name(tn) : NULL;
            k->oids[k->nargs++] = ti ? ti->oid : 0;
        }
        snprintf(k->tag, sizeof k->tag, "PREPARE");
    } else if (!strcmp(type, "ExecuteStmt")) {
        k->kind = PGW_K_EXECUTE;
        snprintf(k->name, sizeof k->name, "%s", sv(s, "name") ? sv(s, "name") : "");
        size_t i, used = 0;
        json_t *a;
        json_array_foreach(json_object_get(s, "params"), i, a)
        {
            json_t *cst = json_object_get(a, "A_Const");
            if (!cst && json_object_get(a, "TypeCast"))
                cst = json_object_get(json_object_get(json_object_get(a, "TypeCast"), "arg"),
                                      "A_Const");
            if (k->nargs >= PGW_MAX_ARGS || !cst) {
                k->bad_arg = true;
                break;
            }
            char one[1024];
            const_text(a, one, sizeof one);
            size_t l = strlen(one);
            if (used + l + 1 > sizeof k->argbuf) {
                k->bad_arg = true;
                break;
            }
            k->arg_null[k->nargs] = json_is_true(json_object_get(cst, "isnull"));
            k->arg_off[k->nargs++] = (uint16_t)used;
            memcpy(k->argbuf + used, one, l + 1);
            used += l + 1;
        }
    } else if (!strcmp(type, "CopyStmt")) {
        copy_stmt(k, s);
    } else {
        k->kind = PGW_K_ENGINE;
        k->select = !strcmp(type, "SelectStmt") || !strcmp(type, "ExplainStmt");
        k->dml = !strcmp(type, "InsertStmt") || !strcmp(type, "UpdateStmt") ||
                 !strcmp(type, "DeleteStmt") || !strcmp(type, "MergeStmt") ||
                 !strcmp(type, "AlterTableStmt") || !strcmp(type, "TruncateStmt");
        k->ddl = !strcmp(type, "CreateStmt") || !strcmp(type, "ViewStmt") ||
                 !strcmp(type, "CreateTableAsStmt") || !strcmp(type, "RenameStmt") ||
                 !strcmp(type, "CreateSchemaStmt") || !strcmp(type, "DropStmt");
    }
}

void pgw_classify(const char *sql, pgw_class *out)
{
    memset(out, 0, sizeof *out);
    out->kind = PGW_K_ENGINE;
    /* on a stack sized for the statement (src/sql/parse/depth.h); what cannot be
     * parsed or loaded goes to the engine, which reports the error (54001
     * for a statement nested too deeply): never skipped silently */
    char *json = NULL;
    fl_error e = {0};
    if (fl_sql_pg_parse_json(sql, &json, &e) != FL_OK)
        return;
    json_t *root = json_loads(json, 0, NULL);
    free(json);
    if (!root)
        return; /* too deep for the JSON reader: the engine runs it (and reports why) */
    json_t *stmts = json_object_get(root, "stmts");
    if (!json_array_size(stmts)) {
        out->kind = PGW_K_EMPTY;
    } else {
        json_t *st = json_object_get(json_array_get(stmts, 0), "stmt");
        const char *type = NULL;
        json_t *body = NULL;
        void *it = json_object_iter(st);
        if (it) {
            type = json_object_iter_key(it);
            body = json_object_iter_value(it);
        }
        if (type)
            classify_node(out, type, body);
    }
    json_decref(root);
}
