/*
 * registry_list.h - the signatures of the registered functions, for
 * pg_proc, information_schema.routines and \df (src/sql/pgcat).
 *
 * The registry resolves overloads with per-function resolve() callbacks, not
 * with declared signatures, so the list is found by asking every function
 * which argument types it takes as they are (no cast): each of the probe
 * types below alone, every pair, and common triples. A function that
 * accepts more than FL_FUNC_SIG_MAX_EXACT exact signatures of one arity
 * (greatest, coalesce...) is listed once with anyelement arguments; one that
 * accepts none of the probes (array functions, 4+ arguments) once as
 * VARIADIC "any". Ownership: the list is arena memory of the caller.
 */
#ifndef FLOE_SQL_FUNC_REGISTRY_LIST_H
#define FLOE_SQL_FUNC_REGISTRY_LIST_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "sql/func.h"

#define FL_FUNC_SIG_MAX_ARGS 3
#define FL_FUNC_SIG_MAX_EXACT 8

typedef enum fl_func_sig_form {
    FL_SIG_EXACT = 0, /* args[] are the argument types */
    FL_SIG_ANYELEMENT, /* nargs arguments of one polymorphic type (anyelement) */
    FL_SIG_VARIADIC,   /* VARIADIC "any": the probes found nothing */
} fl_func_sig_form;

typedef struct fl_func_sig {
    const fl_func *fn;
    fl_func_sig_form form;
    uint32_t nargs;
    fl_type args[FL_FUNC_SIG_MAX_ARGS];
    fl_type result;
    bool result_poly; /* the result type follows the arguments (anyelement) */
    uint32_t ordinal; /* 0, 1, ... among the signatures of the same name */
    uint32_t oid;     /* not set here: the pg_proc OID its user assigns */
} fl_func_sig;

/* Every signature of every function with an identifier name not starting
 * with "__" (operators and internal helpers are left out), grouped by name
 * in registry order. */
fl_status fl_func_signatures(fl_arena *a, fl_func_sig **out, uint32_t *n, fl_error *err);

#endif
