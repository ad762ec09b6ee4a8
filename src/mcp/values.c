/*
 * values.c - engine values as JSON and CSV for tool results.
 *
 * Every value is first rendered in PostgreSQL's text form (the engine's
 * formatter, the same as psql and floe sql show); booleans, integers and
 * binary floats then become JSON booleans and numbers, everything else
 * (decimals, exact beyond doubles; dates; timestamps; nested values) stays
 * a string. NULL is JSON null.
 */
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

static char *format(const fl_sql_formatter *f, const fl_vector *v, uint32_t row, char *stack,
                    size_t cap)
{
    size_t n = fl_sql_formatter_value(f, v, row, stack, cap);
    if (n < cap)
        return stack;
    char *big = malloc(n + 1);
    if (big)
        fl_sql_formatter_value(f, v, row, big, n + 1);
    return big;
}

json_t *mcp_value_json(const fl_sql_formatter *f, const fl_vector *v, uint32_t row)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    if (!fl_unified_is_valid(&u, row))
        return json_null();
    char stack[256];
    char *t = format(f, v, row, stack, sizeof stack);
    if (!t)
        return NULL;
    json_t *j = NULL;
    switch (v->type->id) {
    case FL_TYPE_BOOLEAN: j = json_boolean(t[0] == 't'); break;
    case FL_TYPE_INT32:
    case FL_TYPE_INT64: j = json_integer(strtoll(t, NULL, 10)); break;
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: {
        char *end = NULL;
        double d = strtod(t, &end);
        j = (end && !*end && d == d && d - d == 0) ? json_real(d) : json_string(t);
        break;
    }
    default: j = json_string(t); break;
    }
    if (!j)
        j = json_string("\xef\xbf\xbd"); /* invalid UTF-8 text */
    if (t != stack)
        free(t);
    return j;
}

bool mcp_buf_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (*len + n + 1 > c)
            c *= 2;
        char *b = realloc(*buf, c);
        if (!b)
            return false;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return true;
}

bool mcp_csv_field(char **buf, size_t *len, size_t *cap, const char *text, bool is_null)
{
    if (is_null)
        return mcp_buf_put(buf, len, cap, "", 0);
    bool quote = !*text || strpbrk(text, ",\"\r\n") != NULL;
    if (!quote)
        return mcp_buf_put(buf, len, cap, text, strlen(text));
    if (!mcp_buf_put(buf, len, cap, "\"", 1))
        return false;
    for (const char *p = text; *p; p++)
        if (!mcp_buf_put(buf, len, cap, p, 1) ||
            (*p == '"' && !mcp_buf_put(buf, len, cap, "\"", 1)))
            return false;
    return mcp_buf_put(buf, len, cap, "\"", 1);
}
