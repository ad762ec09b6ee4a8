/*
 * admission.c - per-principal counters of running statements and sessions
 * (include/floe/admission.h; docs/security.md, "Resource limits").
 *
 * A linked list of (kind, principal, count) under one mutex: it holds only
 * principals with something running, which is bounded by the front ends'
 * own limits (connections, HTTP statement slots), and one enter/leave per
 * statement is cheap next to running it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/admission.h"
#include "floe/auth.h"

typedef struct entry {
    fl_admit_kind kind;
    char principal[FL_PRINCIPAL_NAME_MAX];
    uint32_t count;
    struct entry *next;
} entry;

struct fl_admission {
    pthread_mutex_t mu;
    entry *head;
};

fl_status fl_admission_new(fl_admission **out, fl_error *err)
{
    fl_admission *a = calloc(1, sizeof *a);
    if (!a)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    pthread_mutex_init(&a->mu, NULL);
    *out = a;
    return FL_OK;
}

void fl_admission_free(fl_admission *a)
{
    if (!a)
        return;
    for (entry *e = a->head, *n; e; e = n) {
        n = e->next;
        free(e);
    }
    pthread_mutex_destroy(&a->mu);
    free(a);
}

static entry **find(fl_admission *a, fl_admit_kind kind, const char *principal)
{
    entry **pp = &a->head;
    while (*pp && ((*pp)->kind != kind || strcmp((*pp)->principal, principal)))
        pp = &(*pp)->next;
    return pp;
}

fl_status fl_admission_enter(fl_admission *a, fl_admit_kind kind, const char *principal,
                             uint32_t max, fl_error *err)
{
    if (!a || !principal)
        return FL_OK;
    pthread_mutex_lock(&a->mu);
    entry **pp = find(a, kind, principal);
    fl_status rc = FL_OK;
    if (*pp && max && (*pp)->count >= max) {
        rc = fl_error_state(
            err, FL_ELIMIT, "53300",
            "too many %s for principal \"%.128s\": %u running, at most %u (SQLSTATE "
            "53300)",
            kind == FL_ADMIT_SESSION ? "sessions" : "statements", principal, (*pp)->count, max);
    } else if (*pp) {
        (*pp)->count++;
    } else {
        entry *e = calloc(1, sizeof *e);
        if (!e) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        } else {
            e->kind = kind;
            snprintf(e->principal, sizeof e->principal, "%s", principal);
            e->count = 1;
            e->next = a->head;
            a->head = e;
        }
    }
    pthread_mutex_unlock(&a->mu);
    return rc;
}

void fl_admission_leave(fl_admission *a, fl_admit_kind kind, const char *principal)
{
    if (!a || !principal)
        return;
    pthread_mutex_lock(&a->mu);
    entry **pp = find(a, kind, principal);
    if (*pp && --(*pp)->count == 0) {
        entry *e = *pp;
        *pp = e->next;
        free(e);
    }
    pthread_mutex_unlock(&a->mu);
}

fl_status fl_limits_for_session(fl_auth *a, const fl_principal *p, const fl_limit_defaults *d,
                                fl_sql_options *o, uint32_t *max_statements, fl_error *err)
{
    fl_auth_limits l;
    memset(&l, 0, sizeof l);
    *max_statements = 0;
    o->statement_timeout_ms = d->statement_timeout_ms;
    o->spill_dir_fixed = true; /* spill files go where the operator configured */
    if (!p || p->admin || p->anonymous)
        return FL_OK;
    if (a)
        FL_TRY(fl_auth_limits_for(a, p, &l, err));
    o->max_memory_limit = l.max_memory_limit    ? l.max_memory_limit
                          : d->max_memory_limit ? d->max_memory_limit
                                                : o->memory_limit;
    o->max_statement_timeout_ms =
        l.max_statement_timeout_ms ? l.max_statement_timeout_ms : d->max_statement_timeout_ms;
    if (l.statement_timeout_ms)
        o->statement_timeout_ms = l.statement_timeout_ms;
    *max_statements = l.max_statements ? l.max_statements : d->max_statements;
    return FL_OK;
}

uint32_t fl_admission_count(fl_admission *a, fl_admit_kind kind, const char *principal)
{
    if (!a || !principal)
        return 0;
    pthread_mutex_lock(&a->mu);
    entry **pp = find(a, kind, principal);
    uint32_t n = *pp ? (*pp)->count : 0;
    pthread_mutex_unlock(&a->mu);
    return n;
}
