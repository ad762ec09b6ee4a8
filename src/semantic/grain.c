/*
 * grain.c - time grains (hour .. year) and interval texts ("1 month",
 * "7 days") as the model and queries spell them, and their SQL.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/compile.h"

static const char *const grains[] = {"hour", "day", "week", "month", "quarter", "year"};
static const char *const grain_intervals[] = {"INTERVAL '1 hour'",   "INTERVAL '1 day'",
                                              "INTERVAL '7 days'",   "INTERVAL '1 month'",
                                              "INTERVAL '3 months'", "INTERVAL '1 year'"};

int sem_grain_rank(const char *g)
{
    for (int i = 0; g && i < 6; i++)
        if (!strcmp(g, grains[i]))
            return i + 1;
    return 0;
}

const char *sem_grain_interval(const char *grain)
{
    int r = sem_grain_rank(grain);
    return r ? grain_intervals[r - 1] : "INTERVAL '1 day'";
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

const char *sem_interval_sql(fl_arena *a, const char *s)
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
    case 1: return fl_arena_sprintf(a, "INTERVAL '%ld hours'", n);
    case 3: return fl_arena_sprintf(a, "INTERVAL '%ld days'", n * 7);
    case 4: return fl_arena_sprintf(a, "INTERVAL '%ld months'", n);
    case 5: return fl_arena_sprintf(a, "INTERVAL '%ld months'", n * 3);
    case 6: return fl_arena_sprintf(a, "INTERVAL '%ld years'", n);
    default: return fl_arena_sprintf(a, "INTERVAL '%ld days'", n);
    }
}
