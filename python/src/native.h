/*
 * native.h - what the files of the floe._native extension share: the
 * Session and Result objects, the Arrow C stream struct, and the helpers
 * that raise libfloe errors. Design and ownership: session.c.
 */
#ifndef FLOE_PY_NATIVE_H
#define FLOE_PY_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <stdbool.h>
#include <stdint.h>

#include "floe/arrow.h"
#include "floe/semantic.h"
#include "floe/sql.h"

/* ---- the Arrow C stream interface (ABI-stable, from the Arrow docs) ---- */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};
#endif

/* ---- Session ---- */

typedef struct {
    PyObject_HEAD fl_sql_session *sess;
    PyThread_type_lock lock; /* one statement call at a time */
    Py_ssize_t open_results;
    bool closing;
    fl_sem_model *model; /* the last model directory loaded (cached) */
    char *model_dir;
} SessionObject;

typedef struct {
    PyObject_HEAD SessionObject *session; /* strong reference */
    fl_sql_result *res;
    fl_sql_stmt *stmt; /* prepared statements: closed after the result */
    bool streamed;     /* a stream was handed out: it owns the pulling */
    bool eof;
    char *receipt_json; /* metrics results: the receipt */
} ResultObject;

extern PyTypeObject SessionType;
extern PyTypeObject ResultType;
extern PyObject *floe_error_type; /* floe._native.Error, created once at import */

PyObject *raise_floe(const fl_error *err, fl_sql_session *sess);
bool session_usable(SessionObject *s);
void session_lock(SessionObject *s);
void session_really_close(SessionObject *s);
ResultObject *result_new(SessionObject *s);

PyObject *session_metrics(SessionObject *self, PyObject *args, PyObject *kw);
PyObject *session_compile_metrics(SessionObject *self, PyObject *args, PyObject *kw);

#endif
