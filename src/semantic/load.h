/*
 * load.h - the YAML loader's pieces (internal to src/semantic/): one file's
 * documents are read by load.c, its semantic_models: entries by
 * load_models.c and its metrics: entries by load_metrics.c.
 */
#ifndef FLOE_SEMANTIC_LOAD_H
#define FLOE_SEMANTIC_LOAD_H

#include "semantic/model.h"
#include "semantic/yaml_doc.h"

/* lowercase letter first, then [a-z0-9_], no "__" (the path separator) */
bool sem_name_ok(const char *s);
fl_status sem_read_name(sem_doc *d, const yaml_node_t *map, const char *kind, const char **out,
                        fl_error *err);
fl_status sem_read_about(sem_doc *d, const yaml_node_t *map, const char *what, sem_about *a,
                         fl_error *err);
fl_status sem_read_smodel(sem_doc *d, const yaml_node_t *n, sem_smodel *sm, fl_error *err);
/* One measure mapping (also a latest-spec simple metric: name, agg, expr, ...). */
fl_status sem_read_measure(sem_doc *d, const yaml_node_t *n, const char *smname, void *out,
                           fl_error *err);
/* filter: text, or a list of texts ANDed */
fl_status sem_read_filter(sem_doc *d, const yaml_node_t *map, const char *what, const char **out,
                          fl_error *err);

/* Where the latest spec's `models:` reader puts what it finds (load.c's
 * growing arrays); a returned pointer is valid until the next call. */
typedef struct sem_sink {
    void *ctx;
    sem_smodel *(*new_model)(void *ctx, fl_error *err);
    sem_metric *(*new_metric)(void *ctx, fl_error *err);
} sem_sink;
/* dbt's latest spec: `models:` entries with `semantic_model:` (columns carry
 * entities and dimensions; `metrics:` of type simple become a measure and a
 * metric of the same name). Other models are skipped. */
fl_status sem_read_latest_models(sem_doc *d, const yaml_node_t *seq, const sem_sink *sink,
                                 fl_error *err);
fl_status sem_read_metric(sem_doc *d, const yaml_node_t *n, sem_metric *mt, fl_error *err);
/* One saved_queries: entry (load_saved.c). */
fl_status sem_read_saved(sem_doc *d, const yaml_node_t *n, sem_saved *sq, fl_error *err);

#endif
