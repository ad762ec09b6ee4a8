/*
 * module.c - floe._native's module object: the Session and Result types and
 * the Error exception (floe/__init__.py builds the user-facing API on them).
 */
#include "native.h"

PyObject *floe_error_type;

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    "floe._native",
    "libfloe bindings (see floe/__init__.py)",
    -1,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__native(void)
{
    if (PyType_Ready(&SessionType) < 0 || PyType_Ready(&ResultType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&native_module);
    if (!m)
        return NULL;
    floe_error_type = PyErr_NewExceptionWithDoc(
        "floe._native.Error", "An error from libfloe (.sqlstate, .position)", NULL, NULL);
    if (!floe_error_type || PyModule_AddObject(m, "Error", floe_error_type) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(floe_error_type); /* PyModule_AddObject stole one reference */
    Py_INCREF(&SessionType);
    Py_INCREF(&ResultType);
    if (PyModule_AddObject(m, "Session", (PyObject *)&SessionType) < 0 ||
        PyModule_AddObject(m, "Result", (PyObject *)&ResultType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
