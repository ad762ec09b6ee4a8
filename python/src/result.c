/*
 * result.c - floe._native.Result: one statement's cursor, and the Arrow C
 * stream over it (the PyCapsule interface: __arrow_c_stream__).
 *
 * The stream pulls batches straight from the engine: get_next calls
 * fl_sql_result_next_arrow, whose ArrowArray owns the batch's buffers (the
 * engine copies each batch once, in bulk, out of its operators' state). get_next runs without the
 * GIL (pyarrow releases it while reading), so it touches no Python object; the stream's release
 * takes the GIL to drop its reference to the Result. A Result hands out one stream: a cursor is
 * read once.
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

typedef struct stream_priv {
    ResultObject *result; /* strong reference, dropped in release */
    char last_error[FL_ERROR_MSG_MAX + 64];
} stream_priv;

static int stream_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
    stream_priv *p = st->private_data;
    ResultObject *r = p->result;
    fl_error err;
    fl_error_clear(&err);
    if (!r->res) {
        snprintf(p->last_error, sizeof p->last_error, "floe: the result is closed");
        return 22; /* EINVAL */
    }
    if (fl_sql_result_arrow_schema(r->res, out, &err) != FL_OK) {
        snprintf(p->last_error, sizeof p->last_error, "%s", err.msg);
        return 22;
    }
    return 0;
}

static int stream_get_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
    stream_priv *p = st->private_data;
    ResultObject *r = p->result;
    memset(out, 0, sizeof *out);
    if (!r->res) {
        snprintf(p->last_error, sizeof p->last_error, "floe: the result is closed");
        return 22;
    }
    if (r->eof)
        return 0; /* release == NULL: the end of the stream */
    bool eof = false;
    fl_error err;
    fl_error_clear(&err);
    PyThread_acquire_lock(r->session->lock, WAIT_LOCK);
    fl_status rc = fl_sql_result_next_arrow(r->res, out, &eof, &err);
    PyThread_release_lock(r->session->lock);
    if (rc != FL_OK) {
        fl_sql_error_info info;
        fl_sql_last_error(r->session->sess, &info);
        snprintf(p->last_error, sizeof p->last_error, "%s%s%s", err.msg,
                 info.sqlstate[0] ? " SQLSTATE " : "", info.sqlstate);
        return 5; /* EIO */
    }
    if (eof)
        r->eof = true;
    return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *st)
{
    stream_priv *p = st->private_data;
    return p->last_error[0] ? p->last_error : NULL;
}

static void stream_release(struct ArrowArrayStream *st)
{
    stream_priv *p = st->private_data;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF(p->result);
    PyGILState_Release(g);
    free(p);
    st->release = NULL;
    st->private_data = NULL;
}

static void capsule_free(PyObject *capsule)
{
    struct ArrowArrayStream *st = PyCapsule_GetPointer(capsule, "arrow_array_stream");
    if (!st)
        return;
    if (st->release)
        st->release(st); /* never consumed: release it ourselves */
    free(st);
}

static PyObject *result_arrow_c_stream(ResultObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"requested_schema", NULL};
    PyObject *requested = Py_None; /* a hint the interface allows to ignore */
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", names, &requested))
        return NULL;
    if (!self->res) {
        PyErr_SetString(floe_error_type, "floe: the result is closed");
        return NULL;
    }
    if (self->streamed) {
        PyErr_SetString(floe_error_type,
                        "floe: this result was already read (a cursor is read once)");
        return NULL;
    }
    struct ArrowArrayStream *st = calloc(1, sizeof *st);
    stream_priv *p = calloc(1, sizeof *p);
    if (!st || !p) {
        free(st);
        free(p);
        return PyErr_NoMemory();
    }
    Py_INCREF(self);
    p->result = self;
    st->get_schema = stream_get_schema;
    st->get_next = stream_get_next;
    st->get_last_error = stream_last_error;
    st->release = stream_release;
    st->private_data = p;
    PyObject *cap = PyCapsule_New(st, "arrow_array_stream", capsule_free);
    if (!cap) {
        stream_release(st);
        free(st);
        return NULL;
    }
    self->streamed = true;
    return cap;
}

static void result_close_engine(ResultObject *self)
{
    if (!self->session)
        return;
    fl_sql_result_close(self->res);
    fl_sql_stmt_close(self->stmt);
    self->res = NULL;
    self->stmt = NULL;
    SessionObject *s = self->session;
    self->session = NULL;
    if (--s->open_results == 0 && s->closing)
        session_really_close(s);
    Py_DECREF(s);
}

static PyObject *result_close(ResultObject *self, PyObject *unused)
{
    (void)unused;
    result_close_engine(self);
    Py_RETURN_NONE;
}

static void result_dealloc(ResultObject *self)
{
    result_close_engine(self);
    free(self->receipt_json);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *result_tag(ResultObject *self, void *unused)
{
    (void)unused;
    if (!self->res)
        Py_RETURN_NONE;
    return PyUnicode_FromString(fl_sql_result_tag(self->res));
}

static PyObject *result_rows_affected(ResultObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromLongLong(self->res ? fl_sql_result_rows_affected(self->res) : -1);
}

static PyObject *result_columns(ResultObject *self, void *unused)
{
    (void)unused;
    if (!self->res)
        return PyList_New(0);
    const fl_schema *sc = fl_sql_result_schema(self->res);
    PyObject *names = PyList_New(sc ? (Py_ssize_t)sc->nfields : 0);
    for (uint32_t i = 0; names && sc && i < sc->nfields; i++) {
        PyObject *n = PyUnicode_FromString(sc->fields[i].name);
        if (!n) {
            Py_DECREF(names);
            return NULL;
        }
        PyList_SET_ITEM(names, i, n);
    }
    return names;
}

/* [(table, snapshot_id, written), ...]: the snapshots the statement read. */
static PyObject *result_reads(ResultObject *self, void *unused)
{
    (void)unused;
    uint32_t n = self->res ? fl_sql_result_nreads(self->res) : 0;
    PyObject *list = PyList_New(n);
    for (uint32_t i = 0; list && i < n; i++) {
        const fl_sql_table_read *t = fl_sql_result_read(self->res, i);
        PyObject *item = Py_BuildValue("(sLO)", t->table, (long long)t->snapshot_id,
                                       t->written ? Py_True : Py_False);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyObject *result_receipt(ResultObject *self, void *unused)
{
    (void)unused;
    if (!self->receipt_json)
        Py_RETURN_NONE;
    return PyUnicode_FromString(self->receipt_json);
}

static PyObject *result_profile(ResultObject *self, PyObject *unused)
{
    (void)unused;
    if (!self->res)
        Py_RETURN_NONE;
    const char *text = fl_sql_result_profile(self->res);
    return PyUnicode_FromString(text ? text : "");
}

static PyMethodDef result_methods[] = {
    {"__arrow_c_stream__", (PyCFunction)(void (*)(void))result_arrow_c_stream,
     METH_VARARGS | METH_KEYWORDS,
     "the rows as an Arrow C stream (PyCapsule 'arrow_array_stream'); read once"},
    {"close", (PyCFunction)result_close, METH_NOARGS, "close(): ends the statement"},
    {"profile", (PyCFunction)result_profile, METH_NOARGS,
     "profile() -> the plan with runtime counters (EXPLAIN ANALYZE text)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef result_getset[] = {
    {"tag", (getter)result_tag, NULL, "the command tag (SELECT 3, INSERT 0 5, ...)", NULL},
    {"rows_affected", (getter)result_rows_affected, NULL, "rows changed by DML", NULL},
    {"columns", (getter)result_columns, NULL, "result column names", NULL},
    {"reads", (getter)result_reads, NULL, "[(table, snapshot_id, written)]", NULL},
    {"receipt", (getter)result_receipt, NULL, "a metrics query's receipt (JSON text)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ResultType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "floe._native.Result",
    .tp_basicsize = sizeof(ResultObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A statement's cursor; an Arrow C stream source (__arrow_c_stream__)",
    .tp_dealloc = (destructor)result_dealloc,
    .tp_methods = result_methods,
    .tp_getset = result_getset,
};
