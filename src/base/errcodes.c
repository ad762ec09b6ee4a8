/*
 * errcodes.c - the SQLSTATE table (floe/errcodes.h): lookups, the class ->
 * HTTP status mapping and the fl_status -> default SQLSTATE mapping, each
 * in this one place. The table itself is FL_SQLSTATE_LIST; nothing here is
 * mutable.
 */
#include "floe/errcodes.h"

#include <string.h>

static const fl_sqlstate_entry table[] = {
#define ENTRY_(cname, code, cond) {#cname, code, cond},
    FL_SQLSTATE_LIST(ENTRY_)
#undef ENTRY_
};

_Static_assert(sizeof table / sizeof table[0] == FL_SQLSTATE_COUNT, "table and enum agree");

const fl_sqlstate_entry *fl_sqlstate_at(size_t i)
{
    return i < FL_SQLSTATE_COUNT ? &table[i] : NULL;
}

const fl_sqlstate_entry *fl_sqlstate_find(const char *code)
{
    if (!code)
        return NULL;
    for (size_t i = 0; i < FL_SQLSTATE_COUNT; i++)
        if (!strcmp(table[i].code, code))
            return &table[i];
    return NULL;
}

const char *fl_sqlstate_name(const char *code)
{
    const fl_sqlstate_entry *e = fl_sqlstate_find(code);
    return e ? e->condition : NULL;
}

/* Codes whose HTTP status differs from their class's. */
static const struct {
    const char *code;
    int status;
} code_status[] = {
    {"42501", 403}, /* insufficient_privilege: forbidden */
    {"42P01", 404}, /* undefined_table */
};

/* Classes (the first two characters) and their HTTP status; others 500.
 * 57 is query_canceled: the statement was cancelled or timed out. */
static const struct {
    const char *cls;
    int status;
} class_status[] = {
    {"0A", 400}, {"0L", 400}, {"21", 400}, {"22", 400}, {"23", 400}, {"2B", 400}, {"3D", 400},
    {"3F", 404}, {"40", 409}, {"42", 400}, {"53", 503}, {"54", 400}, {"57", 409},
};

int fl_sqlstate_http_status(const char *code)
{
    if (!code || strlen(code) != 5)
        return 500;
    for (size_t i = 0; i < sizeof code_status / sizeof code_status[0]; i++)
        if (!strcmp(code_status[i].code, code))
            return code_status[i].status;
    for (size_t i = 0; i < sizeof class_status / sizeof class_status[0]; i++)
        if (!strncmp(class_status[i].cls, code, 2))
            return class_status[i].status;
    return 500;
}

const char *fl_sqlstate_for_status(fl_status status)
{
    switch (status) {
    case FL_OK: return "00000";
    case FL_EINVAL: return "22023";
    case FL_ENOMEM: return "53200";
    case FL_EIO: return "58030";
    case FL_ECORRUPT: return "XX001";
    case FL_EUNSUPPORTED: return "0A000";
    case FL_ENOTFOUND: return "42704";
    case FL_EEXIST: return "42710";
    case FL_ECONFLICT: return "40001";
    case FL_ELIMIT: return "54000";
    case FL_ECANCELED: return "57014";
    case FL_ECHECKSUM: return "XX001";
    case FL_ESYNTAX: return "42601";
    case FL_ETYPE: return "42804";
    case FL_EOVERFLOW: return "22003";
    case FL_EUNAUTHENTICATED: return "28P01";
    case FL_EFORBIDDEN: return "42501";
    }
    return "XX000";
}

const char *fl_error_sqlstate(const fl_error *e)
{
    if (!e)
        return "XX000";
    if (e->sqlstate[0])
        return e->sqlstate;
    return fl_sqlstate_for_status(e->code);
}
