/*
 * cmd_semantic.c - `floe semantic validate|list|compile|query|replay|explain`: the
 * semantic layer (include/floe/semantic.h) from the command line.
 *
 *   validate   loads the model folder and reports the first error
 *              (file:line: member: reason) or a summary and the version
 *   list       metrics, dimensions, entities and measures (table or json)
 *   compile    the SQL a query compiles to
 *   query      runs a query; --receipt FILE writes its receipt (JSON)
 *   replay     runs a receipt again, pinned to the snapshots it read
 *   explain    the tables a query reads, its SQL and the engine's plan
 *   publish    saved queries and per-metric monthly views as SQL views
 *              (cmd_semantic_publish.c), for BI tools
 *   pending    metrics proposed through MCP: list, show, approve, reject
 *              (cmd_semantic_pending.c)
 *
 * Options take "--opt value" or "--opt=value" (opts.h). The model folder is
 * --models DIR (default $FLOE_MODELS, else ./models); catalogs as for
 * `floe sql` (opened read-only: a missing catalog is an error).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_semantic.h"
#include "cli/cmd_sql.h"
#include "cli/cmd_table_write.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "floe/semantic.h"

#include <jansson.h>

#define MAX_ITEMS 256

typedef struct sem_opts {
    const char *sub, *models, *catalog, *warehouse, *ns, *receipt_out, *receipt_in;
    const char *metrics[MAX_ITEMS], *group_by[MAX_ITEMS], *where[64], *order_by[MAX_ITEMS];
    uint32_t nmetrics, ngroup_by, nwhere, norder_by;
    int64_t limit;
    const char *as_of, *engine, *saved, *into;
    fl_sem_dialect dialect;
    fl_sem_pin pins[64];
    uint32_t npins;
    fl_sqlout_format format;
    struct text_copy *copies; /* the split copies of comma lists, freed at exit */
} sem_opts;

typedef struct text_copy {
    struct text_copy *next;
    char text[];
} text_copy;

static const cli_opt options[] = {
    {"models", 0, "DIR", false, "the model folder (default $FLOE_MODELS or ./models)"},
    {"metrics", 0, "A,B", true, "metrics to compute (QUERY)"},
    {"saved", 0, "NAME", false,
     "QUERY = the model's saved query NAME (saved_queries:);\n"
     "--where adds filters, --order-by and --limit replace its own"},
    {"group-by", 0, "X,Y", true, "dimensions: entity__dim, metric_time__month, ..."},
    {"where", 0, "FILTER", true, "\"{{ Dimension('customer__region') }} = 'EU'\""},
    {"order-by", 0, "X,-Y", true, "metric or group-by names; '-' = descending"},
    {"limit", 0, "N", false, "at most N rows"},
    {"as-of", 0, "TIMESTAMP", false,
     "read the tables as they were then (UTC, 2024-05-01 12:00:00)"},
    {"pin", 0, "TABLE=SNAPSHOT", true, "read TABLE at that snapshot id"},
    {"dialect", 0, "D", false, "compile: floe (default) or trino"},
    {"engine", 0, "URI", false,
     "query: run on Trino, trino://[user@]host:port/catalog/schema\n"
     "(no receipt: the snapshots are Trino's to read)"},
    {"format", 0, "F", false, "table | csv | json | jsonl (default table)"},
    {"receipt", 0, "FILE", false,
     "query, replay: write the answer's receipt (JSON) to FILE ('-' = stdout)"},
    {"into", 0, "NS", false, "publish: the namespace of the views (default semantic)"},
    {"catalog", 0, "URI", false,
     "as floe sql (default $FLOE_CATALOG or\nsqlite:./warehouse/catalog.db)"},
    {"warehouse", 0, "DIR", false, "as floe sql (default $FLOE_WAREHOUSE or ./warehouse)"},
    {"namespace", 'n', "NS", false, "namespace of unqualified table names (default \"default\")"},
};
static const cli_command semantic_cmd = {
    .name = "semantic",
    .synopsis = "semantic <validate|list|compile|query|replay|explain|publish|pending> [options]",
    .about =
        "  The semantic layer: metrics defined in dbt-format YAML (semantic_models:,\n"
        "  metrics:), compiled to SQL over floe's tables, answered with receipts.\n\n"
        "  validate              check the model; print its version\n"
        "  list                  list metrics, dimensions, entities and measures\n"
        "  compile  QUERY        print the SQL of a query\n"
        "  query    QUERY        run a query\n"
        "  replay   FILE         run a receipt again: the same snapshots, the same numbers\n"
        "                        (FILE '-' = stdin)\n"
        "  explain  QUERY        the tables a query reads, its SQL and the engine's plan\n"
        "  publish               saved queries and <metric>_by_month as SQL views (--into NS,\n"
        "                        default semantic) for BI tools over the Postgres wire\n"
        "  pending  list|show|approve|reject [ID]\n"
        "                        metrics proposed through MCP's propose_metric (DIR/.pending)",
    .opts = options,
    .nopts = CLI_NOPTS(options),
};

static void usage(FILE *out)
{
    cli_usage(&semantic_cmd, out);
}

static bool split_list(sem_opts *o, const char *val, const char **items, uint32_t *n)
{
    size_t len = strlen(val);
    text_copy *c = malloc(sizeof *c + len + 1);
    if (!c)
        return false;
    memcpy(c->text, val, len + 1);
    c->next = o->copies;
    o->copies = c;
    for (char *save = NULL, *t = strtok_r(c->text, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        if (!*t)
            continue;
        if (*n == MAX_ITEMS) {
            fprintf(stderr, "floe semantic: at most %d items per list\n", MAX_ITEMS);
            return false;
        }
        items[(*n)++] = t;
    }
    return true;
}

static void free_copies(sem_opts *o)
{
    while (o->copies) {
        text_copy *c = o->copies;
        o->copies = c->next;
        free(c);
    }
}

/* --pin TABLE=SNAPSHOT */
static int add_pin(sem_opts *o, const char *val)
{
    const char *eq = strchr(val, '=');
    char *end = NULL;
    long long id = eq ? strtoll(eq + 1, &end, 10) : 0;
    if (!eq || eq == val || !eq[1] || *end || o->npins == 64) {
        fprintf(stderr, "floe semantic: --pin takes TABLE=SNAPSHOT_ID (at most 64)\n");
        return 2;
    }
    size_t n = (size_t)(eq - val);
    text_copy *c = malloc(sizeof *c + n + 1);
    if (!c)
        return 1;
    memcpy(c->text, val, n);
    c->text[n] = 0;
    c->next = o->copies;
    o->copies = c;
    o->pins[o->npins++] = (fl_sem_pin){c->text, id, NULL};
    return 0;
}

static int parse_value(sem_opts *o, const char *name, const char *val)
{
    if (!strcmp(name, "--models"))
        o->models = val;
    else if (!strcmp(name, "--catalog"))
        o->catalog = val;
    else if (!strcmp(name, "--warehouse"))
        o->warehouse = val;
    else if (!strcmp(name, "-n") || !strcmp(name, "--namespace"))
        o->ns = val;
    else if (!strcmp(name, "--receipt"))
        o->receipt_out = val;
    else if (!strcmp(name, "--as-of"))
        o->as_of = val;
    else if (!strcmp(name, "--engine"))
        o->engine = val;
    else if (!strcmp(name, "--saved"))
        o->saved = val;
    else if (!strcmp(name, "--into"))
        o->into = val;
    else if (!strcmp(name, "--dialect")) {
        if (strcmp(val, "floe") && strcmp(val, "trino")) {
            fprintf(stderr, "floe semantic: unknown dialect '%s' (floe, trino)\n", val);
            return 2;
        }
        o->dialect = strcmp(val, "trino") ? FL_SEM_DIALECT_FLOE : FL_SEM_DIALECT_TRINO;
    } else if (!strcmp(name, "--pin"))
        return add_pin(o, val);
    else if (!strcmp(name, "--metrics"))
        return split_list(o, val, o->metrics, &o->nmetrics) ? 0 : 1;
    else if (!strcmp(name, "--group-by"))
        return split_list(o, val, o->group_by, &o->ngroup_by) ? 0 : 1;
    else if (!strcmp(name, "--order-by"))
        return split_list(o, val, o->order_by, &o->norder_by) ? 0 : 1;
    else if (!strcmp(name, "--where")) {
        if (o->nwhere == 64) {
            fprintf(stderr, "floe semantic: at most 64 --where filters\n");
            return 2;
        }
        o->where[o->nwhere++] = val;
    } else if (!strcmp(name, "--limit")) {
        char *end = NULL;
        long long v = strtoll(val, &end, 10);
        if (!*val || *end || v < 0) {
            fprintf(stderr, "floe semantic: --limit takes a number of rows\n");
            return 2;
        }
        o->limit = v;
    } else if (!strcmp(name, "--format")) {
        if (!fl_sqlout_format_parse(val, &o->format) || o->format == FL_SQLOUT_PARQUET) {
            fprintf(stderr, "floe semantic: unknown format '%s' (table, csv, json, jsonl)\n", val);
            return 2;
        }
    } else {
        return cli_unknown_option("semantic", name);
    }
    return 0;
}

/* argv[1] is the subcommand; 0 = run, -1 = help printed, else the exit
 * status (message printed). */
static int parse_args(int argc, char **argv, sem_opts *o)
{
    char name[64];
    snprintf(name, sizeof name, "semantic %s", o->sub);
    cli_command cmd = semantic_cmd;
    cmd.name = name;
    cmd.max_args = !strcmp(o->sub, "replay") ? 1 : 0;
    cli_args p;
    int rc;
    if (!cli_parse(&cmd, argc - 1, argv + 1, &p, &rc))
        return rc ? rc : -1;
    o->receipt_in = p.npos ? p.pos[0] : NULL;
    for (int i = 0; i < p.ngiven && !rc; i++) {
        char opt[40]; /* parse_value takes the option as written: "--metrics" */
        snprintf(opt, sizeof opt, "--%s", options[p.given[i].opt].name);
        rc = parse_value(o, opt, p.given[i].value);
    }
    cli_args_free(&p);
    if (rc)
        return rc;
    if (!o->models && getenv("FLOE_MODELS") && *getenv("FLOE_MODELS"))
        o->models = getenv("FLOE_MODELS");
    if (!o->models && strcmp(o->sub, "replay")) /* replay checks a model only when given */
        o->models = "models";
    return 0;
}

static int fail(const char *sub, const fl_error *err)
{
    fprintf(stderr, "floe semantic %s: %s\n", sub, err->msg);
    return 1;
}

static int cmd_validate(const sem_opts *o, const fl_sem_model *m)
{
    uint32_t n[6] = {0};
    for (uint32_t i = 0; i < fl_sem_model_nmembers(m); i++)
        n[fl_sem_model_member(m, i)->kind]++;
    (void)o;
    printf("ok: %u metrics, %u dimensions, %u entities, %u measures, %u saved queries\n"
           "version %s\n",
           n[FL_SEM_METRIC], n[FL_SEM_DIMENSION], n[FL_SEM_ENTITY], n[FL_SEM_MEASURE],
           n[FL_SEM_SAVED_QUERY], fl_sem_model_version(m));
    return 0;
}

static const char *kind_name(fl_sem_member_kind k)
{
    switch (k) {
    case FL_SEM_METRIC: return "metric";
    case FL_SEM_DIMENSION: return "dimension";
    case FL_SEM_ENTITY: return "entity";
    case FL_SEM_MEASURE: return "measure";
    case FL_SEM_SAVED_QUERY: return "saved";
    }
    return "?";
}

static int cmd_list(const sem_opts *o, const fl_sem_model *m)
{
    fl_buf b;
    fl_buf_init(&b, 0);
    fl_error err = {0};
    for (uint32_t i = 0; i < fl_sem_model_nmembers(m); i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (o->format != FL_SQLOUT_JSON && o->format != FL_SQLOUT_JSONL) {
            printf("%-10s %-32s %-14s %-12s %s\n", kind_name(mi->kind), mi->name, mi->type,
                   mi->model ? mi->model : "", mi->description);
            continue;
        }
        fl_buf_reset(&b);
        fl_buf_appendf(&b, &err, "{\"kind\": \"%s\", \"name\": ", kind_name(mi->kind));
        fl_json_string(&b, (const uint8_t *)mi->name, strlen(mi->name), &err);
        fl_buf_appendf(&b, &err, ", \"type\": \"%s\", \"model\": ", mi->type);
        if (mi->model)
            fl_json_string(&b, (const uint8_t *)mi->model, strlen(mi->model), &err);
        else
            fl_buf_puts(&b, "null", &err);
        fl_buf_puts(&b, ", \"description\": ", &err);
        fl_json_string(&b, (const uint8_t *)mi->description, strlen(mi->description), &err);
        fl_buf_puts(&b, ", \"ai_context\": ", &err);
        fl_json_string(&b, (const uint8_t *)mi->ai_context, strlen(mi->ai_context), &err);
        fl_buf_appendf(&b, &err, ", \"meta\": %s, \"file\": ", *mi->meta ? mi->meta : "null");
        fl_json_string(&b, (const uint8_t *)mi->file, strlen(mi->file), &err);
        fl_buf_appendf(&b, &err, ", \"line\": %u}", mi->line);
        if (err.code)
            break;
        printf("%s\n", b.data);
    }
    fl_buf_free(&b);
    return err.code ? fail("list", &err) : 0;
}

static fl_sem_query query_of(const sem_opts *o)
{
    return (fl_sem_query){.metrics = o->metrics,
                          .nmetrics = o->nmetrics,
                          .group_by = o->group_by,
                          .ngroup_by = o->ngroup_by,
                          .where = o->where,
                          .nwhere = o->nwhere,
                          .order_by = o->order_by,
                          .norder_by = o->norder_by,
                          .limit = o->limit,
                          .as_of = o->as_of,
                          .pins = o->pins,
                          .npins = o->npins,
                          .dialect = o->dialect};
}

/* --saved NAME: the saved query's members into o (they point into m) */
static int use_saved(sem_opts *o, const fl_sem_model *m)
{
    fl_sem_query sq;
    fl_error err = {0};
    if (fl_sem_saved_query(m, o->saved, &sq, &err) != FL_OK)
        return fail(o->sub, &err);
    if (o->nmetrics || o->ngroup_by) {
        fprintf(stderr, "floe semantic %s: --saved takes its metrics and group-by from the model\n",
                o->sub);
        return 2;
    }
    if (sq.nwhere + o->nwhere > 64 || sq.nmetrics > MAX_ITEMS || sq.ngroup_by > MAX_ITEMS ||
        sq.norder_by > MAX_ITEMS) {
        fprintf(stderr, "floe semantic %s: saved query '%s' is too large\n", o->sub, o->saved);
        return 1;
    }
    memcpy(o->metrics, sq.metrics, sq.nmetrics * sizeof *sq.metrics);
    o->nmetrics = sq.nmetrics;
    if (sq.ngroup_by)
        memcpy(o->group_by, sq.group_by, sq.ngroup_by * sizeof *sq.group_by);
    o->ngroup_by = sq.ngroup_by;
    memmove(o->where + sq.nwhere, o->where, o->nwhere * sizeof *o->where);
    if (sq.nwhere)
        memcpy(o->where, sq.where, sq.nwhere * sizeof *sq.where);
    o->nwhere += sq.nwhere;
    if (!o->norder_by && sq.norder_by) {
        memcpy(o->order_by, sq.order_by, sq.norder_by * sizeof *sq.order_by);
        o->norder_by = sq.norder_by;
    }
    if (o->limit < 0)
        o->limit = sq.limit;
    return 0;
}

static int cmd_compile(const sem_opts *o, const fl_sem_model *m)
{
    fl_sem_query q = query_of(o);
    char *sql = NULL;
    fl_error err = {0};
    if (fl_sem_compile(m, &q, NULL, 0, &sql, &err) != FL_OK)
        return fail("compile", &err);
    printf("%s\n", sql);
    free(sql);
    return 0;
}

static fl_status write_receipt(const char *path, const fl_sem_receipt *r, fl_error *err)
{
    char *json = NULL;
    FL_TRY(fl_sem_receipt_to_json(r, &json, err));
    bool to_stdout = !strcmp(path, "-");
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    bool ok = f && fputs(json, f) >= 0 && fputc('\n', f) != EOF;
    if (f && (to_stdout ? fflush(f) : fclose(f)) != 0)
        ok = false;
    free(json);
    return ok ? FL_OK : fl_errorf(err, FL_EIO, "%s: cannot write the receipt", path);
}

static fl_status read_receipt(const char *path, fl_sem_receipt **r, fl_error *err)
{
    bool from_stdin = !strcmp(path, "-");
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return fl_errorf(err, FL_ENOTFOUND, "%s: cannot open the receipt", path);
    fl_buf b;
    fl_buf_init(&b, 64u << 20);
    char chunk[8192];
    size_t n;
    fl_status rc = FL_OK;
    while (rc == FL_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        rc = fl_buf_append(&b, chunk, n, err);
    if (!from_stdin)
        fclose(f);
    if (rc == FL_OK)
        rc = fl_buf_putc(&b, 0, err);
    if (rc == FL_OK)
        rc = fl_sem_receipt_from_json(b.data, r, err);
    if (rc != FL_OK)
        fl_error_prefix(err, "%s", path);
    fl_buf_free(&b);
    return rc;
}

/* A CSV field (RFC 4180) or a JSON value's text for csv/table output. */
static void put_cell(FILE *out, json_t *v, bool csv)
{
    if (json_is_null(v)) {
        fputs(csv ? "" : "NULL", out);
        return;
    }
    if (!json_is_string(v)) {
        char *t = json_dumps(v, JSON_ENCODE_ANY);
        fputs(t ? t : "", out);
        free(t);
        return;
    }
    const char *s = json_string_value(v);
    if (!csv || (*s && !strpbrk(s, ",\"\r\n"))) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void put_rows(const sem_opts *o, json_t *cols, json_t *data)
{
    bool csv = o->format == FL_SQLOUT_CSV;
    bool lines = o->format == FL_SQLOUT_JSON || o->format == FL_SQLOUT_JSONL;
    for (size_t i = 0; !lines && i < json_array_size(cols); i++)
        printf("%s%s", i ? (csv ? "," : " | ") : "", json_string_value(json_array_get(cols, i)));
    if (!lines)
        putchar('\n');
    for (size_t r = 0; r < json_array_size(data); r++) {
        json_t *row = json_array_get(data, r);
        if (lines) {
            json_t *obj = json_object();
            for (size_t i = 0; obj && i < json_array_size(cols); i++)
                json_object_set(obj, json_string_value(json_array_get(cols, i)),
                                json_array_get(row, i));
            char *t = obj ? json_dumps(obj, JSON_PRESERVE_ORDER | JSON_COMPACT) : NULL;
            printf("%s\n", t ? t : "{}");
            free(t);
            json_decref(obj);
            continue;
        }
        for (size_t i = 0; i < json_array_size(row); i++) {
            if (i)
                fputs(csv ? "," : " | ", stdout);
            put_cell(stdout, json_array_get(row, i), csv);
        }
        putchar('\n');
    }
}

/* query --engine trino://...: the query in Trino's dialect, run there */
static int run_trino(const sem_opts *o, const fl_sem_model *m)
{
    if (o->receipt_out) {
        fprintf(stderr, "floe semantic query: --receipt needs floe's engine (not --engine)\n");
        return 2;
    }
    fl_sem_query q = query_of(o);
    q.dialect = FL_SEM_DIALECT_TRINO;
    char *sql = NULL, *res = NULL;
    fl_error err = {0};
    fl_status rc = fl_sem_compile(m, &q, NULL, 0, &sql, &err);
    if (rc == FL_OK)
        rc = fl_sem_trino_run(o->engine, sql, &res, &err);
    free(sql);
    if (rc != FL_OK)
        return fail("query", &err);
    json_t *j = json_loads(res, 0, NULL);
    free(res);
    if (!j) {
        fprintf(stderr, "floe semantic query: out of memory\n");
        return 1;
    }
    put_rows(o, json_object_get(j, "columns"), json_object_get(j, "data"));
    json_decref(j);
    return 0;
}

/* explain: the tables a query reads (as the engine resolved them) and the
 * engine's plan of the compiled SQL, without running it */
static fl_status explain(fl_sql_session *s, const sem_opts *o, const fl_sem_model *m,
                         fl_sql_result **res, fl_error *err)
{
    fl_sem_query q = query_of(o);
    char *sql = NULL, *ex = NULL;
    FL_TRY(fl_sem_compile(m, &q, NULL, 0, &sql, err));
    fl_status rc =
        asprintf(&ex, "EXPLAIN %s", sql) < 0 ? fl_errorf(err, FL_ENOMEM, "out of memory") : FL_OK;
    if (rc == FL_OK)
        rc = fl_sql_execute(s, ex, res, err);
    if (rc == FL_OK) {
        printf("tables:");
        for (uint32_t i = 0; i < fl_sql_result_naccess(*res); i++)
            if (fl_sql_result_access(*res, i)->kind == FL_SQL_OBJ_TABLE)
                printf(" %s", fl_sql_result_access(*res, i)->object);
        printf("\nsql:\n%s\n\n", sql);
    }
    free(sql);
    free(ex);
    return rc;
}

/* query, replay and explain: a read-only session, the rows printed, the
 * receipt written */
static int run(const sem_opts *o, const fl_sem_model *m)
{
    fl_error err = {0};
    fl_cli_catalog cat = {0};
    fl_sql_session *s = NULL;
    fl_sql_result *res = NULL;
    fl_sem_receipt *rc_in = NULL, *rc_out = NULL;
    fl_status rc = fl_cli_catalog_open_ro(o->catalog, o->warehouse, &cat, &err);
    if (rc == FL_OK) {
        fl_sql_options opt = {.catalog = cat.cat,
                              .io = cat.io,
                              .warehouse = cat.warehouse,
                              .default_namespace = o->ns};
        rc = fl_sql_session_open(&opt, &s, &err);
    }
    if (rc == FL_OK && !strcmp(o->sub, "replay")) {
        rc = read_receipt(o->receipt_in, &rc_in, &err);
        if (rc == FL_OK)
            rc = fl_sem_replay(s, m, rc_in, &res, &rc_out, &err);
    } else if (rc == FL_OK && !strcmp(o->sub, "explain")) {
        rc = explain(s, o, m, &res, &err);
    } else if (rc == FL_OK) {
        fl_sem_query q = query_of(o);
        rc = fl_sem_execute(s, m, &q, &res, &rc_out, &err);
    }
    if (rc == FL_OK) {
        fl_sqlout out = {.format = o->format, .header = true, .out = stdout, .tz = "UTC"};
        uint64_t rows = 0;
        rc = fl_sqlout_result(&out, res, &rows, &err);
    }
    if (rc == FL_OK && o->receipt_out && rc_out)
        rc = write_receipt(o->receipt_out, rc_out, &err);
    fl_sql_result_close(res);
    fl_sem_receipt_free(rc_in);
    fl_sem_receipt_free(rc_out);
    fl_sql_session_close(s);
    if (cat.cat || cat.io)
        fl_cli_catalog_close(&cat);
    return rc == FL_OK ? 0 : fail(o->sub, &err);
}

int fl_cmd_semantic(int argc, char **argv)
{
    static const char *const subs[] = {"validate", "list",    "compile",
                                       "query",    "replay",  "explain", "publish"};
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (argv[1][0] == '-')
        return cli_unknown_option("semantic", argv[1]);
    if (!strcmp(argv[1], "pending"))
        return fl_cli_semantic_pending(argc - 1, argv + 1);
    sem_opts o = {.sub = argv[1], .limit = -1};
    bool known = false;
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        known |= !strcmp(argv[1], subs[i]);
    if (!known) {
        fprintf(stderr, "floe semantic: unknown subcommand '%s' (see floe semantic --help)\n",
                argv[1]);
        return 2;
    }
    int st = parse_args(argc, argv, &o);
    if (st < 0) {
        free_copies(&o);
        return 0;
    }
    if (st == 0 && !strcmp(o.sub, "replay") && !o.receipt_in) {
        fprintf(stderr, "floe semantic replay: which receipt? (floe semantic replay FILE)\n");
        st = 2;
    }
    if (st == 0 && !o.saved && strcmp(o.sub, "validate") && strcmp(o.sub, "list") &&
        strcmp(o.sub, "replay") && strcmp(o.sub, "publish") && !o.nmetrics) {
        fprintf(stderr, "floe semantic %s: --metrics is required\n", o.sub);
        st = 2;
    }
    fl_sem_model *m = NULL;
    fl_error err = {0};
    if (st == 0 && o.models && fl_sem_model_load_dir(o.models, &m, &err) != FL_OK)
        st = fail(o.sub, &err);
    if (st == 0 && o.saved && m)
        st = use_saved(&o, m);
    if (st == 0) {
        if (!strcmp(o.sub, "validate"))
            st = cmd_validate(&o, m);
        else if (!strcmp(o.sub, "list"))
            st = cmd_list(&o, m);
        else if (!strcmp(o.sub, "publish"))
            st = fl_cli_semantic_publish(m, o.catalog, o.warehouse, o.ns, o.into);
        else if (!strcmp(o.sub, "compile"))
            st = cmd_compile(&o, m);
        else if (o.engine && !strcmp(o.sub, "query"))
            st = run_trino(&o, m);
        else
            st = run(&o, m);
    }
    fl_sem_model_free(m);
    free_copies(&o);
    return st;
}
