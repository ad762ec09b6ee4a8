/*
 * tool_propose.c - propose_metric, the one tool that writes (and only a
 * proposal): a draft metric is checked against the model folder's files
 * plus the draft (fl_sem_model_load_dir_with: the loader's validation
 * names the file, line and member), run next to the related certified
 * metrics (those aggregating one of its measures, else one of the same
 * semantic model, fl_sem_metric_measures) as the caller through sqlrun.c,
 * and filed with the comparison in <models_dir>/.pending/ (propose_file.c).
 * The live model and the folder's files are never changed; an owner
 * approves with `floe semantic pending approve`.
 *
 * Refused: an anonymous principal (a proposal names who made it), a name
 * the model already has, a draft the loader refuses, and anything the
 * engine refuses to the caller (no READ on a table: nothing is filed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/mcp_internal.h"

#define MAX_RELATED 8
#define MAX_MEASURES 32
#define DRAFT_FILE "propose_metric draft"

/* The semantic model defining measure name (NULL = none). */
static const char *measure_model(const fl_sem_model *m, const char *name)
{
    for (uint32_t i = 0; i < fl_sem_model_nmembers(m); i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind == FL_SEM_MEASURE && !strcmp(mi->name, name))
            return mi->model;
    }
    return NULL;
}

typedef struct related {
    const fl_sem_member_info *mi;
    char shares[200];
} related;

/* Does metric `name` (of model m) aggregate one of the draft's measures
 * (rank 1) or one of their semantic models (rank 2)? 0 = neither. */
static int relation(const fl_sem_model *m, const char *name, const char **dm, uint32_t ndm,
                    char *shares, size_t cap)
{
    const char *ms[MAX_MEASURES];
    uint32_t n = 0;
    fl_error err = {0};
    if (fl_sem_metric_measures(m, name, ms, MAX_MEASURES, &n, &err) != FL_OK)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < ndm; j++)
            if (!strcmp(ms[i], dm[j])) {
                snprintf(shares, cap, "measure %s", ms[i]);
                return 1;
            }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < ndm; j++) {
            const char *a = measure_model(m, ms[i]), *b = measure_model(m, dm[j]);
            if (a && b && !strcmp(a, b)) {
                snprintf(shares, cap, "semantic model %s", a);
                return 2;
            }
        }
    return 0;
}

static bool compiles(const fl_sem_model *m, const char *const *names, uint32_t n)
{
    fl_sem_query q = {.metrics = names, .nmetrics = n, .limit = -1};
    char *sql = NULL;
    fl_error err = {0};
    bool ok = fl_sem_compile(m, &q, NULL, 0, &sql, &err) == FL_OK;
    free(sql);
    return ok;
}

/* The certified metrics related to the draft that compile with it, those
 * sharing a measure first; *n of them. */
static uint32_t find_related(const fl_sem_model *live, const fl_sem_model *with, const char *draft,
                             related *out)
{
    const char *dm[MAX_MEASURES];
    uint32_t ndm = 0, n = 0;
    fl_error err = {0};
    if (fl_sem_metric_measures(with, draft, dm, MAX_MEASURES, &ndm, &err) != FL_OK)
        return 0;
    for (int rank = 1; rank <= 2; rank++)
        for (uint32_t i = 0; n < MAX_RELATED && i < fl_sem_model_nmembers(live); i++) {
            const fl_sem_member_info *mi = fl_sem_model_member(live, i);
            if (mi->kind != FL_SEM_METRIC || !strcmp(mi->type, "cumulative") ||
                !strcmp(mi->type, "conversion"))
                continue;
            char shares[200];
            const char *pair[2] = {draft, mi->name};
            if (relation(live, mi->name, dm, ndm, shares, sizeof shares) == rank &&
                compiles(with, pair, 2)) {
                out[n].mi = mi;
                snprintf(out[n].shares, sizeof out[n].shares, "%s", shares);
                n++;
            }
        }
    return n;
}

/* A result value as a number (strings of decimals too); false when NULL. */
static bool as_double(json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return true;
    }
    const char *s = json_string_value(v);
    char *end = NULL;
    if (s && *s) {
        *out = strtod(s, &end);
        return *end == '\0';
    }
    return false;
}

static json_t *column_value(json_t *cols, json_t *row, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(cols, i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "name")), name))
            return json_array_get(row, i);
    }
    return NULL;
}

/* {draft: {name, value}, related: [{name, type, description, shares, value,
 * ratio}]}; ratio (draft / related) only when both or neither are ratios. */
static json_t *comparison(const mcp_draft *dr, const related *rel, uint32_t nrel, json_t *cols,
                          json_t *row)
{
    const char *draft = dr->name;
    bool dratio = !strcmp(dr->type, "ratio");
    json_t *dv = column_value(cols, row, draft);
    double d = 0;
    bool dnum = as_double(dv, &d);
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < nrel; i++) {
        json_t *v = column_value(cols, row, rel[i].mi->name);
        double x = 0;
        bool xnum = as_double(v, &x);
        bool same = dratio == !strcmp(rel[i].mi->type, "ratio");
        json_t *ratio = same && dnum && xnum && x != 0 ? json_real(d / x) : json_null();
        json_array_append_new(
            arr, json_pack("{s:s, s:s, s:s, s:s, s:O?, s:o}", "name", rel[i].mi->name, "type",
                           rel[i].mi->type, "description", rel[i].mi->description, "shares",
                           rel[i].shares, "value", v ? v : json_null(), "ratio", ratio));
    }
    return json_pack("{s:{s:s, s:O?}, s:o}", "draft", "name", draft, "value", dv ? dv : json_null(),
                     "related", arr);
}

/* Runs the draft and its related metrics as the caller; the comparison in
 * *cmp, the reads in reads; else the isError result. */
static json_t *run_comparison(mcp_call *c, const fl_sem_model *with, const mcp_draft *dr,
                              const related *rel, uint32_t nrel, json_t *reads, char **sql_out,
                              json_t **cmp)
{
    const char *draft = dr->name;
    const char *names[MAX_RELATED + 1] = {draft};
    for (uint32_t i = 0; i < nrel; i++)
        names[i + 1] = rel[i].mi->name;
    fl_sem_query q = {.metrics = names, .nmetrics = nrel + 1, .limit = 2};
    fl_error err = {0};
    char *sql = NULL;
    if (fl_sem_compile(with, &q, NULL, 0, &sql, &err) != FL_OK)
        return mcp_tool_fail("propose_metric: %s", err.msg);
    bool wrappable = false;
    if (mcp_sql_read_only(sql, &wrappable, &err) != FL_OK) {
        free(sql);
        return mcp_tool_fail("propose_metric: the compiled draft is not one query: %s", err.msg);
    }
    fl_sql_session *s = NULL;
    json_t *fail = NULL, *cols = NULL, *rows = NULL;
    bool more = false;
    if (mcp_sql_open(c, NULL, &s, &err) != FL_OK) {
        fail = mcp_tool_fail("propose_metric: %s", err.msg);
    } else if ((fail = mcp_budget_refusal(c, s, sql, true)) == NULL &&
               mcp_sql_rows(s, sql, 2, &cols, &rows, &more, reads, &err) != FL_OK) {
        char msg[1100];
        mcp_sql_error_text(s, &err, msg, sizeof msg);
        fail = mcp_tool_fail("propose_metric: running the draft as %s: %s", c->who.name, msg);
    }
    fl_sql_session_close(s);
    if (!fail)
        *cmp = comparison(dr, rel, nrel, cols, json_array_get(rows, 0));
    json_decref(cols);
    json_decref(rows);
    if (fail)
        free(sql);
    else
        *sql_out = sql;
    return fail;
}

static const fl_sem_member_info *live_metric(const fl_sem_model *m, const char *name)
{
    for (uint32_t i = 0; i < fl_sem_model_nmembers(m); i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind == FL_SEM_METRIC && !strcmp(mi->name, name))
            return mi;
    }
    return NULL;
}

/* Loads the folder with the draft's YAML; NULL + *fail on a refusal. */
static fl_sem_model *load_with(const char *dir, const char *yaml, json_t **fail)
{
    fl_sem_file f = {DRAFT_FILE, yaml, strlen(yaml)};
    fl_sem_model *with = NULL;
    fl_error err = {0};
    if (fl_sem_model_load_dir_with(dir, &f, 1, &with, &err) != FL_OK)
        *fail = mcp_tool_fail("propose_metric: the draft does not fit the model: %s", err.msg);
    return with;
}

/* Files the proposal; the tool's answer. */
static json_t *file_it(mcp_call *c, const mcp_draft *d, json_t *cmp, const char *sql, json_t *reads)
{
    const fl_sem_model *live = c->m->opt.model;
    char id[128], path[1024], when[32];
    fl_error err = {0};
    if (mcp_pending_id(d->name, id, &err) != FL_OK)
        return mcp_tool_fail("%s", err.msg);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_t *pending = json_pack("{s:s, s:s, s:s, s:s, s:O, s:s}", "id", id, "proposed_by",
                                c->who.name, "proposed_at", when, "base_model_version",
                                fl_sem_model_version(live), "comparison", cmp, "sql", sql);
    char *pj = pending ? json_dumps(pending, JSON_ENSURE_ASCII) : NULL;
    char *yaml = pj ? mcp_draft_yaml(d, pj) : NULL;
    free(pj);
    json_decref(pending);
    json_t *fail = NULL;
    fl_sem_model *check = yaml ? load_with(c->m->opt.models_dir, yaml, &fail) : NULL;
    fl_sem_model_free(check);
    if (!fail && yaml && mcp_pending_write(c->m->opt.models_dir, id, yaml, path, &err) != FL_OK)
        fail = mcp_tool_fail("%s", err.msg);
    if (fail || !yaml) {
        free(yaml);
        return fail;
    }
    json_t *receipt = mcp_receipt(c, reads);
    json_object_set_new(receipt, "model_version", json_string(fl_sem_model_version(live)));
    json_object_set_new(receipt, "sql", json_string(sql));
    json_t *out = mcp_tool_ok(json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:O, s:s, s:o}", "status",
                                        "pending", "id", id, "file", path, "name", d->name,
                                        "proposed_by", c->who.name, "proposed_at", when,
                                        "comparison", cmp, "yaml", yaml, "receipt", receipt),
                              NULL);
    free(yaml);
    return out;
}

json_t *mcp_tool_propose_metric(mcp_call *c, json_t *args)
{
    const fl_sem_model *live = c->m->opt.model;
    if (!live || !c->m->opt.models_dir)
        return mcp_tool_fail("propose_metric: the server has no models folder");
    if (c->who.anonymous || !c->who.name[0])
        return mcp_tool_fail("propose_metric: a proposal needs an authenticated principal");
    mcp_draft d;
    json_t *fail = mcp_draft_parse(args, &d);
    if (fail)
        return fail;
    const fl_sem_member_info *dup = live_metric(live, d.name);
    if (dup)
        return mcp_tool_fail("propose_metric: field \"name\": the model already has metric '%s' "
                             "(%s:%u)",
                             d.name, dup->file, dup->line);
    char *yaml = mcp_draft_yaml(&d, NULL);
    if (!yaml)
        return NULL;
    fl_sem_model *with = load_with(c->m->opt.models_dir, yaml, &fail);
    free(yaml);
    if (!with)
        return fail;
    related rel[MAX_RELATED];
    uint32_t nrel = find_related(live, with, d.name, rel);
    json_t *reads = json_array(), *cmp = NULL, *out = NULL;
    char *sql = NULL;
    fail = run_comparison(c, with, &d, rel, nrel, reads, &sql, &cmp);
    if (!fail)
        out = file_it(c, &d, cmp, sql, reads);
    fl_sem_model_free(with);
    json_decref(cmp);
    json_decref(reads);
    free(sql);
    return fail ? fail : out;
}
