/*
 * grain.c - time grains (hour .. year) and interval texts ("1 month",
 * "7 days") as the model and queries spell them, and their SQL.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/compile.h"

static const char *const grains[] = {"hour", "day", "week", "month", "quarter", "year"};
int sem_grain_rank(const char *g)
{
    for (int i = 0; g && i < 6; i++)
        if (!strcmp(g, grains[i]))
            return i + 1;
    return 0;
}

/* a count of one unit ("hour", "day", "month", "year") as an INTERVAL literal */
static const char *interval_literal(sem_ctx *c, long n, const char *unit)
{
    if (c->trino) {
        char up[8] = {0};
        for (size_t i = 0; unit[i] && i < sizeof up - 1; i++)
            up[i] = (char)(unit[i] - 'a' + 'A');
        return fl_arena_sprintf(&c->a, "INTERVAL '%ld' %s", n, up);
    }
    return fl_arena_sprintf(&c->a, "INTERVAL '%ld %s%s'", n, unit, n == 1 ? "" : "s");
}

const char *sem_grain_interval(sem_ctx *c, const char *grain)
{
    switch (sem_grain_rank(grain)) {
    case 1: return interval_literal(c, 1, "hour");
    case 3: return interval_literal(c, 7, "day");
    case 4: return interval_literal(c, 1, "month");
    case 5: return interval_literal(c, 3, "month");
    case 6: return interval_literal(c, 1, "year");
    default: return interval_literal(c, 1, "day");
    }
}

const char *sem_double(sem_ctx *c)
{
    return c->trino ? "double" : "double precision";
}

bool sem_interval_ok(const char *s)
{
    if (!s)
        return false;
    while (*s == ' ')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    char *end = NULL;
    long n = strtol(s, &end, 10);
    if (n <= 0 || n > 100000)
        return false;
    while (*end == ' ')
        end++;
    char unit[16] = {0};
    size_t k = 0;
    while (end[k] && end[k] != ' ' && k < sizeof unit - 1) {
        unit[k] = end[k];
        k++;
    }
    if (end[k] && end[k] != ' ')
        return false;
    for (const char *t = end + k; *t; t++)
        if (*t != ' ')
            return false;
    if (k > 1 && unit[k - 1] == 's')
        unit[k - 1] = 0;
    return sem_grain_rank(unit) != 0;
}

const char *sem_input_ref(const sem_input *in)
{
    return in->alias ? in->alias : in->name;
}

const char *sem_interval_sql(sem_ctx *c, const char *s)
{
    char *end = NULL;
    long n = strtol(s, &end, 10);
    while (*end == ' ')
        end++;
    char unit[16] = {0};
    for (size_t k = 0; end[k] && end[k] != ' ' && k < sizeof unit - 1; k++)
        unit[k] = end[k];
    size_t k = strlen(unit);
    if (k > 1 && unit[k - 1] == 's')
        unit[k - 1] = 0;
    switch (sem_grain_rank(unit)) {
    case 1: return interval_literal(c, n, "hour");
    case 3: return interval_literal(c, n * 7, "day");
    case 4: return interval_literal(c, n, "month");
    case 5: return interval_literal(c, n * 3, "month");
    case 6: return interval_literal(c, n, "year");
    default: return interval_literal(c, n, "day");
    }
}
