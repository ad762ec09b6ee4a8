/*
 * metrics.c - the semantic layer from Python: Session.metrics() compiles a
 * metrics query against a model directory (include/floe/semantic.h) and
 * runs it on the session, returning a Result whose .receipt is the answer's
 * receipt (model version, SQL, the snapshots read); compile_metrics()
 * returns the SQL only.
 *
 * The model is loaded once per directory and kept on the session (reloaded
 * when another directory is asked for). String arguments are borrowed from
 * the Python sequences, which are held until the engine call returns.
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

typedef struct str_list {
    PyObject *seq; /* PySequence_Fast of the argument, owned */
    const char **items;
    uint32_t n;
} str_list;

static void str_list_free(str_list *l)
{
    Py_XDECREF(l->seq);
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* obj: None, a str (one item) or a sequence of str. */
static bool str_list_from(PyObject *obj, const char *what, str_list *out)
{
    memset(out, 0, sizeof *out);
    if (!obj || obj == Py_None)
        return true;
    out->seq = PyUnicode_Check(obj) ? PyTuple_Pack(1, obj) : PySequence_Fast(obj, what);
    if (!out->seq)
        return false;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(out->seq);
    out->items = calloc((size_t)n + 1, sizeof *out->items);
    if (!out->items) {
        str_list_free(out);
        PyErr_NoMemory();
        return false;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(out->seq, i);
        const char *p = PyUnicode_Check(s) ? PyUnicode_AsUTF8(s) : NULL;
        if (!p) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "floe: %s[%zd] must be a str", what, i);
            str_list_free(out);
            return false;
        }
        out->items[i] = p;
    }
    out->n = (uint32_t)n;
    return true;
}

typedef struct metrics_args {
    const char *models;
    const char *as_of;
    long long limit;
    str_list metrics, group_by, where, order_by;
} metrics_args;

static void metrics_args_free(metrics_args *a)
{
    str_list_free(&a->metrics);
    str_list_free(&a->group_by);
    str_list_free(&a->where);
    str_list_free(&a->order_by);
}

static bool parse_metrics_args(PyObject *args, PyObject *kw, metrics_args *a)
{
    static char *names[] = {"models",   "metrics", "group_by", "where",
                            "order_by", "limit",   "as_of",    NULL};
    PyObject *metrics = NULL, *group_by = NULL, *where = NULL, *order_by = NULL;
    memset(a, 0, sizeof *a);
    a->limit = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO|OOOLz", names, &a->models, &metrics, &group_by,
                                     &where, &order_by, &a->limit, &a->as_of))
        return false;
    if (!str_list_from(metrics, "metrics", &a->metrics) ||
        !str_list_from(group_by, "group_by", &a->group_by) ||
        !str_list_from(where, "where", &a->where) ||
        !str_list_from(order_by, "order_by", &a->order_by)) {
        metrics_args_free(a);
        return false;
    }
    if (a->metrics.n == 0) {
        metrics_args_free(a);
        PyErr_SetString(floe_error_type, "floe: name at least one metric");
        return false;
    }
    return true;
}

static fl_sem_query query_of(const metrics_args *a)
{
    fl_sem_query q;
    memset(&q, 0, sizeof q);
    q.metrics = a->metrics.items;
    q.nmetrics = a->metrics.n;
    q.group_by = a->group_by.items;
    q.ngroup_by = a->group_by.n;
    q.where = a->where.items;
    q.nwhere = a->where.n;
    q.order_by = a->order_by.items;
    q.norder_by = a->order_by.n;
    q.limit = a->limit;
    q.as_of = a->as_of;
    q.dialect = FL_SEM_DIALECT_FLOE;
    return q;
}

/* The session's model for dir, loading it when it is not the cached one. */
static fl_sem_model *model_for(SessionObject *s, const char *dir)
{
    if (s->model && s->model_dir && !strcmp(s->model_dir, dir))
        return s->model;
    fl_sem_model *m = NULL;
    fl_error err;
    fl_error_clear(&err);
    fl_status rc;
    Py_BEGIN_ALLOW_THREADS rc = fl_sem_model_load_dir(dir, &m, &err);
    Py_END_ALLOW_THREADS if (rc != FL_OK)
    {
        raise_floe(&err, NULL);
        return NULL;
    }
    char *copy = strdup(dir);
    if (!copy) {
        fl_sem_model_free(m);
        PyErr_NoMemory();
        return NULL;
    }
    fl_sem_model_free(s->model);
    free(s->model_dir);
    s->model = m;
    s->model_dir = copy;
    return m;
}

PyObject *session_metrics(SessionObject *self, PyObject *args, PyObject *kw)
{
    metrics_args a;
    if (!session_usable(self) || !parse_metrics_args(args, kw, &a))
        return NULL;
    fl_sem_model *m = model_for(self, a.models);
    ResultObject *r = m ? result_new(self) : NULL;
    if (!r) {
        metrics_args_free(&a);
        return NULL;
    }
    fl_sem_query q = query_of(&a);
    fl_sem_receipt *receipt = NULL;
    fl_error err;
    fl_error_clear(&err);
    fl_status rc;
    session_lock(self);
    Py_BEGIN_ALLOW_THREADS rc = fl_sem_execute(self->sess, m, &q, &r->res, &receipt, &err);
    if (rc == FL_OK)
        rc = fl_sem_receipt_to_json(receipt, &r->receipt_json, &err);
    Py_END_ALLOW_THREADS PyThread_release_lock(self->lock);
    fl_sem_receipt_free(receipt);
    metrics_args_free(&a);
    if (rc != FL_OK) {
        raise_floe(&err, self->sess);
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

PyObject *session_compile_metrics(SessionObject *self, PyObject *args, PyObject *kw)
{
    metrics_args a;
    if (!session_usable(self) || !parse_metrics_args(args, kw, &a))
        return NULL;
    fl_sem_model *m = model_for(self, a.models);
    if (!m) {
        metrics_args_free(&a);
        return NULL;
    }
    fl_sem_query q = query_of(&a);
    char *sql = NULL;
    fl_error err;
    fl_error_clear(&err);
    fl_status rc = fl_sem_compile(m, &q, NULL, 0, &sql, &err);
    metrics_args_free(&a);
    if (rc != FL_OK)
        return raise_floe(&err, NULL);
    PyObject *out = PyUnicode_FromString(sql);
    free(sql);
    return out;
}
