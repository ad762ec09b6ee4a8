/*
 * classify.c - what one SQL statement is, from libpg_query's JSON parse
 * tree: the statements the wire layer runs itself (transaction control,
 * SET/SHOW/RESET of protocol settings, DISCARD, LISTEN, DEALLOCATE,
 * cursors, COPY) and, for everything else, the tables it touches with the
 * privilege each needs (privs.c checks them before the engine runs it, so
 * a write is refused before anything commits).
 *
 * Tables: every {"RangeVar": ...} in the tree is read (minus CTE names);
 * the target relation of INSERT/UPDATE/DELETE/MERGE/TRUNCATE/ALTER is
 * written; CREATE TABLE/VIEW/AS need CREATE on the namespace, DROP and
 * RENAME need DROP on the object, CREATE SCHEMA needs CREATE on the catalog.
 * Table functions (read_parquet(path) ...) read files outside the grant
 * model: they are marked (ns "*") and only admins may use them.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>
#include <pg_query.h>

#include "floe/pgtypes.h"
#include "pgwire/pgw.h"
#include "sql/depth.h"

static const char *sv(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static void add_target(pgw_class *k, const char *ns, const char *name, int priv)
{
    for (uint32_t i = 0; i < k->ntargets; i++)
        if (k->targets[i].priv == priv && !strcmp(k->targets[i].ns, ns ? ns : "") &&
            !strcmp(k->targets[i].name, name ? name : ""))
            return;
    if (k->ntargets >= PGW_MAX_TARGETS) {
        k->too_many_targets = true;
        return;
    }
    pgw_target *t = &k->targets[k->ntargets++];
    snprintf(t->ns, sizeof t->ns, "%s", ns ? ns : "");
    snprintf(t->name, sizeof t->name, "%s", name ? name : "");
    t->priv = priv;
}

static void add_rel(pgw_class *k, json_t *rv, int priv)
{
    if (!json_is_object(rv))
        return;
    add_target(k, sv(rv, "schemaname"), sv(rv, "relname"), priv);
}

static bool is_cte(json_t *ctes, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(ctes, i, v)
    {
        if (!strcmp(json_string_value(v), name))
            return true;
    }
    return false;
}

static void collect_ctes(json_t *n, json_t *out, int depth)
{
    if (depth > 200)
        return;
    if (json_is_object(n)) {
        const char *key;
        json_t *v;
        json_object_foreach(n, key, v)
        {
            if (!strcmp(key, "CommonTableExpr") && sv(v, "ctename"))
                json_array_append_new(out, json_string(sv(v, "ctename")));
            collect_ctes(v, out, depth + 1);
        }
    } else if (json_is_array(n)) {
        size_t i;
        json_t *v;
        json_array_foreach(n, i, v) collect_ctes(v, out, depth + 1);
    }
}

static void collect_reads(pgw_class *k, json_t *n, json_t *ctes, int depth)
{
    if (depth > 200)
        return;
    if (json_is_object(n)) {
        const char *key;
        json_t *v;
        json_object_foreach(n, key, v)
        {
            if (!strcmp(key, "RangeVar") && json_is_object(v)) {
                const char *s = sv(v, "schemaname"), *r = sv(v, "relname");
                if (r && !(s == NULL && is_cte(ctes, r)))
                    add_target(k, s, r, FL_PRIV_READ);
            } else if (!strcmp(key, "RangeFunction")) {
                add_target(k, "*", "table function", FL_PRIV_READ);
            }
            collect_reads(k, v, ctes, depth + 1);
        }
    } else if (json_is_array(n)) {
        size_t i;
        json_t *v;
        json_array_foreach(n, i, v) collect_reads(k, v, ctes, depth + 1);
    }
}

/* A_Const / TypeCast / String value as text. */
static void const_text(json_t *n, char *buf, size_t cap)
{
    json_t *c = json_object_get(n, "A_Const");
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

static void copy_stmt(pgw_class *k, json_t *s, json_t *ctes)
{
    k->kind = PGW_K_COPY;
    k->copy_from = json_is_true(json_object_get(s, "is_from"));
    k->copy_delim = 0;
    k->copy_quote = '"';
    k->copy_escape = 0;
    snprintf(k->copy_null, sizeof k->copy_null, "%s", "\x01");
    json_t *rel = json_object_get(s, "relation");
    if (rel) {
        const char *ns = sv(rel, "schemaname"), *n = sv(rel, "relname");
        snprintf(k->copy_table, sizeof k->copy_table, "%s%s%s", ns ? ns : "", ns ? "." : "",
                 n ? n : "");
        add_rel(k, rel, k->copy_from ? FL_PRIV_WRITE : FL_PRIV_READ);
    } else {
        collect_reads(k, json_object_get(s, "query"), ctes, 0);
    }
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
        else if (!strcmp(name, "null"))
            snprintf(k->copy_null, sizeof k->copy_null, "%s", val);
    }
}

static void classify_node(pgw_class *k, const char *type, json_t *s, json_t *root)
{
    json_t *ctes = json_array();
    collect_ctes(root, ctes, 0);
    if (!strcmp(type, "TransactionStmt"))
        txn_stmt(k, s);
    else if (!strcmp(type, "VariableSetStmt"))
        set_stmt(k, s);
    else if (!strcmp(type, "VariableShowStmt")) {
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
        collect_reads(k, json_object_get(s, "query"), ctes, 0);
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
        copy_stmt(k, s, ctes);
    } else {
        k->kind = PGW_K_ENGINE;
        k->select = !strcmp(type, "SelectStmt") || !strcmp(type, "ExplainStmt");
        json_t *rel = json_object_get(s, "relation");
        if (!strcmp(type, "InsertStmt") || !strcmp(type, "UpdateStmt") ||
            !strcmp(type, "DeleteStmt") || !strcmp(type, "MergeStmt") ||
            !strcmp(type, "AlterTableStmt")) {
            k->dml = true;
            add_rel(k, rel, FL_PRIV_WRITE);
        } else if (!strcmp(type, "TruncateStmt")) {
            k->dml = true;
            size_t i;
            json_t *r;
            json_array_foreach(json_object_get(s, "relations"), i, r)
                add_rel(k, json_object_get(r, "RangeVar"), FL_PRIV_WRITE);
        } else if (!strcmp(type, "CreateStmt") || !strcmp(type, "ViewStmt") ||
                   !strcmp(type, "CreateTableAsStmt")) {
            k->ddl = true;
            json_t *r = rel ? rel : json_object_get(s, "view");
            if (!r)
                r = json_object_get(json_object_get(s, "into"), "rel");
            add_target(k, sv(r, "schemaname") ? sv(r, "schemaname") : "", "",
                       FL_PRIV_CREATE);
        } else if (!strcmp(type, "RenameStmt")) {
            k->ddl = true;
            add_rel(k, rel, FL_PRIV_DROP);
        } else if (!strcmp(type, "CreateSchemaStmt")) {
            k->ddl = true;
            add_target(k, "*catalog", "", FL_PRIV_CREATE);
        } else if (!strcmp(type, "DropStmt")) {
            k->ddl = true;
            size_t i;
            json_t *o;
            json_array_foreach(json_object_get(s, "objects"), i, o)
            {
                json_t *items = json_object_get(json_object_get(o, "List"), "items");
                size_t n = json_array_size(items);
                const char *name = n ? sv(json_object_get(json_array_get(items, n - 1), "String"),
                                          "sval")
                                     : NULL;
                const char *ns = n > 1 ? sv(json_object_get(json_array_get(items, n - 2),
                                                            "String"), "sval")
                                       : NULL;
                if (!n) /* DROP SCHEMA x: objects are bare Strings */
                    add_target(k, sv(json_object_get(o, "String"), "sval"), "", FL_PRIV_DROP);
                else
                    add_target(k, ns, name, FL_PRIV_DROP);
            }
        }
        collect_reads(k, s, ctes, 0);
    }
    json_decref(ctes);
}

/* Not classified: nested too deeply to load. The engine's own verdict
 * (54001 with a position) when it refuses the statement too. */
static void too_deep(const char *sql, pgw_class *out)
{
    out->too_deep = true;
    fl_error e = {0};
    if (fl_sql_depth_check(sql, &out->deep_pos, &e) != FL_OK)
        snprintf(out->deep_msg, sizeof out->deep_msg, "%.255s", e.msg);
}

void pgw_classify(const char *sql, pgw_class *out)
{
    memset(out, 0, sizeof *out);
    out->kind = PGW_K_ENGINE;
    /* on a stack sized for the statement (src/sql/depth.h); what cannot be
     * parsed or loaded goes to the engine, which reports the error (54001
     * for a statement nested too deeply): never skipped silently */
    PgQueryParseResult r;
    if (!fl_sql_pgq_parse_json(sql, &r)) {
        too_deep(sql, out);
        return;
    }
    if (r.error || !r.parse_tree) {
        pg_query_free_parse_result(r);
        return;
    }
    fl_error e = {0};
    if (fl_sql_json_depth_check(sql, r.parse_tree, &out->deep_pos, &e) != FL_OK) {
        out->too_deep = true; /* surely too deep: no need to load it */
        snprintf(out->deep_msg, sizeof out->deep_msg, "%.255s", e.msg);
        pg_query_free_parse_result(r);
        return;
    }
    json_t *root = json_loads(r.parse_tree, JSON_DECODE_INT_AS_REAL * 0, NULL);
    pg_query_free_parse_result(r);
    if (!root) { /* deeper than jansson loads (2048 levels) */
        too_deep(sql, out);
        return;
    }
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
            classify_node(out, type, body, st);
    }
    json_decref(root);
}
