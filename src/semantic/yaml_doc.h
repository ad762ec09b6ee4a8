/*
 * yaml_doc.h - reading one parsed YAML document (libyaml's document API)
 * with positions: every accessor knows the file name, so a loader error
 * can say "file:line: member: what is wrong".
 *
 * Ownership: a sem_doc owns the yaml_document_t (sem_doc_close); strings
 * it returns are copied into the arena given at open (the model's).
 * Aliases resolve to shared nodes and are never expanded except by
 * sem_doc_json, which bounds depth and size.
 */
#ifndef FLOE_SEMANTIC_YAML_DOC_H
#define FLOE_SEMANTIC_YAML_DOC_H

#include <stdbool.h>
#include <stdint.h>
#include <yaml.h>

#include "floe/arena.h"
#include "floe/error.h"

typedef struct sem_doc {
    yaml_document_t doc;
    const char *file; /* in the arena */
    fl_arena *arena;
} sem_doc;

/* 1-based line of a node */
static inline uint32_t sem_line(const yaml_node_t *n)
{
    return n ? (uint32_t)n->start_mark.line + 1 : 0;
}

yaml_node_t *sem_doc_root(sem_doc *d);
/* The value under key in a mapping node (NULL when absent or n is no map). */
yaml_node_t *sem_map_get(sem_doc *d, const yaml_node_t *map, const char *key);
/* Item i of a sequence (NULL past the end or when n is no sequence). */
yaml_node_t *sem_seq_item(sem_doc *d, const yaml_node_t *seq, uint32_t i);
uint32_t sem_seq_len(const yaml_node_t *seq);
/* Mapping pair i: *key (scalar text, NULL when not a scalar) and *value. */
bool sem_map_pair(sem_doc *d, const yaml_node_t *map, uint32_t i, const char **key,
                  yaml_node_t **value);

/* The scalar text of n copied into the arena; NULL when n is NULL or not a
 * scalar. */
const char *sem_scalar(sem_doc *d, const yaml_node_t *n);
/* A scalar field of map: absent = *out NULL (FL_OK) or, required, an error;
 * present but not a scalar = an error "file:line: what: 'key' must be text". */
fl_status sem_str(sem_doc *d, const yaml_node_t *map, const char *key, bool required,
                  const char *what, const char **out, fl_error *err);
/* n as JSON text (scalars as strings) in the arena; FL_ELIMIT past depth 16
 * or 64 KiB. */
fl_status sem_doc_json(sem_doc *d, const yaml_node_t *n, const char **out, fl_error *err);

/* "file:line: what: message" */
fl_status sem_doc_error(sem_doc *d, const yaml_node_t *n, fl_error *err, const char *what,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
