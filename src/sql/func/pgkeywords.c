/*
 * pgkeywords.c - pg_get_keywords(), the SQL key words of the parser, as a
 * relation in FROM (pgJDBC's DatabaseMetaData.getSQLKeywords, which DBeaver
 * and other JDBC tools call at connect:
 *   select string_agg(word, ',') from pg_catalog.pg_get_keywords()
 *   where word <> ALL ('{a,abs,...}'::text[])).
 *
 * Columns as in PostgreSQL 15: word text, catcode "char" ('U' unreserved,
 * 'C' unreserved but not a function or type name, 'T' reserved but allowed
 * as a function or type name, 'R' reserved), barelabel bool (usable as a
 * column label without AS), catdesc text, baredesc text.
 *
 * The words and their categories come from the parser floe uses: libpg_query
 * (PostgreSQL 15's grammar) exports its keyword list ScanKeywords (a
 * ScanKeywordList: the words separated by NUL bytes, one uint16 offset per
 * word, in ASCII order; src/include/common/kwlookup.h) and
 * ScanKeywordCategories (one byte per word: 0 unreserved, 1 column name,
 * 2 type/function name, 3 reserved; src/include/common/keywords.h). The
 * bare-label flag is not exported; the words that need AS are PostgreSQL
 * 15's AS_LABEL entries of src/include/parser/kwlist.h, listed below.
 */
#include <stdint.h>
#include <string.h>

#include "sql/func/pgfunc.h"
#include "sql/pgcat/pgcat.h"

/* libpg_query's keyword table (PostgreSQL's common/kwlookup.h layout). */
typedef struct pg_kwlist {
    const char *kw_string;
    const uint16_t *kw_offsets;
    int (*hash)(const void *key, size_t keylen);
    int num_keywords;
    int max_kw_len;
} pg_kwlist;
extern const pg_kwlist ScanKeywords;
extern const uint8_t ScanKeywordCategories[];

/* PostgreSQL 15's keywords that are AS_LABEL (need AS before a column label). */
static bool as_label(const char *w)
{
    static const char *const words[] = {
        "array",     "as",     "char",    "character", "create",  "day",       "except",
        "fetch",     "filter", "for",     "from",      "grant",   "group",     "having",
        "hour",      "intersect", "into", "isnull",    "limit",   "minute",    "month",
        "notnull",   "offset", "on",      "order",     "over",    "overlaps",  "precision",
        "returning", "second", "to",      "union",     "varying", "where",     "window",
        "with",      "within", "without", "year"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(words[i], w) == 0)
            return true;
    return false;
}

static const fl_pgcat_def keywords_def = {
    "pg_catalog", "pg_get_keywords", 0, 'r',
    "word:text catcode:char barelabel:bool catdesc:text baredesc:text"};

fl_status fl_pgfunc_bind_keywords(fl_bctx *b, const PgQuery__FuncCall *f, const char *alias,
                                  uint32_t *out_ri, fl_error *err)
{
    if (f->n_args != 0)
        return fl_front_err(b->pc, err, FL_ENOTFOUND, f->location, "42883",
                            "function pg_get_keywords() takes no arguments");
    static const char *const codes[] = {"U", "C", "T", "R"}; /* rows keep the pointers */
    static const char *const descs[] = {"unreserved", "unreserved (cannot be function or type name)",
                                        "reserved (can be function or type name)", "reserved"};
    fl_pgcat_rows rows;
    FL_TRY(fl_pgcat_rows_init(&rows, b->pc->arena, &keywords_def, err));
    for (int i = 0; i < ScanKeywords.num_keywords; i++) {
        const char *w = ScanKeywords.kw_string + ScanKeywords.kw_offsets[i];
        uint8_t cat = ScanKeywordCategories[i];
        if (cat > 3)
            return fl_errorf(err, FL_ECORRUPT, "pg_get_keywords: keyword \"%s\" has category %u",
                             w, cat);
        bool bare = !as_label(w);
        FL_TRY(fl_pgcat_rows_add(&rows, err));
        fl_pgcat_set_str(&rows, "word", w);
        fl_pgcat_set_str(&rows, "catcode", codes[cat]);
        fl_pgcat_set_bool(&rows, "barelabel", bare);
        fl_pgcat_set_str(&rows, "catdesc", descs[cat]);
        fl_pgcat_set_str(&rows, "baredesc", bare ? "can be bare label" : "requires AS");
    }
    return fl_pgcat_bind_rows(b, &keywords_def, &rows, alias, out_ri, err);
}
