/*
 * test_mcp_propose.c - MCP's propose_metric in process, over a copy of
 * tests/semantic/models and a small warehouse (7 orders of 4 customers):
 * listed (not read-only) only with the model's folder; a simple draft
 * compared with the certified metrics over its measure (numbers checked by
 * hand) and filed in <models>/.pending/ as YAML the loader accepts, the
 * live folder unchanged; a ratio draft; validation errors naming the
 * field; a description that tries to add YAML stays text; the caller's row
 * filter changes the comparison; a principal without READ files nothing.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>

#include "mcp/mcp_world.h"

static fl_mcp_server *server(world *w, bool with_dir)
{
    fl_mcp_options o;
    memset(&o, 0, sizeof o);
    o.catalog = w->cat;
    o.io = w->io;
    o.auth = w->auth;
    o.resolve_principal = resolve;
    o.resolve_ctx = w;
    o.threads = 1;
    o.model = w->model;
    o.models_dir = with_dir ? w->models : NULL;
    fl_mcp_server *m = NULL;
    fl_error err = {0};
    CHECK_OK(fl_mcp_server_new(&o, &m, &err), &err);
    return m;
}

static json_t *send(fl_mcp_server *m, const char *text)
{
    char *resp = NULL;
    fl_error err = {0};
    fl_mcp_exchange x = {0};
    CHECK_OK(fl_mcp_handle(m, &x, text, strlen(text), &resp, &err), &err);
    json_t *j = resp ? json_loads(resp, 0, NULL) : NULL;
    free(resp);
    return j;
}

static json_t *propose(fl_mcp_server *m, const char *args_json)
{
    char buf[8192];
    snprintf(buf, sizeof buf,
             "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"propose_metric\",\"arguments\":%s}}",
             args_json);
    json_t *r = send(m, buf);
    json_t *res = json_incref(json_object_get(r, "result"));
    json_decref(r);
    return res;
}

static bool is_error(json_t *res)
{
    return !res || json_is_true(json_object_get(res, "isError"));
}

static const char *text_of(json_t *res)
{
    const char *t = json_string_value(
        json_object_get(json_array_get(json_object_get(res, "content"), 0), "text"));
    return t ? t : "";
}

static json_t *sc(json_t *res)
{
    return json_object_get(res, "structuredContent");
}

/* Files in <models>/.pending/ (0 when the folder does not exist). */
static int npending(const world *w)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/.pending", w->models);
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* The related metric named name in a comparison (NULL = absent). */
static json_t *related(json_t *res, const char *name)
{
    json_t *arr = json_object_get(json_object_get(sc(res), "comparison"), "related");
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        if (!strcmp(json_string_value(json_object_get(e, "name")), name))
            return e;
    }
    return NULL;
}

static double num(json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : strtod(json_string_value(v), NULL);
}

#define COMPLETED_DRAFT                                                                            \
    "{\"name\":\"completed_gross\",\"description\":\"Gross of completed orders.\",\"type\":"       \
    "\"simple\",\"measure\":\"gross_amount\",\"label\":\"Completed gross\",\"filter\":\"{{ "       \
    "Dimension('order__status') }} = 'completed'\"}"

static void test_listed_with_folder_only(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, false);
    json_t *r = send(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    char *t = json_dumps(r, JSON_COMPACT);
    CHECK(strstr(t, "\"propose_metric\"") == NULL);
    free(t);
    json_decref(r);
    json_t *res = propose(m, COMPLETED_DRAFT);
    CHECK(res == NULL); /* -32602 unknown tool */
    fl_mcp_server_free(m);
    m = server(&w, true);
    r = send(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    json_t *tools = json_object_get(json_object_get(r, "result"), "tools");
    size_t i;
    json_t *d, *found = NULL;
    json_array_foreach(tools, i, d)
    {
        if (!strcmp(json_string_value(json_object_get(d, "name")), "propose_metric"))
            found = d;
    }
    CHECK(found != NULL);
    CHECK(json_is_false(json_object_get(json_object_get(found, "annotations"), "readOnlyHint")));
    CHECK(json_object_get(found, "outputSchema") != NULL);
    json_decref(r);
    fl_mcp_server_free(m);
    world_close(&w);
}

static void test_simple_draft_filed(void)
{
    world w;
    world_open(&w, false);
    const char *before = fl_sem_model_version(w.model);
    fl_mcp_server *m = server(&w, true);
    json_t *res = propose(m, COMPLETED_DRAFT);
    CHECK(!is_error(res));
    if (is_error(res))
        fprintf(stderr, "%s\n", text_of(res));
    CHECK_EQ_STR(json_string_value(json_object_get(sc(res), "status")), "pending");
    CHECK_EQ_STR(json_string_value(json_object_get(sc(res), "proposed_by")), "local");
    json_t *cmp = json_object_get(sc(res), "comparison");
    /* completed orders: 100 + 200 + 300 + 120 + 60; all orders: 910 */
    CHECK(num(json_object_get(json_object_get(cmp, "draft"), "value")) == 780.0);
    json_t *g = related(res, "gross_revenue"), *c = related(res, "completed_revenue");
    CHECK(g != NULL && c != NULL);
    CHECK(g && num(json_object_get(g, "value")) == 910.0);
    CHECK(g && strstr(json_string_value(json_object_get(g, "shares")), "gross_amount"));
    CHECK(c && json_real_value(json_object_get(c, "ratio")) == 1.0);
    CHECK(related(res, "cumulative_net_revenue") == NULL);
    json_t *rr = related(res, "return_rate"); /* a ratio is not compared with an amount */
    CHECK(rr && json_is_null(json_object_get(rr, "ratio")));
    /* metrics over the same semantic model (other measures) follow */
    json_t *o = related(res, "discounts");
    CHECK(o && strstr(json_string_value(json_object_get(o, "shares")), "semantic model orders"));
    CHECK(strstr(json_string_value(json_object_get(json_object_get(sc(res), "receipt"), "sql")),
                 "completed") != NULL);
    CHECK_EQ_INT(npending(&w), 1);
    /* the filed file is a metrics file the loader takes next to the folder */
    const char *path = json_string_value(json_object_get(sc(res), "file"));
    CHECK(strstr(path, "/.pending/completed_gross-") != NULL);
    size_t len = 0;
    char *text = ft_slurp(path, &len);
    CHECK(text && strstr(text, "proposed_by") && strstr(text, "780"));
    fl_sem_file f = {"pending.yaml", text, len};
    fl_sem_model *with = NULL, *live = NULL;
    fl_error err = {0};
    CHECK_OK(fl_sem_model_load_dir_with(w.models, &f, 1, &with, &err), &err);
    bool has = false;
    for (uint32_t i = 0; with && i < fl_sem_model_nmembers(with); i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(with, i);
        if (mi->kind == FL_SEM_METRIC && !strcmp(mi->name, "completed_gross"))
            has = strstr(mi->meta, "\"proposed_by\"") != NULL;
    }
    CHECK(has);
    fl_sem_model_free(with);
    free(text);
    /* the live folder is what it was */
    CHECK_OK(fl_sem_model_load_dir(w.models, &live, &err), &err);
    CHECK_EQ_STR(fl_sem_model_version(live), before);
    fl_sem_model_free(live);
    json_decref(res);
    /* a ratio draft */
    res = propose(m, "{\"name\":\"discount_rate\",\"description\":\"Discounts over gross.\","
                     "\"type\":\"ratio\",\"numerator\":\"discounts\",\"denominator\":"
                     "\"gross_revenue\"}");
    CHECK(!is_error(res));
    /* discounts 10 + 5 + 30 + 12 = 57 of 910 */
    double v = num(
        json_object_get(json_object_get(json_object_get(sc(res), "comparison"), "draft"), "value"));
    CHECK(v > 0.0626 && v < 0.0627);
    CHECK(related(res, "discounts") != NULL);
    json_decref(res);
    CHECK_EQ_INT(npending(&w), 2);
    fl_mcp_server_free(m);
    world_close(&w);
}

static void test_validation(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, true);
    static const struct {
        const char *args, *says;
    } bad[] = {
        {"{\"name\":\"x\",\"description\":\"d\",\"type\":\"simple\"}", "\"measure\""},
        {"{\"name\":\"x\",\"description\":\"d\",\"type\":\"sum\"}", "\"type\""},
        {"{\"name\":\"x\",\"type\":\"simple\",\"measure\":\"gross_amount\"}", "\"description\""},
        {"{\"name\":\"Bad Name\",\"description\":\"d\",\"type\":\"simple\",\"measure\":"
         "\"gross_amount\"}",
         "\"name\""},
        {"{\"name\":\"gross_revenue\",\"description\":\"d\",\"type\":\"simple\",\"measure\":"
         "\"gross_amount\"}",
         "already has metric 'gross_revenue'"},
        {"{\"name\":\"x\",\"description\":\"d\",\"type\":\"simple\",\"measure\":\"nope\"}", "nope"},
        {"{\"name\":\"x\",\"description\":\"d\",\"type\":\"simple\",\"measure\":"
         "\"gross_amount\",\"numerator\":\"returns\"}",
         "\"numerator\""},
        {"{\"name\":\"x\",\"description\":\"d\",\"type\":\"derived\",\"expr\":\"a - b\"}",
         "\"metrics\""},
        {"{\"name\":\"x\",\"description\":\"d\",\"type\":\"simple\",\"measure\":"
         "\"gross_amount\",\"filter\":\"{{ Dimension('order__nope') }} = 1\"}",
         "nope"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *res = propose(m, bad[i].args);
        CHECK(is_error(res));
        if (!strstr(text_of(res), bad[i].says))
            fprintf(stderr, "case %zu: %s\n", i, text_of(res));
        CHECK(strstr(text_of(res), bad[i].says) != NULL);
        json_decref(res);
    }
    CHECK_EQ_INT(npending(&w), 0);
    /* a description that tries to add YAML structure stays one string */
    json_t *res = propose(m, "{\"name\":\"sneaky\",\"description\":\"x\\\"\\n  - name: evil\\n    "
                             "type: simple\",\"type\":\"derived\",\"expr\":\"gross_revenue - "
                             "returns\",\"metrics\":[\"gross_revenue\",\"returns\"]}");
    CHECK(!is_error(res));
    if (is_error(res))
        fprintf(stderr, "%s\n", text_of(res));
    CHECK(num(json_object_get(json_object_get(json_object_get(sc(res), "comparison"), "draft"),
                              "value")) == 780.0);
    const char *yaml = json_string_value(json_object_get(sc(res), "yaml"));
    CHECK(yaml && strstr(yaml, "\\\"\\x0a  - name: evil") != NULL);
    json_decref(res);
    CHECK_EQ_INT(npending(&w), 1);
    fl_mcp_server_free(m);
    world_close(&w);
}

static void as(world *w, const char *name)
{
    fl_error err = {0};
    CHECK_OK(fl_auth_principal_get(w->auth, name, &w->as, &err), &err);
}

static void test_as_the_caller(void)
{
    world w;
    world_open(&w, true);
    fl_mcp_server *m = server(&w, true);
    as(&w, "c1_only"); /* orders of customer 1: 100 + 300, both completed */
    json_t *res = propose(m, COMPLETED_DRAFT);
    CHECK(!is_error(res));
    CHECK(num(json_object_get(json_object_get(json_object_get(sc(res), "comparison"), "draft"),
                              "value")) == 400.0);
    json_t *g = related(res, "gross_revenue");
    CHECK(g && num(json_object_get(g, "value")) == 400.0);
    CHECK_EQ_STR(json_string_value(json_object_get(sc(res), "proposed_by")), "c1_only");
    json_decref(res);
    CHECK_EQ_INT(npending(&w), 1);
    as(&w, "nobody");
    res = propose(m, COMPLETED_DRAFT);
    CHECK(is_error(res) && strstr(text_of(res), "42501"));
    json_decref(res);
    CHECK_EQ_INT(npending(&w), 1);
    fl_mcp_server_free(m);
    world_close(&w);
}

int main(void)
{
    TEST_RUN(test_listed_with_folder_only);
    TEST_RUN(test_simple_draft_filed);
    TEST_RUN(test_validation);
    TEST_RUN(test_as_the_caller);
    return TEST_EXIT();
}
