/*
 * column.h - one ORC column reader per projected column (a tree mirroring
 * the type tree), holding the decompressed streams of the current stripe and
 * their decoders. column.c decodes values into vectors; scan.c places the
 * streams.
 *
 * Reading rows: orc_col_read(c, v, n, pmask) appends n rows to v. pmask
 * (NULL = all) marks the rows whose parent is present: a child of a null
 * struct has no entry in its streams, so those rows become nulls without
 * consuming anything. List and map children get exactly the sum of the
 * present lengths.
 */
#ifndef FLOE_ORC_COLUMN_H
#define FLOE_ORC_COLUMN_H

#include "orc/orc_int.h"

enum { ORC_S_PRESENT, ORC_S_DATA, ORC_S_LENGTH, ORC_S_DICT, ORC_S_SECONDARY, ORC_S__COUNT };

/* ColumnEncoding kinds */
enum { ORC_ENC_DIRECT = 0, ORC_ENC_DICTIONARY, ORC_ENC_DIRECT_V2, ORC_ENC_DICTIONARY_V2 };

typedef struct orc_col orc_col;
struct orc_col {
    uint32_t id;
    const fl_orc_type *ot;
    const fl_type *ft;
    bool decimal_as_long; /* DECIMAL(p <= 18) of a 1.9999 file: DATA = signed RLE v2 */
    const orc_tz *tz;     /* TIMESTAMP: the stripe's writer zone (NULL = UTC) */
    uint32_t nchildren;
    orc_col *children;
    /* current stripe */
    uint32_t stripe;
    uint32_t enc, dict_size;
    uint8_t *buf[ORC_S__COUNT];
    size_t buf_len[ORC_S__COUNT];
    char label[ORC_S__COUNT][80];
    bool has_present;
    orc_bool present;
    orc_irle *ints, *lens, *secs; /* DATA, LENGTH, SECONDARY as integers */
    orc_bool bools;               /* BOOLEAN DATA */
    orc_brle bytes;               /* BYTE DATA */
    orc_bytes data;               /* raw DATA (float, double, string, binary, decimal) */
    int64_t *dict_off;            /* dict_size + 1 */
    uint8_t *pres;                /* scratch: present flags of the rows being read */
    uint32_t pres_cap;
};

/* Sets the decoders over the loaded buffers (and loads the dictionary). */
fl_status orc_col_start(orc_col *c, fl_error *err);
/* Frees the stripe's buffers (not the tree). */
void orc_col_clear(orc_col *c);
fl_status orc_col_read(orc_col *c, fl_vector *v, uint32_t n, const uint8_t *pmask, fl_error *err);

#endif
