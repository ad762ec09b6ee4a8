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
fl_status sem_read_metric(sem_doc *d, const yaml_node_t *n, sem_metric *mt, fl_error *err);

#endif
