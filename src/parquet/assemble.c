/*
 * assemble.c - rebuilds struct / list / map vectors from repetition and
 * definition levels (the Dremel record shredding, undone).
 *
 * Every leaf column under a node carries the node's whole structure in its
 * levels, so a node is assembled from the level entries of one leaf below it
 * (the first projected one). With, for node N (reader_int.h):
 *   slot_rep/slot_def  repetition level and definition level of the nearest
 *                      enclosing repeated element (0/0 at the top level),
 *   def                definition level at which N is non-null,
 *   elem_rep/elem_def  LIST/MAP: levels of N's own repeated group,
 * entry i of the leaf
 *   - starts a new slot of N iff rep[i] <= slot_rep and def[i] >= slot_def
 *     (otherwise an ancestor is null or empty and N has no slot there);
 *   - that slot is null iff def[i] < def; a LIST/MAP slot is empty iff
 *     def <= def[i] < elem_def, else its first element starts here;
 *   - adds a further element to the current LIST/MAP slot iff
 *     slot_rep < rep[i] <= elem_rep (and def[i] >= elem_def).
 * Leaves are filled by fl_pq_col_read with their slots (def >= slot_def), so
 * the child vectors' lengths must match the element counts computed here: a
 * mismatch means the leaves' levels disagree (corrupt file), reported rather
 * than trusted. Depth is bounded by FL_PQ_MAX_DEPTH at schema time.
 * A VARIANT node is assembled as the STRUCT of its group's columns into its
 * scratch vector, then rebuilt into variants (variant_read.c).
 */
#include <string.h>

#include "parquet/reader_int.h"

static fl_status set_validity(fl_vector *v, const uint16_t *def, const uint16_t *rep, uint32_t n,
                              const fl_pq_node *nd, uint32_t slots, uint32_t nulls, fl_error *err)
{
    if (!nulls)
        return FL_OK;
    FL_TRY(fl_vector_ensure_validity(v, err));
    uint32_t s = 0;
    for (uint32_t i = 0; i < n && s < slots; i++) {
        if (rep[i] <= nd->slot_rep && def[i] >= nd->slot_def) {
            fl_bitmap_set(v->validity, s, def[i] >= nd->def);
            s++;
        }
    }
    return FL_OK;
}

fl_status fl_pq_assemble(const fl_pq_node *nd, fl_vector *v, const fl_pq_levels *lv, fl_error *err)
{
    if (nd->kind == FL_PQN_LEAF)
        return FL_OK;
    if (nd->kind == FL_PQN_VARIANT) {
        /* the group's rows as a struct first, then one variant per row */
        fl_pq_node grp = *nd;
        grp.kind = FL_PQN_STRUCT;
        grp.field = nd->phys;
        FL_TRY(fl_pq_assemble(&grp, nd->scratch, lv, err));
        return fl_pq_variant_unshred(nd, nd->scratch, v, err);
    }
    const fl_pq_levels *L = &lv[nd->col];
    const uint16_t *def = L->def, *rep = L->rep;
    uint32_t n = L->n;
    uint32_t slots = 0, nulls = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (rep[i] <= nd->slot_rep && def[i] >= nd->slot_def) {
            slots++;
            nulls += def[i] < nd->def;
        }
    }
    FL_TRY(fl_vector_reserve(v, slots ? slots : 1, err));
    uint64_t expect = slots;
    if (nd->kind == FL_PQN_LIST || nd->kind == FL_PQN_MAP) {
        int64_t *off = v->offsets;
        int64_t total = 0;
        off[0] = 0;
        int64_t s = -1;
        for (uint32_t i = 0; i < n; i++) {
            if (rep[i] <= nd->slot_rep) {
                if (def[i] < nd->slot_def)
                    continue;
                s++;
                off[s + 1] = total;
                if (def[i] >= nd->elem_def)
                    off[s + 1] = ++total;
            } else if (rep[i] <= nd->elem_rep && def[i] >= nd->elem_def) {
                FL_CHECK(s >= 0, err, FL_ECORRUPT,
                         "column '%s': repeated value before any list starts", nd->field->name);
                off[s + 1] = ++total;
            }
        }
        expect = (uint64_t)total;
    }
    FL_TRY(set_validity(v, def, rep, n, nd, slots, nulls, err));
    v->len = slots;
    for (uint32_t c = 0; c < nd->nchildren; c++) {
        fl_vector *cv = &v->children[c];
        FL_TRY(fl_pq_assemble(&nd->children[c], cv, lv, err));
        FL_CHECK(cv->len == expect, err, FL_ECORRUPT,
                 "field '%s': child '%s' has %u values where its levels give %llu (inconsistent "
                 "repetition/definition levels)",
                 nd->field->name, nd->children[c].field->name, cv->len, (unsigned long long)expect);
    }
    return FL_OK;
}
