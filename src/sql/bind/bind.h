/*
 * bind.h - the binder's internals, shared by bind/, plan/joinorder.c and
 * plan/planner.c (which build a block's FROM/WHERE and start binding), and
 * pgcat/ (pg_catalog functions bound like builtins). Not a contract;
 * planner.h is.
 *
 * BINDING MODEL
 *   A SELECT block has a scope: the columns of its FROM relations in FROM
 *   order (plus columns produced by decorrelated subqueries). Expressions are
 *   first bound in "scope form": FL_EXPR_COLUMN indexes into the scope, with
 *   marker bits for references that are not scope columns yet:
 *     FL_REF_OUTER | i   column i of the enclosing block's scope (correlation)
 *     FL_REF_AGG   | k   the k-th aggregate call of the block
 *     FL_REF_WIN   | k   the k-th window call of the block
 *   Once the join tree is built, expressions are remapped to plan columns
 *   (fl_front_remap). Markers never reach a finished plan.
 *
 * OWNERSHIP
 *   Everything here lives in the planner context's arena; fl_front_state
 *   (CTEs, tables loaded once per statement, views being expanded) hangs
 *   off fl_planner_ctx.internal and lives until fl_planner_ctx_release.
 */
#ifndef FLOE_SQL_BIND_BIND_H
#define FLOE_SQL_BIND_BIND_H

#include <pg_query/pg_query.pb-c.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/ice_scan.h"
#include "floe/ice_table.h"
#include "sql/expr.h"
#include "sql/func.h"
#include "sql/plan.h"
#include "sql/planner.h"

#define FL_REF_OUTER 0x40000000u
#define FL_REF_AGG 0x20000000u
#define FL_REF_WIN 0x10000000u
#define FL_REF_MASK 0x0FFFFFFFu
#define FL_MAX_RELS 64

/* ---- scope ---- */

typedef enum fl_rel_kind {
    FL_REL_TABLE = 1, /* an Iceberg table (or metadata table): scan built after binding */
    FL_REL_PLAN,      /* a planned subquery, CTE, VALUES or table function */
    FL_REL_VIRTUAL,   /* columns produced by decorrelated subqueries */
} fl_rel_kind;

typedef struct fl_rel {
    fl_rel_kind kind;
    const char *alias;     /* qualifier; NULL for virtual */
    uint32_t first, ncols; /* scope columns [first, first+ncols) */
    /* FL_REL_TABLE */
    const char *name; /* "ns.t" or "ns.t$files" */
    const fl_ice_metadata *meta;
    int64_t snapshot_id;
    const fl_schema *schema; /* columns as the scope sees them */
    const char *metatable;   /* NULL for data */
    double base_rows;        /* from the snapshot summary */
    /* file table functions (read_parquet...): scan_kind != 0 */
    fl_scan_kind scan_kind;
    const char *const *files;
    uint32_t nfiles;
    char csv_delim;
    bool csv_header;
    /* FL_REL_PLAN */
    fl_plan *plan;
    /* filters pushed to this relation (scope form) */
    fl_expr **filters;
    uint32_t nfilters, capfilters;
} fl_rel;

typedef struct fl_scope_col {
    const char *qual;
    const char *name;
    fl_type type;
    uint32_t rel;
    bool used;
    bool using_hidden; /* right copy of a JOIN ... USING column: qualified only (lateral) */
    bool meta_hidden;  /* a table's metadata column (_file, "$path"...): named only, not in `*` */
    /* left copy of a FULL JOIN ... USING column: unqualified, it is
     * COALESCE(this, cols[using_partner]) (PostgreSQL's merged column) */
    bool using_merged;
    uint32_t using_partner;
} fl_scope_col;

typedef struct fl_scope fl_scope;
struct fl_scope {
    fl_scope_col *cols;
    uint32_t ncols, capcols;
    fl_rel *rels;
    uint32_t nrels, caprels;
    fl_scope *parent;
    bool correlated; /* an FL_REF_OUTER was bound in this scope */
};

/* ---- a pending subquery join (decorrelation) ---- */

typedef struct fl_apply {
    fl_join_type type; /* SEMI, ANTI, MARK, LEFT, SINGLE */
    fl_plan *sub;
    fl_expr **outer_keys; /* scope form (this block) */
    fl_expr **inner_keys; /* over sub's output */
    uint32_t nkeys;
    /* residual over outer ++ sub: outer columns as FL_REF_OUTER|scope index,
     * sub columns as plain indexes; NULL = none */
    fl_expr *residual;
    uint32_t value_col; /* MARK/LEFT/SINGLE: sub output column that becomes scope col */
    int32_t scope_col;  /* scope column it produces, -1 = none (SEMI/ANTI) */
    bool coalesce_zero; /* count() over no rows is 0, not NULL */
    /* additive (lateral): a nested-loop APPLY instead of a join when
     * nparams > 0 or lateral: sub runs per outer row with slots[i] bound to
     * params[i] (scope form of this block); ncols scope columns from
     * scope_col on take sub's columns (LATERAL) */
    fl_expr **params;
    uint32_t *slots;
    uint32_t nparams;
    uint32_t ncols;
    bool is_apply;
} fl_apply;

/* a parameter slot a descendant block uses for a column of this block */
typedef struct fl_slot_ref {
    uint32_t scope_col; /* UINT32_MAX: expr instead */
    uint32_t slot;
    fl_expr *expr; /* scope form (ANY/ALL test values); NULL = the column */
} fl_slot_ref;

/* ---- a block being bound ---- */

typedef struct fl_bctx fl_bctx;
struct fl_bctx {
    fl_planner_ctx *pc;
    fl_arena *a;
    fl_scope scope;
    fl_bctx *parent;
    /* aggregates (args in scope form) and windows (pre form) */
    fl_agg_call *aggs;
    uint32_t naggs, capaggs;
    fl_window_call *wins;
    uint32_t nwins, capwins;
    bool allow_agg, allow_win, in_agg;
    /* decorrelated subqueries */
    fl_apply *applies;
    uint32_t napplies, capapplies;
    /* WHERE conjuncts (scope form) not yet placed */
    fl_expr **conj;
    uint32_t nconj, capconj;
    struct fl_jtree *root;           /* FROM items */
    const PgQuery__SelectStmt *stmt; /* for named windows */
    /* joinorder.c: per scope column, a bound on its distinct values from
     * Iceberg column bounds (0 = unknown); NULL until computed */
    double *ndv;
    /* additive (lateral): in param mode, references to enclosing blocks'
     * columns bind as parameters (slots registered on the owning block) */
    bool param_mode;
    bool param_children; /* blocks bound under this one get param_mode */
    fl_slot_ref *slots;
    uint32_t nslots, capslots;
    uint32_t slots_from; /* slots of the apply being bound start here */
    /* select-list set-returning calls (bind_srf.c): node -> scope-form value */
    struct fl_srf_ref {
        const PgQuery__Node *node;
        fl_expr *expr;
    } * srfs;
    uint32_t nsrfs;
};

/* front internal state hung off fl_planner_ctx.internal */
typedef struct fl_cte {
    const char *name;
    const PgQuery__CommonTableExpr *cte;
    struct fl_cte *next;
    /* WITH RECURSIVE (bind_recursive.c, lateral): the CTE refers to itself;
     * while its recursive term is planned, references read work */
    bool recursive;
    bool in_anchor;
    fl_recurse_work *work;
    const fl_schema *work_schema;
} fl_cte;

typedef struct fl_loaded_table {
    const char *key;
    fl_ice_table *table;
    struct fl_loaded_table *next;
} fl_loaded_table;

/* A view's parsed SQL, kept until fl_planner_ctx_release (plans point into
 * the parse tree). Additive (sqlhttp): views in queries, scope.c. */
typedef struct fl_view_parse {
    fl_sql_parsed *parsed;
    struct fl_view_parse *next;
} fl_view_parse;

typedef struct fl_view_frame { /* a view being expanded (cycle check) */
    const char *name;
    const struct fl_view_frame *prev;
    uint32_t depth;
} fl_view_frame;

typedef struct fl_front_state {
    fl_cte *ctes;
    fl_loaded_table *tables;
    void *pgcat; /* pg_catalog snapshot of this statement (src/sql/pgcat), NULL until used */
    const fl_view_frame *views;
    const fl_view_frame *policies; /* tables whose policy query is being bound (authz/policy.c) */
    fl_view_parse *view_parses;
    bool foreign_sql; /* binding another engine's view SQL (dialect not "floe"): scope.c */
    uint32_t nslots;  /* apply parameter slots handed out (lateral) */
} fl_front_state;

fl_front_state *fl_front_state_of(fl_planner_ctx *pc);

/* scope.c */
fl_status fl_scope_add_rel(fl_arena *a, fl_scope *s, const fl_rel *r, const fl_schema *cols,
                           uint32_t *rel_index, fl_error *err);
/* Resolves [qual.]name; *idx scope column, or FL_REF_OUTER|idx from the parent. */
/* " (did you mean \"t.col\"?)" for the nearest column to name in b's scope
 * or its parent's (qualified by qual when given), "" when none is close. */
void fl_front_column_hint(const fl_bctx *b, const char *qual, const char *name, char *out,
                          size_t cap);
fl_status fl_scope_lookup(fl_bctx *b, const char *qual, const char *name, int32_t location,
                          uint32_t *idx, fl_type *type, fl_error *err);
/* The same as an expression: a COLUMN, or in param mode a PARAM (lateral). */
/* scope column i as an expression: a column reference, or for a merged
 * FULL JOIN ... USING column COALESCE(left, right) (fl_scope_col) */
fl_status fl_scope_col_expr(fl_bctx *b, uint32_t i, int32_t location, fl_expr **out, fl_error *err);
/* bind_numeric.c: integer literals beside a DECIMAL in + - * % become
 * DECIMAL(digits,0); a division of two constants gets PostgreSQL's scale */
fl_status fl_bind_numeric_args(fl_bctx *b, const char *op, fl_expr **args, uint32_t n,
                               fl_error *err);
void fl_bind_numeric_div(const char *op, fl_expr *const *orig, uint32_t n, fl_expr *call);
fl_status fl_scope_lookup_expr(fl_bctx *b, const char *qual, const char *name, int32_t location,
                               fl_expr **out, fl_error *err);
/* [qual.]name names a column of this block or an enclosing one (no error set). */
bool fl_scope_has(const fl_bctx *b, const char *qual, const char *name);

/* bind_nested.c: nested values (LIST, STRUCT, MAP; func/nested.c has the kernels) */
/* base[...] on a list (index, slice) or a map (key); *handled false when base is neither */
fl_status fl_bind_nested_subscript(fl_bctx *b, fl_expr *base, const PgQuery__AIndices *ix,
                                   int32_t loc, fl_expr **out, bool *handled, fl_error *err);
/* a PostgreSQL array kept as text (ARRAY[...], '{1,2}'::int[]) cast to a LIST of its element
 * type; other expressions unchanged */
fl_status fl_bind_array_as_list(fl_bctx *b, fl_expr **e, fl_error *err);
/* *e (array text or a list) cast to a LIST of element type et */
fl_status fl_bind_cast_to_list(fl_arena *a, fl_expr **e, const fl_type *et, fl_error *err);
/* A query's output columns that are PostgreSQL array text become lists (a
 * PROJECT over *plan), so results, CREATE TABLE AS and the wire carry
 * integer[] as a list; catalog arrays with no list form stay text. */
fl_status fl_plan_arrays_as_lists(fl_arena *a, fl_plan **plan, fl_error *err);
/* the same for the list arguments of array_contains, array_position, map, element_at ... */
fl_status fl_bind_nested_args(fl_bctx *b, const char *fn, fl_expr **args, uint32_t n,
                              fl_error *err);
/* (s).name on a struct value */
fl_status fl_bind_struct_field(fl_bctx *b, fl_expr *s, const char *name, int32_t loc, fl_expr **out,
                               fl_error *err);
/* x op ANY/ALL (list): lhs, list bound; op as written */
fl_status fl_bind_list_any(fl_bctx *b, fl_expr *x, fl_expr *list, const char *op, bool all,
                           int32_t loc, fl_expr **out, fl_error *err);
/* ARRAY[a, b, ...] whose a is a nested value -> a LIST (args bound) */
fl_status fl_bind_list_ctor(fl_bctx *b, fl_expr **args, uint32_t n, int32_t loc, fl_expr **out,
                            fl_error *err);
/* ROW(a, b, ...) -> a struct f1, f2, ... */
fl_status fl_bind_row(fl_bctx *b, const PgQuery__RowExpr *r, fl_expr **out, fl_error *err);
/* The type of a ROW(...) constructor with its NULL fields taken as unknown
 * (ROW(NULL, 'b') beside ROW(1, 'a') in VALUES): e's type for anything else. */
fl_type fl_bind_row_literal_type(fl_arena *a, const fl_expr *e);
/* e cast to to; a ROW(...) constructor is retyped field by field (its values
 * cast), so rows of one VALUES column meet in one struct type. Unknown leaves
 * of to become text. */
fl_status fl_bind_cast_row(fl_arena *a, fl_expr *e, fl_type *to, fl_expr **out, fl_error *err);
/* a.b.c: the longest table.column or column prefix, then struct fields */
fl_status fl_bind_column_path(fl_bctx *b, const PgQuery__ColumnRef *cr, fl_expr **out,
                              bool *handled, fl_error *err);
/* retypes calls whose result type depends on more than argument types (map(k, v)) */
fl_status fl_bind_nested_call_type(fl_bctx *b, fl_expr *call, fl_error *err);
fl_status fl_bind_table(fl_bctx *b, const PgQuery__RangeVar *rv, uint32_t *rel, fl_error *err);
fl_status fl_front_load_table(fl_planner_ctx *pc, const fl_table_ident *id, fl_ice_table **out,
                              fl_error *err);
fl_status fl_front_snapshot(fl_planner_ctx *pc, const fl_ice_metadata *m, int32_t location,
                            int64_t *snapshot_id, const fl_ice_schema **schema, fl_error *err);
fl_status fl_bind_table_function(fl_bctx *b, const PgQuery__RangeFunction *rf, uint32_t *rel,
                                 fl_error *err);

/* bind_expr.c */
fl_status fl_bind_expr(fl_bctx *b, const PgQuery__Node *n, fl_expr **out, fl_error *err);
fl_status fl_bind_const_string(fl_arena *a, const char *s, int32_t loc, fl_expr **out);
fl_expr *fl_front_fold(fl_arena *a, fl_expr *e);
fl_status fl_front_type_name(fl_planner_ctx *pc, const PgQuery__TypeName *tn, fl_type *t,
                             fl_error *err);
fl_status fl_front_coerce(fl_arena *a, fl_expr **x, fl_expr **y, fl_error *err);

/* bind_subquery.c */
fl_status fl_bind_sublink(fl_bctx *b, const PgQuery__SubLink *sl, bool top_conjunct, bool negated,
                          fl_expr **out, fl_error *err);

/* bind_select.c */
fl_status fl_plan_select(fl_planner_ctx *pc, fl_bctx *parent, const PgQuery__Node *query,
                         fl_plan **out, fl_error *err);
/* The FROM and WHERE of a block only (for EXISTS subqueries): the joined
 * relations with every scope column, and the correlated WHERE conjuncts. */
fl_status fl_bind_from_where(fl_bctx *b, const PgQuery__SelectStmt *s, fl_error *err);
/* The rest of a block after fl_bind_from_where: output = extras (scope-form
 * expressions: grouped by when the block aggregates) then the select list. */
fl_status fl_finish_select(fl_bctx *b, const PgQuery__SelectStmt *s, fl_expr **extras,
                           uint32_t nextras, fl_plan **out, fl_error *err);
fl_status fl_plan_select_stmt(fl_planner_ctx *pc, fl_bctx *parent, const PgQuery__SelectStmt *s,
                              fl_plan **out, fl_error *err);
bool fl_expr_has_outer(const fl_expr *e);
fl_status fl_bind_bool(fl_bctx *b, const PgQuery__Node *n, fl_expr **out, fl_error *err);
void fl_bctx_init(fl_bctx *b, fl_planner_ctx *pc, fl_bctx *parent);
fl_status fl_bctx_add_conj(fl_bctx *b, fl_expr *e, fl_error *err);

/* joinorder.c: builds the FROM/WHERE of a block: scans with pushed
 * filters, joins ordered by estimates, applies, remaining filters. map[i] is
 * the plan column of scope column i (-1 = not available). */
typedef struct fl_jtree fl_jtree;
fl_status fl_build_from_where(fl_bctx *b, fl_plan **out, int32_t **map, fl_error *err);
fl_status fl_front_plan_scan(fl_bctx *b, uint32_t rel, const bool *used, fl_plan **out,
                             int32_t *map, fl_error *err);

/* join tree of FROM items (joinorder.c) */
struct fl_jtree {
    int kind;           /* 0 leaf, 1 inner set, 2 outer join */
    uint32_t rel;       /* leaf */
    uint64_t mask;      /* relations below */
    fl_join_type jtype; /* outer: LEFT/RIGHT/FULL */
    fl_jtree **kids;
    uint32_t nkids, capkids;
    fl_expr **on; /* outer: ON conjuncts (scope form) */
    uint32_t non, capon;
    fl_expr **filters; /* conjuncts placed on this subtree (scope form) */
    uint32_t nfilters, capfilters;
};
fl_jtree *fl_jtree_new(fl_arena *a, int kind);
fl_status fl_jtree_add(fl_arena *a, fl_jtree *parent, fl_jtree *kid, fl_error *err);
/* the current block's root (an inner set) */
fl_jtree *fl_bctx_root(fl_bctx *b);

/* bind_recursive.c (lateral): WITH RECURSIVE */
bool fl_cte_is_recursive(const PgQuery__CommonTableExpr *c);
/* a reference to CTE c: the recursive union, or inside its recursive term
 * the work table */
fl_status fl_plan_recursive_ref(fl_bctx *b, fl_cte *c, fl_plan **out, fl_error *err);
/* bind_apply.c (lateral) */
/* joinorder.c's hook: ap was joined as p over the left plan whose scope
 * map is map; turns p into an APPLY when ap asks for one */
fl_status fl_front_apply_built(fl_bctx *b, const fl_apply *ap, fl_plan *p, int32_t *map,
                               fl_error *err);
/* a parameter standing for column col of ancestor block g, registered on g */
fl_status fl_front_param_ref(fl_bctx *g, uint32_t col, const fl_type *t, int32_t loc, fl_expr **out,
                             fl_error *err);

#endif
