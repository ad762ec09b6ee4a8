/*
 * variant_int.h - what variant.c (reading), variant_build.c (the builder),
 * variant_json.c and variant_path.c share: little-endian loads and stores of
 * 1..4/8-byte unsigned fields, the UTF-8 check, the container view the
 * readers use, the validation walk with a starting depth (fl_vb_copy checks
 * a value against the builder's current nesting), and the builder's frame
 * and item records.
 *
 * Builder layout: children of open containers are written into `value` in
 * document order; each open container is a frame (where its bytes start in
 * `value`, where its items start in the item stack); each child of an open
 * container is an item (its key id for objects, where its bytes start). At
 * end_object / end_array the frame's items give the offsets and ids, the
 * header is computed and inserted in front of the children.
 */
#ifndef FLOE_BASE_VARIANT_INT_H
#define FLOE_BASE_VARIANT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "floe/variant.h"

struct fl_vb_frame {
    size_t start;   /* first byte of the container's children in value */
    uint32_t item0; /* its first item in the item stack */
    bool object;
};

struct fl_vb_item {
    size_t start; /* first byte of the child in value */
    uint32_t key; /* key id (objects) */
};

/* A container's header decoded and bounds-checked against its bytes. */
typedef struct fl_vcont {
    const uint8_t *ids;  /* n field ids of id_size bytes (objects) */
    const uint8_t *offs; /* n + 1 offsets of off_size bytes */
    const uint8_t *data; /* first byte of the children */
    uint64_t data_len;   /* the last offset: bytes of children */
    size_t size;         /* the whole container's bytes */
    uint32_t n;
    unsigned id_size, off_size;
    bool object;
} fl_vcont;

static inline uint64_t fl_variant_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void fl_variant_put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Bytes (1..4) of the smallest unsigned field that holds v. */
static inline unsigned fl_variant_width(uint64_t v)
{
    return v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffff ? 3 : 4;
}

/* Length of the well-formed UTF-8 sequence at p (n bytes available), 0 when
 * it is not one (overlong forms, surrogates and code points past U+10FFFF
 * are refused). */
size_t fl_variant_utf8_seq(const uint8_t *p, size_t n);
/* True when all n bytes are UTF-8; else *bad is the first bad byte's index. */
bool fl_variant_utf8_ok(const uint8_t *p, size_t n, size_t *bad);
/* Byte order of two keys (a shorter prefix first): the order of an object's
 * fields and of a sorted dictionary. */
static inline int fl_variant_key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t k = alen < blen ? alen : blen;
    int c = k ? memcmp(a, b, k) : 0;
    if (c)
        return c;
    return alen < blen ? -1 : alen > blen;
}
/* Every key of m is valid UTF-8 (FL_ECORRUPT naming the offset otherwise). */
fl_status fl_variant_meta_check_keys(const fl_variant_meta *m, fl_error *err);

/* Decodes the container header of v (an object or array) into c; messages
 * name offsets from base. */
fl_status fl_variant_cont(const fl_variant *v, const uint8_t *base, fl_vcont *c, fl_error *err);
/* Child i (< c->n) of a container as a value bounded by the container. */
fl_status fl_variant_cont_child(const fl_variant *v, const uint8_t *base, const fl_vcont *c,
                                uint32_t i, fl_variant *out, fl_error *err);

/* fl_variant_validate for a value that sits under depth0 containers. */
fl_status fl_variant_validate_at(const fl_variant *v, uint32_t depth0, fl_error *err);

/* Exact numerics as (unscaled, scale): the integer kinds have scale 0. */
static inline bool fl_variant_is_exact(fl_variant_kind k)
{
    return (k >= FL_VK_INT8 && k <= FL_VK_INT64) || (k >= FL_VK_DECIMAL4 && k <= FL_VK_DECIMAL16);
}

#endif
