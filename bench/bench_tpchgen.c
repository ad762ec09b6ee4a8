/*
 * bench_tpchgen.c - a TPC-H data generator: writes the eight tables at scale
 * factor SF as ZSTD Parquet files DIR/<table>.parquet (for bench/tpch.sh and
 * tests/interop/test_tpch_sf.sh).
 *
 *   bench_tpchgen [--sf 1] [--out DIR] [--seed N] [--tables lineitem,orders,...]
 *
 * WHAT FOLLOWS THE SPECIFICATION (TPC-H 3.0.1, clause 4.2.3)
 *   Cardinalities: part SF*200,000, supplier SF*10,000, partsupp 4 per part,
 *   customer SF*150,000, orders SF*1,500,000 with 1..7 lineitems each
 *   (~SF*6,000,000), nation 25, region 5. Keys: dense 1..n except
 *   O_ORDERKEY, sparse as dbgen (8 of every 32 keys); customers whose key is
 *   a multiple of 3 place no orders. PS_SUPPKEY / L_SUPPKEY use the spec's
 *   supplier formula, so every (l_partkey, l_suppkey) is in partsupp.
 *   Value domains and formulas: P_NAME (5 distinct of the 92 colors),
 *   P_MFGR/P_BRAND, P_TYPE (150 syllable combinations), P_SIZE 1..50,
 *   P_CONTAINER (40), P_RETAILPRICE formula, phone numbers (country code =
 *   nationkey + 10), account balances -999.99..9999.99, market segments,
 *   order dates uniform in [1992-01-01, 1998-08-02], priorities, clerks,
 *   ship/commit/receipt date offsets, return flag and line status against
 *   CURRENTDATE 1995-06-17, O_ORDERSTATUS from the line statuses,
 *   O_TOTALPRICE = sum(extendedprice * (1 + tax) * (1 - discount)),
 *   L_EXTENDEDPRICE = quantity * retail price, discount 0.00..0.10, tax
 *   0.00..0.08, ship instructions and modes, the fixed nation and region rows,
 *   and SF*5 suppliers each with "Customer ... Complaints" / "Customer ...
 *   Recommends" in S_COMMENT (Q16).
 * WHAT DIFFERS FROM dbgen (not byte-identical; answers differ from dbgen's)
 *   The random number streams (splitmix64 per table, seeded from --seed), so
 *   rows differ value by value. Comments are substrings of a 4 MB text pool
 *   generated from the spec's sentence grammar (4.2.2.10) with uniformly
 *   chosen words (dbgen weights its word lists and uses a 300 MB pool);
 *   addresses are random v-strings over dbgen's 64-character alphabet.
 *   Query predicates that look for words (Q9 '%green%', Q13
 *   '%special%requests%', Q20 'forest%') select similar fractions of rows.
 *
 * Output rows are written in key order; each file is one Parquet writer
 * with row groups of 122,880 rows (DuckDB's default, so scans of either
 * engine have as many morsels as DuckDB's own files would give). The same files are read by DuckDB
 * in the bench, so both engines answer over identical data.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/types.h"
#include "floe/vector.h"

/* ---- random numbers ---- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnext(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t rrange(rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(rnext(r) % span);
}

/* ---- word lists (TPC-H 4.2.2.13 and 4.2.3) ---- */

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const COLORS[] = {
    "almond",   "antique",   "aquamarine", "azure",      "beige",     "bisque",    "black",
    "blanched", "blue",      "blush",      "brown",      "burlywood", "burnished", "chartreuse",
    "chiffon",  "chocolate", "coral",      "cornflower", "cornsilk",  "cream",     "cyan",
    "dark",     "deep",      "dim",        "dodger",     "drab",      "firebrick", "floral",
    "forest",   "frosted",   "gainsboro",  "ghost",      "goldenrod", "green",     "grey",
    "honeydew", "hot",       "indian",     "ivory",      "khaki",     "lace",      "lavender",
    "lawn",     "lemon",     "light",      "lime",       "linen",     "magenta",   "maroon",
    "medium",   "metallic",  "midnight",   "mint",       "misty",     "moccasin",  "navajo",
    "navy",     "olive",     "orange",     "orchid",     "pale",      "papaya",    "peach",
    "peru",     "pink",      "plum",       "powder",     "puff",      "purple",    "red",
    "rose",     "rosy",      "royal",      "saddle",     "salmon",    "sandy",     "seashell",
    "sienna",   "sky",       "slate",      "smoke",      "snow",      "spring",    "steel",
    "tan",      "thistle",   "tomato",     "turquoise",  "violet",    "wheat",     "white",
    "yellow"};
static const char *const TYPE1[] = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
static const char *const TYPE2[] = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
static const char *const TYPE3[] = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
static const char *const CONT1[] = {"SM", "LG", "MED", "JUMBO", "WRAP"};
static const char *const CONT2[] = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};
static const char *const SEGMENTS[] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY",
                                       "HOUSEHOLD"};
static const char *const PRIORITIES[] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED",
                                         "5-LOW"};
static const char *const INSTRUCT[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                       "TAKE BACK RETURN"};
static const char *const MODES[] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
static const struct {
    const char *name;
    int region;
} NATIONS[25] = {{"ALGERIA", 0},      {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1},
                 {"EGYPT", 4},        {"ETHIOPIA", 0},  {"FRANCE", 3}, {"GERMANY", 3},
                 {"INDIA", 2},        {"INDONESIA", 2}, {"IRAN", 4},   {"IRAQ", 4},
                 {"JAPAN", 2},        {"JORDAN", 4},    {"KENYA", 0},  {"MOROCCO", 0},
                 {"MOZAMBIQUE", 0},   {"PERU", 1},      {"CHINA", 2},  {"ROMANIA", 3},
                 {"SAUDI ARABIA", 4}, {"VIETNAM", 2},   {"RUSSIA", 3}, {"UNITED KINGDOM", 3},
                 {"UNITED STATES", 1}};
static const char *const REGIONS[] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};

/* The text grammar's words (4.2.2.13). */
static const char *const NOUNS[] = {
    "foxes",     "ideas",     "theodolites", "pinto beans", "instructions",   "dependencies",
    "excuses",   "platelets", "asymptotes",  "courts",      "dolphins",       "multipliers",
    "sauternes", "warthogs",  "frets",       "dinos",       "attainments",    "somas",
    "Tiresias",  "patterns",  "forges",      "braids",      "hockey players", "frays",
    "warhorses", "dugouts",   "notornis",    "epitaphs",    "pearls",         "tithes",
    "waters",    "orbits",    "gifts",       "sheaves",     "depths",         "sentiments",
    "decoys",    "realms",    "pains",       "grouches",    "escapades",      "accounts",
    "deposits",  "packages",  "requests",    "ideas",       "deposits",       "requests"};
static const char *const VERBS[] = {
    "sleep",  "wake",   "are",       "cajole",   "haggle", "nag",   "use",     "boost",
    "affix",  "detect", "integrate", "maintain", "nod",    "was",   "lose",    "sublate",
    "solve",  "thrash", "promise",   "engage",   "hinder", "print", "x-ray",   "breach",
    "eat",    "grow",   "impress",   "mold",     "poach",  "serve", "run",     "dazzle",
    "snooze", "doze",   "unwind",    "kindle",   "play",   "hang",  "believe", "doubt"};
static const char *const ADJECTIVES[] = {
    "furious",  "sly",     "careful", "blithe",  "quick",   "fluffy",  "slow",     "quiet",
    "ruthless", "thin",    "close",   "dogged",  "daring",  "brave",   "stealthy", "permanent",
    "enticing", "idle",    "busy",    "regular", "final",   "ironic",  "even",     "bold",
    "silent",   "special", "pending", "unusual", "express", "special", "pending"};
static const char *const ADVERBS[] = {
    "sometimes", "always",    "never",   "furiously",  "slyly",       "carefully",  "blithely",
    "quickly",   "fluffily",  "slowly",  "quietly",    "ruthlessly",  "thinly",     "closely",
    "doggedly",  "daringly",  "bravely", "stealthily", "permanently", "enticingly", "idly",
    "busily",    "regularly", "finally", "ironically", "evenly",      "boldly",     "silently"};
static const char *const PREPOSITIONS[] = {
    "about",        "above",   "according to", "across",  "after",       "against", "along",
    "alongside of", "among",   "around",       "at",      "atop",        "before",  "behind",
    "beneath",      "beside",  "besides",      "between", "beyond",      "by",      "despite",
    "during",       "except",  "for",          "from",    "in place of", "inside",  "instead of",
    "into",         "near",    "of",           "on",      "outside",     "over",    "past",
    "since",        "through", "throughout",   "to",      "toward",      "under",   "until",
    "up",           "upon",    "without",      "with",    "within"};
static const char *const AUXILIARIES[] = {
    "do",           "may",          "might",         "shall",         "will",
    "would",        "can",          "could",         "should",        "ought to",
    "must",         "will have to", "shall have to", "could have to", "should have to",
    "must have to", "need to",      "try to"};
static const char *const TERMINATORS[] = {".", ";", ":", "?", "!", "--"};

#define PICK(r, a) ((a)[rnext(r) % N(a)])

/* ---- the text pool ---- */

typedef struct pool {
    char *text;
    size_t len, cap;
} pool;

static void put(pool *p, const char *s)
{
    size_t n = strlen(s);
    if (p->len + n + 2 > p->cap)
        return;
    if (p->len && p->text[p->len - 1] != ' ')
        p->text[p->len++] = ' ';
    memcpy(p->text + p->len, s, n);
    p->len += n;
}

static void noun_phrase(pool *p, rng *r)
{
    switch (rnext(r) % 4) {
    case 0: put(p, PICK(r, NOUNS)); break;
    case 1: put(p, PICK(r, ADJECTIVES)), put(p, PICK(r, NOUNS)); break;
    case 2:
        put(p, PICK(r, ADJECTIVES));
        p->text[p->len++] = ',';
        put(p, PICK(r, ADJECTIVES));
        put(p, PICK(r, NOUNS));
        break;
    default: put(p, PICK(r, ADVERBS)), put(p, PICK(r, ADJECTIVES)), put(p, PICK(r, NOUNS));
    }
}

static void verb_phrase(pool *p, rng *r)
{
    switch (rnext(r) % 4) {
    case 0: put(p, PICK(r, VERBS)); break;
    case 1: put(p, PICK(r, AUXILIARIES)), put(p, PICK(r, VERBS)); break;
    case 2: put(p, PICK(r, VERBS)), put(p, PICK(r, ADVERBS)); break;
    default: put(p, PICK(r, AUXILIARIES)), put(p, PICK(r, VERBS)), put(p, PICK(r, ADVERBS));
    }
}

static void prep_phrase(pool *p, rng *r)
{
    put(p, PICK(r, PREPOSITIONS));
    put(p, "the");
    noun_phrase(p, r);
}

static void terminate(pool *p, rng *r)
{
    const char *t = PICK(r, TERMINATORS);
    size_t n = strlen(t);
    if (p->len + n + 1 < p->cap) {
        memcpy(p->text + p->len, t, n); /* attached to the last word, as dbgen */
        p->len += n;
    }
}

static int pool_init(pool *p, uint64_t seed)
{
    p->cap = 4u << 20;
    p->text = malloc(p->cap + 64);
    p->len = 0;
    if (!p->text)
        return -1;
    rng r = {seed ^ 0x7465787470ULL};
    while (p->len + 300 < p->cap) {
        noun_phrase(p, &r);
        switch (rnext(&r) % 5) {
        case 0: verb_phrase(p, &r); break;
        case 1: verb_phrase(p, &r), prep_phrase(p, &r); break;
        case 2: verb_phrase(p, &r), noun_phrase(p, &r); break;
        case 3: prep_phrase(p, &r), verb_phrase(p, &r), noun_phrase(p, &r); break;
        default: prep_phrase(p, &r), verb_phrase(p, &r), prep_phrase(p, &r);
        }
        terminate(p, &r);
    }
    p->text[p->len] = '\0';
    return 0;
}

/* A random substring of the pool with length in [lo, hi] (dbgen's TEXT). */
static const char *text(const pool *p, rng *r, int lo, int hi, size_t *len)
{
    *len = (size_t)rrange(r, lo, hi);
    size_t off = (size_t)(rnext(r) % (p->len - *len));
    return p->text + off;
}

/* 64 characters: digits, letters, ',' and ' ' (indexed by 6 random bits) */
static const char ALNUM[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ, ";
_Static_assert(sizeof ALNUM == 65, "ALNUM holds 64 characters");

static size_t vstring(rng *r, int lo, int hi, char *buf)
{
    size_t n = (size_t)rrange(r, lo, hi);
    for (size_t i = 0; i < n; i++)
        buf[i] = ALNUM[rnext(r) % 64];
    return n;
}

static size_t phone(rng *r, int nation, char *buf)
{
    return (size_t)sprintf(buf, "%02d-%03d-%03d-%04d", nation + 10, (int)rrange(r, 100, 999),
                           (int)rrange(r, 100, 999), (int)rrange(r, 1000, 9999));
}

/* ---- dates ---- */

static int32_t days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    int era = (y >= 0 ? y : y - 399) / 400;
    int yoe = y - era * 400;
    int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* ---- a table being written ---- */

#define MAXCOL 16

typedef struct table {
    const char *name;
    fl_field fields[MAXCOL];
    fl_schema schema;
    fl_batch b;
    fl_output *out;
    fl_parquet_writer *w;
    uint64_t rows;
} table;

static fl_type T_I32 = {.id = FL_TYPE_INT32}, T_I64 = {.id = FL_TYPE_INT64},
               T_DEC = {.id = FL_TYPE_DECIMAL, .precision = 15, .scale = 2},
               T_DATE = {.id = FL_TYPE_DATE}, T_STR = {.id = FL_TYPE_STRING};

/* cols: "name:t,..." with t in i (int), l (bigint), d (decimal(15,2)), D (date), s (varchar). */
static int table_open(table *t, fl_fileio *io, const char *dir, const char *name, const char *cols,
                      fl_error *err)
{
    memset(t, 0, sizeof *t);
    t->name = name;
    char *spec = strdup(cols);
    char *save = NULL;
    uint32_t n = 0;
    for (char *c = strtok_r(spec, ",", &save); c && n < MAXCOL; c = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(c, ':');
        *colon = '\0';
        fl_field *f = &t->fields[n];
        f->name = strdup(c);
        f->field_id = (int32_t)n + 1;
        f->nullable = false;
        switch (colon[1]) {
        case 'i': f->type = T_I32; break;
        case 'l': f->type = T_I64; break;
        case 'd': f->type = T_DEC; break;
        case 'D': f->type = T_DATE; break;
        default: f->type = T_STR;
        }
        n++;
    }
    free(spec);
    t->schema.nfields = n;
    t->schema.fields = t->fields;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.parquet", dir, name);
    if (fl_batch_init(&t->b, &t->schema, err) != FL_OK)
        return -1;
    if (fl_fileio_create(io, path, FL_CREATE_OVERWRITE, &t->out, err) != FL_OK)
        return -1;
    /* DuckDB's default row group size, so both engines get as many morsels */
    fl_parquet_write_options opt = {.row_group_rows = 122880};
    return fl_parquet_writer_open(t->out, &t->schema, &opt, &t->w, err) == FL_OK ? 0 : -1;
}

static int flush(table *t, fl_error *err)
{
    if (t->b.nrows == 0)
        return 0;
    if (fl_parquet_writer_write(t->w, &t->b, err) != FL_OK)
        return -1;
    fl_batch_reset(&t->b);
    return 0;
}

/* Ends the current row (values were appended to every column). */
static int row_end(table *t, fl_error *err)
{
    t->b.nrows++;
    t->rows++;
    return t->b.nrows == FL_BATCH_CAP ? flush(t, err) : 0;
}

static int table_close(table *t, fl_error *err)
{
    int rc = flush(t, err);
    if (rc == 0 && fl_parquet_writer_close(t->w, NULL, err) != FL_OK)
        rc = -1;
    t->w = NULL;
    if (rc == 0 && fl_output_close(t->out, err) != FL_OK)
        rc = -1;
    fl_batch_destroy(&t->b);
    for (uint32_t i = 0; i < t->schema.nfields; i++)
        free((char *)t->fields[i].name);
    return rc;
}

#define COL(t, i) (&(t)->b.cols[i])
#define PUT_I32(t, i, v)                                                                           \
    do {                                                                                           \
        int32_t v_ = (int32_t)(v);                                                                 \
        if (fl_vector_append_fixed(COL(t, i), &v_, err) != FL_OK)                                  \
            return -1;                                                                             \
    } while (0)
#define PUT_I64(t, i, v)                                                                           \
    do {                                                                                           \
        int64_t v_ = (int64_t)(v);                                                                 \
        if (fl_vector_append_fixed(COL(t, i), &v_, err) != FL_OK)                                  \
            return -1;                                                                             \
    } while (0)
#define PUT_DEC(t, i, cents)                                                                       \
    do {                                                                                           \
        fl_i128 v_ = (fl_i128)(cents);                                                             \
        if (fl_vector_append_fixed(COL(t, i), &v_, err) != FL_OK)                                  \
            return -1;                                                                             \
    } while (0)
#define PUT_STR(t, i, s, n)                                                                        \
    do {                                                                                           \
        if (fl_vector_append_bytes(COL(t, i), (s), (n), err) != FL_OK)                             \
            return -1;                                                                             \
    } while (0)
/* s is evaluated once: callers pass random picks (PICK). */
#define PUT_CSTR(t, i, s)                                                                          \
    do {                                                                                           \
        const char *put_cstr_ = (s);                                                               \
        PUT_STR(t, i, put_cstr_, strlen(put_cstr_));                                               \
    } while (0)

/* ---- the generator ---- */

typedef struct gen {
    double sf;
    uint64_t seed;
    const char *dir;
    fl_fileio *io;
    pool text;
    int64_t nparts, nsupp, ncust, norders;
} gen;

static int64_t retail_cents(int64_t partkey)
{
    return 90000 + ((partkey / 10) % 20001) + 100 * (partkey % 1000);
}

static int64_t supp_for(const gen *g, int64_t partkey, int64_t i)
{
    int64_t s = g->nsupp;
    return (partkey + (i * ((s / 4) + (partkey - 1) / s))) % s + 1;
}

static int gen_nation_region(gen *g, fl_error *err)
{
    rng r = {g->seed * 31 + 1};
    table t;
    if (table_open(&t, g->io, g->dir, "nation", "n_nationkey:i,n_name:s,n_regionkey:i,n_comment:s",
                   err))
        return -1;
    for (int i = 0; i < 25; i++) {
        size_t n;
        const char *c = text(&g->text, &r, 31, 114, &n);
        PUT_I32(&t, 0, i);
        PUT_CSTR(&t, 1, NATIONS[i].name);
        PUT_I32(&t, 2, NATIONS[i].region);
        PUT_STR(&t, 3, c, n);
        if (row_end(&t, err))
            return -1;
    }
    if (table_close(&t, err))
        return -1;
    if (table_open(&t, g->io, g->dir, "region", "r_regionkey:i,r_name:s,r_comment:s", err))
        return -1;
    for (int i = 0; i < 5; i++) {
        size_t n;
        const char *c = text(&g->text, &r, 31, 115, &n);
        PUT_I32(&t, 0, i);
        PUT_CSTR(&t, 1, REGIONS[i]);
        PUT_STR(&t, 2, c, n);
        if (row_end(&t, err))
            return -1;
    }
    return table_close(&t, err);
}

static int gen_part_partsupp(gen *g, fl_error *err)
{
    rng r = {g->seed * 31 + 2};
    table p, ps;
    if (table_open(&p, g->io, g->dir, "part",
                   "p_partkey:l,p_name:s,p_mfgr:s,p_brand:s,p_type:s,p_size:i,p_container:s,"
                   "p_retailprice:d,p_comment:s",
                   err) ||
        table_open(&ps, g->io, g->dir, "partsupp",
                   "ps_partkey:l,ps_suppkey:l,ps_availqty:i,ps_supplycost:d,ps_comment:s", err))
        return -1;
    char buf[256];
    for (int64_t k = 1; k <= g->nparts; k++) {
        int pick[5];
        size_t o = 0;
        for (int i = 0; i < 5; i++) {
            int c;
            bool dup;
            do {
                c = (int)(rnext(&r) % N(COLORS));
                dup = false;
                for (int j = 0; j < i; j++)
                    dup |= pick[j] == c;
            } while (dup);
            pick[i] = c;
            o += (size_t)sprintf(buf + o, "%s%s", i ? " " : "", COLORS[c]);
        }
        int m = (int)rrange(&r, 1, 5);
        PUT_I64(&p, 0, k);
        PUT_STR(&p, 1, buf, o);
        PUT_STR(&p, 2, buf, (size_t)sprintf(buf, "Manufacturer#%d", m));
        PUT_STR(&p, 3, buf, (size_t)sprintf(buf, "Brand#%d%d", m, (int)rrange(&r, 1, 5)));
        PUT_STR(
            &p, 4, buf,
            (size_t)sprintf(buf, "%s %s %s", PICK(&r, TYPE1), PICK(&r, TYPE2), PICK(&r, TYPE3)));
        PUT_I32(&p, 5, rrange(&r, 1, 50));
        PUT_STR(&p, 6, buf, (size_t)sprintf(buf, "%s %s", PICK(&r, CONT1), PICK(&r, CONT2)));
        PUT_DEC(&p, 7, retail_cents(k));
        size_t n;
        const char *c = text(&g->text, &r, 5, 22, &n);
        PUT_STR(&p, 8, c, n);
        if (row_end(&p, err))
            return -1;
        for (int i = 0; i < 4; i++) {
            PUT_I64(&ps, 0, k);
            PUT_I64(&ps, 1, supp_for(g, k, i));
            PUT_I32(&ps, 2, rrange(&r, 1, 9999));
            PUT_DEC(&ps, 3, rrange(&r, 100, 100000));
            c = text(&g->text, &r, 49, 198, &n);
            PUT_STR(&ps, 4, c, n);
            if (row_end(&ps, err))
                return -1;
        }
    }
    return table_close(&p, err) || table_close(&ps, err) ? -1 : 0;
}

static int gen_supplier(gen *g, fl_error *err)
{
    rng r = {g->seed * 31 + 3};
    table t;
    if (table_open(&t, g->io, g->dir, "supplier",
                   "s_suppkey:l,s_name:s,s_address:s,s_nationkey:i,s_phone:s,s_acctbal:d,"
                   "s_comment:s",
                   err))
        return -1;
    char buf[256];
    for (int64_t k = 1; k <= g->nsupp; k++) {
        int nation = (int)rrange(&r, 0, 24);
        PUT_I64(&t, 0, k);
        PUT_STR(&t, 1, buf, (size_t)sprintf(buf, "Supplier#%09lld", (long long)k));
        PUT_STR(&t, 2, buf, vstring(&r, 10, 40, buf));
        PUT_I32(&t, 3, nation);
        PUT_STR(&t, 4, buf, phone(&r, nation, buf));
        PUT_DEC(&t, 5, rrange(&r, -99999, 999999));
        size_t n;
        const char *c = text(&g->text, &r, 25, 100, &n);
        memcpy(buf, c, n);
        int64_t roll = rrange(&r, 1, 10000); /* SF*5 of SF*10,000 rows each */
        if (roll <= 10) { /* "Customer " then the tail, somewhere in the comment */
            const char *tail = roll <= 5 ? "Complaints" : "Recommends";
            size_t need = 9 + strlen(tail);
            if (n < need)
                n = need;
            size_t at = (size_t)rrange(&r, 0, (int64_t)(n - need));
            memcpy(buf + at, "Customer ", 9);
            memcpy(buf + at + 9, tail, strlen(tail));
        }
        PUT_STR(&t, 6, buf, n);
        if (row_end(&t, err))
            return -1;
    }
    return table_close(&t, err);
}

static int gen_customer(gen *g, fl_error *err)
{
    rng r = {g->seed * 31 + 4};
    table t;
    if (table_open(&t, g->io, g->dir, "customer",
                   "c_custkey:l,c_name:s,c_address:s,c_nationkey:i,c_phone:s,c_acctbal:d,"
                   "c_mktsegment:s,c_comment:s",
                   err))
        return -1;
    char buf[256];
    for (int64_t k = 1; k <= g->ncust; k++) {
        int nation = (int)rrange(&r, 0, 24);
        PUT_I64(&t, 0, k);
        PUT_STR(&t, 1, buf, (size_t)sprintf(buf, "Customer#%09lld", (long long)k));
        PUT_STR(&t, 2, buf, vstring(&r, 10, 40, buf));
        PUT_I32(&t, 3, nation);
        PUT_STR(&t, 4, buf, phone(&r, nation, buf));
        PUT_DEC(&t, 5, rrange(&r, -99999, 999999));
        PUT_CSTR(&t, 6, PICK(&r, SEGMENTS));
        size_t n;
        const char *c = text(&g->text, &r, 29, 116, &n);
        PUT_STR(&t, 7, c, n);
        if (row_end(&t, err))
            return -1;
    }
    return table_close(&t, err);
}

static int gen_orders_lineitem(gen *g, fl_error *err)
{
    rng r = {g->seed * 31 + 5};
    table o, l;
    if (table_open(&o, g->io, g->dir, "orders",
                   "o_orderkey:l,o_custkey:l,o_orderstatus:s,o_totalprice:d,o_orderdate:D,"
                   "o_orderpriority:s,o_clerk:s,o_shippriority:i,o_comment:s",
                   err) ||
        table_open(&l, g->io, g->dir, "lineitem",
                   "l_orderkey:l,l_partkey:l,l_suppkey:l,l_linenumber:i,l_quantity:d,"
                   "l_extendedprice:d,l_discount:d,l_tax:d,l_returnflag:s,l_linestatus:s,"
                   "l_shipdate:D,l_commitdate:D,l_receiptdate:D,l_shipinstruct:s,l_shipmode:s,"
                   "l_comment:s",
                   err))
        return -1;
    int32_t start = days_from_civil(1992, 1, 1);
    int32_t end = days_from_civil(1998, 12, 31) - 151;
    int32_t current = days_from_civil(1995, 6, 17);
    int64_t nclerks = (int64_t)(g->sf * 1000) > 0 ? (int64_t)(g->sf * 1000) : 1;
    char buf[64];
    for (int64_t i = 0; i < g->norders; i++) {
        int64_t key = (i / 8) * 32 + (i % 8) + 1;
        int64_t cust;
        do
            cust = rrange(&r, 1, g->ncust);
        while (cust % 3 == 0 && g->ncust > 2);
        int32_t odate = (int32_t)rrange(&r, start, end);
        int lines = (int)rrange(&r, 1, 7);
        fl_i128 total = 0; /* in 1/1,000,000 units: price(2) * (1+tax)(2) * (1-disc)(2) */
        int nf = 0;
        for (int ln = 1; ln <= lines; ln++) {
            int64_t part = rrange(&r, 1, g->nparts);
            int64_t supp = supp_for(g, part, rrange(&r, 0, 3));
            int64_t qty = rrange(&r, 1, 50);
            int64_t price = qty * retail_cents(part);
            int64_t disc = rrange(&r, 0, 10), tax = rrange(&r, 0, 8);
            int32_t ship = odate + (int32_t)rrange(&r, 1, 121);
            int32_t commit = odate + (int32_t)rrange(&r, 30, 90);
            int32_t receipt = ship + (int32_t)rrange(&r, 1, 30);
            const char *flag = receipt <= current ? (rnext(&r) & 1 ? "R" : "A") : "N";
            const char *status = ship > current ? "O" : "F";
            nf += status[0] == 'F';
            total += (fl_i128)price * (100 + tax) * (100 - disc);
            PUT_I64(&l, 0, key);
            PUT_I64(&l, 1, part);
            PUT_I64(&l, 2, supp);
            PUT_I32(&l, 3, ln);
            PUT_DEC(&l, 4, qty * 100);
            PUT_DEC(&l, 5, price);
            PUT_DEC(&l, 6, disc);
            PUT_DEC(&l, 7, tax);
            PUT_CSTR(&l, 8, flag);
            PUT_CSTR(&l, 9, status);
            PUT_I32(&l, 10, ship);
            PUT_I32(&l, 11, commit);
            PUT_I32(&l, 12, receipt);
            PUT_CSTR(&l, 13, PICK(&r, INSTRUCT));
            PUT_CSTR(&l, 14, PICK(&r, MODES));
            size_t n;
            const char *c = text(&g->text, &r, 10, 43, &n);
            PUT_STR(&l, 15, c, n);
            if (row_end(&l, err))
                return -1;
        }
        /* round the 6-decimal total half away from zero to cents */
        fl_i128 cents = (total + 5000) / 10000;
        PUT_I64(&o, 0, key);
        PUT_I64(&o, 1, cust);
        PUT_CSTR(&o, 2, nf == lines ? "F" : nf == 0 ? "O" : "P");
        PUT_DEC(&o, 3, cents);
        PUT_I32(&o, 4, odate);
        PUT_CSTR(&o, 5, PICK(&r, PRIORITIES));
        PUT_STR(&o, 6, buf,
                (size_t)sprintf(buf, "Clerk#%09lld", (long long)rrange(&r, 1, nclerks)));
        PUT_I32(&o, 7, 0);
        size_t n;
        const char *c = text(&g->text, &r, 19, 78, &n);
        PUT_STR(&o, 8, c, n);
        if (row_end(&o, err))
            return -1;
    }
    fprintf(stderr, "bench_tpchgen: lineitem %llu rows\n", (unsigned long long)l.rows);
    return table_close(&o, err) || table_close(&l, err) ? -1 : 0;
}

static bool wanted(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

/* mkdir -p */
static int mkdirs(const char *dir)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int64_t scaled(double sf, int64_t base)
{
    int64_t n = (int64_t)(sf * (double)base + 0.5);
    return n > 0 ? n : 1;
}

int main(int argc, char **argv)
{
    gen g = {.sf = 1, .seed = 19920101, .dir = "."};
    const char *tables = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sf") && i + 1 < argc)
            g.sf = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            g.dir = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            g.seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--tables") && i + 1 < argc)
            tables = argv[++i];
        else {
            fprintf(stderr, "usage: bench_tpchgen [--sf 1] [--out DIR] [--seed N] "
                            "[--tables part,supplier,...]\n");
            return 2;
        }
    }
    if (!(g.sf > 0) || g.sf > 1000) {
        fprintf(stderr, "bench_tpchgen: --sf must be in (0, 1000]\n");
        return 2;
    }
    if (mkdirs(g.dir) != 0) {
        fprintf(stderr, "bench_tpchgen: %s: %s\n", g.dir, strerror(errno));
        return 1;
    }
    g.nparts = scaled(g.sf, 200000);
    g.nsupp = scaled(g.sf, 10000);
    g.ncust = scaled(g.sf, 150000);
    g.norders = scaled(g.sf, 1500000);
    g.io = fl_fileio_local();
    if (!g.io || pool_init(&g.text, g.seed)) {
        fprintf(stderr, "bench_tpchgen: out of memory\n");
        return 1;
    }
    fl_error err;
    fl_error_clear(&err);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = 0;
    if (!rc && (wanted(tables, "nation") || wanted(tables, "region")))
        rc = gen_nation_region(&g, &err);
    if (!rc && (wanted(tables, "part") || wanted(tables, "partsupp")))
        rc = gen_part_partsupp(&g, &err);
    if (!rc && wanted(tables, "supplier"))
        rc = gen_supplier(&g, &err);
    if (!rc && wanted(tables, "customer"))
        rc = gen_customer(&g, &err);
    if (!rc && (wanted(tables, "orders") || wanted(tables, "lineitem")))
        rc = gen_orders_lineitem(&g, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(g.text.text);
    fl_fileio_destroy(g.io);
    if (rc) {
        fprintf(stderr, "bench_tpchgen: %s\n", err.msg);
        return 1;
    }
    fprintf(stderr, "bench_tpchgen: SF %g into %s in %.1f s\n", g.sf, g.dir,
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    return 0;
}
