/*
 * _native.c - the CPython extension under the floe Python package: a thin
 * layer over libfloe's public API (include/floe/sql.h, arrow.h, semantic.h).
 *
 * Session wraps one fl_sql_session (the embedded engine over a catalog and
 * warehouse). Session.execute() returns a Result, the engine's cursor. A
 * Result implements the Arrow PyCapsule interface (__arrow_c_stream__): it
 * hands pyarrow, polars or any other consumer an ArrowArrayStream whose
 * get_next pulls the next engine batch as an ArrowArray
 * (fl_sql_result_next_arrow): the arrays adopt buffers in floe's layout,
 * which is Arrow's (booleans and map offsets are converted by libfloe), so
 * no value is converted or copied on the Python side.
 *
 * Ownership: a Result holds a strong reference to its Session, so the
 * engine session outlives every cursor on it; Session.close() with cursors
 * still open defers the close to the last one. A stream holds a strong
 * reference to its Result. The engine runs with the GIL released
 * (fl_sql_execute, fl_sql_result_next), so Session.cancel() from another
 * Python thread can stop a long statement; a Session is otherwise used by
 * one thread at a time, as libfloe requires (a per-session lock enforces it).
 *
 * Errors: floe._native.Error carries the message, sqlstate and 1-based SQL
 * position (0 = none) from fl_error and fl_sql_last_error.
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

/* Raises floe._native.Error from err (and the session's SQL details). */
PyObject *raise_floe(const fl_error *err, fl_sql_session *sess)
{
    fl_sql_error_info info;
    memset(&info, 0, sizeof info);
    if (sess)
        fl_sql_last_error(sess, &info);
    const char *state = err->sqlstate[0] ? err->sqlstate : info.sqlstate;
    PyObject *args = Py_BuildValue("(s)", err->msg[0] ? err->msg : "floe: unknown error");
    if (!args)
        return NULL;
    PyObject *exc = PyObject_Call(floe_error_type, args, NULL);
    Py_DECREF(args);
    if (!exc)
        return NULL;
    PyObject *st = PyUnicode_FromString(state);
    PyObject *pos = PyLong_FromLong(info.position);
    if (st && pos) {
        PyObject_SetAttrString(exc, "sqlstate", st);
        PyObject_SetAttrString(exc, "position", pos);
    }
    Py_XDECREF(st);
    Py_XDECREF(pos);
    PyErr_SetObject(floe_error_type, exc);
    Py_DECREF(exc);
    return NULL;
}

bool session_usable(SessionObject *s)
{
    if (s->sess && !s->closing)
        return true;
    PyErr_SetString(floe_error_type, "floe: the session is closed");
    return false;
}

void session_really_close(SessionObject *s)
{
    fl_sem_model_free(s->model);
    s->model = NULL;
    free(s->model_dir);
    s->model_dir = NULL;
    fl_sql_session_close(s->sess);
    s->sess = NULL;
}

static int session_init(SessionObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"catalog",      "warehouse", "namespace", "threads",
                            "memory_limit", "time_zone", "user",      NULL};
    const char *catalog = NULL, *warehouse = NULL, *ns = NULL, *tz = NULL, *user = NULL;
    unsigned int threads = 0;
    unsigned long long memory = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zzzIKzz", names, &catalog, &warehouse, &ns,
                                     &threads, &memory, &tz, &user))
        return -1;
    if (self->sess) {
        PyErr_SetString(floe_error_type, "floe: the session is already open");
        return -1;
    }
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.catalog_uri = catalog;
    o.warehouse = warehouse;
    o.default_namespace = ns;
    o.threads = threads;
    o.memory_limit = memory;
    o.time_zone = tz;
    o.user = user;
    fl_error err;
    fl_error_clear(&err);
    fl_status rc;
    Py_BEGIN_ALLOW_THREADS rc = fl_sql_session_open(&o, &self->sess, &err);
    Py_END_ALLOW_THREADS if (rc != FL_OK)
    {
        raise_floe(&err, NULL);
        return -1;
    }
    self->lock = PyThread_allocate_lock();
    if (!self->lock) {
        session_really_close(self);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void session_dealloc(SessionObject *self)
{
    session_really_close(self);
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *session_close(SessionObject *self, PyObject *unused)
{
    (void)unused;
    self->closing = true;
    if (self->open_results == 0)
        session_really_close(self);
    Py_RETURN_NONE;
}

static PyObject *session_cancel(SessionObject *self, PyObject *unused)
{
    (void)unused;
    if (self->sess)
        fl_sql_session_cancel(self->sess); /* thread-safe by contract */
    Py_RETURN_NONE;
}

/* Takes the session's statement lock with the GIL released. */
void session_lock(SessionObject *s)
{
    if (PyThread_acquire_lock(s->lock, NOWAIT_LOCK))
        return;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(s->lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
}

ResultObject *result_new(SessionObject *s)
{
    ResultObject *r = PyObject_New(ResultObject, &ResultType);
    if (!r)
        return NULL;
    Py_INCREF(s);
    r->session = s;
    r->res = NULL;
    r->stmt = NULL;
    r->streamed = false;
    r->eof = false;
    r->receipt_json = NULL;
    s->open_results++;
    return r;
}

/* Python value -> fl_value; strings and bytes borrow the object's buffer
 * (the objects outlive the call: they are held by the params sequence). */
static bool bind_value(PyObject *o, fl_value *x, Py_ssize_t i)
{
    memset(x, 0, sizeof *x);
    if (o == Py_None) {
        x->type.id = FL_TYPE_STRING;
        x->is_null = true;
    } else if (PyBool_Check(o)) {
        x->type.id = FL_TYPE_BOOLEAN;
        x->v.b = o == Py_True;
    } else if (PyLong_Check(o)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow) {
            PyErr_Format(PyExc_OverflowError, "floe: parameter %zd does not fit in a bigint",
                         i + 1);
            return false;
        }
        x->type.id = FL_TYPE_INT64;
        x->v.i64 = v;
    } else if (PyFloat_Check(o)) {
        x->type.id = FL_TYPE_FLOAT64;
        x->v.f64 = PyFloat_AsDouble(o);
    } else if (PyUnicode_Check(o)) {
        Py_ssize_t len = 0;
        const char *p = PyUnicode_AsUTF8AndSize(o, &len);
        if (!p)
            return false;
        x->type.id = FL_TYPE_STRING;
        x->v.bytes.ptr = (const uint8_t *)p;
        x->v.bytes.len = (size_t)len;
    } else if (PyBytes_Check(o)) {
        x->type.id = FL_TYPE_BINARY;
        x->v.bytes.ptr = (const uint8_t *)PyBytes_AS_STRING(o);
        x->v.bytes.len = (size_t)PyBytes_GET_SIZE(o);
    } else {
        PyErr_Format(PyExc_TypeError,
                     "floe: parameter %zd is a %s; pass None, bool, int, float, str or bytes "
                     "(the Python layer turns dates, times and decimals into text)",
                     i + 1, Py_TYPE(o)->tp_name);
        return false;
    }
    return true;
}

static PyObject *execute_prepared(SessionObject *self, const char *sql, PyObject *seq)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    fl_value *vals = n ? calloc((size_t)n, sizeof *vals) : NULL;
    if (n && !vals)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++)
        if (!bind_value(PySequence_Fast_GET_ITEM(seq, i), &vals[i], i)) {
            free(vals);
            return NULL;
        }
    ResultObject *r = result_new(self);
    if (!r) {
        free(vals);
        return NULL;
    }
    fl_error err;
    fl_error_clear(&err);
    fl_status rc;
    session_lock(self);
    Py_BEGIN_ALLOW_THREADS rc = fl_sql_prepare(self->sess, sql, &r->stmt, &err);
    if (rc == FL_OK && fl_sql_stmt_nparams(r->stmt) != (uint32_t)n)
        rc = fl_errorf(&err, FL_EINVAL, "the statement has %u parameters, %zd were given",
                       fl_sql_stmt_nparams(r->stmt), n);
    if (rc == FL_OK)
        rc = fl_sql_stmt_execute(r->stmt, vals, (uint32_t)n, &r->res, &err);
    Py_END_ALLOW_THREADS PyThread_release_lock(self->lock);
    free(vals);
    if (rc != FL_OK) {
        raise_floe(&err, self->sess);
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

static PyObject *session_execute(SessionObject *self, PyObject *args)
{
    const char *sql;
    PyObject *params = Py_None;
    if (!PyArg_ParseTuple(args, "s|O", &sql, &params) || !session_usable(self))
        return NULL;
    if (params != Py_None) {
        PyObject *seq = PySequence_Fast(params, "floe: params must be a sequence");
        if (!seq)
            return NULL;
        PyObject *r = execute_prepared(self, sql, seq);
        Py_DECREF(seq);
        return r;
    }
    ResultObject *r = result_new(self);
    if (!r)
        return NULL;
    fl_error err;
    fl_error_clear(&err);
    fl_status rc;
    session_lock(self);
    Py_BEGIN_ALLOW_THREADS rc = fl_sql_execute(self->sess, sql, &r->res, &err);
    Py_END_ALLOW_THREADS PyThread_release_lock(self->lock);
    if (rc != FL_OK) {
        raise_floe(&err, self->sess);
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

static PyObject *session_set(SessionObject *self, PyObject *args)
{
    const char *name, *value;
    if (!PyArg_ParseTuple(args, "ss", &name, &value) || !session_usable(self))
        return NULL;
    fl_error err;
    fl_error_clear(&err);
    if (fl_sql_set(self->sess, name, value, &err) != FL_OK)
        return raise_floe(&err, self->sess);
    Py_RETURN_NONE;
}

static PyMethodDef session_methods[] = {
    {"execute", (PyCFunction)session_execute, METH_VARARGS,
     "execute(sql, params=None) -> Result: runs one statement ($1, $2... are params)"},
    {"set", (PyCFunction)session_set, METH_VARARGS, "set(name, value): SET name = value"},
    {"cancel", (PyCFunction)session_cancel, METH_NOARGS,
     "cancel(): cancels the statement running on this session (any thread)"},
    {"close", (PyCFunction)session_close, METH_NOARGS, "close(): closes the engine session"},
    {"metrics", (PyCFunction)(void (*)(void))session_metrics, METH_VARARGS | METH_KEYWORDS,
     "metrics(models, metrics, group_by=(), where=(), order_by=(), limit=-1, as_of=None) -> "
     "Result with .receipt (JSON)"},
    {"compile_metrics", (PyCFunction)(void (*)(void))session_compile_metrics,
     METH_VARARGS | METH_KEYWORDS, "compile_metrics(models, metrics, group_by=(), ...) -> the SQL"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject SessionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "floe._native.Session",
    .tp_basicsize = sizeof(SessionObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An embedded floe SQL session over a catalog and warehouse",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)session_init,
    .tp_dealloc = (destructor)session_dealloc,
    .tp_methods = session_methods,
};
